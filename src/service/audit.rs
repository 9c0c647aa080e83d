//! The `pitboss.v1.Audit` service: what regulators call. Today: `DeriveDeal`, the RNG derivation of
//! one seed, by the same code path as `pitboss deal`.

use tonic::{Request, Response, Status};

use super::convert;
use crate::engine::deal;
use crate::proto::audit_server::Audit;
use crate::proto::{DeriveDealRequest, DeriveDealResponse};

/// The Audit service. Stateless for now.
#[derive(Clone, Debug, Default)]
pub struct AuditService;

#[tonic::async_trait]
impl Audit for AuditService {
    async fn derive_deal(
        &self,
        request: Request<DeriveDealRequest>,
    ) -> Result<Response<DeriveDealResponse>, Status> {
        let request = request.into_inner();
        let game = convert::game("game", request.game)?;
        let seed = convert::seed("seed", &request.seed)?;
        Ok(Response::new(convert::deal_to_proto(&deal::derive(
            game, &seed,
        ))))
    }
}
