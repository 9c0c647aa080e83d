//! Clients playing interactive Mississippi Stud hands against real servers, a request id on every
//! call, keeping what was acknowledged; and the check that everything acknowledged is in the log
//! and that every request id retried is answered as the first time, writing nothing. For the tests
//! of several servers on one database and of a database failover.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pitboss::proto;
use pitboss::proto::play_client::PlayClient;
use pitboss_client::Authorized;

/// One acknowledged call: its request id, the hand, and the version it was acknowledged at.
#[derive(Clone, Debug)]
pub struct Acknowledged {
    pub request_id: String,
    pub hand_id: String,
    pub version: u64,
    /// The call (to send it again).
    pub call: Call,
}

/// A call as sent.
#[derive(Clone, Debug)]
pub enum Call {
    Open(proto::OpenHandRequest),
    Act(proto::ActRequest),
}

/// An opening of client `client`'s hand with `request_id`.
pub fn open(request_id: String, client: usize) -> proto::OpenHandRequest {
    proto::OpenHandRequest {
        request_id,
        game: proto::Game::MississippiStud as i32,
        table: format!("load-{}", client % 4),
        player: format!("load-player-{client}"),
        wagers: vec![proto::Wager {
            bet: "ante".into(),
            amount: 500,
        }],
        ..Default::default()
    }
}

/// A whole hand of `game` at `table` for `player`, one wager of `amount` on `bet`, played by the
/// strategy's advice in one `PlayHand` call.
pub fn advised_hand(
    game: proto::Game,
    table: &str,
    player: &str,
    bet: &str,
    amount: u64,
) -> proto::PlayHandRequest {
    proto::PlayHandRequest {
        open: Some(proto::OpenHandRequest {
            game: game as i32,
            table: table.into(),
            player: player.into(),
            wagers: vec![proto::Wager {
                bet: bet.into(),
                amount,
            }],
            ..Default::default()
        }),
        decisions: Vec::new(),
        follow_advice: true,
    }
}

/// A whole Nutz hand at `table` for `player`, 100 on the box `bet`, played by the strategy's
/// advice in one `PlayHand` call.
pub fn nutz_hand(table: &str, player: &str, bet: &str) -> proto::PlayHandRequest {
    advised_hand(proto::Game::Nutz, table, player, bet, 100)
}

