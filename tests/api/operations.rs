//! Operations: a table malfunction voiding exactly the hands in its time range (once a second
//! administrator approves), and retries of operations with a request id answering the first
//! result and writing nothing. Refused operations are in `refusals.rs`.

use crate::support::{clients, head, open, opened, play_to_end, replay, wager};
use pitboss::proto;
use pitboss_testkit::server::Server;

#[tokio::test(flavor = "multi_thread")]
async fn a_table_malfunction_voids_exactly_the_hands_in_its_time_range() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let mut hands = Vec::new();
    for i in 0..5 {
        let hand = if i % 2 == 0 {
            play_to_end(&mut c, proto::Game::CaribbeanStud, "T-6", "p").await
        } else {
            opened(
                &mut c,
                open(
                    proto::Game::MississippiStud,
                    "T-6",
                    "p",
                    vec![wager("ante", 500)],
                ),
            )
            .await
        };
        hands.push(hand);
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    // Another table in the same period is not touched.
    let other = play_to_end(&mut c, proto::Game::Nutz, "T-7", "p").await;
    let (from, to) = (hands[1].opened_at_ms, hands[3].opened_at_ms);
    let response = c
        .ops
        .record_table_malfunction(proto::RecordTableMalfunctionRequest {
            table: "T-6".into(),
            from_ms: from,
            to_ms: to,
            reason: "shuffler jam".into(),
            recorded_by: String::new(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(
        response.voided_hand_ids.is_empty(),
        "nothing is voided before a second principal approves"
    );
    let response = c
        .approve(&response.proposal)
        .await
        .expect("approved")
        .table_malfunction
        .expect("the malfunction's result");
    let mut voided = response.voided_hand_ids.clone();
    voided.sort();
    let mut expected: Vec<String> = hands[1..4].iter().map(|h| h.hand_id.clone()).collect();
    expected.sort();
    assert_eq!(voided, expected);
    for (i, hand) in hands.iter().chain([&other]).enumerate() {
        let report = replay(&mut c, &hand.hand_id).await;
        assert!(report.consistent, "{:#?}", report.report);
        let in_range = (1..4).contains(&i);
        assert_eq!(report.status == "voided", in_range, "hand {i}");
        if in_range {
            let void = report.void.as_ref().unwrap();
            assert_eq!(void.kind, "malfunction");
            assert_eq!(void.paid_now, void.total_staked, "refunds equal stakes");
            assert!(report.refunds_equal_stakes);
            assert!(report
                .report
                .iter()
                .any(|l| l.contains("VOID (malfunction)") && l.contains("shuffler jam")));
        }
    }
    // Again: nothing left to void in the range.
    let again = c
        .ops
        .record_table_malfunction(proto::RecordTableMalfunctionRequest {
            table: "T-6".into(),
            from_ms: from,
            to_ms: to,
            reason: "again".into(),
            recorded_by: String::new(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let again = c
        .approve(&again.proposal)
        .await
        .expect("approved")
        .table_malfunction
        .expect("the malfunction's result");
    assert!(again.voided_hand_ids.is_empty());
    assert_eq!(again.skipped_hand_ids.len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn retries_of_operations_with_a_request_id_return_the_first_result() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut c = clients(&server).await;
    let hand = play_to_end(&mut c, proto::Game::Nutz, "T-9", "p").await;
    let request = proto::RecordTableMalfunctionRequest {
        request_id: "op-1".into(),
        table: "T-9".into(),
        from_ms: 0,
        to_ms: u64::MAX / 2,
        reason: "dice cup cracked".into(),
        recorded_by: String::new(),
    };
    let first = c
        .ops
        .record_table_malfunction(request.clone())
        .await
        .unwrap()
        .into_inner();
    let head_after = head(&mut c).await;
    let again = c
        .ops
        .record_table_malfunction(request)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again, first, "the same proposal, not a second one");
    assert_eq!(head(&mut c).await, head_after, "a retry writes nothing");
    let done = c.approve(&first.proposal).await.expect("approved");
    let voided = done.table_malfunction.clone().expect("done");
    assert_eq!(voided.voided_hand_ids, vec![hand.hand_id.clone()]);
    let head_after = head(&mut c).await;
    let again = c.approve(&first.proposal).await.expect("approved");
    assert_eq!(
        again.table_malfunction, done.table_malfunction,
        "the first result, not 'already voided'"
    );
    assert_eq!(head(&mut c).await, head_after, "a retry writes nothing");
    let sweep = proto::RunSweepRequest {
        request_id: "sweep-1".into(),
        as_of_ms: 1,
        recorded_by: String::new(),
    };
    let first = c.ops.run_sweep(sweep.clone()).await.unwrap().into_inner();
    let head_after = head(&mut c).await;
    assert_eq!(c.ops.run_sweep(sweep).await.unwrap().into_inner(), first);
    assert_eq!(head(&mut c).await, head_after);
}
