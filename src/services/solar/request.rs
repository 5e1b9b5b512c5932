//! The dataset query call: send the validated query and parse the answer in its format.

use super::{parse_data_query, DataQueryParams, StationQuery};
use crate::error::Result;
use crate::services::handle::ServiceHandle;
use crate::services::missing::parse_failure;
use crate::transport::{Endpoint, Request};

/// Queries the stations near a point; returns them with the body as text.
pub async fn query_stations(handle: ServiceHandle, params: DataQueryParams) -> Result<(StationQuery, String)> {
    let query = params.query_pairs().into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    let endpoint = Endpoint::DataQuery { version: params.version.as_str().to_owned(), format: params.format.suffix().to_owned() };
    let response = handle.send(Request::get(endpoint, query)).await?;
    let body = handle.scrub(&response.body);
    let parsed = parse_data_query(&body, &params).map_err(|e| parse_failure(&body, &e.to_string(), |t| handle.redact(t)))?;
    Ok((parsed, String::from_utf8_lossy(&body).into_owned()))
}
