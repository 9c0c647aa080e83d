//! The `pitboss.v1.Play` service: open a hand, act on it, see it as the player may.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use std::collections::HashMap;

use super::convert::{self, hand_view, optional, status};
use crate::codec;
use crate::engine::config::{ConfigId, MississippiRules, Rules};
use crate::engine::game::GameId;
use crate::engine::games::{Action, Hand, Status as HandStatus};
use crate::floor::{Floor, HandSnapshot, OpenRequest};
use crate::lab::advice::Advisor;
use crate::lab::mississippi;
use crate::proto;
use crate::proto::play_server::Play;

/// Mississippi Stud strategies by configuration, each built once (about half a second) on first use.
type Strategies =
    std::sync::Mutex<HashMap<ConfigId, Arc<tokio::sync::OnceCell<Arc<mississippi::Strategy>>>>>;

/// The Play service.
pub struct PlayService {
    floor: Arc<Floor>,
    strategies: Strategies,
}

impl PlayService {
    /// Serves `floor`.
    pub fn new(floor: Arc<Floor>) -> PlayService {
        PlayService {
            floor,
            strategies: Strategies::default(),
        }
    }

    /// The hand's view, with the optimal strategy's advice for the decision it awaits.
    async fn respond(
        &self,
        snapshot: HandSnapshot,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let mut view = hand_view(&snapshot.id, &snapshot.hand);
        if let Some(action) = self.advice(&snapshot.hand).await? {
            view.advice = Some(codec::action_to(&action));
        }
        Ok(Response::new(proto::HandResponse {
            hand: Some(view),
            duplicate: snapshot.duplicate,
        }))
    }

    /// The optimal strategy's decision for a hand in progress: Mississippi Stud from the lab's
    /// exact tables, Caribbean Stud by exact enumeration of the dealer's completions (about a
    /// millisecond, on the blocking pool), Pai Gow the house way, Nutz a shake.
    async fn advice(&self, hand: &Hand) -> Result<Option<Action>, Status> {
        if hand.status() != HandStatus::InProgress {
            return Ok(None);
        }
        let strategy = self.strategy_for(hand).await?;
        if matches!(hand.config().rules, Rules::CaribbeanStud(_)) {
            let hand = hand.clone();
            return tokio::task::spawn_blocking(move || advise_now(None, &hand))
                .await
                .map_err(|e| Status::internal(e.to_string()))?
                .map_err(Status::internal);
        }
        advise_now(strategy.as_deref(), hand).map_err(Status::internal)
    }

    /// The Mississippi Stud strategy a hand's advice needs, if it is a Mississippi Stud hand.
    async fn strategy_for(
        &self,
        hand: &Hand,
    ) -> Result<Option<Arc<mississippi::Strategy>>, Status> {
        match &hand.config().rules {
            Rules::MississippiStud(rules) => Ok(Some(
                self.mississippi_strategy(hand.config_id(), rules).await?,
            )),
            _ => Ok(None),
        }
    }

    /// The Mississippi Stud strategy of a configuration, built once on first use.
    async fn mississippi_strategy(
        &self,
        id: ConfigId,
        rules: &MississippiRules,
    ) -> Result<Arc<mississippi::Strategy>, Status> {
        let cell = {
            let mut map = self
                .strategies
                .lock()
                .map_err(|_| Status::internal("strategy cache poisoned"))?;
            map.entry(id).or_default().clone()
        };
        let rules = rules.clone();
        cell.get_or_try_init(|| async move {
            tokio::task::spawn_blocking(move || Arc::new(mississippi::Strategy::build(&rules)))
                .await
        })
        .await
        .cloned()
        .map_err(|e| Status::internal(e.to_string()))
    }
}

/// The strategy's decision for a hand as it stands (Caribbean Stud by enumeration).
fn advise_now(
    strategy: Option<&mississippi::Strategy>,
    hand: &Hand,
) -> Result<Option<Action>, String> {
    Advisor {
        mississippi: strategy,
        caribbean: None,
    }
    .advise(hand)
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
        // The Mississippi Stud tables are ready before the hand is dealt; Caribbean Stud's advice
        // is an enumeration of about a millisecond, taken inline.
        let strategy = match (r.follow_advice, open.game) {
            (true, Some(GameId::MississippiStud)) => {
                let id = match open.config_id {
                    Some(id) => id,
                    None => self
                        .floor
                        .default_config(GameId::MississippiStud)
                        .ok_or_else(|| Status::failed_precondition("no default configuration"))?,
                };
                match self.floor.config(&id).map(|c| c.rules.clone()) {
                    Some(Rules::MississippiStud(rules)) => {
                        Some(self.mississippi_strategy(id, &rules).await?)
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let snapshot = self
            .floor
            .open_and_play(open, |hand, n| match decisions.get(n) {
                Some(action) => Ok(Some(*action)),
                None if r.follow_advice => {
                    advise_now(strategy.as_deref(), hand).map_err(|problem| {
                        crate::floor::FloorError::Invalid {
                            field: "follow_advice".into(),
                            problem,
                        }
                    })
                }
                None => Ok(None),
            })
            .await
            .map_err(status)?;
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
