//! The `pitboss.v1.Play` service: open a hand, act on it, see it as the player may.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use std::collections::HashMap;

use super::convert::{self, hand_view, optional, status};
use crate::codec;
use crate::engine::card::Card;
use crate::engine::config::{ConfigId, Rules};
use crate::engine::games::view::player_view;
use crate::engine::games::{Action, Status as HandStatus};
use crate::engine::settlement::BetId;
use crate::floor::{Floor, HandSnapshot, OpenRequest};
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

    /// The hand's view with the optimal strategy's advice for a Mississippi Stud decision.
    async fn respond(
        &self,
        snapshot: HandSnapshot,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let mut view = hand_view(&snapshot.id, &snapshot.hand);
        let hand = &snapshot.hand;
        if let (Rules::MississippiStud(rules), HandStatus::InProgress) =
            (&hand.config().rules, hand.status())
        {
            let cell = {
                let mut map = self
                    .strategies
                    .lock()
                    .map_err(|_| Status::internal("strategy cache poisoned"))?;
                map.entry(hand.config().id()).or_default().clone()
            };
            let rules = rules.clone();
            let strategy = cell
                .get_or_try_init(|| async move {
                    tokio::task::spawn_blocking(move || {
                        Arc::new(mississippi::Strategy::build(&rules))
                    })
                    .await
                })
                .await
                .map_err(|e| Status::internal(e.to_string()))?;
            let player = player_view(hand);
            let seen: Vec<Card> = player
                .seats
                .iter()
                .flat_map(|s| s.cards.iter().flatten().copied())
                .collect();
            let ante = hand
                .stakes()
                .iter()
                .find(|w| w.bet == BetId::Ante)
                .map_or(1, |w| w.amount.0.max(1));
            let staked: u64 = hand
                .stakes()
                .iter()
                .filter(|w| w.bet != BetId::Bonus)
                .map(|w| w.amount.0)
                .sum();
            if let Some(choice) = strategy.advise(&seen, (staked / ante) as u32) {
                let action = match choice {
                    Some(multiple) => Action::Bet { multiple },
                    None => Action::Fold,
                };
                view.advice = Some(codec::action_to(&action));
            }
        }
        Ok(Response::new(proto::HandResponse {
            hand: Some(view),
            duplicate: snapshot.duplicate,
        }))
    }
}

#[tonic::async_trait]
impl Play for PlayService {
    async fn open_hand(
        &self,
        request: Request<proto::OpenHandRequest>,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let r = request.into_inner();
        let game = convert::game("game", r.game)?;
        let config_id = match r.config_id.as_str() {
            "" => None,
            text => Some(convert::config_id("config_id", text)?),
        };
        let wagers = codec::wagers_from("wagers", &r.wagers)
            .map_err(|e| convert::invalid_argument(&e.field, e.problem))?;
        let snapshot = self
            .floor
            .open_hand(OpenRequest {
                request_id: optional(&r.request_id),
                game: Some(game),
                config_id,
                table: r.table,
                player: r.player,
                wagers,
                rebet_of: optional(&r.rebet_of),
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
