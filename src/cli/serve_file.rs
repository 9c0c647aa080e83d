//! `pitboss.toml`: `serve`'s settings in a file (`--config`; `docs/pitboss.example.toml`), each
//! overridden by its flag. The file is checked whole before anything starts: an unknown key, a
//! value of the wrong type or a TLS key without its certificate is refused naming the key.
//! Relative paths in the file are relative to the file's directory.
//!
//! Owns the merge of file, flags and defaults; starts nothing.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use pitboss::service::ServerLimits;
use serde::Deserialize;

/// The largest settings file read (a settings file is a few lines).
const MAX_FILE_BYTES: u64 = 64 << 10;

/// Where the data lives without a flag or a file.
pub const DEFAULT_DATA: &str = "./pitboss-data";
/// Where the server listens without a flag or a file.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:50051";

/// The file's keys, every one optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    /// `data = "./pitboss-data"`
    pub data: Option<PathBuf>,
    /// `store = "postgres://pitboss@db1:5432/pitboss"` (default: RocksDB in `data`)
    pub store: Option<String>,
    /// `read_only = true`: serve the log (a replica of the `store` log, or the data directory),
    /// writing nothing.
    pub read_only: Option<bool>,
    /// `listen = "127.0.0.1:50051"`
    pub listen: Option<SocketAddr>,
    /// `access = "access.toml"`
    pub access: Option<PathBuf>,
    /// `insecure_no_tls = false`
    pub insecure_no_tls: Option<bool>,
    /// `[tls]`: `cert`, `key`, `client_ca`.
    pub tls: Option<Tls>,
    /// `[metrics]`: `listen`.
    pub metrics: Option<MetricsTable>,
    /// `[limits]`: `max_connections`, `max_connections_per_peer`, `max_in_flight`.
    pub limits: Option<LimitsTable>,
    /// `[connections]`: `handshake_timeout_ms`, `idle_timeout_ms`.
    pub connections: Option<ConnectionsTable>,
    /// `[advice]`: `warm`.
    pub advice: Option<AdviceTable>,
    /// `[witnessing]`: `policy`, `every_ms`, `warn_behind`, `timeout_ms`.
    pub witnessing: Option<WitnessingTable>,
    /// `[tiles]`: `dir`, `listen`.
    pub tiles: Option<TilesTable>,
    /// `[software]`: `approved`.
    pub software: Option<SoftwareTable>,
    /// `[returns]`: `enabled`, `check_every_s`, `min_hands`, `statement_every_s`.
    pub returns: Option<ReturnsTable>,
    /// `[certification]`: `required`.
    pub certification: Option<CertificationTable>,
    /// `[beacon]`: `source`.
    pub beacon: Option<BeaconTable>,
}

/// The `[beacon]` table: where the beacon rounds that mix rounds' deal seeds are fetched
/// (`docs/rng.md` §1a).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BeaconTable {
    /// drand's HTTP API, or a relay of it: `http://host:port[/prefix]`.
    pub source: Option<String>,
}

/// The `[certification]` table: the lab's reports the floor holds configurations to
/// (`docs/certification.md`, "The configurations in play").
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CertificationTable {
    /// Open new hands only under a configuration whose latest certification report in the log
    /// holds (default false: under any published configuration).
    pub required: Option<bool>,
}

/// The `[returns]` table: the floor's returns against the theoretical (`docs/returns.md`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReturnsTable {
    /// Keep the returns (default true).
    pub enabled: Option<bool>,
    /// How often the windows are held to their bands, in seconds (default 60; 1 to 86 400).
    pub check_every_s: Option<u64>,
    /// The fewest hands a window needs before it opens an alert (default 1 000; at least 1).
    pub min_hands: Option<u64>,
    /// A statement's period in seconds (default 86 400: UTC days; 0: no statements; else at
    /// least 1).
    pub statement_every_s: Option<u64>,
}

