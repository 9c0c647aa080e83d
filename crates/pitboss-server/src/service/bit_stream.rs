//! A client's stream of bits (`Lab.TestRngStream`) as the blocking reader the lab's battery reads:
//! the first message (the plan and the format) checked, then each later message's bytes handed to
//! the battery's job over a small channel as it asks for them.
//!
//! Owns the stream's limits: at most [`HELD`] messages (64 KiB each, the lab's message limit) held
//! at once whatever the plan; nothing read once the plan's bits have come; in ASCII at most one
//! whitespace character a bit (and a message's worth more); a client that sends nothing for
//! [`STREAM_STALL`], or sends the battery fewer than [`MIN_RATE`] bits a second while it waits for
//! them (after [`STREAM_STALL`] of grace), has its call ended — only bits count, not the bytes
//! around them — so the lab's worker is held at most about the plan's bits over [`MIN_RATE`]. MUST
//! NOT judge anything: the battery does, through `pitboss_lab::rng_battery::run_input`.

use std::time::Duration;

use tokio::sync::mpsc;
use tonic::{Status, Streaming};

use super::limits::{self, Bounded, STREAM_STALL};
use super::status::invalid_argument;
use crate::proto;
use crate::proto::test_rng_stream_request::Part;
use pitboss_lab::rng_battery::{InputFormat, Plan};

/// Messages of bits held between the client and the battery.
pub const HELD: usize = 4;
/// The least average rate, in bits a second, of the bits a client sends while the battery waits
/// for them (about half the battery's own rate on two cores: `docs/PERFORMANCE.md`).
pub const MIN_RATE: u64 = 4_000_000;
/// Bytes an ASCII stream may hold beyond two a bit (a bit and a whitespace character).
const ASCII_SLACK: u64 = 64 * 1024;

/// What the first message asks for.
pub struct Header {
    pub plan: Plan,
    pub format: InputFormat,
    /// What the bits are, as the client names them (a file's name); `-` when it names nothing.
    pub source: String,
}

impl Bounded for proto::TestRngStreamHeader {
    fn check_in(&self, place: &str) -> Result<(), Status> {
        limits::RNG_SEQUENCES.check(&format!("{place}sequences"), u64::from(self.sequences))?;
        limits::RNG_SEQUENCE_BITS.check(&format!("{place}bits"), self.bits)?;
        limits::NAME_FILTER.check(&format!("{place}source"), &self.source)
    }
}

/// The stream's first message: its header, checked.
pub async fn header(stream: &mut Streaming<proto::TestRngStreamRequest>) -> Result<Header, Status> {
    let first = tokio::time::timeout(STREAM_STALL, stream.message())
        .await
        .map_err(|_| stalled())??;
    let header = match first.and_then(|m| m.part) {
        Some(Part::Header(header)) => header,
        _ => {
            return Err(invalid_argument(
                "header",
                "the first message must be the header (sequences, bits, format)",
            ))
        }
    };
    header.check_in("header.")?;
    let format = match proto::BitFormat::try_from(header.format) {
        Ok(proto::BitFormat::Raw) => InputFormat::Raw,
        Ok(proto::BitFormat::Ascii) => InputFormat::Ascii,
        _ => return Err(invalid_argument("header.format", "raw or ascii")),
    };
    let plan = Plan::new([0; 32], header.sequences, header.bits)
        .map_err(|e| invalid_argument(&format!("header.{}", e.field), e.problem))?;
    let source = match header.source.as_str() {
        "" => "-".to_string(),
        named => named.to_string(),
    };
    Ok(Header {
        plan,
        format,
        source,
    })
}

fn stalled() -> Status {
    Status::deadline_exceeded(format!(
        "the client sent nothing for {} s: the stream is ended",
        STREAM_STALL.as_secs()
    ))
}

