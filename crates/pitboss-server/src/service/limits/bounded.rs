//! Each request's check ([`Bounded`]), run by its handler before any other work.

use tonic::Status;

use super::fields::*;
use super::kinds::{open_end, present, seed_bytes};
use crate::proto;
use crate::service::status::invalid_argument;

/// A request message's limits, checked before any work.
pub trait Bounded {
    /// Checks every field; fields are named under `place` (`""`, or `"open."` for a nested one).
    fn check_in(&self, place: &str) -> Result<(), Status>;

    /// Checks every field of a top-level request.
    fn check(&self) -> Result<(), Status> {
        self.check_in("")
    }
}

fn at(place: &str, name: &str) -> String {
    format!("{place}{name}")
}

impl Bounded for proto::Wager {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        ID.check(&at(place, "bet"), &self.bet)
    }
}

impl Bounded for proto::Action {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        ID.check(&at(place, "kind"), &self.kind)?;
        LOW_CARDS.check(&at(place, "low"), self.low.len())?;
        for (i, card) in self.low.iter().enumerate() {
            CARD.check(&format!("{place}low[{i}]"), card)?;
        }
        OPTIONAL_ID.check(&at(place, "by"), &self.by)
    }
}

impl Bounded for proto::OpenHandRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        NAME.check(&at(place, "table"), &self.table)?;
        NAME.check(&at(place, "player"), &self.player)?;
        WAGERS.check(&at(place, "wagers"), self.wagers.len())?;
        for (i, wager) in self.wagers.iter().enumerate() {
            wager.check_in(&format!("{place}wagers[{i}]."))?;
        }
        REBET_OF.check(&at(place, "rebet_of"), &self.rebet_of)
    }
}

impl Bounded for proto::PlayHandRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        let open = self.open.as_ref();
        present(&at(place, "open"), open)?;
        if let Some(open) = open {
            open.check_in(&at(place, "open."))?;
        }
        DECISIONS.check(&at(place, "decisions"), self.decisions.len())?;
        for (i, action) in self.decisions.iter().enumerate() {
            action.check_in(&format!("{place}decisions[{i}]."))?;
        }
        Ok(())
    }
}

impl Bounded for proto::ActRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        HAND_ID.check(&at(place, "hand_id"), &self.hand_id)?;
        let action = self.action.as_ref();
        present(&at(place, "action"), action)?;
        if let Some(action) = action {
            action.check_in(&at(place, "action."))?;
        }
        Ok(())
    }
}

/// The requests that name one hand and nothing else.
macro_rules! hand_id_only {
    ($($message:ty),*) => {$(
        impl Bounded for $message {
            fn check_in(&self, place: &str) -> Result<(), Status> {
                HAND_ID.check(&at(place, "hand_id"), &self.hand_id)
            }
        }
    )*};
}

hand_id_only!(
    proto::GetHandRequest,
    proto::ReplayHandRequest,
    proto::GetHandBundleRequest,
    proto::GetDisputePacketRequest
);

impl Bounded for proto::ExportHandsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        NAME_FILTER.check(&at(place, "table"), &self.table)?;
        NAME_FILTER.check(&at(place, "player"), &self.player)?;
        NAME_FILTER.check(&at(place, "dealer"), &self.dealer)?;
        ROUND_ID_FILTER.check(&at(place, "round_id"), &self.round_id)?;
        SEAT.check(&at(place, "seat"), u64::from(self.seat))?;
        open_end(&at(place, "to_ms"), self.from_ms, self.to_ms, "no bound")
    }
}