/// The `[software]` table: the executables a server may run as (`docs/attestation.md`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoftwareTable {
    /// The SHA-256 (64 hex digits) of each approved executable; a server whose own is not among
    /// them refuses to start. Absent: any.
    pub approved: Option<Vec<String>>,
    /// What a server whose executable is not approved does: `"refuse"` to start (the default), or
    /// start `"read-only"` (the Audit API answers; nothing is written or signed).
    pub unapproved: Option<String>,
}

/// The `[tiles]` table: the log as C2SP tlog-tiles (`docs/tiles.md`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TilesTable {
    /// The directory kept current with the log's tiles.
    pub dir: Option<PathBuf>,
    /// Where the directory is served over HTTP (`GET /checkpoint`, `/tile/…`).
    pub listen: Option<SocketAddr>,
}

/// The `[witnessing]` table: the log's side of witnessing (`docs/witnessing.md`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WitnessingTable {
    /// A C2SP tlog-policy file naming the witnesses (with URLs) and the quorum.
    pub policy: Option<PathBuf>,
    /// How often, in milliseconds, the log is looked at for a checkpoint to submit (default 1000).
    pub every_ms: Option<u64>,
    /// Entries the cosigned checkpoint may be behind before the server says so (default 10 000).
    pub warn_behind: Option<u64>,
    /// How long, in milliseconds, a witness may take to answer (default 10 000).
    pub timeout_ms: Option<u64>,
}

/// The range of `[witnessing] every_ms` accepted: 10 ms to an hour.
pub const COSIGN_EVERY_MS: std::ops::RangeInclusive<u64> = 10..=3_600_000;
/// The range of `[witnessing] timeout_ms` accepted: 100 ms to ten minutes.
pub const COSIGN_TIMEOUT_MS: std::ops::RangeInclusive<u64> = 100..=600_000;

/// The `[advice]` table: the strategy tables behind the Play service's advice.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdviceTable {
    /// Prepare the default configurations' strategy tables and theoretical returns before the
    /// server says it is ready (default `true`), so that no hand waits for them, and nothing
    /// heavy runs beside the first hands, after a restart.
    pub warm: Option<bool>,
}

/// The `[metrics]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsTable {
    /// Where `GET /metrics` is served (OpenMetrics text).
    pub listen: SocketAddr,
}

/// The `[limits]` table: the server's limits an operator may change.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsTable {
    /// gRPC connections kept at once.
    pub max_connections: Option<usize>,
    /// gRPC connections kept at once from one peer.
    pub max_connections_per_peer: Option<usize>,
    /// Calls handled at once.
    pub max_in_flight: Option<usize>,
}

/// The `[connections]` table: how long every listener's connections may make no progress
/// (`docs/limits.md`, "Connections").
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionsTable {
    /// From accept to the TLS handshake and HTTP/2 preface done (gRPC) or the first request head
    /// read (HTTP/1.1), in milliseconds (default 10 000).
    pub handshake_timeout_ms: Option<u64>,
    /// An established connection with no request in flight is closed after this, in milliseconds
    /// (default 300 000).
    pub idle_timeout_ms: Option<u64>,
}

/// The range of `[connections] handshake_timeout_ms` accepted: 100 ms to ten minutes.
pub const HANDSHAKE_TIMEOUT_MS: std::ops::RangeInclusive<u64> = 100..=600_000;
/// The range of `[connections] idle_timeout_ms` accepted: 100 ms to a day.
pub const IDLE_TIMEOUT_MS: std::ops::RangeInclusive<u64> = 100..=86_400_000;

/// The range of `[limits]` values accepted.
pub const LIMITS_RANGE: std::ops::RangeInclusive<usize> = 1..=65_536;

/// The `[tls]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tls {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub client_ca: Option<PathBuf>,
}

