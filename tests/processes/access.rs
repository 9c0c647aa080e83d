//! Who may do what, against the real server: the role matrix over every RPC, scopes,
//! the two-person rule, the actor in replay, events and bundles, revocation on reload (RPC and
//! SIGHUP), TLS with a client certificate and with a token from Rust and from Python `grpcio`,
//! serving beyond loopback, and the local administrator made on first start.

use std::collections::BTreeMap;

use pitboss::access::{Role, METHODS};
use pitboss::proto;
use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::operations_client::OperationsClient;
use pitboss::proto::play_client::PlayClient;
use pitboss_client::Authorized;
use pitboss_testkit::clients::log_entries;
use pitboss_testkit::server::{
    principal, write_access, Server, ADMIN_TOKEN, ALL_ROLES, SECOND_TOKEN,
};
use prost::Message;
use tonic::Code;
use tonic_types::StatusExt;

/// The token of the principal holding only `role` (unscoped), in the matrix test.
fn role_token(role: Role) -> String {
    format!("tok-{}", role.id())
}

/// Calls `path` with an empty request ([`pitboss_testkit::rpcs::call`]); the answer's code.
async fn call(channel: Authorized, path: &str) -> Code {
    match pitboss_testkit::rpcs::call(channel, path).await {
        Ok(()) => Code::Ok,
        Err(e) => e.code(),
    }
}

/// The matrix as `docs/security.md` prints it: method → roles with a ✓.
fn documented_matrix() -> BTreeMap<String, Vec<String>> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/security.md"))
        .expect("docs/security.md");
    let start = doc
        .find("| RPC | game_client |")
        .expect("the role matrix in docs/security.md");
    let mut matrix = BTreeMap::new();
    let header: Vec<String> = doc[start..]
        .lines()
        .next()
        .unwrap()
        .split('|')
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect();
    for line in doc[start..].lines().skip(2) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let method = cells[1].trim_matches('`').to_string();
        let roles = header[1..]
            .iter()
            .zip(&cells[2..])
            .filter(|(_, cell)| cell.contains('✓'))
            .map(|(role, _)| role.clone())
            .collect();
        matrix.insert(method, roles);
    }
    matrix
}

