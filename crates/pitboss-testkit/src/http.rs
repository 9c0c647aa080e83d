//! HTTP/1.1 over a plain socket, as any client would speak it to the server's side doors (the
//! metrics endpoint, a witness): one request per connection, the answer read whole.

use std::io::{Read, Write};

/// An HTTP answer: (status, `Content-Type`, body).
pub type Answer = (u16, String, String);

/// `GET path`.
pub fn get(address: &str, path: &str) -> Answer {
    request(address, "GET", path, b"")
}

/// `GET path` with `Accept: accept`.
pub fn get_accepting(address: &str, path: &str, accept: &str) -> Answer {
    let (status, content_type, body) = exchange(address, "GET", path, &[("Accept", accept)], b"");
    (
        status,
        content_type,
        String::from_utf8(body).expect("a text answer"),
    )
}

/// `POST path` with `body`.
pub fn post(address: &str, path: &str, body: &[u8]) -> Answer {
    request(address, "POST", path, body)
}

/// `method path` with `body`, `Connection: close`.
pub fn request(address: &str, method: &str, path: &str, body: &[u8]) -> Answer {
    let (status, content_type, body) = request_bytes(address, method, path, body);
    let body = String::from_utf8(body).expect("a text answer");
    (status, content_type, body)
}

/// `GET path`, the answer's body as bytes (a tile).
pub fn get_bytes(address: &str, path: &str) -> (u16, String, Vec<u8>) {
    request_bytes(address, "GET", path, b"")
}

/// [`request`], the answer's body as bytes.
pub fn request_bytes(
    address: &str,
    method: &str,
    path: &str,
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    exchange(address, method, path, &[], body)
}

/// `method path` with `headers` and `body`, `Connection: close`: (status, `Content-Type`, body).
fn exchange(
    address: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let mut socket = std::net::TcpStream::connect(address)
        .unwrap_or_else(|e| panic!("connect to {address}: {e}"));
    socket
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .expect("a timeout");
    let extra: String = headers
        .iter()
        .map(|(name, value)| format!("{name}: {value}\r\n"))
        .collect();
    write!(
        socket,
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .and_then(|()| socket.write_all(body))
    .expect("send the request");
    let mut answer = Vec::new();
    socket.read_to_end(&mut answer).expect("an answer");
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head and a body");
    let head = std::str::from_utf8(&answer[..split]).expect("a text head");
    let body = answer[split + 4..].to_vec();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let content_type = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-type")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_default();
    (status, content_type, body)
}