/// What `serve` was given on its command line (each `None` when not given).
#[derive(Debug, Default)]
pub struct Flags {
    pub data: Option<PathBuf>,
    pub store: Option<String>,
    pub read_only: bool,
    pub listen: Option<SocketAddr>,
    pub access: Option<PathBuf>,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub client_ca: Option<PathBuf>,
    pub insecure_no_tls: bool,
    pub metrics: Option<SocketAddr>,
    /// `--handshake-timeout-ms`.
    pub handshake_timeout_ms: Option<u64>,
    /// `--idle-timeout-ms`.
    pub idle_timeout_ms: Option<u64>,
    /// `--warm true|false`.
    pub warm: Option<bool>,
    /// `--require-certification true|false`.
    pub require_certification: Option<bool>,
    pub witness_policy: Option<PathBuf>,
    pub cosign_every_ms: Option<u64>,
    pub cosign_warn_behind: Option<u64>,
    pub cosign_timeout_ms: Option<u64>,
    pub tiles: Option<PathBuf>,
    pub tiles_listen: Option<SocketAddr>,
    /// `--beacon-source URL`.
    pub beacon_source: Option<String>,
}

/// The settings `serve` runs with: flag, else file, else default.
#[derive(Debug, PartialEq, Eq)]
pub struct Settings {
    /// The server's own directory: the log (RocksDB) unless `store` names a database; always the
    /// signing key and the default access file.
    pub data: PathBuf,
    /// The PostgreSQL log (`postgres://…`), if the log is not in `data`.
    pub store: Option<String>,
    /// Serve the log read-only (a regulator's server on a replica, or a data directory kept): no
    /// write at all.
    pub read_only: bool,
    pub listen: SocketAddr,
    pub access: Option<PathBuf>,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub client_ca: Option<PathBuf>,
    pub insecure_no_tls: bool,
    /// Where to serve the metrics, if anywhere.
    pub metrics: Option<SocketAddr>,
    pub limits: ServerLimits,
    /// Prepare the default configurations' strategy tables and theories before saying ready.
    pub warm: bool,
    /// The witness policy, if the log is witnessed.
    pub witness_policy: Option<PathBuf>,
    /// How often the log is looked at for a checkpoint to submit, in milliseconds.
    pub cosign_every_ms: u64,
    /// Entries the cosigned checkpoint may be behind before the server says so.
    pub cosign_warn_behind: u64,
    /// How long a witness may take to answer, in milliseconds.
    pub cosign_timeout_ms: u64,
    /// The tile directory kept current, if any.
    pub tiles: Option<PathBuf>,
    /// Where the tile directory is served, if anywhere.
    pub tiles_listen: Option<SocketAddr>,
    /// The approved executables' SHA-256 (empty: any).
    pub approved: Vec<[u8; 32]>,
    /// An executable not approved serves read-only (`false`: it refuses to start).
    pub unapproved_read_only: bool,
    /// How the returns are watched (`None`: not kept).
    pub returns: Option<pitboss::returns::Settings>,
    /// New hands open only under configurations whose latest certification report holds.
    pub require_certification: bool,
    /// Where beacon rounds are fetched (`http://host:port[/prefix]`), if anywhere.
    pub beacon_source: Option<String>,
}

/// Why the settings file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot read the settings file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the settings file {path} is over {MAX_FILE_BYTES} bytes")]
    TooLarge { path: PathBuf },
    #[error("the settings file {path}: {problem}")]
    Invalid { path: PathBuf, problem: String },
    #[error("{field}: {problem}")]
    Incomplete {
        field: &'static str,
        problem: &'static str,
    },
    #[error("{field}: {value} is out of range ({} to {})", LIMITS_RANGE.start(), LIMITS_RANGE.end())]
    OutOfRange { field: &'static str, value: usize },
}

