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

/// A count that a minute did not bring to what was waited for.
#[derive(Debug)]
pub struct Waited {
    /// The count reached.
    pub reached: usize,
    /// The count waited for.
    pub wanted: usize,
}

/// Waits until `counter` reaches `at_least`; [`Waited`] if a minute passes first (the caller's
/// test fails, naming what it waited for).
pub async fn wait_for(counter: &AtomicUsize, at_least: usize) -> Result<(), Waited> {
    let started = Instant::now();
    while counter.load(Ordering::Relaxed) < at_least {
        if started.elapsed() >= Duration::from_secs(60) {
            return Err(Waited {
                reached: counter.load(Ordering::Relaxed),
                wanted: at_least,
            });
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// What [`recheck`] found: the log verified before and after, and each acknowledged call that the
/// log or a retry contradicts.
#[derive(Debug)]
pub struct Rechecked {
    /// `VerifyLog` before the retries.
    pub before: proto::VerifyLogResponse,
    /// `VerifyLog` after them.
    pub after: proto::VerifyLogResponse,
    /// Acknowledged calls whose hand the log holds at an earlier version than acknowledged.
    pub lost: Vec<String>,
    /// Acknowledged calls whose retry (the same request id) was not answered as the first time:
    /// not `duplicate`, or another hand or version.
    pub answered_anew: Vec<String>,
}

impl Rechecked {
    /// Every contradiction found, in words: a verification that failed, an acknowledged call lost
    /// or answered anew, a log that grew while only retries were sent. Empty when there is none.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (when, report) in [("before", &self.before), ("after", &self.after)] {
            if !report.ok {
                problems.push(format!("the log does not verify {when}: {report:?}"));
            }
        }
        problems.extend(self.lost.iter().cloned());
        problems.extend(self.answered_anew.iter().cloned());
        if self.before.head_sequence != self.after.head_sequence {
            problems.push(format!(
                "the retries wrote: the head moved from {:?} to {:?}",
                self.before.head_sequence, self.after.head_sequence
            ));
        }
        problems
    }
}

/// Reads back every acknowledged call from the log of `server` (its hand at the version
/// acknowledged, or later) and sends each again with its request id, around a `VerifyLog` before
/// and after: what a test needs to show nothing acknowledged was lost and a retry writes nothing.
pub async fn recheck(
    server: &str,
    acknowledged: &[Acknowledged],
) -> Result<Rechecked, tonic::Status> {
    let connect = || async {
        channel(server)
            .await
            .ok_or_else(|| tonic::Status::unavailable(format!("no channel to {server}")))
    };
    let mut play = PlayClient::new(connect().await?);
    let mut audit = proto::audit_client::AuditClient::new(connect().await?);
    let before = audit
        .verify_log(proto::VerifyLogRequest::default())
        .await?
        .into_inner();
    let (mut lost, mut answered_anew) = (Vec::new(), Vec::new());
    for ack in acknowledged {
        let now = play
            .get_hand(proto::GetHandRequest {
                hand_id: ack.hand_id.clone(),
            })
            .await?
            .into_inner()
            .hand;
        if now.as_ref().is_none_or(|now| now.version < ack.version) {
            lost.push(format!("{ack:?} but the log has {now:?}"));
        }
        let again = send(&mut play, &ack.call).await?;
        let same = again.hand.as_ref().is_some_and(|view| {
            (view.hand_id.as_str(), view.version) == (ack.hand_id.as_str(), ack.version)
        });
        if !again.duplicate || !same {
            answered_anew.push(format!("{ack:?} answered anew: {again:?}"));
        }
    }
    let after = audit
        .verify_log(proto::VerifyLogRequest::default())
        .await?
        .into_inner();
    Ok(Rechecked {
        before,
        after,
        lost,
        answered_anew,
    })
}