/// Every RPC against every role: allowed (any answer but `PERMISSION_DENIED` and
/// `UNAUTHENTICATED`), `PERMISSION_DENIED` naming the roles, or `UNAUTHENTICATED` without a
/// credential or with one the server does not know. The same table is the one in
/// `docs/security.md`, and it names every RPC of the services. Health is open; reflection needs a
/// principal.
#[tokio::test(flavor = "multi_thread")]
async fn the_role_matrix_holds_for_every_rpc() {
    // The table names every RPC of the descriptor, once.
    let rpcs: Vec<String> = pitboss_testkit::rpcs::every_rpc().into_iter().collect();
    let mut table: Vec<String> = METHODS.iter().map(|(m, _)| m.to_string()).collect();
    table.sort();
    assert_eq!(table, rpcs, "the role table and the services' RPCs differ");
    assert_eq!(
        ALL_ROLES,
        Role::ALL.map(Role::id),
        "the tests' list of roles"
    );
    // The documented matrix is the enforced one.
    let enforced: BTreeMap<String, Vec<String>> = METHODS
        .iter()
        .map(|(m, roles)| {
            let mut ids: Vec<String> = Role::ALL
                .iter()
                .filter(|r| roles.contains(r))
                .map(|r| r.id().to_string())
                .collect();
            ids.sort();
            (m.trim_start_matches("/pitboss.v1.").to_string(), ids)
        })
        .collect();
    let mut documented = documented_matrix();
    for roles in documented.values_mut() {
        roles.sort();
    }
    assert_eq!(
        documented, enforced,
        "docs/security.md's matrix is not the server's"
    );

    let data = tempfile::tempdir().unwrap();
    let more: String = Role::ALL
        .iter()
        .map(|r| principal(r.id(), &role_token(*r), &[r.id()], None))
        .collect();
    write_access(data.path(), &more);
    let server = Server::start(data.path());
    let anonymous = server.channel_as(None).await;
    let stranger = server.channel_as(Some("pb_not_a_known_token")).await;
    for (method, roles) in METHODS {
        assert_eq!(
            call(anonymous.clone(), method).await,
            Code::Unauthenticated,
            "{method} without a credential"
        );
        assert_eq!(
            call(stranger.clone(), method).await,
            Code::Unauthenticated,
            "{method} with an unknown token"
        );
        for role in Role::ALL {
            let channel = server.channel_as(Some(&role_token(role))).await;
            let code = call(channel, method).await;
            if roles.contains(&role) {
                assert!(
                    !matches!(code, Code::PermissionDenied | Code::Unauthenticated),
                    "{method} as {} answered {code:?}",
                    role.id()
                );
            } else {
                assert_eq!(code, Code::PermissionDenied, "{method} as {}", role.id());
            }
        }
    }
    // The refusal names the roles that may call.
    let mut ops = OperationsClient::new(server.channel_as(Some(&role_token(Role::Lab))).await);
    let e = ops
        .void_hand(proto::VoidHandRequest::default())
        .await
        .unwrap_err();
    let info = e.get_details_error_info().expect("ErrorInfo");
    assert_eq!(info.reason, "ROLE_REQUIRED");
    assert_eq!(info.metadata["principal"], "lab");
    assert_eq!(info.metadata["roles"], "supervisor");
    // Health is open; reflection needs a principal.
    let mut health = tonic_health::pb::health_client::HealthClient::new(anonymous.clone());
    health
        .check(tonic_health::pb::HealthCheckRequest::default())
        .await
        .expect("health without a credential");
    let reflect = |channel| async move {
        use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
        use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
        let request = tonic_reflection::pb::v1::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut client = ServerReflectionClient::new(channel);
        match client
            .server_reflection_info(tokio_stream::iter(vec![request]))
            .await
        {
            Ok(response) => response.into_inner().message().await.map(|m| m.is_some()),
            Err(e) => Err(e),
        }
    };
    assert_eq!(
        reflect(anonymous).await.unwrap_err().code(),
        Code::Unauthenticated
    );
    assert!(
        reflect(server.channel_as(Some(&role_token(Role::Lab))).await)
            .await
            .expect("reflection with a credential")
    );
}

fn nutz(table: &str, request_id: &str) -> proto::OpenHandRequest {
    proto::OpenHandRequest {
        request_id: request_id.into(),
        game: proto::Game::Nutz as i32,
        table: table.into(),
        player: "P".into(),
        wagers: vec![proto::Wager {
            bet: "box_one_pair".into(),
            amount: 500,
        }],
        ..Default::default()
    }
}

/// A whole hand played with the strategy's advice: settled.
async fn settled(play: &mut PlayClient<Authorized>, table: &str) -> proto::HandView {
    play.play_hand(proto::PlayHandRequest {
        open: Some(nutz(table, "")),
        decisions: Vec::new(),
        follow_advice: true,
    })
    .await
    .expect("a hand")
    .into_inner()
    .hand
    .expect("a view")
}

/// The actor of every entry in a bundle, decoded from the signed envelopes it carries.
fn bundle_actors(bundle_json: &str) -> Vec<String> {
    use base64::Engine;
    let bundle: serde_json::Value = serde_json::from_str(bundle_json).unwrap();
    bundle["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let stored = base64::engine::general_purpose::STANDARD
                .decode(e["stored"].as_str().unwrap())
                .unwrap();
            let stored = proto::StoredEntry::decode(stored.as_slice()).unwrap();
            proto::Envelope::decode(stored.envelope.as_slice())
                .unwrap()
                .actor
        })
        .collect()
}