impl File {
    /// Reads and checks `path`; relative paths in it become relative to its directory.
    pub fn read(path: &Path) -> Result<File, FileError> {
        use std::io::Read;
        let read = |source| FileError::Read {
            path: path.to_path_buf(),
            source,
        };
        let mut text = String::new();
        std::fs::File::open(path)
            .map_err(read)?
            .take(MAX_FILE_BYTES + 1)
            .read_to_string(&mut text)
            .map_err(read)?;
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(FileError::TooLarge {
                path: path.to_path_buf(),
            });
        }
        let mut file: File = toml::from_str(&text).map_err(|e| FileError::Invalid {
            path: path.to_path_buf(),
            problem: e.message().to_string()
                + &e.span()
                    .map(|s| format!(" (at byte {})", s.start))
                    .unwrap_or_default(),
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        let under = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        file.data.as_mut().map(under);
        file.access.as_mut().map(under);
        if let Some(witnessing) = file.witnessing.as_mut() {
            witnessing.policy.as_mut().map(under);
        }
        if let Some(tiles) = file.tiles.as_mut() {
            tiles.dir.as_mut().map(under);
        }
        if let Some(tls) = file.tls.as_mut() {
            under(&mut tls.cert);
            under(&mut tls.key);
            tls.client_ca.as_mut().map(under);
        }
        Ok(file)
    }
}

/// Flag, else file, else default. A certificate and its key come together (both from flags, or
/// both from the file); a client CA needs a certificate.
pub fn merge(flags: Flags, file: File) -> Result<Settings, FileError> {
    let (file_cert, file_key, file_ca) = match file.tls {
        Some(tls) => (Some(tls.cert), Some(tls.key), tls.client_ca),
        None => (None, None, None),
    };
    let (tls_cert, tls_key) = match (flags.tls_cert, flags.tls_key) {
        (Some(cert), Some(key)) => (Some(cert), Some(key)),
        (None, None) => (file_cert, file_key),
        (Some(_), None) => {
            return Err(FileError::Incomplete {
                field: "tls_key",
                problem: "--tls-cert needs --tls-key",
            })
        }
        (None, Some(_)) => {
            return Err(FileError::Incomplete {
                field: "tls_cert",
                problem: "--tls-key needs --tls-cert",
            })
        }
    };
    let client_ca = flags.client_ca.or(file_ca);
    if client_ca.is_some() && tls_cert.is_none() {
        return Err(FileError::Incomplete {
            field: "client_ca",
            problem: "a client CA needs a server certificate (--tls-cert or [tls] cert)",
        });
    }
    let store = match flags.store.or(file.store) {
        Some(url) if url.starts_with("postgres://") || url.starts_with("postgresql://") => {
            Some(url)
        }
        Some(_) => {
            return Err(FileError::Incomplete {
                field: "store",
                problem: "a store is a PostgreSQL URL (postgres://user@host:port/database); \
                          leave it out for RocksDB in the data directory",
            })
        }
        None => None,
    };
    let read_only = flags.read_only || file.read_only.unwrap_or(false);
    let table = file.limits.unwrap_or_default();
    let defaults = ServerLimits::default();
    let limit = |field: &'static str, value: Option<usize>, default: usize| match value {
        None => Ok(default),
        Some(value) if LIMITS_RANGE.contains(&value) => Ok(value),
        Some(value) => Err(FileError::OutOfRange { field, value }),
    };
    let witnessing = file.witnessing.unwrap_or_default();
    // The flag, else the file, else the default; refused outside its range, naming the field.
    let bounded = |value: u64,
                   range: std::ops::RangeInclusive<u64>,
                   field: &'static str,
                   problem: &'static str| {
        if range.contains(&value) {
            Ok(value)
        } else {
            Err(FileError::Incomplete { field, problem })
        }
    };
    let connections = file.connections.unwrap_or_default();
    let limits = ServerLimits {
        max_connections: limit(
            "limits.max_connections",
            table.max_connections,
            defaults.max_connections,
        )?,
        max_connections_per_peer: limit(
            "limits.max_connections_per_peer",
            table.max_connections_per_peer,
            defaults.max_connections_per_peer,
        )?,
        max_in_flight: limit(
            "limits.max_in_flight",
            table.max_in_flight,
            defaults.max_in_flight,
        )?,
        deadlines: pitboss::service::Deadlines {
            handshake: std::time::Duration::from_millis(bounded(
                flags
                    .handshake_timeout_ms
                    .or(connections.handshake_timeout_ms)
                    .unwrap_or(defaults.deadlines.handshake.as_millis() as u64),
                HANDSHAKE_TIMEOUT_MS,
                "connections.handshake_timeout_ms",
                "from 100 ms to ten minutes (600 000)",
            )?),
            idle: std::time::Duration::from_millis(bounded(
                flags
                    .idle_timeout_ms
                    .or(connections.idle_timeout_ms)
                    .unwrap_or(defaults.deadlines.idle.as_millis() as u64),
                IDLE_TIMEOUT_MS,
                "connections.idle_timeout_ms",
                "from 100 ms to a day (86 400 000)",
            )?),
        },
    };
    let cosign_every_ms = bounded(
        flags
            .cosign_every_ms
            .or(witnessing.every_ms)
            .unwrap_or(1000),
        COSIGN_EVERY_MS,
        "witnessing.every_ms",
        "from 10 ms to an hour (3 600 000)",
    )?;
    let cosign_timeout_ms = bounded(
        flags
            .cosign_timeout_ms
            .or(witnessing.timeout_ms)
            .unwrap_or(10_000),
        COSIGN_TIMEOUT_MS,
        "witnessing.timeout_ms",
        "from 100 ms to ten minutes (600 000)",
    )?;
    let tiles_table = file.tiles.unwrap_or_default();
    let tiles = flags.tiles.or(tiles_table.dir);
    let tiles_listen = flags.tiles_listen.or(tiles_table.listen);
    if tiles_listen.is_some() && tiles.is_none() {
        return Err(FileError::Incomplete {
            field: "tiles.listen",
            problem: "serving tiles needs their directory (--tiles or [tiles] dir)",
        });
    }
    let software = file.software.unwrap_or_default();
    let unapproved_read_only = match software.unapproved.as_deref() {
        None | Some("refuse") => false,
        Some("read-only") => true,
        Some(_) => {
            return Err(FileError::Incomplete {
                field: "software.unapproved",
                problem: "what an executable not approved does: \"refuse\" or \"read-only\"",
            })
        }
    };
    let mut approved = Vec::new();
    for text in software.approved.unwrap_or_default() {
        let hash = hex::decode(&text)
            .ok()
            .and_then(|b| <[u8; 32]>::try_from(b).ok())
            .ok_or(FileError::Incomplete {
                field: "software.approved",
                problem: "each approved executable is its SHA-256: 64 hexadecimal digits",
            })?;
        approved.push(hash);
    }
    let table = file.returns.unwrap_or_default();
    let returns = if table.enabled.unwrap_or(true) {
        let defaults = pitboss::returns::Settings::default();
        let check = table.check_every_s.unwrap_or(60);
        if !(1..=86_400).contains(&check) {
            return Err(FileError::Incomplete {
                field: "returns.check_every_s",
                problem: "1 to 86 400 seconds",
            });
        }
        let min_hands = table.min_hands.unwrap_or(defaults.min_hands);
        if min_hands == 0 {
            return Err(FileError::Incomplete {
                field: "returns.min_hands",
                problem: "at least 1 hand",
            });
        }
        let every = table.statement_every_s.unwrap_or(86_400);
        if every > 366 * 86_400 {
            return Err(FileError::Incomplete {
                field: "returns.statement_every_s",
                problem: "0 (no statements) to 31 622 400 seconds (a year)",
            });
        }
        Some(pitboss::returns::Settings {
            check_every: std::time::Duration::from_secs(check),
            min_hands,
            statement_every: (every > 0).then(|| std::time::Duration::from_secs(every)),
        })
    } else {
        None
    };
    let beacon_source = flags.beacon_source.or(file.beacon.and_then(|b| b.source));
    if let Some(url) = &beacon_source {
        pitboss::beacons::HttpSource::new(url).map_err(|_| FileError::Incomplete {
            field: "beacon.source",
            problem: "an http://host:port[/prefix] URL (drand's HTTP API, or a relay of it)",
        })?;
    }
    Ok(Settings {
        beacon_source,
        require_certification: flags
            .require_certification
            .or(file.certification.and_then(|c| c.required))
            .unwrap_or(false),
        returns,
        approved,
        unapproved_read_only,
        tiles,
        tiles_listen,
        witness_policy: flags.witness_policy.or(witnessing.policy),
        cosign_every_ms,
        cosign_warn_behind: flags
            .cosign_warn_behind
            .or(witnessing.warn_behind)
            .unwrap_or(10_000),
        cosign_timeout_ms,
        metrics: flags.metrics.or(file.metrics.map(|m| m.listen)),
        limits,
        warm: flags
            .warm
            .or(file.advice.and_then(|a| a.warm))
            .unwrap_or(true),
        store,
        read_only,
        data: flags
            .data
            .or(file.data)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA)),
        listen: match flags.listen.or(file.listen) {
            Some(listen) => listen,
            None => DEFAULT_LISTEN.parse().map_err(|_| FileError::Incomplete {
                field: "listen",
                problem: "the default address does not parse",
            })?,
        },
        access: flags.access.or(file.access),
        tls_cert,
        tls_key,
        client_ca,
        insecure_no_tls: flags.insecure_no_tls || file.insecure_no_tls.unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> Result<File, FileError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pitboss.toml");
        std::fs::write(&path, text).unwrap();
        File::read(&path).map(|mut f| {
            // Paths relative to the file's directory, shown relative to it again for the test.
            f.data = f
                .data
                .map(|d| d.strip_prefix(dir.path()).unwrap().to_path_buf());
            f
        })
    }

    #[test]
    fn flags_override_the_file_which_overrides_the_defaults() {
        let f = file("data = \"db\"\nlisten = \"127.0.0.1:7000\"\n").unwrap();
        assert_eq!(f.data.as_deref(), Some(Path::new("db")));
        let from_file = merge(Flags::default(), f).unwrap();
        assert_eq!(from_file.listen, "127.0.0.1:7000".parse().unwrap());
        assert_eq!(from_file.data, PathBuf::from("db"));
        let flags = Flags {
            listen: Some("127.0.0.1:0".parse().unwrap()),
            ..Flags::default()
        };
        let both = merge(flags, file("listen = \"127.0.0.1:7000\"\n").unwrap()).unwrap();
        assert_eq!(both.listen, "127.0.0.1:0".parse().unwrap());
        assert_eq!(both.data, PathBuf::from(DEFAULT_DATA));
        let defaults = merge(Flags::default(), File::default()).unwrap();
        assert_eq!(defaults.listen, DEFAULT_LISTEN.parse().unwrap());
        assert!(!defaults.insecure_no_tls && defaults.tls_cert.is_none());
    }

    #[test]
    fn a_read_only_server_reads_a_postgresql_log_or_its_data_directory() {
        let url = "postgres://regulator@replica:5432/pitboss";
        let from_file = file(&format!("store = \"{url}\"\nread_only = true\n")).unwrap();
        let settings = merge(Flags::default(), from_file).unwrap();
        assert!(settings.read_only);
        assert_eq!(settings.store.as_deref(), Some(url));
        let flags = Flags {
            read_only: true,
            ..Flags::default()
        };
        let settings = merge(flags, File::default()).unwrap();
        assert!(settings.read_only && settings.store.is_none());
        assert!(!merge(Flags::default(), File::default()).unwrap().read_only);
    }

    #[test]
    fn metrics_and_limits_come_from_the_file_or_the_flag() {
        let f = file(
            "[metrics]\nlisten = \"127.0.0.1:9100\"\n[limits]\nmax_connections = 10\n\
             max_connections_per_peer = 3\nmax_in_flight = 20\n\
             [connections]\nhandshake_timeout_ms = 2000\nidle_timeout_ms = 5000\n",
        )
        .unwrap();
        let settings = merge(Flags::default(), f).unwrap();
        assert_eq!(settings.metrics, Some("127.0.0.1:9100".parse().unwrap()));
        assert_eq!(
            settings.limits,
            ServerLimits {
                max_connections: 10,
                max_connections_per_peer: 3,
                max_in_flight: 20,
                deadlines: pitboss::service::Deadlines {
                    handshake: std::time::Duration::from_secs(2),
                    idle: std::time::Duration::from_secs(5),
                },
            }
        );
        let flags = Flags {
            handshake_timeout_ms: Some(1500),
            ..Flags::default()
        };
        let f = file("[connections]\nhandshake_timeout_ms = 2000\n").unwrap();
        assert_eq!(
            merge(flags, f).unwrap().limits.deadlines.handshake,
            std::time::Duration::from_millis(1500),
            "the flag wins"
        );
        let f = file("[connections]\nidle_timeout_ms = 50\n").unwrap();
        assert!(matches!(
            merge(Flags::default(), f),
            Err(FileError::Incomplete {
                field: "connections.idle_timeout_ms",
                ..
            })
        ));
        let flags = Flags {
            metrics: Some("127.0.0.1:0".parse().unwrap()),
            ..Flags::default()
        };
        let f = file("[metrics]\nlisten = \"127.0.0.1:9100\"\n").unwrap();
        let settings = merge(flags, f).unwrap();
        assert_eq!(settings.metrics, Some("127.0.0.1:0".parse().unwrap()));
        assert_eq!(settings.limits, ServerLimits::default());
        let zero = merge(
            Flags::default(),
            file("[limits]\nmax_in_flight = 0\n").unwrap(),
        );
        assert!(matches!(
            zero,
            Err(FileError::OutOfRange {
                field: "limits.max_in_flight",
                value: 0
            })
        ));
        let unknown = file("[limits]\nmax_calls = 3\n").unwrap_err().to_string();
        assert!(unknown.contains("max_calls"), "{unknown}");
    }

    #[test]
    fn witnessing_comes_from_the_file_or_the_flags_and_every_ms_is_bounded() {
        let f = file("[witnessing]\npolicy = \"log.policy\"\nevery_ms = 250\n").unwrap();
        let settings = merge(Flags::default(), f).unwrap();
        let policy = settings.witness_policy.clone().expect("the file's policy");
        assert!(
            policy.is_absolute() && policy.ends_with("log.policy"),
            "relative to the file's directory: {policy:?}"
        );
        assert_eq!(
            (settings.cosign_every_ms, settings.cosign_warn_behind),
            (250, 10_000)
        );
        let flags = Flags {
            witness_policy: Some(PathBuf::from("other.policy")),
            cosign_warn_behind: Some(7),
            ..Flags::default()
        };
        let f = file("[witnessing]\npolicy = \"log.policy\"\n").unwrap();
        let settings = merge(flags, f).unwrap();
        assert_eq!(settings.witness_policy, Some(PathBuf::from("other.policy")));
        assert_eq!(
            (settings.cosign_every_ms, settings.cosign_warn_behind),
            (1000, 7)
        );
        assert_eq!(settings.cosign_timeout_ms, 10_000);
        let f = file("[witnessing]\ntimeout_ms = 2500\n").unwrap();
        assert_eq!(merge(Flags::default(), f).unwrap().cosign_timeout_ms, 2500);
        let flags = Flags {
            cosign_timeout_ms: Some(900),
            ..Flags::default()
        };
        let f = file("[witnessing]\ntimeout_ms = 2500\n").unwrap();
        assert_eq!(merge(flags, f).unwrap().cosign_timeout_ms, 900);
        for beyond in ["99", "600001"] {
            let f = file(&format!("[witnessing]\ntimeout_ms = {beyond}\n")).unwrap();
            assert!(matches!(
                merge(Flags::default(), f),
                Err(FileError::Incomplete {
                    field: "witnessing.timeout_ms",
                    ..
                })
            ));
        }
        let fast = merge(
            Flags::default(),
            file("[witnessing]\nevery_ms = 1\n").unwrap(),
        );
        assert!(matches!(
            fast,
            Err(FileError::Incomplete {
                field: "witnessing.every_ms",
                ..
            })
        ));
        assert!(
            file("[witnessing]\nquorum = 2\n").is_err(),
            "unknown keys refused"
        );
    }

    #[test]
    fn tiles_come_from_the_file_or_the_flags_and_listening_needs_a_directory() {
        let f = file("[tiles]\ndir = \"tiles\"\nlisten = \"127.0.0.1:8080\"\n").unwrap();
        let settings = merge(Flags::default(), f).unwrap();
        let dir = settings.tiles.clone().expect("the file's directory");
        assert!(dir.is_absolute() && dir.ends_with("tiles"), "{dir:?}");
        assert_eq!(
            settings.tiles_listen,
            Some("127.0.0.1:8080".parse().unwrap())
        );
        let flags = Flags {
            tiles: Some(PathBuf::from("elsewhere")),
            ..Flags::default()
        };
        let settings = merge(flags, file("[tiles]\ndir = \"tiles\"\n").unwrap()).unwrap();
        assert_eq!(settings.tiles, Some(PathBuf::from("elsewhere")));
        assert_eq!(settings.tiles_listen, None);
        let alone = merge(
            Flags::default(),
            file("[tiles]\nlisten = \"127.0.0.1:8080\"\n").unwrap(),
        );
        assert!(matches!(
            alone,
            Err(FileError::Incomplete {
                field: "tiles.listen",
                ..
            })
        ));
        assert!(
            file("[tiles]\nevery = 2\n").is_err(),
            "unknown keys refused"
        );
    }

    /// The documented example is a valid file, and says what the defaults are.
    #[test]
    fn the_example_file_reads() {
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/pitboss.example.toml");
        let settings = merge(Flags::default(), File::read(&example).unwrap()).unwrap();
        assert_eq!(settings.listen, DEFAULT_LISTEN.parse().unwrap());
        assert_eq!(settings.limits, ServerLimits::default());
        assert_eq!(settings.metrics, Some("127.0.0.1:9100".parse().unwrap()));
        assert!(settings.warm, "the example says the default");
        assert!(
            !settings.require_certification,
            "the example says the default"
        );
    }

    /// `[certification] required` from the file, overridden by `--require-certification`; off by
    /// default.
    #[test]
    fn requiring_certification_comes_from_the_flag_or_the_file_and_is_off_by_default() {
        let on = || file("[certification]\nrequired = true\n").unwrap();
        let required = |flags, file| merge(flags, file).unwrap().require_certification;
        assert!(!required(Flags::default(), File::default()));
        assert!(required(Flags::default(), on()));
        let flag = |value| Flags {
            require_certification: Some(value),
            ..Flags::default()
        };
        assert!(!required(flag(false), on()));
        assert!(required(flag(true), File::default()));
        let unknown = file("[certification]\nrequire = true\n")
            .unwrap_err()
            .to_string();
        assert!(unknown.contains("require"), "{unknown}");
    }

    /// `[advice] warm` from the file, overridden by `--warm`; on by default.
    #[test]
    fn warming_comes_from_the_flag_or_the_file_and_is_on_by_default() {
        let off = || file("[advice]\nwarm = false\n").unwrap();
        assert!(merge(Flags::default(), File::default()).unwrap().warm);
        assert!(!merge(Flags::default(), off()).unwrap().warm);
        let flag = Flags {
            warm: Some(true),
            ..Flags::default()
        };
        assert!(merge(flag, off()).unwrap().warm);
        let unknown = file("[advice]\nwarmth = 1\n").unwrap_err().to_string();
        assert!(unknown.contains("warmth"), "{unknown}");
    }

    #[test]
    fn a_bad_file_is_refused_naming_the_key() {
        let unknown = file("lisen = \"127.0.0.1:1\"\n").unwrap_err().to_string();
        assert!(unknown.contains("lisen"), "{unknown}");
        let typed = file("listen = 5\n").unwrap_err().to_string();
        assert!(
            typed.contains("listen") || typed.contains("byte"),
            "{typed}"
        );
        let tls = file("[tls]\ncert = \"c.pem\"\n").unwrap_err().to_string();
        assert!(tls.contains("key"), "{tls}");
        let ca_alone = Flags {
            client_ca: Some("ca.pem".into()),
            ..Flags::default()
        };
        let refused = merge(ca_alone, File::default()).unwrap_err();
        assert!(matches!(
            refused,
            FileError::Incomplete {
                field: "client_ca",
                ..
            }
        ));
        let half = Flags {
            tls_cert: Some("c.pem".into()),
            ..Flags::default()
        };
        assert!(matches!(
            merge(half, File::default()),
            Err(FileError::Incomplete {
                field: "tls_key",
                ..
            })
        ));
    }
}