impl Bounded for proto::ListRoundsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        NAME_FILTER.check(&at(place, "table"), &self.table)?;
        NAME_FILTER.check(&at(place, "dealer"), &self.dealer)?;
        NAME_FILTER.check(&at(place, "player"), &self.player)?;
        OPTIONAL_ID.check(&at(place, "phase"), &self.phase)?;
        SEAT.check(&at(place, "seat"), u64::from(self.seat))?;
        open_end(&at(place, "to_ms"), self.from_ms, self.to_ms, "no bound")?;
        ROUNDS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        ROUNDS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::GetHandEventsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        HAND_ID.check(&at(place, "hand_id"), &self.hand_id)?;
        EVENTS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        EVENTS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::ListHandsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        NAME_FILTER.check(&at(place, "player"), &self.player)?;
        NAME_FILTER.check(&at(place, "table"), &self.table)?;
        OPTIONAL_ID.check(&at(place, "status"), &self.status)?;
        open_end(&at(place, "to_ms"), self.from_ms, self.to_ms, "no bound")?;
        HANDS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        HANDS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::DeriveDealRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        seed_bytes(&at(place, "seed"), &self.seed, false)?;
        ROUND_SEATS.check(&at(place, "seats"), u64::from(self.seats))?;
        Ok(())
    }
}

/// The requests whose numbers are positions in the log, checked against its size by the handler,
/// and that have nothing else to bound.
macro_rules! positions_only {
    ($($message:ty),*) => {$(
        impl Bounded for $message {
            fn check_in(&self, _place: &str) -> Result<(), Status> {
                Ok(())
            }
        }
    )*};
}

positions_only!(
    proto::VerifyLogRequest,
    proto::StreamEventsRequest,
    proto::GetCheckpointRequest,
    proto::GetInclusionProofRequest,
    proto::GetConsistencyProofRequest
);

impl Bounded for proto::GetTlogProofsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        let field = at(place, "stream");
        match self.stream.strip_prefix("certifications/") {
            _ if self.stream == "returns/statements" => Ok(()),
            Some(config_id) => CONFIG_ID.check(&field, config_id).and_then(|()| {
                if config_id.is_empty() {
                    Err(invalid_argument(
                        &field,
                        "certifications/ and a configuration id",
                    ))
                } else {
                    Ok(())
                }
            }),
            None => Err(invalid_argument(
                &field,
                "returns/statements, or certifications/ and a configuration id (64 hexadecimal \
                 digits)",
            )),
        }
    }
}

impl Bounded for proto::PublishConfigRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        CONFIG_JSON.check(&at(place, "config_json"), &self.config_json)
    }
}

impl Bounded for proto::ListConfigsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        CONFIGS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        CONFIGS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::OpenRoundRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        NAME.check(&at(place, "table"), &self.table)?;
        NAME.check(&at(place, "dealer"), &self.dealer)?;
        OPTIONAL_NAME.check(&at(place, "shoe"), &self.shoe)?;
        ROUND_SHAPE.check(&at(place, "shape"), &self.shape)?;
        SEAT.check(&at(place, "seats"), u64::from(self.seats))?;
        ROUND_PLAYERS.check(&at(place, "max_players"), u64::from(self.max_players))?;
        SEATS_PER_PLAYER.check(
            &at(place, "seats_per_player"),
            u64::from(self.seats_per_player),
        )?;
        DECISION_WINDOW_MS.check(&at(place, "decision_window_ms"), self.decision_window_ms)?;
        Ok(())
    }
}

