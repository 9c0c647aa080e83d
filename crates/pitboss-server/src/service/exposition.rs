//! The two text formats a scraper may ask the metrics in, chosen by its `Accept` header: the
//! OpenMetrics text (1.0.0) that `prometheus-client` writes, or Prometheus's classic text format
//! (0.0.4), which many scrapers and agents still ask for and which reads OpenMetrics wrongly (a
//! counter's family is named without `_total` there, and `# EOF` is not a line it knows).
//!
//! The classic text is made from the OpenMetrics text, family by family: a counter's `HELP` and
//! `TYPE` name its `_total` sample, `# UNIT` and `# EOF` are dropped, `unknown` is `untyped`,
//! `HELP` text is unescaped of what only OpenMetrics escapes (`\"`), and a sample's exemplar or
//! created time is dropped. The library has no writer of the classic format; this one needs only
//! the families `metrics.rs` writes (counters, gauges, histograms) and refuses any other type, so
//! no family is silently misdescribed. Owns the choice and the translation, nothing else.

/// The `Content-Type` of the OpenMetrics text.
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// The `Content-Type` of the classic text.
pub const CLASSIC: &str = "text/plain; version=0.0.4; charset=utf-8";

/// A text format of the metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// OpenMetrics 1.0.0.
    OpenMetrics,
    /// Prometheus's text format 0.0.4.
    Classic,
}

impl Format {
    /// The `Content-Type` an answer in this format carries.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::OpenMetrics => OPENMETRICS,
            Format::Classic => CLASSIC,
        }
    }
}

/// The format an `Accept` header asks for: of the media ranges it accepts (`q` above 0), the one
/// with the highest `q` that names a format (the first of equals); `application/openmetrics-text`
/// is OpenMetrics, `text/plain` the classic text, and the classic text is the answer to no
/// header, to wildcards and to anything else (as Prometheus's own client libraries answer).
pub fn negotiate(accept: Option<&str>) -> Format {
    let Some(accept) = accept else {
        return Format::Classic;
    };
    let mut best: Option<(u16, Format)> = None;
    // At most 32 ranges are looked at: a header is short, and a long one is not a scraper's.
    for range in accept.split(',').take(32) {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let mut quality = 1000u16;
        for parameter in parts {
            let Some((name, value)) = parameter.split_once('=') else {
                continue;
            };
            if name.trim().eq_ignore_ascii_case("q") {
                quality = parse_quality(value.trim()).unwrap_or(0);
            }
        }
        let format = match media.as_str() {
            "application/openmetrics-text" | "application/*" => Format::OpenMetrics,
            "text/plain" | "text/*" | "*/*" => Format::Classic,
            _ => continue,
        };
        if quality > 0 && best.is_none_or(|(q, _)| quality > q) {
            best = Some((quality, format));
        }
    }
    best.map_or(Format::Classic, |(_, format)| format)
}

/// A `q` value in thousandths (`0`, `0.5`, `1.000`), `None` if it is not one.
fn parse_quality(text: &str) -> Option<u16> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if fraction.len() > 3 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u16 = match whole {
        "0" => 0,
        "1" => 1,
        _ => return None,
    };
    let mut thousandths: u16 = 0;
    for (i, digit) in fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .enumerate()
    {
        thousandths += u16::from(digit - b'0') * [100, 10, 1][i];
    }
    let value = whole * 1000 + thousandths;
    (value <= 1000).then_some(value)
}

/// Why an OpenMetrics text cannot be written as classic text.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClassicError {
    /// A family of a type the classic format has no word for.
    #[error("family {family}: type {kind} has no classic form")]
    Type { family: String, kind: String },
}

/// The classic text of an OpenMetrics text.
pub fn classic(openmetrics: &str) -> Result<String, ClassicError> {
    let mut counters = std::collections::HashSet::new();
    for line in openmetrics.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (family, kind) = rest.split_once(' ').unwrap_or((rest, ""));
            match kind {
                "counter" => {
                    counters.insert(family.to_string());
                }
                "gauge" | "histogram" | "unknown" => {}
                other => {
                    return Err(ClassicError::Type {
                        family: family.to_string(),
                        kind: other.to_string(),
                    })
                }
            }
        }
    }
    let name = |family: &str| -> String {
        if counters.contains(family) {
            format!("{family}_total")
        } else {
            family.to_string()
        }
    };
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (family, help) = rest.split_once(' ').unwrap_or((rest, ""));
            out.push_str(&format!("# HELP {} {}\n", name(family), classic_help(help)));
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (family, kind) = rest.split_once(' ').unwrap_or((rest, ""));
            let kind = if kind == "unknown" { "untyped" } else { kind };
            out.push_str(&format!("# TYPE {} {kind}\n", name(family)));
        } else if line.starts_with('#') || line.is_empty() {
            continue;
        } else {
            let sample = line.split(" # ").next().unwrap_or(line);
            let series = sample.split([' ', '{']).next().unwrap_or_default();
            if series
                .strip_suffix("_created")
                .is_some_and(|family| counters.contains(family))
            {
                continue;
            }
            out.push_str(sample);
            out.push('\n');
        }
    }
    Ok(out)
}

