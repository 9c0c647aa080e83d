//! Times as people read them: milliseconds since the Unix epoch shown as a UTC date and time,
//! `YYYY-MM-DD HH:MM:SS.mmm UTC`, by integer arithmetic on the proleptic Gregorian calendar.
//!
//! This module owns that conversion only. It must not read a clock: every time on the page is one
//! the log recorded.

/// `ms` milliseconds after 1970-01-01 00:00:00 UTC, as `YYYY-MM-DD HH:MM:SS.mmm UTC`. Years past
/// 9999 get more digits; every `u64` has an answer.
pub fn utc(ms: u64) -> String {
    let days = ms / 86_400_000;
    let in_day = ms % 86_400_000;
    let (year, month, day) = civil_from_days(days);
    let (hours, rest) = (in_day / 3_600_000, in_day % 3_600_000);
    let (minutes, rest) = (rest / 60_000, rest % 60_000);
    let (seconds, millis) = (rest / 1_000, rest % 1_000);
    format!("{year:04}-{month:02}-{day:02} {hours:02}:{minutes:02}:{seconds:02}.{millis:03} UTC")
}

/// The first millisecond of the UTC day `year-month-day` (`None` for a date that does not exist
/// or comes before 1970): Howard Hinnant's `days_from_civil`, the inverse of `civil_from_days`.
pub fn ms_of_date(year: u64, month: u64, day: u64) -> Option<u64> {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if !(1970..=9999).contains(&year) || day == 0 || day > days_in_month {
        return None;
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y / 400;
    let year_of_era = y % 400;
    let shifted_month = (month + 9) % 12; // March is 0
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Some(days * 86_400_000)
}

/// The civil date (year, month 1–12, day 1–31) of the day `days` after 1970-01-01.
///
/// Howard Hinnant's `civil_from_days`, for non-negative day counts: count from 0000-03-01 so that
/// the leap day ends a year, split into 400-year eras of 146 097 days, then into years of the era
/// (a 100-year century has 36 524 days, a 4-year cycle 1 461), then into 153-day five-month
/// groups of the March-based year.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    // 719 468 days from 0000-03-01 to 1970-01-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097; // 0..=146_096
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365; // 0..=399
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100); // 0..=365
    let mp = (5 * day_of_year + 2) / 153; // 0 = March … 11 = February
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::{ms_of_date, utc};

    /// Every day from 1970 to 2400 read back: the date of its first millisecond is the date; the
    /// days that do not exist are refused.
    #[test]
    fn a_date_and_its_first_millisecond_agree_both_ways() {
        let mut ms = 0;
        for year in 1970..2400u64 {
            for month in 1..=12 {
                for day in 1..=31 {
                    let Some(at) = ms_of_date(year, month, day) else {
                        continue;
                    };
                    assert_eq!(at, ms, "{year}-{month}-{day}");
                    assert!(
                        utc(at).starts_with(&format!("{year:04}-{month:02}-{day:02} 00:00:00.000"))
                    );
                    ms += 86_400_000;
                }
            }
        }
        assert_eq!(ms_of_date(2023, 2, 29), None);
        assert_eq!(
            ms_of_date(2024, 2, 29).map(utc).as_deref(),
            Some("2024-02-29 00:00:00.000 UTC")
        );
        assert_eq!(ms_of_date(2100, 2, 29), None);
        assert_eq!(ms_of_date(2026, 13, 1), None);
        assert_eq!(ms_of_date(1969, 12, 31), None);
    }

    #[test]
    fn known_instants() {
        assert_eq!(utc(0), "1970-01-01 00:00:00.000 UTC");
        // 11 016 days (30 years, 7 of them leap: 72 76 80 84 88 92 96) plus 59 days of 2000.
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00.000 UTC");
        assert_eq!(utc(951_782_399_999), "2000-02-28 23:59:59.999 UTC");
        assert_eq!(utc(951_868_800_000), "2000-03-01 00:00:00.000 UTC");
        // 1 700 000 000 s: 19 675 days and 80 000 s (22 h 13 min 20 s).
        assert_eq!(utc(1_700_000_000_000), "2023-11-14 22:13:20.000 UTC");
        assert_eq!(utc(1_709_164_800_000), "2024-02-29 00:00:00.000 UTC");
        // 4 102 444 800 s = 47 482 days: 130 years of which 32 leap (1972 … 2096; 2100 is not).
        assert_eq!(utc(4_102_444_800_000), "2100-01-01 00:00:00.000 UTC");
        assert_eq!(utc(253_402_300_799_999), "9999-12-31 23:59:59.999 UTC");
        assert_eq!(utc(86_399_999), "1970-01-01 23:59:59.999 UTC");
        assert_eq!(utc(31_536_000_000), "1971-01-01 00:00:00.000 UTC");
    }

    #[test]
    fn the_largest_instant_has_an_answer() {
        let text = utc(u64::MAX);
        // u64::MAX ms = 213 503 982 334 days and 51 951 615 ms (14:25:51.615); the days are
        // 1 461 385 eras of 400 years (146 097 days each) and 17 989 days, which from 1970-01-01
        // end on 2019-04-03: 2019 + 1 461 385 × 400 = 584 556 019.
        assert!(text.ends_with(" 14:25:51.615 UTC"), "{text}");
        assert!(text.starts_with("584556019-04-03 "), "{text}");
    }
}