impl Bounded for proto::RoundCommandRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        use proto::round_command_request::Command;
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        ROUND_ID.check(&at(place, "round_id"), &self.round_id)?;
        present(&at(place, "command"), self.command.as_ref())?;
        match &self.command {
            Some(Command::Bet(bet)) => bet.check_in(&at(place, "bet."))?,
            Some(Command::CloseBetting(close)) => {
                OPTIONAL_NAME.check(&at(place, "close_betting.shaker"), &close.shaker)?;
            }
            Some(Command::Decide(decide)) => decide.check_in(&at(place, "decide."))?,
            Some(Command::Batch(batch)) => {
                use proto::round_batch_item::Command as Item;
                ROUND_BATCH.check(&at(place, "batch.commands"), batch.commands.len())?;
                if batch.commands.is_empty() {
                    return Err(invalid_argument(
                        &at(place, "batch.commands"),
                        "1 to 1000 entries",
                    ));
                }
                for (i, item) in batch.commands.iter().enumerate() {
                    let here = format!("{place}batch.commands[{i}].");
                    present(&format!("{here}command"), item.command.as_ref())?;
                    match &item.command {
                        Some(Item::Bet(bet)) => bet.check_in(&format!("{here}bet."))?,
                        Some(Item::Decide(decide)) => decide.check_in(&format!("{here}decide."))?,
                        None => {}
                    }
                }
            }
            Some(Command::CloseWindow(close)) => {
                REASON.check(&at(place, "close_window.reason"), close.reason.trim())?;
            }
            Some(Command::ChangeDealer(change)) => {
                NAME.check(&at(place, "change_dealer.dealer"), &change.dealer)?;
                REASON.check(&at(place, "change_dealer.reason"), change.reason.trim())?;
            }
            None => {}
        }
        Ok(())
    }
}

impl Bounded for proto::RoundBetCommand {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        NAME.check(&at(place, "player"), &self.player)?;
        SEAT.check(&at(place, "seat"), u64::from(self.seat))?;
        WAGERS.check(&at(place, "wagers"), self.wagers.len())?;
        for (i, wager) in self.wagers.iter().enumerate() {
            wager.check_in(&format!("{place}wagers[{i}]."))?;
        }
        let seed = self.player_seed.len();
        if seed > PLAYER_SEED_BYTES {
            return Err(invalid_argument(
                &at(place, "player_seed"),
                format!("{seed} bytes: at most {PLAYER_SEED_BYTES} (none: empty)"),
            ));
        }
        Ok(())
    }
}

impl Bounded for proto::RoundDecisionCommand {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        NAME.check(&at(place, "player"), &self.player)?;
        SEAT.check(&at(place, "seat"), u64::from(self.seat))?;
        let action = self.action.as_ref();
        present(&at(place, "action"), action)?;
        if let Some(action) = action {
            action.check_in(&at(place, "action."))?;
        }
        Ok(())
    }
}

impl Bounded for proto::GetRoundRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        ROUND_ID.check(&at(place, "round_id"), &self.round_id)?;
        OPTIONAL_NAME.check(&at(place, "player"), &self.player)?;
        ROUND_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        Ok(())
    }
}

impl Bounded for proto::GetRoundBundleRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        ROUND_ID.check(&at(place, "round_id"), &self.round_id)
    }
}

impl Bounded for proto::GetRoundDisputePacketRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        ROUND_ID.check(&at(place, "round_id"), &self.round_id)?;
        OPTIONAL_NAME.check(&at(place, "player"), &self.player)
    }
}

impl Bounded for proto::ReplayRoundRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        ROUND_ID.check(&at(place, "round_id"), &self.round_id)?;
        OPTIONAL_NAME.check(&at(place, "player"), &self.player)?;
        ROUND_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        Ok(())
    }
}

impl Bounded for proto::VoidRoundRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        ROUND_ID.check(&at(place, "round_id"), &self.round_id)?;
        ID.check(&at(place, "kind"), &self.kind)?;
        REASON.check(&at(place, "reason"), self.reason.trim())?;
        OPTIONAL_NAME.check(&at(place, "player"), &self.player)?;
        SEAT.check(&at(place, "seat"), u64::from(self.seat))?;
        Ok(())
    }
}

impl Bounded for proto::VoidHandRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        HAND_ID.check(&at(place, "hand_id"), &self.hand_id)?;
        ID.check(&at(place, "kind"), &self.kind)?;
        REASON.check(&at(place, "reason"), self.reason.trim())?;
        RECORDED_BY.check(&at(place, "recorded_by"), &self.recorded_by)
    }
}

