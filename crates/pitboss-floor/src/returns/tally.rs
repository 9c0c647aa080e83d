//! The totals of returns, fed entry by entry from the log: per game, table, dealer, configuration
//! and bet group (the PAR sheets' groups, `pitboss_lab::simulate::groups`), the hands and rounds'
//! places settled with what they staked and paid back, and the settled ones voided afterwards with
//! what their settlement had staked and paid. A hand has no dealer (its key's `dealer` is empty); a
//! round's place counts under its round's dealer. Owns the arithmetic (checked, integer minor
//! units) and what one entry adds. MUST NOT read the log, a clock or a configuration: the caller
//! hands it each entry and, for a settlement or void, the hand's or place's opening ([`Opened`]).

use std::collections::BTreeMap;

use pitboss_engine::config::ConfigId;
use pitboss_engine::game::GameId;

use crate::proto;

/// What the totals are kept by.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub game: GameId,
    pub table: String,
    /// The round's dealer; empty for a hand (which has none), and in a row summed over dealers.
    pub dealer: String,
    pub config_id: ConfigId,
    /// The bet group: "main", "bonus", "fortune_bonus", or a Nutz box.
    pub bet: String,
}

/// The totals of one key. Every field only grows; what a void reverses is counted in the
/// `voided_*` fields, so a period's totals are always whole numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sums {
    pub hands: u64,
    pub staked: u128,
    pub paid: u128,
    /// Σ of the group's initial stakes (the ante, the main bet, the side bet) and of their squares.
    pub initial: u128,
    pub initial_squares: u128,
    pub voided_hands: u64,
    pub voided_staked: u128,
    pub voided_paid: u128,
    pub voided_initial: u128,
    pub voided_initial_squares: u128,
}

/// A sum that passed what its type holds (never in practice: 2^128 minor units).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a returns total overflowed")]
pub struct Overflow;

impl Sums {
    /// Adds `other` to these totals, checked.
    pub fn add(&mut self, other: &Sums) -> Result<(), Overflow> {
        fn plus<T: num_like::Checked>(a: &mut T, b: T) -> Result<(), Overflow> {
            *a = a.checked(b).ok_or(Overflow)?;
            Ok(())
        }
        plus(&mut self.hands, other.hands)?;
        plus(&mut self.staked, other.staked)?;
        plus(&mut self.paid, other.paid)?;
        plus(&mut self.initial, other.initial)?;
        plus(&mut self.initial_squares, other.initial_squares)?;
        plus(&mut self.voided_hands, other.voided_hands)?;
        plus(&mut self.voided_staked, other.voided_staked)?;
        plus(&mut self.voided_paid, other.voided_paid)?;
        plus(&mut self.voided_initial, other.voided_initial)?;
        plus(
            &mut self.voided_initial_squares,
            other.voided_initial_squares,
        )
    }

    /// The totals net of voids: (hands, staked, paid, initial, initial squares). A window may
    /// hold a void of a hand settled before it began: its net is then floored at zero.
    pub fn net(&self) -> (u64, u128, u128, u128, u128) {
        (
            self.hands.saturating_sub(self.voided_hands),
            self.staked.saturating_sub(self.voided_staked),
            self.paid.saturating_sub(self.voided_paid),
            self.initial.saturating_sub(self.voided_initial),
            self.initial_squares
                .saturating_sub(self.voided_initial_squares),
        )
    }

    /// As recorded in a statement or an alert; `None` if a total passes 2^64 (a statement's
    /// period would then need to be shorter).
    pub fn to_proto(&self, key: &Key) -> Option<proto::ReturnsTotals> {
        let n = |v: u128| u64::try_from(v).ok();
        Some(proto::ReturnsTotals {
            game: key.game.id().to_string(),
            table: key.table.clone(),
            config_id: key.config_id.0.to_vec(),
            bet: key.bet.clone(),
            dealer: key.dealer.clone(),
            hands: self.hands,
            staked: n(self.staked)?,
            paid: n(self.paid)?,
            initial: n(self.initial)?,
            initial_squares: self.initial_squares.to_string(),
            voided_hands: self.voided_hands,
            voided_staked: n(self.voided_staked)?,
            voided_paid: n(self.voided_paid)?,
            voided_initial: n(self.voided_initial)?,
            voided_initial_squares: self.voided_initial_squares.to_string(),
        })
    }

