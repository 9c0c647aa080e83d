//! The `pitboss.v1.Play` service: open a hand, act on it, see it as the player may. Every request
//! is held to its limits (`limits.rs`) before anything else.

use std::sync::{Arc, Mutex, PoisonError};

use tonic::{Request, Response, Status};

use super::convert::{self, hand_view, optional, status};
use super::limits::{self, Bounded};
use super::scope;
use super::work::Pool;
use crate::access::Principal;
use crate::codec;
use crate::floor::{Floor, HandSnapshot, OpenRequest, Script};
use crate::lru::Lru;
use crate::proto;
use crate::proto::play_server::Play;
use pitboss_engine::config::ConfigId;
use pitboss_engine::games::{Action, Status as HandStatus};
use pitboss_lab::advice::StrategyTables;

/// One configuration's strategy tables, built once (Mississippi Stud about half a second,
/// Caribbean Stud about 1.5 s) by whichever call needs them first; later calls wait for that build.
type Tables = Arc<tokio::sync::OnceCell<Arc<StrategyTables>>>;

/// The Play service.
pub struct PlayService {
    floor: Arc<Floor>,
    /// Tables of the configurations used lately, a bounded number of them (each up to 64 MiB).
    tables: Mutex<Lru<ConfigId, Tables>>,
    /// The lab's workers: a build runs there, one at a time with the lab's computations.
    pool: Pool,
}

impl PlayService {
    /// Serves `floor`, building strategy tables in `pool`.
    pub fn new(floor: Arc<Floor>, pool: Pool) -> PlayService {
        PlayService {
            floor,
            tables: Mutex::new(Lru::new(limits::STRATEGY_TABLES_KEPT)),
            pool,
        }
    }

    /// The hand's view, with the optimal strategy's advice for the decision it awaits.
    async fn respond(
        &self,
        snapshot: HandSnapshot,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let mut view = hand_view(&snapshot.id, &snapshot.hand);
        if snapshot.hand.status() == HandStatus::InProgress {
            let tables = self.tables_of(snapshot.hand.config_id()).await?;
            if let Some(action) = tables
                .advisor()
                .advise(&snapshot.hand)
                .map_err(|e| Status::internal(e.to_string()))?
            {
                view.advice = Some(codec::action_to(&action));
            }
        }
        Ok(Response::new(proto::HandResponse {
            hand: Some(view),
            duplicate: snapshot.duplicate,
        }))
    }

    /// The strategy tables of a published configuration, built once on first use. The build runs
    /// in a task of its own, so a caller that goes away does not waste it: the next caller finds
    /// it done or under way.
    async fn tables_of(&self, id: ConfigId) -> Result<Arc<StrategyTables>, Status> {
        let config = self
            .floor
            .config(&id)
            .ok_or_else(|| Status::not_found(format!("configuration {id} is not published")))?;
        let cell: Tables = {
            let mut kept = self.tables.lock().unwrap_or_else(PoisonError::into_inner);
            match kept.get(&id) {
                Some(cell) => cell.clone(),
                None => {
                    let cell = Tables::default();
                    kept.put(id, cell.clone());
                    cell
                }
            }
        };
        if let Some(tables) = cell.get() {
            return Ok(tables.clone());
        }
        let pool = self.pool.clone();
        let build = tokio::spawn(async move {
            cell.get_or_try_init(|| async move {
                pool.run(move |_| {
                    StrategyTables::build(&config, pitboss_lab::threads())
                        .map(Arc::new)
                        .map_err(|e| Status::internal(e.to_string()))
                })
                .await
            })
            .await
            .cloned()
        });
        build
            .await
            .map_err(|e| Status::internal(format!("a strategy build failed: {e}")))?
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
        .map_err(|e| convert::invalid_argument(&e.field, e.problem))?;
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
            r.open
                .ok_or_else(|| convert::invalid_argument("open", "required"))?,
            "open.",
        )?;
        let decisions = r
            .decisions
            .iter()
            .enumerate()
            .map(|(i, a)| {
                codec::action_from(&format!("decisions[{i}]"), a)
                    .map_err(|e| convert::invalid_argument(&e.field, e.problem))
            })
            .collect::<Result<Vec<Action>, Status>>()?;
        // The strategy's tables are ready before the hand is dealt.
        let tables = if r.follow_advice {
            let game = open
                .game
                .ok_or_else(|| convert::invalid_argument("open.game", "required"))?;
            let id = match open.config_id {
                Some(id) => id,
                None => self.floor.default_config(game).ok_or_else(|| {
                    convert::invalid_argument("open.game", "no default configuration")
                })?,
            };
            Some(self.tables_of(id).await?)
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
                Some(tables) => tables.advisor().advise(hand).map_err(|problem| {
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
                        convert::status_in(e, "open")
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
        let hand = self.floor.load(&r.hand_id, None).map_err(status)?;
        scope::reach_hand(&caller, "hand_id", &hand)?;
        let action = r
            .action
            .as_ref()
            .ok_or_else(|| convert::invalid_argument("action", "required"))?;
        let action = codec::action_from("action", action)
            .map_err(|e| convert::invalid_argument(&e.field, e.problem))?;
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
