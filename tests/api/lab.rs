//! The Lab service over gRPC: the four games' PAR sheets (kept once computed), a simulation with
//! its chi-square, raw RNG words and shuffles streamed, and bad requests refused by field.

use pitboss::proto;
use pitboss::proto::lab_client::LabClient;
use pitboss_testkit::server::Server;
use tokio_stream::StreamExt;
use tonic::Code;

/// The four games' PAR sheets; a second request is answered from the cache.
#[tokio::test(flavor = "multi_thread")]
async fn the_lab_serves_par_sheets_and_keeps_them_once_computed() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut lab = LabClient::new(server.channel().await);
    let sheets = |game: proto::Game| proto::GetParSheetsRequest {
        game: game as i32,
        ..Default::default()
    };
    let ms = lab
        .get_par_sheets(sheets(proto::Game::MississippiStud))
        .await
        .unwrap()
        .into_inner();
    let returns: Vec<(String, f64)> = ms
        .sheets
        .iter()
        .map(|s| (s.title.clone(), (s.r#return * 10_000.0).round() / 100.0))
        .collect();
    assert_eq!(
        returns,
        vec![
            (
                "mississippi_stud / ante and street bets, optimal strategy".to_string(),
                98.63
            ),
            ("mississippi_stud / bonus".to_string(), 97.86)
        ]
    );
    let again = lab
        .get_par_sheets(sheets(proto::Game::MississippiStud))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.sheets, ms.sheets, "the same sheets, from the cache");
    assert!(again.seconds < 0.1, "cached: {} s", again.seconds);
    let caribbean = lab
        .get_par_sheets(sheets(proto::Game::CaribbeanStud))
        .await
        .unwrap()
        .into_inner();
    assert!((caribbean.sheets[0].house_edge - 0.05224).abs() < 0.00001);
    let nutz = lab
        .get_par_sheets(sheets(proto::Game::Nutz))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(nutz.sheets.len(), 7);
    let fortune = lab
        .get_par_sheets(proto::GetParSheetsRequest {
            game: proto::Game::FortunePaiGow as i32,
            main_bet_rounds: 100_000,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (fortune.sheets[0].r#return * 10_000.0).round() / 100.0,
        92.23
    );
    let main = fortune.main_bet.expect("the main bet simulated");
    assert_eq!(main.rounds, 100_000);
    assert!(main.interval_low < main.r#return && main.r#return < main.interval_high);
}

/// A simulation: its hands tallied, its seed echoed, and a chi-square against the exact sheet.
#[tokio::test(flavor = "multi_thread")]
async fn the_lab_simulates_with_a_chi_square_against_the_exact_sheet() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut lab = LabClient::new(server.channel().await);
    let sim = lab
        .simulate(proto::SimulateRequest {
            game: proto::Game::CaribbeanStud as i32,
            hands: 5_000,
            strategy: proto::Strategy::Optimal as i32,
            seed: vec![3; 32],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(sim.hands, 5_000);
    assert_eq!(sim.seed, vec![3; 32]);
    let main = &sim.groups[0];
    assert_eq!(main.rows.iter().map(|r| r.hits).sum::<u64>(), 5_000);
    let chi = main
        .chi_square
        .as_ref()
        .expect("chi-square against the exact sheet");
    assert!(
        chi.unknown_rows.is_empty() && chi.p_value > 0.0001,
        "{chi:?}"
    );
}

/// Raw RNG words (balanced bits) and shuffles (permutations), streamed.
#[tokio::test(flavor = "multi_thread")]
async fn the_lab_streams_rng_words_and_shuffles() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut lab = LabClient::new(server.channel().await);
    let mut words = lab
        .stream_rng_words(proto::StreamRngWordsRequest {
            words: 50_000,
            words_per_seed: 100,
        })
        .await
        .unwrap()
        .into_inner();
    let mut bytes = Vec::new();
    while let Some(chunk) = words.next().await {
        bytes.extend(chunk.unwrap().data);
    }
    assert_eq!(bytes.len(), 200_000);
    let ones: u32 = bytes.iter().map(|b| b.count_ones()).sum();
    // 1.6 million bits: the share of ones within 5 standard deviations (0.2 %) of a half.
    assert!(
        (ones as f64 / 1_600_000.0 - 0.5).abs() < 0.002,
        "{ones} ones"
    );

    let mut shuffles = lab
        .stream_shuffles(proto::StreamShufflesRequest {
            shuffles: 2_500,
            deck: proto::DeckKind::WithJoker53 as i32,
        })
        .await
        .unwrap()
        .into_inner();
    let mut decks = 0;
    while let Some(samples) = shuffles.next().await {
        let samples = samples.unwrap();
        assert_eq!(samples.deck_size, 53);
        for deck in samples.cards.chunks(53) {
            let mut sorted = deck.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..53).collect::<Vec<u8>>(), "a permutation");
            decks += 1;
        }
    }
    assert_eq!(decks, 2_500);
}

/// Bad requests to the Lab, refused by field.
#[tokio::test(flavor = "multi_thread")]
async fn the_lab_refuses_bad_requests_by_field() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::in_process(data.path());
    let mut lab = LabClient::new(server.channel().await);
    let refused = |r: Result<tonic::Response<proto::SimulateResponse>, tonic::Status>| {
        r.expect_err("refused")
    };
    let e = refused(
        lab.simulate(proto::SimulateRequest {
            game: proto::Game::Nutz as i32,
            hands: 0,
            ..Default::default()
        })
        .await,
    );
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("hands:"), "{}", e.message());
    let e = refused(
        lab.simulate(proto::SimulateRequest {
            game: proto::Game::Nutz as i32,
            hands: 10,
            strategy: proto::Strategy::Always as i32,
            ..Default::default()
        })
        .await,
    );
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().starts_with("strategy:"), "{}", e.message());
    let e = refused(
        lab.simulate(proto::SimulateRequest {
            game: proto::Game::Nutz as i32,
            hands: 10,
            config_id: "ab".repeat(32),
            ..Default::default()
        })
        .await,
    );
    assert_eq!(e.code(), Code::NotFound);
    let e = lab
        .get_par_sheets(proto::GetParSheetsRequest {
            game: proto::Game::Nutz as i32,
            main_bet_rounds: 10,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert_eq!(
        pitboss_testkit::refusal::field(&e).as_deref(),
        Some("main_bet_rounds")
    );
    let e = lab
        .stream_rng_words(proto::StreamRngWordsRequest {
            words: 0,
            words_per_seed: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
}