/// A street bet of 1× on `hand_id`.
pub fn act(request_id: String, hand_id: &str) -> proto::ActRequest {
    proto::ActRequest {
        request_id,
        hand_id: hand_id.to_string(),
        action: Some(proto::Action {
            kind: "bet".into(),
            multiple: 1,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A channel to `server` as the test administrator.
pub async fn channel(server: &str) -> Option<Authorized> {
    let channel = tonic::transport::Channel::from_shared(server.to_string())
        .ok()?
        .connect()
        .await
        .ok()?;
    pitboss_client::authorized(channel, Some(super::server::ADMIN_TOKEN)).ok()
}

/// Sends `call` once.
pub async fn send(
    play: &mut PlayClient<Authorized>,
    call: &Call,
) -> Result<proto::HandResponse, tonic::Status> {
    match call {
        Call::Open(request) => play.open_hand(request.clone()).await,
        Call::Act(request) => play.act(request.clone()).await,
    }
    .map(tonic::Response::into_inner)
}

/// How a client meets a call that fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnError {
    /// It stops (its server is gone for good).
    Stop,
    /// It sends the same call again, same request id, every 50 ms until it is answered or told
    /// to stop (its server's database is failing over).
    Retry,
}

/// Client `client` plays hands on `server` until `stop`; every acknowledged call counted in
/// `counter` and returned.
pub async fn play(
    server: String,
    client: usize,
    stop: Arc<AtomicBool>,
    counter: Arc<AtomicUsize>,
    on_error: OnError,
) -> Vec<Acknowledged> {
    let mut acknowledged = Vec::new();
    let Some(channel) = channel(&server).await else {
        return acknowledged;
    };
    let mut play = PlayClient::new(channel);
    let mut n = 0;
    'hands: while !stop.load(Ordering::Relaxed) {
        let id = format!("c{client}-h{n}");
        n += 1;
        let mut hand_id = String::new();
        for step in 0..4 {
            let request_id = format!("{id}-{step}");
            let call = if step == 0 {
                Call::Open(open(request_id.clone(), client))
            } else {
                Call::Act(act(request_id.clone(), &hand_id))
            };
            let answer = loop {
                match send(&mut play, &call).await {
                    Ok(answer) => break answer,
                    Err(_) if on_error == OnError::Retry && !stop.load(Ordering::Relaxed) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    Err(_) => break 'hands,
                }
            };
            let view = answer.hand.unwrap_or_default();
            hand_id = view.hand_id.clone();
            counter.fetch_add(1, Ordering::Relaxed);
            acknowledged.push(Acknowledged {
                request_id,
                hand_id: view.hand_id,
                version: view.version,
                call,
            });
        }
    }
    acknowledged
}

/// Clients playing on one server ([`play`]) until told to stop.
pub struct Clients {
    tasks: Vec<tokio::task::JoinHandle<Vec<Acknowledged>>>,
    stop: Arc<AtomicBool>,
    /// Calls acknowledged so far, all clients together.
    pub acked: Arc<AtomicUsize>,
}

impl Clients {
    /// Clients numbered `clients` playing on `server`, each meeting a failed call by `on_error`.
    pub fn start(server: &str, clients: std::ops::Range<usize>, on_error: OnError) -> Clients {
        let stop = Arc::new(AtomicBool::new(false));
        let acked = Arc::new(AtomicUsize::new(0));
        let tasks = clients
            .map(|client| {
                tokio::spawn(play(
                    server.to_string(),
                    client,
                    stop.clone(),
                    acked.clone(),
                    on_error,
                ))
            })
            .collect();
        Clients { tasks, stop, acked }
    }

    /// Stops the clients; every call they had acknowledged.
    pub async fn stop(self) -> Vec<Acknowledged> {
        self.stop.store(true, Ordering::Relaxed);
        let mut acknowledged = Vec::new();
        for task in self.tasks {
            acknowledged.extend(task.await.expect("a client"));
        }
        acknowledged
    }
}

/// Waits until `counter` reaches `at_least` (a minute at most: then the test fails, naming what).
pub async fn wait_for(counter: &AtomicUsize, at_least: usize, what: &str) {
    let started = Instant::now();
    while counter.load(Ordering::Relaxed) < at_least {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what}: {} of {at_least} calls in a minute",
            counter.load(Ordering::Relaxed)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every acknowledged call is in the log of `server` (its hand at the version acknowledged, or
/// later), and every one sent again with its request id is answered as the first time
/// (`duplicate`, the same hand and version) and writes nothing.
pub async fn check_acknowledged(server: &str, acknowledged: &[Acknowledged]) {
    let mut play = PlayClient::new(channel(server).await.expect("a channel"));
    let mut audit = proto::audit_client::AuditClient::new(channel(server).await.expect("channel"));
    let head = |report: proto::VerifyLogResponse| {
        assert!(report.ok, "{report:?}");
        report.head_sequence
    };
    let before = head(
        audit
            .verify_log(proto::VerifyLogRequest::default())
            .await
            .expect("VerifyLog")
            .into_inner(),
    );
    for ack in acknowledged {
        let now = play
            .get_hand(proto::GetHandRequest {
                hand_id: ack.hand_id.clone(),
            })
            .await
            .expect("an acknowledged hand")
            .into_inner()
            .hand
            .expect("a hand");
        assert!(
            now.version >= ack.version,
            "{ack:?} but the log has {now:?}"
        );
        let again = send(&mut play, &ack.call).await.expect("a retry");
        assert!(again.duplicate, "{ack:?} answered anew: {again:?}");
        let view = again.hand.expect("a hand");
        assert_eq!(
            (view.hand_id.as_str(), view.version),
            (ack.hand_id.as_str(), ack.version),
            "{}",
            ack.request_id
        );
    }
    let after = head(
        audit
            .verify_log(proto::VerifyLogRequest::default())
            .await
            .expect("VerifyLog")
            .into_inner(),
    );
    assert_eq!(before, after, "the retries wrote nothing");
}
