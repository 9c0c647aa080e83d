//! The URL of an HTTP service the server calls out to (a witness's submission prefix, a beacon
//! source): plain `http://host:port[/prefix]`, checked — no query, no user information, a host —
//! and split into what a connection needs. Owns the parsing only; the calls are their modules'.

/// Where an outbound call goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    /// `host:port` (port 80 when none is given), for the socket and the `Host` header.
    pub(crate) host: String,
    /// The path prefix, without a trailing `/` (empty for none).
    pub(crate) prefix: String,
}

/// The target of `url`, or `None` when it is not a plain `http://host:port[/prefix]` URL.
pub(crate) fn target(url: &str) -> Option<Target> {
    let uri: http::Uri = url.parse().ok()?;
    let authority = uri.authority()?;
    if uri.scheme_str() != Some("http")
        || uri.query().is_some()
        || authority.as_str().contains('@')
        || authority.host().is_empty()
    {
        return None;
    }
    Some(Target {
        host: format!(
            "{}:{}",
            authority.host(),
            authority.port_u16().unwrap_or(80)
        ),
        prefix: uri.path().trim_end_matches('/').to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_http_with_a_host_is_taken() {
        assert_eq!(
            target("http://127.0.0.1:8081/drand/"),
            Some(Target {
                host: "127.0.0.1:8081".into(),
                prefix: "/drand".into()
            })
        );
        assert_eq!(
            target("http://relay").map(|t| t.host),
            Some("relay:80".into())
        );
        for bad in [
            "https://api.drand.sh",
            "http://user@relay:80",
            "http://relay:80/x?y=1",
            "relay:80",
            "",
        ] {
            assert_eq!(target(bad), None, "{bad}");
        }
    }
}