    /// Read back from a statement's totals; `None` if they do not read (a game id, a
    /// configuration id of 32 bytes, the squares as decimals).
    pub fn from_proto(t: &proto::ReturnsTotals) -> Option<(Key, Sums)> {
        let key = Key {
            game: crate::codec::from_id("game", &t.game).ok()?,
            table: t.table.clone(),
            dealer: t.dealer.clone(),
            config_id: ConfigId(t.config_id.as_slice().try_into().ok()?),
            bet: t.bet.clone(),
        };
        let sums = Sums {
            hands: t.hands,
            staked: t.staked.into(),
            paid: t.paid.into(),
            initial: t.initial.into(),
            initial_squares: t.initial_squares.parse().ok()?,
            voided_hands: t.voided_hands,
            voided_staked: t.voided_staked.into(),
            voided_paid: t.voided_paid.into(),
            voided_initial: t.voided_initial.into(),
            voided_initial_squares: t.voided_initial_squares.parse().ok()?,
        };
        Some((key, sums))
    }
}

/// The checked addition both integer widths share.
mod num_like {
    pub trait Checked: Sized + Copy {
        fn checked(self, other: Self) -> Option<Self>;
    }
    impl Checked for u64 {
        fn checked(self, other: u64) -> Option<u64> {
            self.checked_add(other)
        }
    }
    impl Checked for u128 {
        fn checked(self, other: u128) -> Option<u128> {
            self.checked_add(other)
        }
    }
}

/// What the totals need of a hand's opening (or of a round's place: its round's opening and its
/// bet): whose key it counts under, its initial stakes, when it was opened (the day a window counts
/// it in), and whether it was settled yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    pub game: GameId,
    pub table: String,
    /// The round's dealer; empty for a hand.
    pub dealer: String,
    pub config_id: ConfigId,
    /// (bet id, amount) as the hand was opened.
    pub initial: Vec<(String, u64)>,
    pub at_ms: u64,
    pub settled: bool,
}

impl Opened {
    /// From a hand's first entry; `None` if it does not read as a known game and configuration.
    pub fn of(opened: &proto::HandOpened) -> Option<Opened> {
        Some(Opened {
            game: crate::codec::from_id("game", &opened.game).ok()?,
            table: opened.table.clone(),
            dealer: String::new(),
            config_id: ConfigId(opened.config_id.as_slice().try_into().ok()?),
            initial: opened
                .wagers
                .iter()
                .map(|w| (w.bet.clone(), w.amount))
                .collect(),
            at_ms: opened.at_ms,
            settled: false,
        })
    }

    fn key(&self, bet: &str) -> Key {
        Key {
            game: self.game,
            table: self.table.clone(),
            dealer: self.dealer.clone(),
            config_id: self.config_id,
            bet: bet.to_string(),
        }
    }
}

/// Per group, the lines' (stake, paid) summed, and the group's initial stake.
fn per_group<'a>(
    opened: &Opened,
    lines: impl Iterator<Item = (&'a str, u64, u64)>,
) -> Result<BTreeMap<String, (u128, u128, u128)>, Overflow> {
    let mut groups: BTreeMap<String, (u128, u128, u128)> = BTreeMap::new();
    for (bet, stake, paid) in lines {
        let Some(group) = opened.game.facts().group_of(bet) else {
            continue;
        };
        let entry = groups.entry(group.to_string()).or_default();
        entry.0 = entry.0.checked_add(stake.into()).ok_or(Overflow)?;
        entry.1 = entry.1.checked_add(paid.into()).ok_or(Overflow)?;
    }
    for (bet, amount) in &opened.initial {
        if let Some(entry) = opened
            .game
            .facts()
            .group_of(bet)
            .and_then(|g| groups.get_mut(g))
        {
            entry.2 = entry.2.checked_add((*amount).into()).ok_or(Overflow)?;
        }
    }
    Ok(groups)
}

