//! The gRPC port's connections: each admitted by `connections.rs`, its TLS handshake (rustls, when
//! the server has a certificate) and HTTP/2 preface read within the handshake deadline, then served
//! by hyper's HTTP/2 server with the transport's limits (`limits/`: concurrent streams, header
//! list, keepalive pings), closed with a GOAWAY once idle past the idle deadline, and drained when
//! the server stops.
//!
//! Each call carries its connection's [`Peer`] (address and verified client certificates) as a
//! request extension, and counts as a request in flight on its connection until its answer's body
//! has been sent. Owns the connection's life only: what a call means is the routes' (`server.rs`
//! assembles them with the guard and the authentication).

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll};

use hyper::body::{Bytes, Incoming};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls::pki_types::CertificateDer;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

use super::connections::{accept, Activity, Admission, Busy, Expiry, Ticket};
use super::limits;
use super::work::Shutdown;

/// Who is at the other end of a call's connection, as the transport verified it.
#[derive(Clone, Debug)]
pub struct Peer {
    /// The peer's address.
    pub remote: SocketAddr,
    /// The client's certificate chain (leaf first), verified against the client CA during the TLS
    /// handshake; `None` without TLS or without a client certificate.
    pub certificates: Option<Arc<[CertificateDer<'static>]>>,
}

/// The routes every call goes to: the services behind their layers.
pub trait Routes:
    tower_service::Service<
        http::Request<tonic::body::Body>,
        Response = http::Response<tonic::body::Body>,
        Error = Infallible,
        Future: Send + 'static,
    > + Clone
    + Send
    + 'static
{
}

impl<S> Routes for S where
    S: tower_service::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
            Error = Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + 'static
{
}

/// Serves gRPC on `listener` (over TLS with `tls`) until `stop` is triggered, then drains every
/// connection: each is told to go away and ends when its calls have.
pub async fn serve<S: Routes>(
    listener: TcpListener,
    tls: Option<Arc<ServerConfig>>,
    admission: Arc<Admission>,
    routes: S,
    stop: Shutdown,
) {
    let mut h2 = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
    h2.timer(TokioTimer::new())
        .max_concurrent_streams(limits::MAX_CONCURRENT_STREAMS)
        .max_header_list_size(limits::MAX_HEADER_LIST)
        .keep_alive_interval(limits::HTTP2_KEEPALIVE_INTERVAL)
        .keep_alive_timeout(limits::HTTP2_KEEPALIVE_TIMEOUT);
    let tls = tls.map(TlsAcceptor::from);
    let grace = admission.limits().handshake;
    let stopping = stop.clone();
    accept(
        listener,
        admission,
        stop,
        "gRPC",
        move |stream, remote, ticket| {
            let connection = Connection {
                h2: h2.clone(),
                routes: routes.clone(),
                stop: stopping.clone(),
                grace,
            };
            connection.run(stream, remote, ticket, tls.clone())
        },
    )
    .await;
}

/// What serving one connection needs.
struct Connection<S> {
    h2: hyper::server::conn::http2::Builder<TokioExecutor>,
    routes: S,
    stop: Shutdown,
    /// How long a connection told to go away may take to finish.
    grace: std::time::Duration,
}

impl<S: Routes> Connection<S> {
    async fn run(
        self,
        stream: TcpStream,
        remote: SocketAddr,
        ticket: Ticket,
        tls: Option<TlsAcceptor>,
    ) {
        let local = stream.local_addr().ok();
        let Some(acceptor) = tls else {
            let peer = Peer {
                remote,
                certificates: None,
            };
            return self.http2(stream, peer, local, ticket).await;
        };
        let handshake = tokio::select! {
            handshake = acceptor.accept(stream) => handshake,
            _ = ticket.expired() => return,
            () = self.stop.wait() => return,
        };
        let stream = match handshake {
            Ok(stream) => stream,
            Err(e) => {
                tracing::debug!(%remote, error = %e, "gRPC: TLS handshake failed");
                return;
            }
        };
        let certificates = stream.get_ref().1.peer_certificates().map(|chain| {
            chain
                .iter()
                .map(|c| c.clone().into_owned())
                .collect::<Arc<[_]>>()
        });
        let peer = Peer {
            remote,
            certificates,
        };
        self.http2(stream, peer, local, ticket).await;
    }

    /// Serves HTTP/2 on an established transport until the connection ends, it overstays its
    /// deadlines, or the server stops.
    async fn http2<IO>(self, io: IO, peer: Peer, local: Option<SocketAddr>, ticket: Ticket)
    where
        IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let remote = peer.remote;
        let service = Calls {
            routes: self.routes,
            activity: ticket.activity().clone(),
            peer: Arc::new(peer),
            connect_info: tonic::transport::server::TcpConnectInfo {
                local_addr: local,
                remote_addr: Some(remote),
            },
        };
        let io = Preface::new(io, ticket.activity().clone());
        let mut connection = pin!(self.h2.serve_connection(TokioIo::new(io), service));
        let mut going_away = false;
        let mut ending: Option<tokio::time::Instant> = None;
        loop {
            tokio::select! {
                served = connection.as_mut() => {
                    if let Err(e) = served {
                        tracing::debug!(%remote, error = %e, "gRPC: connection ended");
                    }
                    return;
                }
                expiry = ticket.expired(), if ending.is_none() => {
                    if expiry == Expiry::Handshake || !ticket.activity().established() {
                        // Nothing to say to a peer that never spoke HTTP/2.
                        return;
                    }
                    tracing::debug!(%remote, ?expiry, "gRPC: connection told to go away");
                    connection.as_mut().graceful_shutdown();
                    ending = Some(tokio::time::Instant::now() + self.grace);
                }
                () = self.stop.wait(), if !going_away => {
                    if !ticket.activity().established() {
                        return;
                    }
                    connection.as_mut().graceful_shutdown();
                    going_away = true;
                }
                () = sleep_until(ending) => return,
            }
        }
    }
}

