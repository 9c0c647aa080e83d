//! The `pitboss.v1.Play` service: open a hand, act on it, see it as the player may.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use std::collections::HashMap;

use super::convert::{self, hand_view, optional, status};
use crate::codec;
use crate::engine::config::ConfigId;
use crate::engine::games::{Action, Status as HandStatus};
use crate::floor::{Floor, HandSnapshot, OpenRequest};
use crate::lab::advice::StrategyTables;
use crate::proto;
use crate::proto::play_server::Play;

/// The strategy tables of each configuration, built once on first use (Mississippi Stud about half
/// a second, Caribbean Stud about 1.5 s) on the blocking pool.
type Tables = std::sync::Mutex<HashMap<ConfigId, Arc<tokio::sync::OnceCell<Arc<StrategyTables>>>>>;

/// The Play service.
pub struct PlayService {
    floor: Arc<Floor>,
    tables: Tables,
}

impl PlayService {
    /// Serves `floor`.
    pub fn new(floor: Arc<Floor>) -> PlayService {
        PlayService {
            floor,
            tables: Tables::default(),
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
                .map_err(Status::internal)?
            {
                view.advice = Some(codec::action_to(&action));
            }
        }
        Ok(Response::new(proto::HandResponse {
            hand: Some(view),
            duplicate: snapshot.duplicate,
        }))
    }

    /// The strategy tables of a published configuration, built once on first use.
    async fn tables_of(&self, id: ConfigId) -> Result<Arc<StrategyTables>, Status> {
        let config = self
            .floor
            .config(&id)
            .ok_or_else(|| Status::not_found(format!("configuration {id} is not published")))?;
        let cell = {
            let mut map = self
                .tables
                .lock()
                .map_err(|_| Status::internal("strategy cache poisoned"))?;
            map.entry(id).or_default().clone()
        };
        cell.get_or_try_init(|| async move {
            let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
            tokio::task::spawn_blocking(move || StrategyTables::build(&config, threads))
                .await
                .map_err(|e| Status::internal(e.to_string()))?
                .map(Arc::new)
                .map_err(Status::internal)
        })
        .await
        .cloned()
    }
}

/// The opening of a hand from its request.
fn open_request(r: proto::OpenHandRequest, prefix: &str) -> Result<OpenRequest, Status> {
    let field = |name: &str| format!("{prefix}{name}");
    let game = convert::game(&field("game"), r.game)?;
    let config_id = match r.config_id.as_str() {
        "" => None,
        text => Some(convert::config_id(&field("config_id"), text)?),
    };
    let wagers = codec::wagers_from(&field("wagers"), &r.wagers)
        .map_err(|e| convert::invalid_argument(&e.field, e.problem))?;
    Ok(OpenRequest {
        request_id: optional(&r.request_id),
        game: Some(game),
        config_id,
        table: r.table,
        player: r.player,
        wagers,
        rebet_of: optional(&r.rebet_of),
    })
}

#[tonic::async_trait]
impl Play for PlayService {
    async fn open_hand(
        &self,
        request: Request<proto::OpenHandRequest>,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let open = open_request(request.into_inner(), "")?;
        let snapshot = self.floor.open_hand(open).await.map_err(status)?;
        self.respond(snapshot).await
    }

    async fn play_hand(
        &self,
        request: Request<proto::PlayHandRequest>,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let r = request.into_inner();
        let open = open_request(
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
        let snapshot = self
            .floor
            .open_and_play(open, |hand, n| match decisions.get(n) {
                Some(action) => Ok(Some(*action)),
                None => match &tables {
                    Some(tables) => tables.advisor().advise(hand).map_err(|problem| {
                        crate::floor::FloorError::Invalid {
                            field: "follow_advice".into(),
                            problem,
                        }
                    }),
                    None => Ok(None),
                },
            })
            .await
            .map_err(|e| {
                use crate::floor::FloorError as F;
                match e {
                    F::Invalid { ref field, .. }
                        if field.starts_with("decisions[") || field == "follow_advice" =>
                    {
                        status(e)
                    }
                    // The opening's own checks, named as the client wrote them: `open.table`...
                    e @ (F::Invalid { .. } | F::Rule(_)) => convert::status_in(e, "open"),
                    other => status(other),
                }
            })?;
        self.respond(snapshot).await
    }

    async fn act(
        &self,
        request: Request<proto::ActRequest>,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let r = request.into_inner();
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
            )
            .await
            .map_err(status)?;
        self.respond(snapshot).await
    }

    async fn get_hand(
        &self,
        request: Request<proto::GetHandRequest>,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let id = request.into_inner().hand_id;
        let hand = self.floor.load(&id, None).map_err(status)?;
        self.respond(HandSnapshot {
            id,
            hand,
            duplicate: false,
        })
        .await
    }
}
