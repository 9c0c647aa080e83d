//! The theoretical return of each bet group of a configuration, and the spread of one hand around
//! it: from the lab's exact PAR sheets (`pitboss_lab::exact_par_sheets`), and for the one bet the
//! lab simulates (the Fortune Pai Gow main bet) from a simulation with its interval. Owns the
//! figures and where an actual return sits among them (z-score, the 99 % band, the 4 % rule).
//! MUST NOT touch the log; the figures are statistics (floating point), never money.

use std::collections::BTreeMap;

use pitboss_engine::config::GameConfig;
use pitboss_engine::game::GameId;

/// The figures of one bet group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theory {
    /// Paid back per staked (all of the group's wagers counted), stake included.
    pub return_rate: f64,
    /// The standard deviation of one hand's net result per initial unit.
    pub standard_deviation: f64,
    /// From an exact PAR sheet (false: simulated).
    pub exact: bool,
}

/// A configuration's theory as computed: its bet groups' figures, or why not.
pub type Computed = Result<BTreeMap<String, Theory>, String>;

/// The most bet groups a kept theory holds, and the longest group name.
const MAX_GROUPS: usize = 64;
const MAX_GROUP_NAME: usize = 64;

/// A configuration's figures as bytes to keep: per bet group (in order), its name's length and
/// bytes, the return and the standard deviation as IEEE 754 bits (exactly the figures computed),
/// and whether they are exact. `None` when they do not fit the bounds [`from_bytes`] holds them to.
pub fn to_bytes(theories: &BTreeMap<String, Theory>) -> Option<Vec<u8>> {
    if theories.len() > MAX_GROUPS || theories.keys().any(|g| g.len() > MAX_GROUP_NAME) {
        return None;
    }
    let mut bytes = vec![theories.len() as u8];
    for (group, theory) in theories {
        bytes.push(group.len() as u8);
        bytes.extend_from_slice(group.as_bytes());
        bytes.extend_from_slice(&theory.return_rate.to_bits().to_le_bytes());
        bytes.extend_from_slice(&theory.standard_deviation.to_bits().to_le_bytes());
        bytes.push(u8::from(theory.exact));
    }
    Some(bytes)
}

/// The figures of [`to_bytes`], refused (with why) unless every group reads whole, with a finite
/// return and deviation, and nothing follows the last.
pub fn from_bytes(bytes: &[u8]) -> Result<BTreeMap<String, Theory>, String> {
    let (count, mut rest) = bytes.split_first().ok_or("no bytes")?;
    if usize::from(*count) > MAX_GROUPS {
        return Err(format!("{count} bet groups, more than {MAX_GROUPS}"));
    }
    let mut take = |n: usize| -> Result<&[u8], String> {
        if rest.len() < n {
            return Err("cut short".to_string());
        }
        let (taken, left) = rest.split_at(n);
        rest = left;
        Ok(taken)
    };
    let mut theories = BTreeMap::new();
    for _ in 0..*count {
        let length = usize::from(take(1)?[0]);
        let group = std::str::from_utf8(take(length)?)
            .map_err(|_| "a group's name is not UTF-8".to_string())?
            .to_string();
        let float =
            |bytes: &[u8]| f64::from_bits(u64::from_le_bytes(bytes.try_into().unwrap_or_default()));
        let return_rate = float(take(8)?);
        let standard_deviation = float(take(8)?);
        let exact = match take(1)?[0] {
            0 => false,
            1 => true,
            other => return Err(format!("group {group}: {other} is not a flag")),
        };
        if !return_rate.is_finite() || !standard_deviation.is_finite() {
            return Err(format!("group {group}: a figure is not a finite number"));
        }
        let theory = Theory {
            return_rate,
            standard_deviation,
            exact,
        };
        if theories.insert(group.clone(), theory).is_some() {
            return Err(format!("group {group} twice"));
        }
    }
    if !rest.is_empty() {
        return Err(format!("{} bytes after the last group", rest.len()));
    }
    Ok(theories)
}

/// How many rounds the Pai Gow main bet is simulated for (about a second on one core): its
/// return is known to about ±0.1 % then, far inside any band a floor's hands give.
const PAI_GOW_ROUNDS: u64 = 1_000_000;

/// The theory of every bet group of `config`, on one thread (the server computes it beside
/// serving), stopped by `run`.
pub fn of(config: &GameConfig, run: &pitboss_lab::Run) -> Result<BTreeMap<String, Theory>, String> {
    let sheets = pitboss_lab::exact_par_sheets(config, 1).map_err(|e| e.to_string())?;
    let mut theories: BTreeMap<String, Theory> = sheets
        .iter()
        .map(|sheet| {
            (
                sheet.bets.clone(),
                Theory {
                    return_rate: sheet.return_rate(),
                    standard_deviation: sheet.standard_deviation(),
                    exact: true,
                },
            )
        })
        .collect();
    if config.game == GameId::FortunePaiGow {
        // A seed of its own, from the configuration: the same figures on every start.
        let seed = pitboss_engine::rng::Seed::from_bytes(config.id().0);
        let sim = pitboss_lab::pai_gow::simulate_main(config, PAI_GOW_ROUNDS, &seed, 1, run)
            .map_err(|e| e.to_string())?;
        theories.insert(
            "main".into(),
            Theory {
                return_rate: sim.return_rate(),
                standard_deviation: sim.standard_deviation(),
                exact: false,
            },
        );
    }
    Ok(theories)
}

