//! The games this build plays, one line each: the game's variant name, its stable id (logs, the API,
//! configurations' JSON), and the name of its modules — its rules in `config/<module>.rs` and its
//! play in `games/<module>.rs`.
//!
//! Every per-game enumeration of the engine is generated from this one list: [`GameId`] in
//! `game.rs`, the configuration's `Rules` and their checks and defaults in `config/`, the hand's
//! game state and each game's facts in `games/`. Each of those places calls [`roster!`] with a
//! macro of its own, so adding a game is a line here and its two modules, and no `match` over
//! games is written by hand.
//!
//! Must not hold anything but the list.
//!
//! [`GameId`]: crate::game::GameId

/// Calls `$then!` with the roster: `Variant "id" module Rules;` for every game, in the order of
/// `GameId::ALL` (the order the games are listed to people).
macro_rules! roster {
    ($then:ident) => {
        $then! {
            MississippiStud "mississippi_stud" mississippi MississippiRules;
            FortunePaiGow "fortune_pai_gow" pai_gow FortunePaiGowRules;
            Nutz "nutz" nutz NutzRules;
            CaribbeanStud "caribbean_stud" caribbean CaribbeanRules;
        }
    };
}

pub(crate) use roster;
