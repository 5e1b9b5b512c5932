//! The estimator call shared by v6 and v8: send, parse (json, JSONP or xml) and apply the rule
//! that an answer with errors fails even when its status is 200.

use crate::error::{ApiErrorKind, ApiFailure, Error, Result};
use crate::formats::Format;
use crate::services::handle::ServiceHandle;
use crate::services::missing::parse_failure;
use crate::transport::{Endpoint, Request};

use super::{parse_estimate, PvEstimate};

/// Sends an estimator request and returns the parsed estimate with its body as text; an answer
/// whose `errors` list is not empty raises `ApiError` (the service answers 200 with errors for
/// inputs it refuses).
pub async fn request_estimate(handle: ServiceHandle, endpoint: Endpoint, query: Vec<(String, String)>, format: Format) -> Result<(PvEstimate, String)> {
    let response = handle.send(Request::get(endpoint, query)).await?;
    let body = handle.scrub(&response.body);
    let estimate = parse_estimate(&body, format).map_err(|e| parse_failure(&body, &e, |t| handle.redact(t)))?;
    let text = String::from_utf8_lossy(&body).into_owned();
    if !estimate.errors.is_empty() {
        return Err(Error::Api(Box::new(ApiFailure {
            kind: ApiErrorKind::Other,
            status: response.status,
            code: None,
            errors: estimate.errors,
            body: text,
            url: response.url,
            retry_after: None,
            remaining: response.rate_limit.remaining,
            input_errors: None,
        })));
    }
    Ok((estimate, text))
}