/// z for the 99 % band (two-sided).
pub const Z_99: f64 = 2.575_829_303_549;

/// Where an actual return sits for this theory, hands and stakes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Standing {
    pub z: f64,
    pub band_low: f64,
    pub band_high: f64,
    pub out_of_band: bool,
    pub deviation_over_4_percent: bool,
}

impl Theory {
    /// The standing of `paid` per `staked` when the hands' initial stakes' squares sum to
    /// `initial_squares`: the sum of the hands' net results has standard deviation σ·√Σs², so the
    /// return's is that over the amount staked. `None` when nothing is staked.
    pub fn standing(&self, staked: u128, paid: u128, initial_squares: u128) -> Option<Standing> {
        if staked == 0 {
            return None;
        }
        let actual = paid as f64 / staked as f64;
        let spread = self.standard_deviation * (initial_squares as f64).sqrt() / staked as f64;
        let half = Z_99 * spread;
        let z = if spread > 0.0 {
            (actual - self.return_rate) / spread
        } else {
            0.0
        };
        Some(Standing {
            z,
            band_low: self.return_rate - half,
            band_high: self.return_rate + half,
            out_of_band: z.abs() > Z_99,
            deviation_over_4_percent: (actual - self.return_rate).abs() > 0.04,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_figures_read_back_exactly_and_nothing_else_reads() {
        let theories: BTreeMap<String, Theory> = [
            (
                "ante".to_string(),
                Theory {
                    return_rate: 0.947_770_881_770_8,
                    standard_deviation: 1.0 / 3.0,
                    exact: true,
                },
            ),
            (
                "main".to_string(),
                Theory {
                    return_rate: 0.974_7,
                    standard_deviation: 0.75,
                    exact: false,
                },
            ),
        ]
        .into();
        let bytes = to_bytes(&theories).unwrap();
        assert_eq!(from_bytes(&bytes).unwrap(), theories);
        for cut in 0..bytes.len() {
            assert!(from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert!(from_bytes(&[bytes.clone(), vec![0]].concat()).is_err());
        let mut not_finite = theories.clone();
        not_finite.get_mut("ante").unwrap().return_rate = f64::NAN;
        assert!(from_bytes(&to_bytes(&not_finite).unwrap()).is_err());
        let long: BTreeMap<String, Theory> = [("x".repeat(65), theories["ante"])].into();
        assert_eq!(to_bytes(&long), None);
    }

    /// A thousand hands of one unit at a bet returning 95 % with σ 1: the band is
    /// 95 % ± 2.576 × 1/√1000 (± 8.1 points); 80 % is outside (z ≈ −4.74), 96 % inside, and 90 %
    /// inside the band although 5 points away (the 4 % rule alone says so).
    #[test]
    fn the_band_scales_with_the_square_root_of_the_hands() {
        let theory = Theory {
            return_rate: 0.95,
            standard_deviation: 1.0,
            exact: true,
        };
        let inside = theory.standing(1000, 960, 1000).unwrap();
        assert!(!inside.out_of_band, "{inside:?}");
        assert!((inside.band_high - (0.95 + Z_99 / 1000f64.sqrt())).abs() < 1e-12);
        let outside = theory.standing(1000, 800, 1000).unwrap();
        assert!(
            outside.out_of_band && outside.deviation_over_4_percent,
            "{outside:?}"
        );
        assert!((outside.z - (-0.15 / (1.0 / 1000f64.sqrt()))).abs() < 1e-9);
        let wide = theory.standing(1000, 900, 1000).unwrap();
        assert!(
            !wide.out_of_band && wide.deviation_over_4_percent,
            "{wide:?}"
        );
        // Ten times the stake on each hand: the same hands, the same band.
        let scaled = theory.standing(10_000, 9_600, 100_000).unwrap();
        assert!((scaled.z - inside.z).abs() < 1e-9);
        assert_eq!(theory.standing(0, 0, 0), None);
    }

    /// Every default configuration has a theory for each of its groups, exact but for the Pai Gow
    /// main bet, each return below 1 and each spread positive.
    #[test]
    fn every_default_configuration_has_its_theory() {
        for game in GameId::ALL {
            let config = GameConfig::default_for(game);
            let theories = of(&config, &pitboss_lab::Run::default()).unwrap();
            let groups = game.facts().groups;
            assert_eq!(theories.len(), groups.len(), "{game}");
            for group in groups {
                let name = group.name;
                let t = theories[name];
                assert!(
                    t.return_rate > 0.5 && t.return_rate < 1.0,
                    "{game} {name}: {t:?}"
                );
                assert!(t.standard_deviation > 0.0, "{game} {name}: {t:?}");
                assert_eq!(t.exact, !(game == GameId::FortunePaiGow && name == "main"));
            }
        }
    }
}
