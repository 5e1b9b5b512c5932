//! Reading a request's body at the embedded service, within its size and time limits. A body
//! declared larger than the limit is refused from its head (413 at once, nothing read); one that
//! grows past the limit is refused as soon as it does. Either way the rest of the body is read and
//! thrown away in the background (bounded in bytes and time) so that the client, still sending,
//! reads the 413 instead of a reset connection.

use std::time::Duration;

use axum::body::{Body, BodyDataStream};
use axum::extract::Request;
use axum::http::{header, HeaderMap};
use bytes::BytesMut;
use futures_util::StreamExt;

use super::reply::ServiceReply;
use crate::limits::{SERVICE_MAX_BODY_BYTES, SERVICE_MAX_DISCARDED_BYTES};

/// How reading a body ended.
enum Read {
    Whole,
    TooLarge,
    Broken,
}

/// The request with its body read into memory: at most `SERVICE_MAX_BODY_BYTES` (413 beyond),
/// within `timeout` (408 after), so that a client sending its body slowly, without end or far
/// too large never holds the service.
pub async fn buffered(request: Request, timeout: Duration) -> Result<Request, ServiceReply> {
    let (parts, body) = request.into_parts();
    let mut stream = body.into_data_stream();
    if let Some(declared) = declared_length(&parts.headers).filter(|&length| length > SERVICE_MAX_BODY_BYTES as u64) {
        // A client that waits for `100 Continue` has sent nothing yet: no body to throw away.
        if !expects_continue(&parts.headers) && declared <= SERVICE_MAX_DISCARDED_BYTES {
            discard(stream, timeout);
        }
        return Err(too_large());
    }
    let mut bytes = BytesMut::new();
    match tokio::time::timeout(timeout, read_into(&mut stream, &mut bytes)).await {
        Ok(Read::Whole) => Ok(Request::from_parts(parts, Body::from(bytes.freeze()))),
        Ok(Read::TooLarge) => {
            discard(stream, timeout);
            Err(too_large())
        }
        Ok(Read::Broken) => Err(ServiceReply::json(
            400,
            &serde_json::json!({"error": {"code": "BAD_REQUEST", "message": "The request body could not be read."}}),
        )),
        Err(_) => Err(ServiceReply::json(
            408,
            &serde_json::json!({"error": {"code": "REQUEST_TIMEOUT", "message": format!("The request body did not arrive within {:.1} s.", timeout.as_secs_f64())}}),
        )),
    }
}

async fn read_into(stream: &mut BodyDataStream, bytes: &mut BytesMut) -> Read {
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else { return Read::Broken };
        if bytes.len() + chunk.len() > SERVICE_MAX_BODY_BYTES {
            return Read::TooLarge;
        }
        bytes.extend_from_slice(&chunk);
    }
    Read::Whole
}

/// The `Content-Length` a request declares, if it declares one that reads as a number.
fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers.get(header::CONTENT_LENGTH)?.to_str().ok()?.trim().parse().ok()
}

fn expects_continue(headers: &HeaderMap) -> bool {
    headers.get(header::EXPECT).and_then(|value| value.to_str().ok()).is_some_and(|value| value.eq_ignore_ascii_case("100-continue"))
}

/// Reads the rest of a refused body in the background and drops it, for at most `timeout` and
/// `SERVICE_MAX_DISCARDED_BYTES`.
fn discard(mut stream: BodyDataStream, timeout: Duration) {
    tokio::spawn(async move {
        let drain = async {
            let mut read: u64 = 0;
            while let Some(Ok(chunk)) = stream.next().await {
                read += chunk.len() as u64;
                if read > SERVICE_MAX_DISCARDED_BYTES {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(timeout, drain).await;
    });
}

fn too_large() -> ServiceReply {
    ServiceReply::json(
        413,
        &serde_json::json!({"error": {"code": "PAYLOAD_TOO_LARGE", "message": format!("The request body is larger than {SERVICE_MAX_BODY_BYTES} bytes.")}}),
    )
}
