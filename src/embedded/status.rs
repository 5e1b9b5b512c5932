//! The embedded service's own endpoints (not in the spec; `spec::routes::Endpoint::LocalStatus`):
//! `GET status.json`, its health (the cheapest authenticated call, used by the demo and the
//! transport benchmark), and `GET outbox.json`, the e-mails the climate download would have sent.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::Response;

use super::reply::ServiceReply;
use super::climate::outbox_reply;
use super::state::{lock, reply_response, ServiceState};

pub async fn handle(State(state): State<Arc<ServiceState>>, Path(file): Path<String>) -> Response {
    reply_response(status_reply(&state, &file))
}

fn status_reply(state: &ServiceState, file: &str) -> ServiceReply {
    if file == "outbox.json" {
        return outbox_reply(&lock(&state.climate_jobs));
    }
    if file != "status.json" {
        return ServiceReply::json(404, &serde_json::json!({"errors": [format!("unknown local endpoint {file:?}; try status.json or outbox.json")]}));
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
