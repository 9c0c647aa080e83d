//! A client's stream of bits (`Lab.TestRngStream`) as the blocking reader the lab's battery reads:
//! the first message (the plan and the format) checked, then each later message's bytes handed to
//! the battery's job over a small channel as it asks for them.
//!
//! Owns the stream's limits: at most [`HELD`] messages (64 KiB each, the lab's message limit) held
//! at once whatever the plan; a client that sends nothing for [`STREAM_STALL`], or sends slower than
//! [`MIN_RATE`] bits a second while the battery waits for it (after [`STREAM_STALL`] of grace), has
//! its call ended, so no client holds the lab's worker by trickling. MUST NOT judge anything: the
//! battery does, through `pitboss_lab::rng_battery::run_input`.

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
/// The least average rate, in bits a second, of a client the battery waits for.
pub const MIN_RATE: u64 = 1_000_000;

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

/// Hands the client's messages to `tx` until the client closes its side or the battery stops
/// reading (it has every bit it needs, or failed); ends the call of a client that stalls or
/// trickles, or sends a second header, telling the battery why.
pub async fn feed(
    mut stream: Streaming<proto::TestRngStreamRequest>,
    tx: mpsc::Sender<Result<Vec<u8>, String>>,
) -> Result<(), Status> {
    let mut waited = Duration::ZERO;
    let mut received = 0u64;
    let ended = |status: Status| {
        // The battery learns it too; if its channel is full it finds the stream short.
        let _ = tx.try_send(Err(status.message().to_string()));
        Err(status)
    };
    for message in 1u64.. {
        let asked = tokio::time::Instant::now();
        let next = tokio::time::timeout(STREAM_STALL, stream.message()).await;
        waited += asked.elapsed();
        let bits = match next {
            Err(_) => return ended(stalled()),
            Ok(Err(status)) => return ended(status),
            Ok(Ok(None)) => return Ok(()),
            Ok(Ok(Some(proto::TestRngStreamRequest {
                part: Some(Part::Bits(bits)),
            }))) => bits,
            Ok(Ok(Some(_))) => {
                return ended(invalid_argument(
                    &format!("messages[{message}]"),
                    "after the header, only bits",
                ))
            }
        };
        received += 8 * bits.len() as u64;
        let allowed = STREAM_STALL + Duration::from_secs(received / MIN_RATE);
        if waited > allowed {
            return ended(Status::deadline_exceeded(format!(
                "the client sent {received} bits in {} s of waiting for it: under {MIN_RATE} bits \
                 a second, the stream is ended",
                waited.as_secs()
            )));
        }
        if tx.send(Ok(bits)).await.is_err() {
            // The battery has stopped reading.
            return Ok(());
        }
    }
    Ok(())
}
