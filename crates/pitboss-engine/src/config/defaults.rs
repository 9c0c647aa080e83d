//! The default configurations: the numbers of `spec/GAMES.md`, and the only place in the code where
//! they appear. Amounts are euro cents.

use super::{
    CaribbeanRules, Currency, FortunePaiGowRules, GameConfig, Limit, MississippiHand,
    MississippiRules, NineHighRule, NutzRow, NutzRules, Rules, HOUSE_WAY_DEFAULT, RULES_VERSION,
};
use crate::game::GameId;
use crate::hand::fortune::FortuneCategory;
use crate::hand::{poker5, three_card};
use crate::money::Money;
use crate::paytable::{Pay, PayRow};

/// Whole currency units in minor units (two decimals).
const fn units(whole: u64) -> Money {
    Money(whole * 100)
}

const fn odds(x: u32) -> Pay {
    Pay::Odds(x)
}

fn row<H>(hand: H, pay: Pay) -> PayRow<H> {
    PayRow { hand, pay }
}

impl GameConfig {
    /// The default configuration of `game`, from `spec/GAMES.md`.
    pub fn default_for(game: GameId) -> GameConfig {
        let rules = match game {
            GameId::MississippiStud => Rules::MississippiStud(mississippi_default()),
            GameId::FortunePaiGow => Rules::FortunePaiGow(fortune_pai_gow_default()),
            GameId::Nutz => Rules::Nutz(nutz_default()),
            GameId::CaribbeanStud => Rules::CaribbeanStud(caribbean_default()),
        };
        GameConfig {
            game,
            name: "default".into(),
            version: 1,
            currency: Currency {
                code: "EUR".into(),
                minor_digits: 2,
            },
            incomplete_void_days: 30,
            rules_version: RULES_VERSION,
            rules,
        }
    }
}

fn mississippi_default() -> MississippiRules {
    use three_card::Category as B;
    use MississippiHand as M;
    MississippiRules {
        ante: Limit {
            min: units(1),
            max: units(50),
        },
        bonus: Limit {
            min: units(1),
            max: units(50),
        },
        street_multiples: vec![1, 2, 3],
        paytable: vec![
            row(M::RoyalFlush, odds(500)),
            row(M::StraightFlush, odds(100)),
            row(M::FourOfAKind, odds(40)),
            row(M::FullHouse, odds(10)),
            row(M::Flush, odds(6)),
            row(M::Straight, odds(4)),
            row(M::ThreeOfAKind, odds(3)),
            row(M::TwoPair, odds(2)),
            row(M::PairJacksOrBetter, odds(1)),
            row(M::PairSixesToTens, Pay::Push),
        ],
        bonus_paytable: vec![
            row(B::MiniRoyal, odds(50)),
            row(B::StraightFlush, odds(40)),
            row(B::ThreeOfAKind, odds(30)),
            row(B::Straight, odds(6)),
            row(B::Flush, odds(4)),
            row(B::Pair, odds(1)),
        ],
        ante_cap: Some(units(25_050)),
        street_cap: Some(units(75_150)),
        bonus_cap: Some(units(2_550)),
        game_cap: Some(units(250_000)),
    }
}

fn fortune_pai_gow_default() -> FortunePaiGowRules {
    use FortuneCategory as F;
    FortunePaiGowRules {
        main: Limit {
            min: units(1),
            max: units(100),
        },
        bonus: Limit {
            min: units(1),
            max: units(30),
        },
        main_win: odds(1),
        bonus_paytable: vec![
            row(F::SevenCardStraightFlushNatural, odds(8000)),
            row(F::RoyalMatch, odds(2000)),
            row(F::SevenCardStraightFlushWithJoker, odds(1000)),
            row(F::FiveAces, odds(400)),
            row(F::RoyalFlush, odds(150)),
            row(F::StraightFlush, odds(50)),
            row(F::FourOfAKind, odds(25)),
            row(F::FullHouse, odds(5)),
            row(F::Flush, odds(4)),
            row(F::ThreeOfAKind, odds(3)),
            row(F::Straight, odds(2)),
        ],
        house_way: HOUSE_WAY_DEFAULT.into(),
        dealer_nine_high: NineHighRule::PushEveryOutcome,
        game_cap: Some(units(240_230)),
    }
}

fn nutz_default() -> NutzRules {
    use NutzRow as N;
    NutzRules {
        box_limit: Limit {
            min: units(1),
            max: units(100),
        },
        max_shakes: 3,
        paytable: vec![
            row(N::NutzFirstShake, odds(100)),
            row(N::NutzLaterShake, odds(25)),
            row(N::OnePair, odds(25)),
            row(N::StraightOrNoHand, odds(9)),
            row(N::FourOfAKind, odds(5)),
            row(N::ThreeOfAKind, odds(5)),
            row(N::TwoPairs, odds(3)),
            row(N::FullHouse, odds(2)),
        ],
        game_cap: None,
    }
}

fn caribbean_default() -> CaribbeanRules {
    use poker5::Category as C;
    CaribbeanRules {
        ante: Limit {
            min: units(1),
            max: units(100),
        },
        bonus_stake: units(1),
        raise_multiple: 2,
        ante_win: odds(1),
        raise_paytable: vec![
            row(C::RoyalFlush, odds(100)),
            row(C::StraightFlush, odds(50)),
            row(C::FourOfAKind, odds(20)),
            row(C::FullHouse, odds(7)),
            row(C::Flush, odds(5)),
            row(C::Straight, odds(4)),
            row(C::ThreeOfAKind, odds(3)),
            row(C::TwoPair, odds(2)),
            row(C::Pair, odds(1)),
            row(C::HighCard, odds(1)),
        ],
        bonus_paytable: vec![
            row(C::RoyalFlush, Pay::Fixed(units(10_000))),
            row(C::StraightFlush, Pay::Fixed(units(1_000))),
            row(C::FourOfAKind, Pay::Fixed(units(500))),
            row(C::FullHouse, Pay::Fixed(units(250))),
            row(C::Flush, Pay::Fixed(units(150))),
        ],
        game_cap: None,
    }
}
