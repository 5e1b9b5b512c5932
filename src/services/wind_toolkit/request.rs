//! The SRW download call: send the validated query and parse the answer (a JSON error body
//! with status 200 becomes the service's error).

use super::srw::{parse_srw, WindResource};
use super::WindToolkitQuery;
use crate::error::Result;
use crate::services::handle::ServiceHandle;
use crate::services::missing::parse_failure;
use crate::transport::{Endpoint, Request};

/// Asks the WIND Toolkit for the resource of `query` and parses it.
pub async fn fetch_wind_resource(handle: &ServiceHandle, query: &WindToolkitQuery) -> Result<WindResource> {
    let response = handle.send(Request::get(Endpoint::WindToolkitSrw, query.query_pairs())).await?;
    let body = handle.scrub(&response.body);
    let text = String::from_utf8_lossy(&body);
    parse_srw(&text).map_err(|problem| parse_failure(&body, &problem, |t| handle.redact(t)))
}