impl Bounded for proto::RecordTableMalfunctionRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        NAME.check(&at(place, "table"), self.table.trim())?;
        if self.to_ms < self.from_ms {
            return Err(invalid_argument(
                &at(place, "to_ms"),
                format!(
                    "the range ends before it starts: {} is before from_ms {}",
                    self.to_ms, self.from_ms
                ),
            ));
        }
        REASON.check(&at(place, "reason"), self.reason.trim())?;
        RECORDED_BY.check(&at(place, "recorded_by"), &self.recorded_by)
    }
}

impl Bounded for proto::RunSweepRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        REQUEST_ID.check(&at(place, "request_id"), &self.request_id)?;
        RECORDED_BY.check(&at(place, "recorded_by"), &self.recorded_by)
    }
}

impl Bounded for proto::ApproveProposalRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        PROPOSAL_ID.check(&at(place, "proposal_id"), &self.proposal_id)
    }
}

impl Bounded for proto::RejectProposalRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        PROPOSAL_ID.check(&at(place, "proposal_id"), &self.proposal_id)?;
        REASON.check(&at(place, "reason"), self.reason.trim())
    }
}

impl Bounded for proto::ListProposalsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        PROPOSAL_STATE.check(&at(place, "state"), &self.state)?;
        PROPOSALS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        PROPOSALS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::RotateSigningKeyRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        KEY_ID.check(&at(place, "expected_key_id"), &self.expected_key_id)
    }
}

impl Bounded for proto::GetReturnsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        OPTIONAL_ID.check(&at(place, "game"), &self.game)?;
        NAME_FILTER.check(&at(place, "table"), &self.table)?;
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        OPTIONAL_ID.check(&at(place, "bet"), &self.bet)?;
        NAME_FILTER.check(&at(place, "dealer"), &self.dealer)?;
        // RETURNS_BY_TABLE or RETURNS_BY_DEALER; a negative value is out of range too.
        match u64::try_from(self.by) {
            Ok(by) => RETURNS_BY.check(&at(place, "by"), by).map(|_| ())?,
            Err(_) => {
                return Err(invalid_argument(
                    &at(place, "by"),
                    format!("{} is out of range: {}", self.by, RETURNS_BY.describe()),
                ))
            }
        }
        RETURNS_WINDOWS.check(&at(place, "windows"), self.windows.len())?;
        for (i, w) in self.windows.iter().enumerate() {
            if self.windows[..i].contains(w) {
                return Err(invalid_argument(
                    &format!("{place}windows[{i}]"),
                    format!("{w}: each window at most once"),
                ));
            }
            if !crate::returns::WINDOWS.contains(w) {
                return Err(invalid_argument(
                    &format!("{place}windows[{i}]"),
                    format!("{w}: each window is 0 (the lifetime), 1, 7 or 30 days"),
                ));
            }
        }
        RETURNS_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        RETURNS_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::ListSignificantEventsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        open_end(&at(place, "to_ms"), self.from_ms, self.to_ms, "no end")?;
        EVENTS_REPORT_KINDS.check(&at(place, "kinds"), self.kinds.len())?;
        for (i, kind) in self.kinds.iter().enumerate() {
            if !crate::audit::significant::KINDS.contains(&kind.as_str()) {
                return Err(invalid_argument(
                    &format!("{place}kinds[{i}]"),
                    format!(
                        "{:?}: one of {}",
                        kind.chars().take(40).collect::<String>(),
                        crate::audit::significant::KINDS.join(", ")
                    ),
                ));
            }
        }
        EVENTS_REPORT_PAGE_SIZE.check(&at(place, "page_size"), u64::from(self.page_size))?;
        EVENTS_REPORT_PAGE_TOKEN.check(&at(place, "page_token"), &self.page_token)
    }
}

impl Bounded for proto::RecordInvestigationRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        ALERT_ID.check(&at(place, "alert_id"), &self.alert_id)?;
        if !OUTCOMES.contains(&self.outcome.as_str()) {
            return Err(invalid_argument(
                &at(place, "outcome"),
                format!(
                    "{:?}: one of {}",
                    self.outcome.chars().take(40).collect::<String>(),
                    OUTCOMES.join(", ")
                ),
            ));
        }
        FINDINGS.check(&at(place, "reason"), &self.reason)
    }
}

