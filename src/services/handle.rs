//! `ServiceHandle`, what every service call is given by the client that makes it: the client's
//! shared transport (configuration, key, throttle, retries, response caps) and whether to trace
//! this call's attempts. `python/client.rs` builds one per call (`PyTransport::handle`); services
//! never see the Python objects. The Python side's `ServiceHandle` (`_handle.py`) is the same role
//! one level up.

use std::sync::Arc;

use bytes::Bytes;

use crate::error::Result;
use crate::transport::{Request, Response, Transport};

/// What a service call needs from the client that makes it.
#[derive(Clone)]
pub struct ServiceHandle {
    pub transport: Arc<Transport>,
    /// Report each attempt to the transport's observer.
    pub trace: bool,
}

impl ServiceHandle {
    pub fn new(transport: Arc<Transport>, trace: bool) -> Self {
        ServiceHandle { transport, trace }
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