/// The per-game cap's cut taken out of the groups' payouts: what the lines paid (`total_before`)
/// becomes what the hand paid (`total_after`), each group's share in proportion to what its lines
/// paid, the remainder of the division to the group that paid most (so the groups add up to the
/// hand's payout exactly).
fn apply_game_cap(
    groups: &mut BTreeMap<String, (u128, u128, u128)>,
    cap: Option<&proto::GameCapLine>,
) -> Result<(), Overflow> {
    let Some(cap) = cap.filter(|c| c.cut > 0 && c.total_before > 0) else {
        return Ok(());
    };
    let (before, after) = (u128::from(cap.total_before), u128::from(cap.total_after));
    let mut given = 0u128;
    for entry in groups.values_mut() {
        entry.1 = entry.1.checked_mul(after).ok_or(Overflow)? / before;
        given = given.checked_add(entry.1).ok_or(Overflow)?;
    }
    if let Some(largest) = groups.values_mut().max_by_key(|e| e.1) {
        largest.1 = largest
            .1
            .checked_add(after.saturating_sub(given))
            .ok_or(Overflow)?;
    }
    Ok(())
}

/// The totals a hand's lines (bet, stake, paid) add per group after the per-game cap, each made
/// by `sums` from (staked, paid, initial stake, its square).
fn counted<'a>(
    opened: &Opened,
    lines: impl Iterator<Item = (&'a str, u64, u64)>,
    cap: Option<&proto::GameCapLine>,
    sums: fn(u128, u128, u128, u128) -> Sums,
) -> Result<Vec<(Key, Sums)>, Overflow> {
    let mut groups = per_group(opened, lines)?;
    apply_game_cap(&mut groups, cap)?;
    groups
        .into_iter()
        .map(|(group, (staked, paid, initial))| {
            let squares = initial.checked_mul(initial).ok_or(Overflow)?;
            Ok((opened.key(&group), sums(staked, paid, initial, squares)))
        })
        .collect()
}

/// What a settlement adds: one hand per group it settled, its stakes and payouts (after the
/// per-game cap, when it cut).
pub fn settled(opened: &Opened, settled: &proto::Settled) -> Result<Vec<(Key, Sums)>, Overflow> {
    let lines = settled
        .lines
        .iter()
        .map(|l| (l.bet.as_str(), l.stake, l.payout));
    counted(
        opened,
        lines,
        settled.game_cap.as_ref(),
        |staked, paid, initial, squares| Sums {
            hands: 1,
            staked,
            paid,
            initial,
            initial_squares: squares,
            ..Sums::default()
        },
    )
}