impl Bounded for proto::AuthenticateSoftwareRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        let range = crate::software::CHALLENGE_LEN;
        if range.contains(&self.challenge.len()) {
            Ok(())
        } else {
            Err(invalid_argument(
                &at(place, "challenge"),
                format!(
                    "{} bytes: {} to {} bytes (a fresh random value)",
                    self.challenge.len(),
                    range.start(),
                    range.end()
                ),
            ))
        }
    }
}

impl Bounded for proto::ReloadAccessRequest {
    fn check_in(&self, _place: &str) -> Result<(), Status> {
        Ok(())
    }
}

impl Bounded for proto::GetParSheetsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        MAIN_BET_ROUNDS.check(&at(place, "main_bet_rounds"), self.main_bet_rounds)?;
        seed_bytes(&at(place, "seed"), &self.seed, true)
    }
}

impl Bounded for proto::SimulateRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        SIMULATED_HANDS.check(&at(place, "hands"), self.hands)?;
        seed_bytes(&at(place, "seed"), &self.seed, true)
    }
}

impl Bounded for proto::StreamRngWordsRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        RNG_WORDS.check(&at(place, "words"), self.words)?;
        WORDS_PER_SEED.check(&at(place, "words_per_seed"), self.words_per_seed)?;
        Ok(())
    }
}

impl Bounded for proto::TestRngRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        RNG_SEQUENCES.check(&at(place, "sequences"), u64::from(self.sequences))?;
        RNG_SEQUENCE_BITS.check(&at(place, "bits"), self.bits)?;
        seed_bytes(&at(place, "seed"), &self.seed, true)
    }
}

impl Bounded for proto::CertifyRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        CONFIG_ID.check(&at(place, "config_id"), &self.config_id)?;
        CERTIFIED_HANDS.check(&at(place, "hands"), self.hands)?;
        seed_bytes(&at(place, "seed"), &self.seed, true)?;
        CERTIFIED_SEQUENCES.check(
            &at(place, "battery_sequences"),
            u64::from(self.battery_sequences),
        )?;
        RNG_SEQUENCE_BITS.check(&at(place, "battery_bits"), self.battery_bits)?;
        seed_bytes(&at(place, "battery_seed"), &self.battery_seed, true)?;
        CERTIFIED_TRANSCRIPTS.check(&at(place, "transcripts"), self.transcripts.len())?;
        for (i, t) in self.transcripts.iter().enumerate() {
            if t.len() > TRANSCRIPT_JSON {
                return Err(invalid_argument(
                    &at(place, &format!("transcripts[{i}]")),
                    format!("{} bytes: at most {TRANSCRIPT_JSON}", t.len()),
                ));
            }
        }
        NAME_FILTER.check(&at(place, "transcripts_source"), &self.transcripts_source)
    }
}

impl Bounded for proto::StreamShufflesRequest {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        SHUFFLES.check(&at(place, "shuffles"), self.shuffles)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::kinds::within_log;
    use super::*;
    use tonic::Code;
    use tonic_types::StatusExt;

    fn violation(status: &Status) -> (String, String) {
        let details = status.get_details_bad_request().expect("a BadRequest");
        let v = &details.field_violations[0];
        (v.field.clone(), v.description.clone())
    }