/// Waits until `at`, forever when `None`.
async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// One connection's calls, each handed to the routes with its peer, and counted in flight until
/// its answer's body is done.
#[derive(Clone)]
struct Calls<S> {
    routes: S,
    activity: Arc<Activity>,
    peer: Arc<Peer>,
    connect_info: tonic::transport::server::TcpConnectInfo,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S: Routes> hyper::service::Service<http::Request<Incoming>> for Calls<S> {
    type Response = http::Response<Answer>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;

    fn call(&self, request: http::Request<Incoming>) -> Self::Future {
        let busy = self.activity.begin();
        let mut request = request.map(tonic::body::Body::new);
        request.extensions_mut().insert(self.peer.clone());
        request.extensions_mut().insert(self.connect_info.clone());
        let mut routes = self.routes.clone();
        Box::pin(async move {
            std::future::poll_fn(|cx| routes.poll_ready(cx)).await?;
            let response = routes.call(request).await?;
            Ok(response.map(|body| Answer { body, _busy: busy }))
        })
    }
}

/// A call's answer, holding its call in flight on the connection until it is sent or dropped.
pub struct Answer {
    body: tonic::body::Body,
    _busy: Busy,
}

impl http_body::Body for Answer {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, tonic::Status>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The length of HTTP/2's connection preface (`PRI * HTTP/2.0…`), and of a frame's header.
const MAGIC: usize = 24;
const FRAME_HEADER: usize = 9;

/// A transport that marks its connection established once the client's HTTP/2 preface — the
/// magic and its first frame (SETTINGS) — has been read. It checks nothing: hyper refuses a
/// preface that is wrong, and closes the connection.
struct Preface<IO> {
    io: IO,
    activity: Arc<Activity>,
    /// The magic and the first frame's header, as far as read.
    head: [u8; MAGIC + FRAME_HEADER],
    have: usize,
    /// The first frame's payload bytes still to read, once its header is.
    payload_left: Option<usize>,
    done: bool,
}

impl<IO> Preface<IO> {
    fn new(io: IO, activity: Arc<Activity>) -> Preface<IO> {
        Preface {
            io,
            activity,
            head: [0; MAGIC + FRAME_HEADER],
            have: 0,
            payload_left: None,
            done: false,
        }
    }

    /// Takes note of bytes read; marks the connection established once the preface is whole.
    fn saw(&mut self, mut bytes: &[u8]) {
        while !self.done && !bytes.is_empty() {
            match self.payload_left {
                None => {
                    let n = (self.head.len() - self.have).min(bytes.len());
                    self.head[self.have..self.have + n].copy_from_slice(&bytes[..n]);
                    self.have += n;
                    bytes = &bytes[n..];
                    if self.have == self.head.len() {
                        let length = &self.head[MAGIC..MAGIC + 3];
                        let length = usize::from(length[0]) << 16
                            | usize::from(length[1]) << 8
                            | usize::from(length[2]);
                        self.payload_left = Some(length);
                        self.done = length == 0;
                    }
                }
                Some(left) => {
                    let n = left.min(bytes.len());
                    bytes = &bytes[n..];
                    self.payload_left = Some(left - n);
                    self.done = left == n;
                }
            }
        }
        if self.done {
            self.activity.establish();
        }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Preface<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if !self.done {
            if let Poll::Ready(Ok(())) = &polled {
                let this = &mut *self;
                this.saw(&buf.filled()[before..]);
            }
        }
        polled
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Preface<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::connections::ConnectionLimits;

    fn activity() -> Arc<Activity> {
        let admission = Admission::new(ConnectionLimits {
            max: 1,
            per_peer: 1,
            handshake: std::time::Duration::from_secs(1),
            idle: std::time::Duration::from_secs(1),
            request: None,
        });
        let ticket = admission
            .admit(std::net::Ipv4Addr::LOCALHOST.into())
            .unwrap();
        ticket.activity().clone()
    }

    /// The preface a client sends: the magic, then a SETTINGS frame of two settings.
    fn preface() -> Vec<u8> {
        let mut bytes = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        bytes.extend_from_slice(&[0, 0, 12, 4, 0, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[0, 3, 0, 0, 0, 100, 0, 4, 0, 1, 0, 0]);
        bytes
    }

    #[test]
    fn the_preface_establishes_only_when_whole_in_any_pieces() {
        let whole = preface();
        for cut in 0..whole.len() {
            let activity = activity();
            let mut watched = Preface::new((), activity.clone());
            watched.saw(&whole[..cut]);
            assert!(!activity.established(), "after {cut} bytes");
            for byte in &whole[cut..whole.len() - 1] {
                watched.saw(std::slice::from_ref(byte));
            }
            assert!(!activity.established(), "one byte short");
            watched.saw(&whole[whole.len() - 1..]);
            assert!(activity.established(), "cut at {cut}");
        }
    }

    #[test]
    fn an_empty_settings_frame_completes_the_preface() {
        let activity = activity();
        let mut watched = Preface::new((), activity.clone());
        let mut bytes = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
        bytes.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
        watched.saw(&bytes);
        assert!(activity.established());
    }
}
