//! The one HTTP call a log makes to a witness (`POST <prefix>/add-checkpoint`, C2SP
//! `tlog-witness`): plain HTTP/1.1 to the witness's submission URL over a connection kept open
//! between calls, the answer bounded in size and time. Owns the transport only: what is sent and what an answer means is `mod.rs`'s.

use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;

/// The largest answer read (a few cosignature lines, or a size).
const MAX_ANSWER: usize = 16 * 1024;

/// An answer: its status, whether it is a size (`text/x.tlog.size`), its body.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) is_size: bool,
    pub(crate) body: String,
}

/// Why a witness gave no answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallError {
    #[error("{url}: only http://host:port[/prefix] URLs are supported")]
    Url { url: String },
    #[error("{0}")]
    Transport(String),
    #[error("no answer within {0:?}")]
    Timeout(Duration),
}

/// A connection to one witness, kept open between submissions (tlog-witness: clients SHOULD use
/// keep-alive): opened when first needed, and again when the witness has closed it.
pub(crate) struct Connection {
    /// `host:port`, for the socket and the `Host` header.
    host: String,
    /// The request's path: `<prefix>/add-checkpoint`.
    path: String,
    /// The open connection, if any.
    sender: Option<SendRequest<Full<Bytes>>>,
}

impl Connection {
    /// A connection to the witness whose submission prefix is `url` (`http://host:port[/prefix]`),
    /// opened at the first call.
    pub(crate) fn new(url: &str) -> Result<Connection, CallError> {
        let bad_url = || CallError::Url {
            url: url.to_string(),
        };
        let target = crate::plain_http::target(url).ok_or_else(bad_url)?;
        Ok(Connection {
            host: target.host,
            path: format!("{}/add-checkpoint", target.prefix),
            sender: None,
        })
    }

    /// `POST <prefix>/add-checkpoint` with `body`, within `timeout`. A connection that timed out or
    /// failed is not used again.
    pub(crate) async fn add_checkpoint(
        &mut self,
        body: String,
        timeout: Duration,
    ) -> Result<Answer, CallError> {
        let answered = tokio::time::timeout(timeout, self.call(body)).await;
        let answer = answered.unwrap_or(Err(CallError::Timeout(timeout)));
        if answer.is_err() {
            self.sender = None;
        }
        answer
    }

    async fn call(&mut self, body: String) -> Result<Answer, CallError> {
        let kept = self.sender.as_ref().is_some_and(|s| !s.is_closed());
        match self.send(body.clone()).await {
            // The witness may close a kept connection just as it is used (its idle limit): once
            // more on a new one. Submitting the same checkpoint twice is harmless (the same tree
            // is cosigned again, or the witness answers 409 with the size it holds).
            Err(CallError::Transport(_)) if kept => {
                self.sender = None;
                self.send(body).await
            }
            answered => answered,
        }
    }