/// A settled hand's void takes two principals: the proposer cannot approve, a principal without
/// the role cannot either, a second supervisor can. The void then names both; every entry names
/// its actor, in the replay, the events and the bundle. A configuration is published only when
/// a second config_admin approves it; a rejected proposal cannot be approved.
#[tokio::test(flavor = "multi_thread")]
async fn a_settled_hands_void_needs_two_principals_and_names_both() {
    let data = tempfile::tempdir().unwrap();
    write_access(
        data.path(),
        &principal("croupier", "tok-croupier", &["game_client"], None),
    );
    let server = Server::start(data.path());
    let admin = server.channel().await;
    let mut play = PlayClient::new(admin.clone());
    let mut ops = OperationsClient::new(admin.clone());
    let mut audit = AuditClient::new(admin.clone());
    let mut second = OperationsClient::new(server.channel_as(Some(SECOND_TOKEN)).await);
    let mut croupier = OperationsClient::new(server.channel_as(Some("tok-croupier")).await);

    let hand = settled(&mut play, "T-two").await;
    assert_eq!(hand.status, "settled");
    let proposed = ops
        .void_hand(proto::VoidHandRequest {
            hand_id: hand.hand_id.clone(),
            kind: "malfunction".into(),
            reason: "shuffler fault".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let proposal = proposed.proposal.expect("a proposal");
    assert_eq!(proposal.state, "pending");
    // A retry with a request id finds the same proposal.
    let with_id = proto::VoidHandRequest {
        request_id: "void-settled-1".into(),
        hand_id: hand.hand_id.clone(),
        kind: "malfunction".into(),
        reason: "retried".into(),
        ..Default::default()
    };
    let first = ops.void_hand(with_id.clone()).await.unwrap().into_inner();
    let again = ops.void_hand(with_id).await.unwrap().into_inner();
    assert_eq!(
        first.proposal, again.proposal,
        "a retry is the same proposal"
    );
    ops.reject_proposal(proto::RejectProposalRequest {
        proposal_id: first.proposal.unwrap().proposal_id,
        reason: "a duplicate".into(),
    })
    .await
    .expect("its proposer may reject it");
    assert_eq!(proposal.proposed_by, "admin");
    assert_eq!(
        proposed.hand.unwrap().status,
        "settled",
        "nothing voided yet"
    );
    let approve = |id: &str| proto::ApproveProposalRequest {
        proposal_id: id.into(),
    };
    let e = ops
        .approve_proposal(approve(&proposal.proposal_id))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    assert_eq!(e.get_details_error_info().unwrap().reason, "OWN_PROPOSAL");
    let e = croupier
        .approve_proposal(approve(&proposal.proposal_id))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let done = second
        .approve_proposal(approve(&proposal.proposal_id))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(done.proposal.as_ref().unwrap().state, "approved");
    assert_eq!(done.proposal.as_ref().unwrap().decided_by, "second");
    let voided = done.void_hand.unwrap().hand.unwrap();
    assert_eq!(voided.status, "voided");
    let void = voided.void.unwrap();
    assert_eq!(
        (void.recorded_by.as_str(), void.approved_by.as_str()),
        ("admin", "second")
    );

    // The actor, in the replay report, the events and the bundle.
    let report = audit
        .replay_hand(proto::ReplayHandRequest {
            hand_id: hand.hand_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(report.consistent, "{:#?}", report.report);
    let actors: Vec<&str> = report.events.iter().map(|e| e.actor.as_str()).collect();
    assert_eq!(actors.first(), Some(&"admin"), "{actors:?}");
    assert_eq!(actors.last(), Some(&"second"), "{actors:?}");
    assert!(report
        .report
        .iter()
        .any(|l| l.contains("recorded by admin, approved by second")));
    let events = hand_events(&mut audit, &hand.hand_id).await;
    assert_eq!(
        events.iter().map(|e| e.actor.as_str()).collect::<Vec<_>>(),
        actors
    );
    let bundle = audit
        .get_hand_bundle(proto::GetHandBundleRequest {
            hand_id: hand.hand_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .bundle_json;
    assert_eq!(bundle_actors(&bundle), actors);

    // A second approval does nothing more and answers the same.
    let again = second
        .approve_proposal(approve(&proposal.proposal_id))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.void_hand.unwrap().hand.unwrap().status, "voided");

    // A configuration: proposed, not playable, approved by another, then published.
    let mut config =
        pitboss_engine::config::GameConfig::default_for(pitboss_engine::game::GameId::Nutz);
    config.name = "nutz, two people".into();
    let json = String::from_utf8(config.canonical_bytes()).unwrap();
    let proposed = ops
        .publish_config(proto::PublishConfigRequest {
            config_json: json.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    async fn listed(ops: &mut OperationsClient<Authorized>) -> Vec<String> {
        ops.list_configs(proto::ListConfigsRequest {
            page_size: 100,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .configs
        .into_iter()
        .map(|c| c.config_id)
        .collect()
    }
    assert!(!listed(&mut ops).await.contains(&proposed.config_id));
    let mut opening = nutz("T-two", "");
    opening.config_id = proposed.config_id.clone();
    assert_eq!(
        play.open_hand(opening.clone()).await.unwrap_err().code(),
        Code::NotFound,
        "a proposed configuration opens no hand"
    );
    let published = second
        .approve_proposal(approve(&proposed.proposal.unwrap().proposal_id))
        .await
        .unwrap()
        .into_inner()
        .publish_config
        .unwrap();
    assert_eq!(published.config_id, proposed.config_id);
    assert!(listed(&mut ops).await.contains(&proposed.config_id));
    play.open_hand(opening)
        .await
        .expect("playable once approved");

    // A table malfunction: rejected, then it cannot be approved.
    let table = ops
        .record_table_malfunction(proto::RecordTableMalfunctionRequest {
            table: "T-two".into(),
            from_ms: 0,
            to_ms: u64::MAX / 2,
            reason: "dealer error".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .proposal
        .unwrap();
    let rejected = second
        .reject_proposal(proto::RejectProposalRequest {
            proposal_id: table.proposal_id.clone(),
            reason: "not a malfunction".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(rejected.state, "rejected");
    let e = second
        .approve_proposal(approve(&table.proposal_id))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    let listed = ops
        .list_proposals(proto::ListProposalsRequest::default())
        .await
        .unwrap()
        .into_inner()
        .proposals;
    assert!(
        listed
            .windows(2)
            .all(|w| w[0].proposed_at_ms >= w[1].proposed_at_ms),
        "newest first"
    );
    let mut states: Vec<&str> = listed.iter().map(|p| p.state.as_str()).collect();
    states.sort_unstable();
    assert_eq!(states, ["approved", "approved", "rejected", "rejected"]);
    assert_eq!(listed[0].proposal_id, table.proposal_id, "the newest");
}

/// A principal scoped to table A: plays and reads A, is refused B (naming the field), and a
/// player's recall shows it only A's hands. A scoped supervisor cannot sweep the whole floor.
/// Seeds stay hidden until the hand ends, whoever asks.
#[tokio::test(flavor = "multi_thread")]
async fn a_token_for_table_a_is_refused_on_table_b() {
    let data = tempfile::tempdir().unwrap();
    write_access(
        data.path(),
        &(principal("table-a", "tok-a", &["game_client"], Some(&["A"]))
            + &principal("floor-a", "tok-floor-a", &["supervisor"], Some(&["A"]))
            + &principal("regulator", "tok-reg", &["regulator"], None)
            + "[[principal]]\nid = \"nutz-only\"\ntoken_sha256 = \""
            + &hex::encode(pitboss::access::token_sha256("tok-nutz"))
            + "\"\nroles = [\"supervisor\", \"config_admin\"]\ngames = [\"nutz\"]\n"),
    );
    let server = Server::start(data.path());
    let mut admin = PlayClient::new(server.channel().await);
    let on_b = admin.open_hand(nutz("B", "")).await.unwrap().into_inner();
    let on_b = on_b.hand.unwrap().hand_id;
    let mut a = PlayClient::new(server.channel_as(Some("tok-a")).await);
    let opened = a.open_hand(nutz("A", "")).await.unwrap().into_inner();
    let on_a = opened.hand.unwrap();
    let e = a.open_hand(nutz("B", "")).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let info = e.get_details_error_info().unwrap();
    assert_eq!(
        (info.reason.as_str(), info.metadata["field"].as_str()),
        ("OUT_OF_SCOPE", "table")
    );
    let e = a
        .get_hand(proto::GetHandRequest {
            hand_id: on_b.clone(),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let e = a
        .act(proto::ActRequest {
            hand_id: on_b.clone(),
            action: Some(proto::Action {
                kind: "shake".into(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let e = a
        .play_hand(proto::PlayHandRequest {
            open: Some(nutz("B", "")),
            decisions: Vec::new(),
            follow_advice: true,
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // Recall by player: only the hands of the tables it reaches.
    let mut recall = AuditClient::new(server.channel_as(Some("tok-a")).await);
    let hands = recall
        .list_hands(proto::ListHandsRequest {
            player: "P".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .hands;
    assert_eq!(
        hands.iter().map(|h| h.hand_id.as_str()).collect::<Vec<_>>(),
        [on_a.hand_id.as_str()]
    );
    let e = recall
        .list_hands(proto::ListHandsRequest {
            table: "B".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // Rounds: table A's game client opens and plays A's, and reaches none of B's.
    let round_on = |table: &str| proto::OpenRoundRequest {
        game: proto::Game::Nutz as i32,
        table: table.into(),
        dealer: "d".into(),
        shape: "one_shake".into(),
        max_players: 10,
        decision_window_ms: 60_000,
        ..Default::default()
    };
    let round_b = admin
        .open_round(round_on("B"))
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap()
        .round_id;
    let round_a = a
        .open_round(round_on("A"))
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap()
        .round_id;
    let e = a.open_round(round_on("B")).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let bet = |round: &str| proto::RoundCommandRequest {
        request_id: String::new(),
        round_id: round.into(),
        command: Some(proto::round_command_request::Command::Bet(
            proto::RoundBetCommand {
                player_seed: Vec::new(),
                player: "P".into(),
                seat: 0,
                wagers: vec![proto::Wager {
                    bet: "box_one_pair".into(),
                    amount: 100,
                }],
            },
        )),
    };
    a.round_command(bet(&round_a))
        .await
        .expect("its own table's round");
    let e = a.round_command(bet(&round_b)).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let e = a
        .get_round(proto::GetRoundRequest {
            round_id: round_b.clone(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    // A supervisor of A: not B's hands, not the whole floor.
    let mut floor_a = OperationsClient::new(server.channel_as(Some("tok-floor-a")).await);
    let e = floor_a
        .void_round(proto::VoidRoundRequest {
            round_id: round_b.clone(),
            kind: "malfunction".into(),
            reason: "r".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let e = floor_a
        .void_hand(proto::VoidHandRequest {
            hand_id: on_b.clone(),
            kind: "malfunction".into(),
            reason: "r".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    let e = floor_a
        .run_sweep(proto::RunSweepRequest::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied);
    // Scoped to one game: no malfunction (it voids every game at a table), no other game's
    // configuration.
    let mut nutz_only = OperationsClient::new(server.channel_as(Some("tok-nutz")).await);
    let e = nutz_only
        .record_table_malfunction(proto::RecordTableMalfunctionRequest {
            table: "A".into(),
            from_ms: 0,
            to_ms: 1,
            reason: "r".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    let stud = pitboss_engine::config::GameConfig::default_for(
        pitboss_engine::game::GameId::MississippiStud,
    );
    let e = nutz_only
        .publish_config(proto::PublishConfigRequest {
            config_json: String::from_utf8(stud.canonical_bytes()).unwrap(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    // The seed of a hand in progress is hidden from everyone, a regulator included.
    let mut regulator = PlayClient::new(server.channel_as(Some("tok-reg")).await);
    let view = regulator
        .get_hand(proto::GetHandRequest {
            hand_id: on_a.hand_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .hand
        .unwrap();
    assert_eq!(view.status, "in_progress");
    assert!(view.seed.is_empty(), "a seed shown before the hand ended");
}

/// A hand's entries.
async fn hand_events(
    audit: &mut AuditClient<Authorized>,
    hand_id: &str,
) -> Vec<proto::LoggedEvent> {
    audit
        .get_hand_events(proto::GetHandEventsRequest {
            hand_id: hand_id.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .events
}

/// A credential removed from the access file is refused from the next call, whether the file is
/// reloaded by the ReloadAccess RPC or by SIGHUP; each change is an event naming who made it. The
/// key_admin rotates the signing key while serving, and the rotation names it.
#[tokio::test(flavor = "multi_thread")]
async fn a_revoked_token_is_refused_at_once() {
    let data = tempfile::tempdir().unwrap();
    let temp = principal("temp", "tok-temp", &["regulator"], None);
    write_access(data.path(), &temp);
    let server = Server::start(data.path());
    let mut temp_audit = AuditClient::new(server.channel_as(Some("tok-temp")).await);
    temp_audit
        .verify_log(proto::VerifyLogRequest::default())
        .await
        .expect("a known token");
    write_access(data.path(), "");
    let mut ops = OperationsClient::new(server.channel().await);
    let change = ops
        .reload_access(proto::ReloadAccessRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(change.removed, ["temp"]);
    let e = temp_audit
        .verify_log(proto::VerifyLogRequest::default())
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    // A file with a mistake changes nothing and says why.
    std::fs::write(
        data.path().join("access.toml"),
        "[[principal]]\nid = \"x\"\n",
    )
    .unwrap();
    let e = ops
        .reload_access(proto::ReloadAccessRequest {})
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    ops.list_configs(proto::ListConfigsRequest::default())
        .await
        .expect("the access in force is unchanged");
    // SIGHUP: the principal is back.
    write_access(data.path(), &temp);
    // SAFETY: sends a signal to the server this test started.
    unsafe {
        libc::kill(server.pid() as libc::pid_t, libc::SIGHUP);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while temp_audit
        .verify_log(proto::VerifyLogRequest::default())
        .await
        .is_err()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "SIGHUP did not reload"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // The key_admin rotates the signing key while serving; the rotation names it.
    let e = ops
        .rotate_signing_key(proto::RotateSigningKeyRequest {
            expected_key_id: "00".repeat(16),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    let rotated = ops
        .rotate_signing_key(proto::RotateSigningKeyRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_ne!(rotated.old_key_id, rotated.new_key_id);
    let mut audit = AuditClient::new(server.channel().await);
    let verified = audit
        .verify_log(proto::VerifyLogRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(verified.ok, "{verified:?}");
    let rotations: Vec<String> = log_entries(&mut audit)
        .await
        .into_iter()
        .filter(|e| {
            matches!(
                e.payload.as_ref().and_then(|p| p.kind.as_ref()),
                Some(proto::payload::Kind::KeyRotated(_))
            )
        })
        .map(|e| e.actor)
        .collect();
    assert_eq!(rotations, ["admin"]);
    let changes: Vec<(String, proto::AccessChanged)> = log_entries(&mut audit)
        .await
        .into_iter()
        .filter_map(|e| match e.payload.and_then(|p| p.kind) {
            Some(proto::payload::Kind::AccessChanged(a)) => Some((e.actor, a)),
            _ => None,
        })
        .collect();
    let summary: Vec<(&str, &str, Vec<String>, Vec<String>)> = changes
        .iter()
        .map(|(actor, a)| {
            (
                actor.as_str(),
                a.how.as_str(),
                a.added.clone(),
                a.removed.clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "pitboss",
                "start",
                vec!["admin".to_string(), "second".into(), "temp".into()],
                vec![]
            ),
            ("admin", "rpc", vec![], vec!["temp".to_string()]),
            ("local:signal", "signal", vec!["temp".to_string()], vec![]),
        ]
    );
}

/// Certificates for a test: a CA, the server's (localhost, 127.0.0.1), and a client's whose
/// subject is `CN=table-7`. Written as PEM files into `dir`.
struct Pki {
    ca: std::path::PathBuf,
    server_cert: std::path::PathBuf,
    server_key: std::path::PathBuf,
    client_cert: std::path::PathBuf,
    client_key: std::path::PathBuf,
}

fn pki(dir: &std::path::Path) -> Pki {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "pitboss test CA");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let server_key = KeyPair::generate().unwrap();
    let server_params =
        CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
    let server_cert = server_params.signed_by(&server_key, &issuer).unwrap();
    let client_key = KeyPair::generate().unwrap();
    let mut client_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    client_params
        .distinguished_name
        .push(DnType::CommonName, "table-7");
    let client_cert = client_params.signed_by(&client_key, &issuer).unwrap();
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    Pki {
        ca: write("ca.pem", ca_cert.pem()),
        server_cert: write("server.pem", server_cert.pem()),
        server_key: write("server.key", server_key.serialize_pem()),
        client_cert: write("client.pem", client_cert.pem()),
        client_key: write("client.key", client_key.serialize_pem()),
    }
}

/// TLS: the server presents its certificate; a client authenticates by its certificate (the
/// subject names the principal, scoped to table T7) or by a token; from Rust and from Python
/// grpcio. Plain HTTP/2 to a TLS server gets nowhere.
#[tokio::test(flavor = "multi_thread")]
async fn tls_with_a_client_certificate_or_a_token_from_rust_and_python() {
    let data = tempfile::tempdir().unwrap();
    let certs = tempfile::tempdir().unwrap();
    let pki = pki(certs.path());
    let table_7 = "[[principal]]\nid = \"table-7\"\ncertificate_subject = \"CN=table-7\"\n\
                   roles = [\"game_client\"]\ntables = [\"T7\"]\n";
    write_access(data.path(), table_7);
    let server = Server::start_with(
        data.path(),
        &[
            "--tls-cert",
            pki.server_cert.to_str().unwrap(),
            "--tls-key",
            pki.server_key.to_str().unwrap(),
            "--client-ca",
            pki.ca.to_str().unwrap(),
        ],
    );
    let https = server.address.replace("http://", "https://");
    let ca = tonic::transport::Certificate::from_pem(std::fs::read(&pki.ca).unwrap());
    let endpoint = |identity: Option<tonic::transport::Identity>| {
        let mut tls = tonic::transport::ClientTlsConfig::new()
            .ca_certificate(ca.clone())
            .domain_name("localhost");
        if let Some(identity) = identity {
            tls = tls.identity(identity);
        }
        tonic::transport::Channel::from_shared(https.clone())
            .unwrap()
            .tls_config(tls)
            .unwrap()
    };
    // By certificate.
    let identity = tonic::transport::Identity::from_pem(
        std::fs::read(&pki.client_cert).unwrap(),
        std::fs::read(&pki.client_key).unwrap(),
    );
    let channel = endpoint(Some(identity))
        .connect()
        .await
        .expect("mutual TLS");
    let mut play = PlayClient::new(pitboss_client::authorized(channel, None).unwrap());
    let hand = play
        .open_hand(nutz("T7", ""))
        .await
        .expect("the certificate's principal plays its table")
        .into_inner()
        .hand
        .unwrap();
    let e = play.open_hand(nutz("T8", "")).await.unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    // By token, over TLS without a client certificate.
    let channel = endpoint(None).connect().await.expect("TLS");
    let admin = pitboss_client::authorized(channel, Some(ADMIN_TOKEN)).unwrap();
    let mut audit = AuditClient::new(admin.clone());
    let events = hand_events(&mut audit, &hand.hand_id).await;
    assert_eq!(
        events[0].actor, "table-7",
        "the certificate's principal is the actor"
    );
    // No credential over TLS: refused.
    let channel = endpoint(None).connect().await.unwrap();
    let mut anonymous = PlayClient::new(pitboss_client::authorized(channel, None).unwrap());
    assert_eq!(
        anonymous
            .open_hand(nutz("T7", ""))
            .await
            .unwrap_err()
            .code(),
        Code::Unauthenticated
    );
    // Plain HTTP/2 to the TLS port: no call gets through.
    if let Ok(channel) = tonic::transport::Channel::from_shared(server.address.clone())
        .unwrap()
        .connect()
        .await
    {
        let mut plain =
            PlayClient::new(pitboss_client::authorized(channel, Some(ADMIN_TOKEN)).unwrap());
        assert!(plain.open_hand(nutz("T7", "")).await.is_err());
    }

    // The same from Python grpcio: token and certificate, refusals with their codes.
    let out = std::process::Command::new(pitboss_testkit::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/python/access_client.py"
        ))
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/proto"))
        .arg(https.trim_start_matches("https://"))
        .arg(&pki.ca)
        .arg(ADMIN_TOKEN)
        .arg(&pki.client_cert)
        .arg(&pki.client_key)
        .output()
        .expect("run python");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: serde_json::Value = serde_json::from_str(stdout.trim()).expect("JSON");
    assert_eq!(result["token"]["code"], "OK", "{result}");
    assert_eq!(
        result["token_actors"],
        serde_json::json!(["admin"]),
        "{result}"
    );
    assert_eq!(
        result["no_credential"]["code"], "UNAUTHENTICATED",
        "{result}"
    );
    assert_eq!(result["wrong_token"]["code"], "UNAUTHENTICATED", "{result}");
    assert_eq!(result["certificate"]["code"], "OK", "{result}");
    assert_eq!(
        result["certificate_other_table"]["code"], "PERMISSION_DENIED",
        "{result}"
    );
}

/// Beyond loopback without TLS the server refuses to start, unless told; told, it records the
/// choice in the log.
#[tokio::test(flavor = "multi_thread")]
async fn serving_beyond_loopback_without_tls_is_refused_unless_told_and_then_recorded() {
    let data = tempfile::tempdir().unwrap();
    write_access(data.path(), "");
    let refused = Server::refuses_with(data.path(), &["--listen", "0.0.0.0:0"]);
    assert!(refused.contains("without TLS"), "{refused}");
    let mut server =
        Server::start_with(data.path(), &["--listen", "0.0.0.0:0", "--insecure-no-tls"]);
    let port = server.address.rsplit(':').next().unwrap().to_string();
    server.address = format!("http://127.0.0.1:{port}");
    let mut audit = AuditClient::new(server.channel().await);
    let recorded = log_entries(&mut audit).await.into_iter().any(|e| {
        matches!(
            e.payload.and_then(|p| p.kind),
            Some(proto::payload::Kind::InsecureTransport(t)) if t.address.starts_with("0.0.0.0:")
        )
    });
    assert!(recorded, "the insecure start is not in the log");
}

/// The first start on loopback with an empty data directory makes the local administrator: a
/// token file only its owner reads, an access file holding its hash; the client commands find it
/// from the data directory, and without it are refused.
#[test]
fn the_first_start_makes_a_local_administrator_the_cli_finds() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("pitboss-data");
    let server = Server::start_bare(&data);
    let token = std::fs::read_to_string(data.join("admin.token")).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data.join("admin.token"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let access = std::fs::read_to_string(data.join("access.toml")).unwrap();
    assert!(
        !access.contains(token.trim()),
        "the token itself in the access file"
    );
    assert!(access.contains(&hex::encode(pitboss::access::token_sha256(token.trim()))));
    let cli = |cwd: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .args(["hands", "--table", "T", "--server", &server.address])
            .current_dir(cwd)
            .env_remove("PITBOSS_TOKEN")
            .env_remove("PITBOSS_TOKEN_FILE")
            .output()
            .unwrap()
    };
    // From the directory that holds ./pitboss-data, as after `scripts/serve`.
    let found = cli(dir.path());
    assert!(
        found.status.success(),
        "{}",
        String::from_utf8_lossy(&found.stderr)
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let refused = cli(elsewhere.path());
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("Unauthenticated"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}
