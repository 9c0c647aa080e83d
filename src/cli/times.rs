//! The times the client commands take (`--from`, `--to`): milliseconds since the Unix epoch, a
//! UTC date (its first millisecond, or its last for the end of a period), or a UTC date and time
//! ending in `Z`. The calendar is `pitboss_packet`'s, the one every page and listing shows times
//! with; this module reads what a person types.

use anyhow::{bail, Context};

/// A time argument in milliseconds: a date (its first or, with `end_of_day`, last millisecond),
/// a UTC date and time ending in `Z`, or milliseconds.
pub fn parse_time(text: &str, end_of_day: bool) -> anyhow::Result<u64> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().context("milliseconds out of range");
    }
    let number = |s: &str| -> anyhow::Result<u64> {
        anyhow::ensure!(
            !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit()),
            "`{text}` is not YYYY-MM-DD, YYYY-MM-DDTHH:MM:SSZ or milliseconds"
        );
        Ok(s.parse()?)
    };
    let (date, time) = match text.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (text, None),
    };
    let parts: Vec<&str> = date.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        bail!("`{text}` is not YYYY-MM-DD, YYYY-MM-DDTHH:MM:SSZ or milliseconds");
    };
    let day = pitboss_packet::ms_of_date(number(y)?, number(m)?, number(d)?)
        .with_context(|| format!("`{text}`: no such date (1970 to 9999)"))?;
    Ok(match time {
        None if end_of_day => day + 86_400_000 - 1,
        None => day,
        Some(time) => {
            let time = time
                .strip_suffix('Z')
                .with_context(|| format!("`{text}`: a time must be UTC, ending in Z"))?;
            let fields: Vec<&str> = time.split(':').collect();
            let [h, mi, s] = fields.as_slice() else {
                bail!("`{text}`: the time is HH:MM:SS");
            };
            let (h, mi, s) = (number(h)?, number(mi)?, number(s)?);
            anyhow::ensure!(h < 24 && mi < 60 && s < 60, "`{text}`: no such time");
            day + ((h * 60 + mi) * 60 + s) * 1000
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_dates_datetimes_or_milliseconds() {
        assert_eq!(parse_time("0", false).unwrap(), 0);
        assert_eq!(parse_time("1970-01-01", false).unwrap(), 0);
        assert_eq!(parse_time("1970-01-01", true).unwrap(), 86_399_999);
        assert_eq!(parse_time("2000-02-29", false).unwrap(), 951_782_400_000);
        assert_eq!(
            parse_time("2023-11-14T22:13:20Z", false).unwrap(),
            1_700_000_000_000
        );
        for bad in [
            "2023-02-29",
            "2023-13-01",
            "2023-1-1x",
            "2023-11-14T22:13:20",
            "",
            "x",
        ] {
            assert!(parse_time(bad, false).is_err(), "{bad}");
        }
    }
}
