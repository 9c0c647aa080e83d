//! HTTP/1.1 to the server's side doors (the metrics endpoint, a witness, the tiles) as a client
//! nobody here wrote speaks it (`ureq`): one request, the answer read whole, an error status
//! returned as an answer, not an error.

use std::time::Duration;

/// An HTTP answer: (status, `Content-Type`, body).
pub type Answer = (u16, String, String);

/// `GET path`.
pub fn get(address: &str, path: &str) -> Answer {
    request(address, "GET", path, b"")
}

/// `GET path` with `Accept: accept`.
pub fn get_accepting(address: &str, path: &str, accept: &str) -> Answer {
    text(exchange(address, "GET", path, &[("Accept", accept)], b""))
}

/// `POST path` with `body`.
pub fn post(address: &str, path: &str, body: &[u8]) -> Answer {
    request(address, "POST", path, body)
}

/// `method path` with `body`.
pub fn request(address: &str, method: &str, path: &str, body: &[u8]) -> Answer {
    text(request_bytes(address, method, path, body))
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

fn text((status, content_type, body): (u16, String, Vec<u8>)) -> Answer {
    let body = String::from_utf8(body).expect("a text answer");
    (status, content_type, body)
}

/// `method path` with `headers` and `body`: (status, `Content-Type`, body). A minute at most.
fn exchange(
    address: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let mut request = http::Request::builder()
        .method(method)
        .uri(format!("http://{address}{path}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(body.to_vec()).expect("a request");
    let mut answer = agent
        .run(request)
        .unwrap_or_else(|e| panic!("{method} http://{address}{path}: {e}"));
    let status = answer.status().as_u16();
    let content_type = answer
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = answer
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_vec()
        .expect("the answer's body");
    (status, content_type, body)
}
