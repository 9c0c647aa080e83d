//! The `pitboss.v1.Play` service: open a hand, act on it, see it as the player may. Every request
//! is held to its limits (`limits/`) before anything else.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::advice::{advisor, Strategies};
use super::convert::{self, hand_view, optional};
use super::limits::Bounded;
use super::scope;
use super::status::{advice_unavailable, invalid_argument, status, status_in};
use crate::access::Principal;
use crate::codec;
use crate::floor::{Floor, HandSnapshot, OpenRequest, Script};
use crate::proto;
use crate::proto::play_server::Play;
use pitboss_engine::games::{Action, Status as HandStatus};

/// The Play service.
pub struct PlayService {
    floor: Arc<Floor>,
    /// The strategy tables behind the advice, built once per configuration without freezing play.
    strategies: Arc<Strategies>,
}

impl PlayService {
    /// Serves `floor`, advising from `strategies`.
    pub fn new(floor: Arc<Floor>, strategies: Arc<Strategies>) -> PlayService {
        PlayService { floor, strategies }
    }

    /// The hand's view, with the optimal strategy's advice for the decision it awaits. The hand is
    /// already written: advice that cannot be had is absent, with its reason, never an error.
    async fn respond(
        &self,
        snapshot: HandSnapshot,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let mut view = hand_view(&snapshot.id, &snapshot.hand);
        if snapshot.hand.status() == HandStatus::InProgress {
            match self.strategies.advise(&snapshot.hand).await {
                Ok(Some(action)) => view.advice = Some(codec::action_to(&action)),
                Ok(None) => {}
                Err(why) => {
                    tracing::warn!(hand = %snapshot.id, "no advice: {why}");
                    view.advice_unavailable = why.to_string();
                }
            }
        }
        Ok(Response::new(proto::HandResponse {
            hand: Some(view),
            duplicate: snapshot.duplicate,
        }))
    }
}

/// The opening of a hand from its request, by `caller`, within its scopes: the table and game,
/// and the hand a rebet repeats.
fn open_request(
    floor: &crate::floor::Floor,
    caller: &Principal,
    r: proto::OpenHandRequest,
    prefix: &str,
) -> Result<OpenRequest, Status> {
    let field = |name: &str| format!("{prefix}{name}");
    let game = convert::game(&field("game"), r.game)?;
    let config_id = match r.config_id.as_str() {
        "" => None,
        text => Some(convert::config_id(&field("config_id"), text)?),
    };
    let wagers = codec::wagers_from(&field("wagers"), &r.wagers)
        .map_err(|e| invalid_argument(&e.field, e.problem))?;
    scope::reach(caller, &field("table"), &r.table, Some(game))?;
    if !r.rebet_of.is_empty() && !caller.unscoped() {
        let earlier = floor.load(&r.rebet_of, None).map_err(status)?;
        scope::reach_hand(caller, &field("rebet_of"), &earlier)?;
    }
    Ok(OpenRequest {
        request_id: optional(&r.request_id),
        game: Some(game),
        config_id,
        table: r.table,
        player: r.player,
        wagers,
        rebet_of: optional(&r.rebet_of),
        actor: caller.id.clone(),
    })
}

#[tonic::async_trait]
impl Play for PlayService {
    async fn open_hand(
        &self,
        request: Request<proto::OpenHandRequest>,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        let open = open_request(&self.floor, &caller, r, "")?;
        let snapshot = self.floor.open_hand(open).await.map_err(status)?;
        self.respond(snapshot).await
    }