    async fn send(&mut self, body: String) -> Result<Answer, CallError> {
        let transport = |e: &dyn std::fmt::Display| CallError::Transport(e.to_string());
        let sender = match &mut self.sender {
            Some(sender) if !sender.is_closed() => sender,
            _ => {
                let stream = tokio::net::TcpStream::connect(&self.host)
                    .await
                    .map_err(|e| transport(&e))?;
                let (sender, connection) =
                    hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                        .await
                        .map_err(|e| transport(&e))?;
                // Ends when the witness closes the connection or the sender is dropped.
                tokio::spawn(async move {
                    let _ = connection.await;
                });
                self.sender.insert(sender)
            }
        };
        sender.ready().await.map_err(|e| transport(&e))?;
        let request = hyper::Request::post(self.path.as_str())
            .header(hyper::header::HOST, self.host.as_str())
            .header(hyper::header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(Full::new(Bytes::from(body)))
            .map_err(|e| transport(&e))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| transport(&e))?;
        let status = response.status().as_u16();
        let is_size = response
            .headers()
            .get(hyper::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/x.tlog.size"));
        // Read whole (bounded), so that the connection can carry the next request.
        let body = Limited::new(response.into_body(), MAX_ANSWER)
            .collect()
            .await
            .map_err(|e| transport(&*e))?
            .to_bytes();
        Ok(Answer {
            status,
            is_size,
            body: String::from_utf8_lossy(&body).into_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A witness stand-in on loopback that counts the connections it takes and answers each
    /// request `200` `ok`. With `one_each`, it answers one request per connection and drops the
    /// connection when the next request arrives, unanswered and without warning (no
    /// `Connection: close`), as a witness at its idle limit may: the client learns it only by
    /// sending on it.
    async fn stand_in(one_each: bool) -> (String, Arc<AtomicUsize>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/w", listener.local_addr().unwrap());
        let taken = Arc::new(AtomicUsize::new(0));
        let counted = taken.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut seen = Vec::new();
                    let mut buffer = [0u8; 4096];
                    let mut answered = 0;
                    loop {
                        let Ok(n) = stream.read(&mut buffer).await else {
                            return;
                        };
                        if n == 0 {
                            return;
                        }
                        seen.extend_from_slice(&buffer[..n]);
                        // One whole request: its head, and the body its Content-Length gives.
                        while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&seen[..end]).to_lowercase();
                            let length: usize = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:"))
                                .map_or(0, |v| v.trim().parse().unwrap());
                            if seen.len() < end + 4 + length {
                                break;
                            }
                            assert!(head.starts_with("post /w/add-checkpoint "), "{head}");
                            seen.drain(..end + 4 + length);
                            if one_each && answered == 1 {
                                return;
                            }
                            let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nok\n";
                            if stream.write_all(answer).await.is_err() {
                                return;
                            }
                            answered += 1;
                        }
                    }
                });
            }
        });
        (url, taken)
    }

    /// `n` submissions to `url` on one `Connection`: each answer's status and body.
    async fn submit(url: &str, n: usize) -> Vec<(u16, String)> {
        let mut connection = Connection::new(url).unwrap();
        let mut answers = Vec::new();
        for i in 0..n {
            let answer = connection
                .add_checkpoint(format!("old {i}\n\nbody\n"), Duration::from_secs(60))
                .await
                .unwrap();
            answers.push((answer.status, answer.body));
        }
        answers
    }

    #[tokio::test]
    async fn one_connection_carries_every_submission_and_a_closed_one_is_opened_again() {
        let (url, taken) = stand_in(false).await;
        let answers = submit(&url, 5).await;
        assert_eq!(answers, vec![(200, "ok\n".to_string()); 5]);
        assert_eq!(taken.load(Ordering::SeqCst), 1, "kept alive");

        // A witness that drops each kept connection when it is used again: every submission
        // still gets its answer, sent once more on a new connection.
        let (url, taken) = stand_in(true).await;
        let answers = submit(&url, 3).await;
        assert!(
            answers.iter().all(|(status, _)| *status == 200),
            "{answers:?}"
        );
        assert_eq!(answers.len(), 3);
        assert_eq!(taken.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn only_plain_http_urls_with_a_host_are_taken() {
        for url in [
            "https://w.example",
            "http://",
            "http://a b/c",
            "http://u@h:1",
            "http://h:1/w?x=1",
        ] {
            assert!(
                matches!(Connection::new(url), Err(CallError::Url { .. })),
                "{url}"
            );
        }
        let connection = Connection::new("http://127.0.0.1:7380/a/b/").unwrap();
        assert_eq!(
            (connection.host.as_str(), connection.path.as_str()),
            ("127.0.0.1:7380", "/a/b/add-checkpoint")
        );
        let connection = Connection::new("http://witness.example").unwrap();
        assert_eq!(
            (connection.host.as_str(), connection.path.as_str()),
            ("witness.example:80", "/add-checkpoint"),
            "HTTP's port when none is given"
        );
    }
}