/// OpenMetrics `HELP` text as the classic format escapes it: only `\\` and `\n` are escapes there.
fn classic_help(help: &str) -> String {
    help.replace("\\\"", "\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accept_header_chooses_by_quality_and_defaults_to_classic() {
        assert_eq!(negotiate(None), Format::Classic);
        assert_eq!(negotiate(Some("*/*")), Format::Classic);
        assert_eq!(
            negotiate(Some("text/plain; version=0.0.4")),
            Format::Classic
        );
        assert_eq!(
            negotiate(Some("application/openmetrics-text; version=1.0.0")),
            Format::OpenMetrics
        );
        // What Prometheus sends.
        assert_eq!(
            negotiate(Some(
                "application/openmetrics-text;version=1.0.0,application/openmetrics-text;\
                 version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
            )),
            Format::OpenMetrics
        );
        assert_eq!(
            negotiate(Some(
                "application/openmetrics-text;q=0.2, text/plain;version=0.0.4;q=0.9"
            )),
            Format::Classic
        );
        assert_eq!(
            negotiate(Some("text/plain;q=0, application/openmetrics-text;q=0.1")),
            Format::OpenMetrics
        );
        assert_eq!(negotiate(Some("application/json")), Format::Classic);
        assert_eq!(
            negotiate(Some("application/openmetrics-text; q=nonsense")),
            Format::Classic,
            "a range whose q does not read is not acceptable"
        );
    }

    #[test]
    fn quality_values_read_as_thousandths() {
        assert_eq!(parse_quality("1"), Some(1000));
        assert_eq!(parse_quality("1.000"), Some(1000));
        assert_eq!(parse_quality("0.5"), Some(500));
        assert_eq!(parse_quality("0.125"), Some(125));
        assert_eq!(parse_quality("0"), Some(0));
        assert_eq!(parse_quality("1.5"), None);
        assert_eq!(parse_quality("0.1234"), None);
        assert_eq!(parse_quality("2"), None);
        assert_eq!(parse_quality(""), None);
    }

    #[test]
    fn a_counter_family_is_named_by_its_total_and_the_markers_go() {
        let openmetrics = "# HELP pitboss_hands Hands by \\\"game\\\".\n\
                           # TYPE pitboss_hands counter\n\
                           pitboss_hands_total{game=\"nutz\"} 3\n\
                           pitboss_hands_created{game=\"nutz\"} 1.5e9\n\
                           # HELP pitboss_ledger_append_seconds Append latency.\n\
                           # TYPE pitboss_ledger_append_seconds histogram\n\
                           # UNIT pitboss_ledger_append_seconds seconds\n\
                           pitboss_ledger_append_seconds_bucket{le=\"+Inf\"} 5 # {id=\"x\"} 0.1\n\
                           pitboss_ledger_append_seconds_count 5\n\
                           # TYPE other unknown\n\
                           other 1\n\
                           # EOF\n";
        assert_eq!(
            classic(openmetrics).unwrap(),
            "# HELP pitboss_hands_total Hands by \"game\".\n\
             # TYPE pitboss_hands_total counter\n\
             pitboss_hands_total{game=\"nutz\"} 3\n\
             # HELP pitboss_ledger_append_seconds Append latency.\n\
             # TYPE pitboss_ledger_append_seconds histogram\n\
             pitboss_ledger_append_seconds_bucket{le=\"+Inf\"} 5\n\
             pitboss_ledger_append_seconds_count 5\n\
             # TYPE other untyped\n\
             other 1\n"
        );
    }

    #[test]
    fn a_type_without_a_classic_form_is_refused_by_name() {
        assert_eq!(
            classic("# TYPE pitboss_build info\npitboss_build_info 1\n# EOF\n"),
            Err(ClassicError::Type {
                family: "pitboss_build".into(),
                kind: "info".into()
            })
        );
    }
}
