//! The `pitboss.v1.Play` service: open a hand, act on it, see it as the player may.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::convert::{self, hand_view, optional, status};
use crate::codec;
use crate::floor::{Floor, HandSnapshot, OpenRequest};
use crate::proto;
use crate::proto::play_server::Play;

/// The Play service.
pub struct PlayService {
    floor: Arc<Floor>,
}

impl PlayService {
    /// Serves `floor`.
    pub fn new(floor: Arc<Floor>) -> PlayService {
        PlayService { floor }
    }
}

fn response(snapshot: HandSnapshot) -> Response<proto::HandResponse> {
    Response::new(proto::HandResponse {
        hand: Some(hand_view(&snapshot.id, &snapshot.hand)),
        duplicate: snapshot.duplicate,
    })
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
        Ok(response(snapshot))
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
        Ok(response(snapshot))
    }

    async fn get_hand(
        &self,
        request: Request<proto::GetHandRequest>,
    ) -> Result<Response<proto::HandResponse>, Status> {
        let id = request.into_inner().hand_id;
        let hand = self.floor.load(&id, None).map_err(status)?;
        Ok(response(HandSnapshot {
            id,
            hand,
            duplicate: false,
        }))
    }
}
