//! The `pitboss.v1.Operations` service: configurations and the void rules, for operators. Every
//! request is held to its limits (`limits.rs`) before anything else.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use super::convert::{self, hand_view, optional, status};
use super::limits::Bounded;
use crate::codec;
use crate::engine::config::GameConfig;
use crate::engine::games::VoidKind;
use crate::floor::Floor;
use crate::proto;
use crate::proto::operations_server::Operations;

/// The Operations service.
pub struct OperationsService {
    floor: Arc<Floor>,
}

impl OperationsService {
    /// Serves `floor`.
    pub fn new(floor: Arc<Floor>) -> OperationsService {
        OperationsService { floor }
    }
}

#[tonic::async_trait]
impl Operations for OperationsService {
    async fn publish_config(
        &self,
        request: Request<proto::PublishConfigRequest>,
    ) -> Result<Response<proto::PublishConfigResponse>, Status> {
        let r = request.into_inner();
        r.check()?;
        let config = GameConfig::from_json(r.config_json.as_bytes())
            .map_err(|e| status(crate::floor::FloorError::from(e)))?;
        let (id, already) = self
            .floor
            .publish(config, optional(&r.request_id).as_deref())
            .await
            .map_err(status)?;
        Ok(Response::new(proto::PublishConfigResponse {
            config_id: id.to_string(),
            already_published: already,
        }))
    }

    async fn list_configs(
        &self,
        request: Request<proto::ListConfigsRequest>,
    ) -> Result<Response<proto::ListConfigsResponse>, Status> {
        let r = request.into_inner();
        r.check()?;
        let game = match r.game {
            0 => None,
            value => Some(convert::game("game", value)?),
        };
        let size = match r.page_size {
            0 => 50,
            n => n as usize,
        };
        let mut configs: Vec<_> = self
            .floor
            .configs()
            .into_iter()
            .filter(|c| game.is_none_or(|g| c.game == g))
            .map(|c| (c.id().to_string(), c))
            .filter(|(id, _)| r.page_token.is_empty() || id.as_str() > r.page_token.as_str())
            .collect();
        configs.sort_by(|a, b| a.0.cmp(&b.0));
        let next = if configs.len() > size {
            configs[size - 1].0.clone()
        } else {
            String::new()
        };
        configs.truncate(size);
        Ok(Response::new(proto::ListConfigsResponse {
            configs: configs
                .into_iter()
                .map(|(id, c)| proto::ConfigSummary {
                    config_id: id,
                    game: convert::game_to_proto(c.game),
                    name: c.name.clone(),
                    version: c.version,
                    canonical_json: String::from_utf8_lossy(&c.canonical_bytes()).into_owned(),
                })
                .collect(),
            next_page_token: next,
        }))
    }

    async fn void_hand(
        &self,
        request: Request<proto::VoidHandRequest>,
    ) -> Result<Response<proto::VoidHandResponse>, Status> {
        let r = request.into_inner();
        r.check()?;
        let kind: VoidKind = codec::from_id("kind", &r.kind).map_err(|_| {
            convert::invalid_argument("kind", "one of malfunction, incomplete, conduct_forfeit")
        })?;
        let snapshot = self
            .floor
            .void(
                &r.hand_id,
                kind,
                &r.reason,
                &r.recorded_by,
                optional(&r.request_id),
            )
            .await
            .map_err(status)?;
        Ok(Response::new(proto::VoidHandResponse {
            hand: Some(hand_view(&snapshot.id, &snapshot.hand)),
        }))
    }

    async fn record_table_malfunction(
        &self,
        request: Request<proto::RecordTableMalfunctionRequest>,
    ) -> Result<Response<proto::RecordTableMalfunctionResponse>, Status> {
        let r = request.into_inner();
        r.check()?;
        let result = self
            .floor
            .void_table(
                &r.table,
                r.from_ms,
                r.to_ms,
                &r.reason,
                &r.recorded_by,
                optional(&r.request_id).as_deref(),
            )
            .await
            .map_err(status)?;
        Ok(Response::new(proto::RecordTableMalfunctionResponse {
            voided_hand_ids: result.voided,
            skipped_hand_ids: result.skipped,
            voided_count: result.counts.voided,
            skipped_count: result.counts.skipped,
        }))
    }

    async fn run_sweep(
        &self,
        request: Request<proto::RunSweepRequest>,
    ) -> Result<Response<proto::RunSweepResponse>, Status> {
        let r = request.into_inner();
        r.check()?;
        let by = if r.recorded_by.is_empty() {
            "sweep"
        } else {
            r.recorded_by.as_str()
        };
        let result = self
            .floor
            .sweep(r.as_of_ms, by, optional(&r.request_id).as_deref())
            .await
            .map_err(status)?;
        Ok(Response::new(proto::RunSweepResponse {
            voided_hand_ids: result.voided,
            completed_hand_ids: result.completed,
            skipped_hand_ids: result.skipped,
            voided_count: result.counts.voided,
            completed_count: result.counts.completed,
            skipped_count: result.counts.skipped,
        }))
    }
}
