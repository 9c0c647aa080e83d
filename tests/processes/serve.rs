//! `pitboss serve` as in production: the real binary on a loopback port with its own data
//! directory, driven by a real gRPC client (health, reflection-independent typed calls, errors).

use pitboss::proto::audit_client::AuditClient;
use pitboss::proto::{DeriveDealRequest, Game};
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::HealthCheckRequest;
use tonic_types::StatusExt;

use pitboss_testkit::server::Server;

/// A server on a fresh data directory (kept alive with the server).
struct Running {
    server: Server,
    _data: tempfile::TempDir,
}

impl std::ops::Deref for Running {
    type Target = Server;
    fn deref(&self) -> &Server {
        &self.server
    }
}

fn start_server() -> Running {
    let data = tempfile::tempdir().expect("temp dir");
    Running {
        server: Server::start(&data.path().join("db")),
        _data: data,
    }
}

async fn channel(address: String) -> pitboss_client::Authorized {
    let channel = tonic::transport::Channel::from_shared(address)
        .expect("uri")
        .connect()
        .await
        .expect("connect");
    pitboss_client::authorized(channel, Some(pitboss_testkit::server::ADMIN_TOKEN)).expect("token")
}

#[tokio::test(flavor = "multi_thread")]
async fn serves_health_and_derives_deals_over_grpc() {
    let server = start_server();
    let mut health = HealthClient::new(channel(server.address.clone()).await);
    let status = health
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("health check")
        .into_inner()
        .status;
    assert_eq!(status, ServingStatus::Serving as i32);
    let status = health
        .check(HealthCheckRequest {
            service: "pitboss.v1.Audit".into(),
        })
        .await
        .expect("health check of the Audit service")
        .into_inner()
        .status;
    assert_eq!(status, ServingStatus::Serving as i32);

    let mut audit = AuditClient::new(channel(server.address.clone()).await);
    let seed: Vec<u8> = (0..32).collect();
    let reply = audit
        .derive_deal(DeriveDealRequest {
            game: Game::FortunePaiGow as i32,
            seed: seed.clone(),
            seats: 0,
        })
        .await
        .expect("derive deal")
        .into_inner();
    let local = pitboss_engine::deal::derive(
        pitboss_engine::game::GameId::FortunePaiGow,
        &pitboss_engine::rng::Seed::from_slice(&seed).unwrap(),
    );
    assert_eq!(reply.commitment, local.commitment.to_string());
    assert_eq!(reply.deck.len(), 53);
    assert_eq!(reply.deck[0], local.deck[0].to_string());
    assert_eq!(reply.seats.len(), 2);
    assert_eq!(reply.seats[1].name, "dealer");
    assert_eq!(reply.seats[1].deck_positions, (7..14).collect::<Vec<u32>>());
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_are_invalid_argument_naming_the_field() {
    let server = start_server();
    let mut audit = AuditClient::new(channel(server.address.clone()).await);
    for (request, field, words) in [
        (
            DeriveDealRequest {
                game: Game::Nutz as i32,
                seed: vec![1; 31],
                seats: 0,
            },
            "seed",
            "32 bytes",
        ),
        (
            DeriveDealRequest {
                game: Game::Unspecified as i32,
                seed: vec![1; 32],
                seats: 0,
            },
            "game",
            "required",
        ),
        (
            DeriveDealRequest {
                game: 99,
                seed: vec![1; 32],
                seats: 0,
            },
            "game",
            "99",
        ),
    ] {
        let status = audit
            .derive_deal(request)
            .await
            .expect_err("must be refused");
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.message().contains(words), "{}", status.message());
        let details = status.get_error_details();
        let violations = &details
            .bad_request()
            .expect("BadRequest details")
            .field_violations;
        assert_eq!(violations.len(), 1);
        assert_eq!(violations[0].field, field);
    }
}

/// Lists services through one reflection protocol version; a macro because v1 and v1alpha are
/// distinct generated types with the same shape.
macro_rules! list_services {
    ($version:ident, $address:expr) => {{
        use tonic_reflection::pb::$version::server_reflection_client::ServerReflectionClient;
        use tonic_reflection::pb::$version::server_reflection_request::MessageRequest;
        use tonic_reflection::pb::$version::server_reflection_response::MessageResponse;
        use tonic_reflection::pb::$version::ServerReflectionRequest;
        let mut client = ServerReflectionClient::new(channel($address).await);
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut responses = client
            .server_reflection_info(tokio_stream::iter(vec![request]))
            .await
            .expect("reflection call")
            .into_inner();
        let response = responses
            .message()
            .await
            .expect("reflection reply")
            .expect("one reply");
        match response.message_response {
            Some(MessageResponse::ListServicesResponse(list)) => {
                list.service.into_iter().map(|s| s.name).collect::<Vec<_>>()
            }
            other => panic!("unexpected reflection reply {other:?}"),
        }
    }};
}

#[tokio::test(flavor = "multi_thread")]
async fn reflection_v1_and_v1alpha_list_every_service() {
    let server = start_server();
    for services in [
        list_services!(v1, server.address.clone()),
        list_services!(v1alpha, server.address.clone()),
    ] {
        for expected in [
            "pitboss.v1.Audit",
            "pitboss.v1.Play",
            "pitboss.v1.Operations",
            "pitboss.v1.Lab",
            "grpc.health.v1.Health",
        ] {
            assert!(
                services.iter().any(|s| s == expected),
                "{expected} missing from {services:?}"
            );
        }
    }
}

/// `serve --config pitboss.toml`: the file's data directory (relative to the file) and address are
/// used, a flag overrides its key, and a file with an unknown key is refused naming it before
/// anything starts.
#[test]
fn a_settings_file_is_used_and_flags_override_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("pitboss.toml");
    std::fs::write(&config, "data = \"from-file\"\nlisten = \"127.0.0.1:0\"\n").unwrap();
    let ready = |extra: &[&str]| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pitboss"))
            .args(["serve", "--config"])
            .arg(&config)
            .args(extra)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let line = pitboss_testkit::server::ready_line(&mut child);
        let _ = child.kill();
        let _ = child.wait();
        serde_json::from_str::<serde_json::Value>(&line).expect(&line)
    };
    let from_file = ready(&[]);
    assert_eq!(
        from_file["data"].as_str().unwrap(),
        dir.path().join("from-file").to_str().unwrap()
    );
    assert!(dir.path().join("from-file").join("anchor").exists());
    let port = from_file["listening"].as_str().unwrap();
    assert!(
        port.starts_with("127.0.0.1:") && !port.ends_with(":0"),
        "{port}"
    );
    let flag = dir.path().join("from-flag");
    let overridden = ready(&["--data", flag.to_str().unwrap()]);
    assert_eq!(overridden["data"].as_str().unwrap(), flag.to_str().unwrap());

    std::fs::write(&config, "lisen = \"127.0.0.1:0\"\n").unwrap();
    let reason = Server::refuses_with(
        &dir.path().join("unused"),
        &[
            "--config",
            config.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ],
    );
    assert!(reason.contains("lisen"), "{reason}");
    assert!(!dir.path().join("unused").exists(), "nothing started");
}