    async fn play_hand(
        &self,
        request: Request<proto::PlayHandRequest>,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        let open = open_request(
            &self.floor,
            &caller,
            r.open.ok_or_else(|| invalid_argument("open", "required"))?,
            "open.",
        )?;
        let decisions = r
            .decisions
            .iter()
            .enumerate()
            .map(|(i, a)| {
                codec::action_from(&format!("decisions[{i}]"), a)
                    .map_err(|e| invalid_argument(&e.field, e.problem))
            })
            .collect::<Result<Vec<Action>, Status>>()?;
        // What advises the hand is ready before it is dealt: nothing is written when it cannot be.
        let tables = if r.follow_advice {
            let game = open
                .game
                .ok_or_else(|| invalid_argument("open.game", "required"))?;
            let id = match open.config_id {
                Some(id) => id,
                None => self
                    .floor
                    .default_config(game)
                    .ok_or_else(|| invalid_argument("open.game", "no default configuration"))?,
            };
            let tables = self
                .strategies
                .for_config(id, game)
                .await
                .map_err(|why| advice_unavailable("follow_advice", &why))?;
            Some(tables)
        } else {
            None
        };
        let script = Script {
            decisions,
            follow_advice: r.follow_advice,
        };
        let snapshot = self
            .floor
            .play_hand(open, &script, |hand| match &tables {
                Some(tables) => advisor(tables.as_deref()).advise(hand).map_err(|problem| {
                    crate::floor::FloorError::Script {
                        field: "follow_advice".into(),
                        problem: problem.to_string(),
                    }
                }),
                None => Ok(None),
            })
            .await
            .map_err(|e| {
                use crate::floor::FloorError as F;
                match e {
                    // The script's own problems are named from the request's top.
                    F::Script { .. } | F::Decision { .. } => status(e),
                    // The opening's own checks, named as the client wrote them: `open.table`...
                    e @ (F::Invalid { .. } | F::Rule(_) | F::RequestReused { .. }) => {
                        status_in(e, "open")
                    }
                    other => status(other),
                }
            })?;
        self.respond(snapshot).await
    }

    async fn act(
        &self,
        request: Request<proto::ActRequest>,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        // A scoped principal reaches only its tables' hands; an unscoped one reaches every hand,
        // and the floor loads it once, under its lock (on a shared log each load asks the database).
        if !caller.unscoped() {
            let hand = self.floor.load(&r.hand_id, None).map_err(status)?;
            scope::reach_hand(&caller, "hand_id", &hand)?;
        }
        let action = r
            .action
            .as_ref()
            .ok_or_else(|| invalid_argument("action", "required"))?;
        let action = codec::action_from("action", action)
            .map_err(|e| invalid_argument(&e.field, e.problem))?;
        let snapshot = self
            .floor
            .act(
                &r.hand_id,
                action,
                optional(&r.request_id),
                r.expected_version,
                &caller.id,
            )
            .await
            .map_err(status)?;
        self.respond(snapshot).await
    }

    async fn open_round(
        &self,
        request: Request<proto::OpenRoundRequest>,
    ) -> Result<Response<proto::RoundResponse>, Status> {
        let caller = scope::caller(&request)?;
        super::rounds::open_round(&self.floor, &caller, request.into_inner())
            .await
            .map(Response::new)
    }

    async fn round_command(
        &self,
        request: Request<proto::RoundCommandRequest>,
    ) -> Result<Response<proto::RoundResponse>, Status> {
        let caller = scope::caller(&request)?;
        super::rounds::round_command(&self.floor, &caller, request.into_inner())
            .await
            .map(Response::new)
    }

    async fn get_round(
        &self,
        request: Request<proto::GetRoundRequest>,
    ) -> Result<Response<proto::RoundResponse>, Status> {
        let caller = scope::caller(&request)?;
        super::rounds::get_round(&self.floor, &caller, request.into_inner()).map(Response::new)
    }

    async fn get_hand(
        &self,
        request: Request<proto::GetHandRequest>,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let caller = scope::caller(&request)?;
        let r = request.into_inner();
        r.check()?;
        let id = r.hand_id;
        let hand = self.floor.load(&id, None).map_err(status)?;
        scope::reach_hand(&caller, "hand_id", &hand)?;
        self.respond(HandSnapshot {
            id,
            hand,
            duplicate: false,
        })
        .await
    }
}
