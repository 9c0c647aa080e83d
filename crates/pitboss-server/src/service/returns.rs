//! `Audit.GetReturns` translated: the request's filters and grouping (per table or per dealer) to a
//! [`Filter`] (the caller's scopes narrowing it), the rows and alerts of [`Returns`] to their messages, a page at a time. Holds no
//! returns logic: the figures are `crate::returns`'.

use tonic::Status;

use super::status::invalid_argument;
use crate::access::Principal;
use crate::proto;
use crate::returns::{AlertState, By, Filter, Returns, Row};
use pitboss_engine::config::ConfigId;

/// The alerts one answer carries at most.
const ALERTS_ANSWERED: usize = 100;

/// The answer to `r` (checked already) for `caller`.
pub fn answer(
    returns: &Returns,
    caller: &Principal,
    r: &proto::GetReturnsRequest,
) -> Result<proto::GetReturnsResponse, Status> {
    let filter = Filter {
        game: (!r.game.is_empty())
            .then(|| crate::codec::from_id("game", &r.game))
            .transpose()
            .map_err(|_| invalid_argument("game", format!("unknown game `{}`", r.game)))?,
        table: (!r.table.is_empty()).then(|| r.table.clone()),
        dealer: (!r.dealer.is_empty()).then(|| r.dealer.clone()),
        config_id: (!r.config_id.is_empty())
            .then(|| {
                hex::decode(&r.config_id)
                    .ok()
                    .and_then(|b| <[u8; 32]>::try_from(b).ok())
                    .map(ConfigId)
            })
            .flatten(),
        bet: (!r.bet.is_empty()).then(|| r.bet.clone()),
        windows: r.windows.clone(),
        by: match proto::ReturnsBy::try_from(r.by) {
            Ok(proto::ReturnsBy::Table) => By::Table,
            Ok(proto::ReturnsBy::Dealer) => By::Dealer,
            Err(_) => {
                return Err(invalid_argument(
                    "by",
                    format!("{}: RETURNS_BY_TABLE (0) or RETURNS_BY_DEALER (1)", r.by),
                ))
            }
        },
        tables: caller.tables.clone(),
        games: caller.games.clone(),
    };
    let size = match r.page_size {
        0 => 200,
        n => n as usize,
    };
    let token = (!r.page_token.is_empty()).then_some(r.page_token.as_str());
    let page = returns
        .page(&filter, token, size, ALERTS_ANSWERED)
        .map_err(|e| invalid_argument("page_token", e.to_string()))?;
    Ok(proto::GetReturnsResponse {
        rows: page.rows.iter().map(row).collect(),
        next_page_token: page.next.map(|c| c.token()).unwrap_or_default(),
        through_sequence: page.through,
        caught_up: page.caught_up,
        untracked_hands: page.untracked,
        alerts: page.alerts.into_iter().map(alert).collect(),
    })
}

fn row(row: &Row) -> proto::ReturnsRow {
    let (_, staked, paid, _, squares) = row.sums.net();
    let actual = (staked > 0).then(|| paid as f64 / staked as f64);
    let theory = row.theory.as_ref().ok();
    let standing = theory.and_then(|t| t.standing(staked, paid, squares));
    proto::ReturnsRow {
        totals: row.sums.to_proto(&row.key),
        window_days: row.window_days,
        actual,
        theoretical: theory.map(|t| t.return_rate),
        standard_deviation: theory.map(|t| t.standard_deviation),
        theoretical_exact: theory.is_some_and(|t| t.exact),
        theory_note: row.theory.as_ref().err().cloned().unwrap_or_default(),
        z: standing.map(|s| s.z),
        band_low: standing.map(|s| s.band_low),
        band_high: standing.map(|s| s.band_high),
        out_of_band: standing.is_some_and(|s| s.out_of_band),
        deviation_over_4_percent: standing.is_some_and(|s| s.deviation_over_4_percent),
        open_alert_id: row.open_alert.clone().unwrap_or_default(),
    }
}

fn alert(a: AlertState) -> proto::ReturnsAlertState {
    let (investigation, investigated_by) = match a.investigation {
        Some((i, by)) => (Some(i), by),
        None => (None, String::new()),
    };
    proto::ReturnsAlertState {
        alert: Some(a.alert),
        sequence: a.sequence,
        investigation,
        investigated_by,
    }
}
