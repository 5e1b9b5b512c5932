//! `GET /api/local/v1/status.json`: the embedded service's own health endpoint (not in the spec).
//! The demo and the transport benchmarks use it as the cheapest authenticated call.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::Response;

use super::reply::ServiceReply;
use super::server::{reply_response, ServiceState};

pub async fn handle(State(state): State<Arc<ServiceState>>, Path(file): Path<String>) -> Response {
    reply_response(status_reply(&state, &file))
}

fn status_reply(state: &ServiceState, file: &str) -> ServiceReply {
    if file != "status.json" {
        return ServiceReply::json(404, &serde_json::json!({"errors": [format!("unknown local endpoint {file:?}; try status.json")]}));
    }
    let requests: u64 = state.hits().values().sum();
    ServiceReply::json(
        200,
        &serde_json::json!({
            "inputs": {},
            "errors": [],
            "warnings": [],
            "version": env!("CARGO_PKG_VERSION"),
            "metadata": {"service": "sunflux embedded service", "synthetic": true},
            "outputs": {
                "status": "ok",
                "uptime_seconds": state.uptime().as_secs_f64(),
                "requests_served": requests,
            }
        }),
    )
}