/// The battery's side of the channel: what the client sent, in order; the end of the stream
/// when the client closed its side; an error when the feed ended it.
pub struct ChannelReader {
    rx: mpsc::Receiver<Result<Vec<u8>, String>>,
    current: Vec<u8>,
    at: usize,
}

/// The two ends: the feed's sender and the battery's reader.
pub fn channel() -> (mpsc::Sender<Result<Vec<u8>, String>>, ChannelReader) {
    let (tx, rx) = mpsc::channel(HELD);
    (
        tx,
        ChannelReader {
            rx,
            current: Vec::new(),
            at: 0,
        },
    )
}

impl std::io::Read for ChannelReader {
    /// Blocks for the next message: call it only off the async workers (the battery's job).
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.current.len() {
            match self.rx.blocking_recv() {
                Some(Ok(bytes)) => {
                    self.current = bytes;
                    self.at = 0;
                }
                Some(Err(problem)) => return Err(std::io::Error::other(problem)),
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len() - self.at);
        buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Hands the client's messages to `tx` until the plan's bits have come (nothing more is read), the
/// client closes its side, or the battery stops reading (it failed); ends the call of a client
/// that stalls, trickles, pads an ASCII stream past one whitespace character a bit, or sends a
/// second header, telling the battery why.
pub async fn feed(
    mut stream: Streaming<proto::TestRngStreamRequest>,
    tx: mpsc::Sender<Result<Vec<u8>, String>>,
    plan: &Plan,
    format: InputFormat,
) -> Result<(), Status> {
    let needed = u64::from(plan.sequences).saturating_mul(plan.bits);
    let most_bytes = match format {
        InputFormat::Raw => needed / 8,
        InputFormat::Ascii => needed.saturating_mul(2).saturating_add(ASCII_SLACK),
    };
    let mut waited = Duration::ZERO;
    let (mut bits_sent, mut bytes_sent) = (0u64, 0u64);
    let ended = |status: Status| {
        // The battery learns it too; if its channel is full it finds the stream short.
        let _ = tx.try_send(Err(status.message().to_string()));
        Err(status)
    };
    for message in 1u64.. {
        let asked = tokio::time::Instant::now();
        let next = tokio::time::timeout(STREAM_STALL, stream.message()).await;
        waited += asked.elapsed();
        let bytes = match next {
            Err(_) => return ended(stalled()),
            Ok(Err(status)) => return ended(status),
            Ok(Ok(None)) => return Ok(()),
            Ok(Ok(Some(proto::TestRngStreamRequest {
                part: Some(Part::Bits(bytes)),
            }))) => bytes,
            Ok(Ok(Some(_))) => {
                return ended(invalid_argument(
                    &format!("messages[{message}]"),
                    "after the header, only bits",
                ))
            }
        };
        bytes_sent = bytes_sent.saturating_add(bytes.len() as u64);
        bits_sent = bits_sent.saturating_add(match format {
            InputFormat::Raw => 8 * bytes.len() as u64,
            InputFormat::Ascii => bytes.iter().filter(|b| matches!(b, b'0' | b'1')).count() as u64,
        });
        if format == InputFormat::Ascii && bytes_sent > most_bytes && bits_sent < needed {
            return ended(invalid_argument(
                "bits",
                format!(
                    "{bytes_sent} bytes for {bits_sent} bits: at most one whitespace character a \
                     bit"
                ),
            ));
        }
        let allowed = STREAM_STALL + Duration::from_secs(bits_sent / MIN_RATE);
        if waited > allowed {
            return ended(Status::deadline_exceeded(format!(
                "the client sent {bits_sent} bits in {} s of waiting for it: under {MIN_RATE} \
                 bits a second, the stream is ended",
                waited.as_secs()
            )));
        }
        if tx.send(Ok(bytes)).await.is_err() {
            // The battery has stopped reading.
            return Ok(());
        }
        if bits_sent >= needed {
            // Every bit the plan reads has come: whatever the client still sends is not read.
            return Ok(());
        }
    }
    Ok(())
}
