//! The small handle every service call takes: the transport (which holds the configuration and
//! the key) and whether to trace attempts. The Python `Client` builds one per call; services never
//! see the Python objects.

use std::sync::Arc;

use bytes::Bytes;

use crate::error::Result;
use crate::transport::{Request, Response, Transport};

/// What a service call needs from the client that makes it.
#[derive(Clone)]
pub struct Core {
    pub transport: Arc<Transport>,
    /// Report each attempt to the transport's observer.
    pub trace: bool,
}

impl Core {
    pub fn new(transport: Arc<Transport>, trace: bool) -> Self {
        Core { transport, trace }
    }

    /// Sends `request` (with this call's tracing) and returns the answer.
    pub async fn send(&self, mut request: Request) -> Result<Response> {
        request.trace = self.trace;
        self.transport.send(&request).await
    }

    /// The answer's body with the API key removed wherever it was echoed.
    pub fn scrub(&self, body: &Bytes) -> Bytes {
        self.transport.scrub(body)
    }

    /// `text` with the API key removed.
    pub fn redact(&self, text: &str) -> String {
        self.transport.redact(text)
    }
}