    #[test]
    fn strings_are_held_to_their_shape_and_length() {
        assert!(REQUEST_ID.check("request_id", "").is_ok());
        assert!(REQUEST_ID.check("request_id", "retry-7:a/b").is_ok());
        for bad in ["has space", "tab\t", "é", &"x".repeat(129)] {
            let e = REQUEST_ID.check("request_id", bad).unwrap_err();
            assert_eq!(e.code(), Code::InvalidArgument);
            let (field, description) = violation(&e);
            assert_eq!(field, "request_id");
            assert!(
                description.contains("at most 128 characters"),
                "{description}"
            );
        }
        assert!(HAND_ID.check("hand_id", &"ab".repeat(16)).is_ok());
        for bad in ["", "ab", &"g".repeat(32), &"a".repeat(33)] {
            let (_, d) = violation(&HAND_ID.check("hand_id", bad).unwrap_err());
            assert!(d.contains("exactly 32 hexadecimal digits"), "{d}");
        }
        // Characters, not bytes: 200 two-byte characters are a name, 201 are not.
        assert!(NAME.check("table", &"é".repeat(200)).is_ok());
        assert!(NAME.check("table", &"é".repeat(201)).is_err());
        assert!(NAME.check("table", "a\nb").is_err());
        let (_, d) = violation(&NAME.check("table", "").unwrap_err());
        assert_eq!(d, "required: 1 to 200 characters, no control characters");
        assert!(CONFIG_JSON.check("config_json", "{\n}").is_ok());
        assert!(CONFIG_JSON
            .check("config_json", &" ".repeat(64 * 1024 + 1))
            .is_err());
        assert!(EVENTS_PAGE_TOKEN
            .check("page_token", "18446744073709551615")
            .is_ok());
        assert!(EVENTS_PAGE_TOKEN.check("page_token", "-1").is_err());
        assert!(HANDS_PAGE_TOKEN.check("page_token", "abc").is_err());
    }

    #[test]
    fn numbers_and_counts_say_their_limit() {
        for n in [0, u64::from(u32::MAX), u64::MAX] {
            let result = SIMULATED_HANDS.check("hands", n);
            let e = result.unwrap_err();
            let (field, d) = violation(&e);
            assert_eq!(field, "hands");
            assert!(d.ends_with("1 to 100000000"), "{d}");
        }
        assert_eq!(RNG_WORDS.check("words", 1 << 32).unwrap(), 1 << 32);
        assert!(RNG_WORDS.check("words", (1 << 32) + 1).is_err());
        let (field, d) = violation(&WAGERS.check("open.wagers", 17).unwrap_err());
        assert_eq!(field, "open.wagers");
        assert_eq!(d, "17 entries: at most 16 entries");
        let e = within_log("sequence", u64::MAX, 9, "the last sequence").unwrap_err();
        assert_eq!(e.code(), Code::OutOfRange);
        assert_eq!(violation(&e).0, "sequence");
    }

    #[test]
    fn nested_fields_are_named_as_the_client_wrote_them() {
        let request = proto::PlayHandRequest {
            open: Some(proto::OpenHandRequest {
                table: "T".into(),
                player: "P".into(),
                wagers: vec![
                    proto::Wager {
                        bet: "ante".into(),
                        amount: 5,
                    },
                    proto::Wager {
                        bet: "x".repeat(33),
                        amount: 5,
                    },
                ],
                ..Default::default()
            }),
            decisions: vec![
                proto::Action {
                    kind: "bet".into(),
                    ..Default::default()
                };
                4
            ],
            follow_advice: false,
        };
        assert_eq!(
            violation(&request.check().unwrap_err()).0,
            "open.wagers[1].bet"
        );
        let mut request = request;
        request.open.as_mut().unwrap().wagers.pop();
        request.decisions[3].low = vec!["As".into(), "Kd".into(), "Qh".into()];
        assert_eq!(
            violation(&request.check().unwrap_err()).0,
            "decisions[3].low"
        );
        request.decisions[3].low = vec!["As".into(), "Kd is long".into()];
        assert_eq!(
            violation(&request.check().unwrap_err()).0,
            "decisions[3].low[1]"
        );
        request.decisions[3].low.clear();
        assert!(request.check().is_ok());
        request.open = None;
        assert_eq!(violation(&request.check().unwrap_err()).0, "open");
    }
}
