//! What an embedded-service endpoint hands back to the HTTP layer: status, content type, body.

/// A complete HTTP answer produced by a pure endpoint function (no axum types inside).
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceReply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// Extra response headers (name, value), e.g. `Retry-After`.
    pub headers: Vec<(&'static str, String)>,
}

impl ServiceReply {
    pub fn new(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        ServiceReply { status, content_type, body: body.into(), headers: Vec::new() }
    }

    pub fn json(status: u16, value: &serde_json::Value) -> Self {
        Self::new(status, "application/json; charset=utf-8", serde_json::to_vec(value).unwrap_or_default())
    }
}