/// What a void adds: nothing for a hand never settled (nothing was counted); for a settled hand,
/// the reversal of what its settlement counted (the lines' stakes and what they had paid).
pub fn voided(opened: &Opened, voided: &proto::Voided) -> Result<Vec<(Key, Sums)>, Overflow> {
    if !opened.settled {
        return Ok(Vec::new());
    }
    let lines = voided
        .lines
        .iter()
        .map(|l| (l.bet.as_str(), l.stake, l.paid_before));
    counted(
        opened,
        lines,
        voided.game_cap.as_ref(),
        |staked, paid, initial, squares| Sums {
            voided_hands: 1,
            voided_staked: staked,
            voided_paid: paid,
            voided_initial: initial,
            voided_initial_squares: squares,
            ..Sums::default()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opened() -> Opened {
        Opened {
            game: GameId::CaribbeanStud,
            table: "T1".into(),
            dealer: String::new(),
            config_id: ConfigId([1; 32]),
            initial: vec![("ante".into(), 500), ("bonus".into(), 100)],
            at_ms: 0,
            settled: false,
        }
    }

    fn line(bet: &str, stake: u64, payout: u64) -> proto::BetLine {
        proto::BetLine {
            bet: bet.into(),
            stake,
            payout,
            ..Default::default()
        }
    }

    /// A settlement counts one hand per group, the ante and raise under "main" with the ante as
    /// its initial stake; its void (of the settled hand) reverses exactly that; a void of a hand
    /// never settled counts nothing.
    #[test]
    fn a_settlement_and_its_void_count_by_group() {
        let mut hand = opened();
        let s = proto::Settled {
            lines: vec![
                line("ante", 500, 1000),
                line("raise", 1000, 0),
                line("bonus", 100, 0),
            ],
            ..Default::default()
        };
        let added = settled(&hand, &s).unwrap();
        let main = &added.iter().find(|(k, _)| k.bet == "main").unwrap().1;
        assert_eq!(
            (
                main.hands,
                main.staked,
                main.paid,
                main.initial,
                main.initial_squares
            ),
            (1, 1500, 1000, 500, 250_000)
        );
        let bonus = &added.iter().find(|(k, _)| k.bet == "bonus").unwrap().1;
        assert_eq!((bonus.staked, bonus.paid, bonus.initial), (100, 0, 100));
        let v = proto::Voided {
            lines: vec![
                proto::VoidLine {
                    bet: "ante".into(),
                    stake: 500,
                    paid_before: 1000,
                    paid_now: 500,
                },
                proto::VoidLine {
                    bet: "raise".into(),
                    stake: 1000,
                    paid_before: 0,
                    paid_now: 1000,
                },
            ],
            ..Default::default()
        };
        assert!(
            voided(&hand, &v).unwrap().is_empty(),
            "never settled: nothing to reverse"
        );
        hand.settled = true;
        let reversed = voided(&hand, &v).unwrap();
        assert_eq!(reversed.len(), 1);
        let mut total = *main;
        total.add(&reversed[0].1).unwrap();
        assert_eq!(total.net(), (0, 0, 0, 0, 0));
        // Read back from a statement's form, equal.
        let (key, back) = Sums::from_proto(&total.to_proto(&reversed[0].0).unwrap()).unwrap();
        assert_eq!((key, back), (reversed[0].0.clone(), total));
    }

    /// A per-game cap that cut 150 000 down to 100 000: the groups add up to 100 000, shared in
    /// proportion; its void reverses exactly that.
    #[test]
    fn the_per_game_cap_is_taken_out_of_the_groups() {
        let mut hand = opened();
        let cap = proto::GameCapLine {
            total_before: 150_000,
            cap: 100_000,
            cut: 50_000,
            total_after: 100_000,
        };
        let s = proto::Settled {
            lines: vec![
                line("ante", 500, 100_000),
                line("raise", 1000, 20_000),
                line("bonus", 100, 30_000),
            ],
            game_cap: Some(cap),
            ..Default::default()
        };
        let added = settled(&hand, &s).unwrap();
        let paid: u128 = added.iter().map(|(_, s)| s.paid).sum();
        assert_eq!(paid, 100_000);
        let main = added.iter().find(|(k, _)| k.bet == "main").unwrap().1.paid;
        assert_eq!(main, 80_000, "120 000 of 150 000");
        hand.settled = true;
        let v = proto::Voided {
            lines: vec![
                proto::VoidLine {
                    bet: "ante".into(),
                    stake: 500,
                    paid_before: 100_000,
                    paid_now: 500,
                },
                proto::VoidLine {
                    bet: "raise".into(),
                    stake: 1000,
                    paid_before: 20_000,
                    paid_now: 1000,
                },
                proto::VoidLine {
                    bet: "bonus".into(),
                    stake: 100,
                    paid_before: 30_000,
                    paid_now: 100,
                },
            ],
            game_cap: Some(cap),
            ..Default::default()
        };
        let reversed: u128 = voided(&hand, &v)
            .unwrap()
            .iter()
            .map(|(_, s)| s.voided_paid)
            .sum();
        assert_eq!(reversed, 100_000);
    }

    #[test]
    fn an_overflow_is_an_error_not_a_wrap() {
        let mut a = Sums {
            hands: u64::MAX,
            ..Sums::default()
        };
        assert_eq!(
            a.add(&Sums {
                hands: 1,
                ..Sums::default()
            }),
            Err(Overflow)
        );
    }
}
