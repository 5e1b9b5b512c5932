//! The embedded service: the gateway middleware (faults, keys, limits, `X-RateLimit-*`
//! headers), the route table and start/stop. Configuration and shared state are `state.rs`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::HeaderValue;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::faults::{html_error_page, FaultKind};
use super::gateway::{check_key, find_key, gateway_error, GatewayCode};
use super::reply::ServiceReply;
use super::request_body::buffered;
use super::state::{lock, query_pairs, reply_response, AuthenticatedKey, ServiceConfig, ServiceState};
use super::{climate, optimizer, pv, solar, status, technical_potential, wind_toolkit};
use crate::error::{Error, Result};
use crate::formats::Format;
use crate::spec::routes::{served_routes, Served, DOWNLOAD_FILES_PREFIX};

/// The format an error for this path must be written in: the path's suffix, JSON otherwise.
pub fn format_of_path(path: &str) -> Format {
    path.rsplit_once('.').and_then(|(_, suffix)| Format::from_suffix(suffix)).unwrap_or(Format::Json)
}

/// Builds the router: every route of the spec's table (`spec::routes::served_routes`, which
/// spells each path once), each with its handler, behind the gateway.
pub fn router(state: Arc<ServiceState>) -> Router {
    let routes = served_routes().into_iter().fold(Router::new(), |router, (pattern, served)| {
        let handler = match served {
            Served::Local => get(status::handle),
            Served::DataQuery => get(solar::handle),
            Served::PvEstimator => get(pv::handle),
            Served::ClimateDownload => get(climate::handle).post(climate::handle),
            Served::DownloadFile => get(climate::handle_download),
            Served::OptimizerJob => post(optimizer::http::handle_post),
            Served::OptimizerResults => get(optimizer::http::handle_results),
            Served::OptimizerSimulatedLoad => get(optimizer::http::handle_simulated_load),
            Served::OptimizerLookup(lookup) => get(move |request: Request| optimizer::http::handle_lookup(lookup, request)),
            Served::UtilityRates => get(optimizer::http::handle_utility_rates),
            Served::WindToolkitSrw => get(wind_toolkit::handle),
            Served::TechnicalPotentialConfig => get(technical_potential::handle_config),
            Served::TechnicalPotentialJob => {
                get(technical_potential::handle_job_get).post(technical_potential::handle_job_post).delete(technical_potential::handle_job_delete)
            }
        };
        router.route(&pattern, handler)
    });
    // The gateway has read the body within `limits::SERVICE_MAX_BODY_BYTES` (413 beyond); the
    // handlers' extractors would otherwise refuse anything over axum's own 2 MB default, such as
    // a 15-minute optimizer scenario with its resolved series.
    routes
        .fallback(not_found)
        .layer(DefaultBodyLimit::disable())
        .layer(middleware::from_fn_with_state(state.clone(), gateway))
        .with_state(state)
}

async fn not_found() -> Response {
    reply_response(ServiceReply::json(
        404,
        &serde_json::json!({"error": {"code": "NOT_FOUND", "message": "No API could be found at this URL."}}),
    ))
}

async fn gateway(State(state): State<Arc<ServiceState>>, request: Request, next: Next) -> Response {
    let path = request.uri().path().to_owned();
    let format = format_of_path(&path);
    let host = request.headers().get("host").and_then(|v| v.to_str().ok());
    if !state.is_own_host(host) {
        // A page of another site that resolves its name to 127.0.0.1 (DNS rebinding) sends its
        // own name; only this service's names are answered.
        return reply_response(ServiceReply::json(421, &serde_json::json!({"error": {"code": "MISDIRECTED_REQUEST", "message": "The Host header does not name this service (use 127.0.0.1 or localhost with its port)."}})));
    }
    let mut request = match buffered(request, state.body_timeout).await {
        Ok(request) => request,
        Err(reply) => return reply_response(reply),
    };
    // The file host takes no key (and counts its own hits); faults apply to it as well.
    let file_host = path.starts_with(DOWNLOAD_FILES_PREFIX);
    let headers = request.headers();
    let header_key = headers.get("x-api-key").and_then(|v| v.to_str().ok());
    let authorization = headers.get("authorization").and_then(|v| v.to_str().ok());
    let key = find_key(header_key, &query_pairs(&request), authorization);
    let key_check = check_key(key.as_deref(), &state.keys);
    if key_check.is_ok() && !file_host {
        state.record_hit(&path);
    }
    let fault = state.faults.as_ref().and_then(|injector| lock(injector).draw());
    let fault_config = state.faults.as_ref().map(|injector| lock(injector).config().clone());
    match fault {
        Some(FaultKind::ServerError) => return html_response(500),
        Some(FaultKind::BadGateway) => return html_response(502),
        Some(FaultKind::Unavailable) => return html_response(503),
        Some(FaultKind::RateLimited) => return reply_response(gateway_error(GatewayCode::OverRateLimit, format)),
        Some(FaultKind::RateLimitedRetryAfter) => {
            let mut reply = gateway_error(GatewayCode::OverRateLimit, format);
            let wait = fault_config.map(|c| c.retry_after).unwrap_or(Duration::from_secs(1));
            reply.headers.push(("retry-after", format!("{}", wait.as_secs_f64())));
            return reply_response(reply);
        }
        _ => {}
    }
    if file_host {
        if fault == Some(FaultKind::Delay) {
            tokio::time::sleep(fault_config.map(|c| c.delay).unwrap_or_default()).await;
        }
        let response = next.run(request).await;
        return match fault {
            Some(FaultKind::TruncatedBody) => cut_body(response, true).await,
            Some(FaultKind::DroppedConnection) => cut_body(response, false).await,
            _ => response,
        };
    }
    if let Err(code) = key_check {
        return reply_response(gateway_error(code, format));
    }
    let key = key.unwrap_or_default();
    request.extensions_mut().insert(AuthenticatedKey(key.clone()));
    let admission = state.limiter.as_ref().map(|limiter| lock(limiter).admit(&key, Instant::now()));
    let mut response = if admission.is_none_or(|a| a.admitted) {
        if fault == Some(FaultKind::Delay) {
            tokio::time::sleep(fault_config.map(|c| c.delay).unwrap_or_default()).await;
        }
        next.run(request).await
    } else {
        reply_response(gateway_error(GatewayCode::OverRateLimit, format))
    };
    if let Some(admission) = admission {
        let headers = response.headers_mut();
        headers.insert("x-ratelimit-limit", HeaderValue::from(admission.limit));
        headers.insert("x-ratelimit-remaining", HeaderValue::from(admission.remaining));
    }
    match fault {
        Some(FaultKind::TruncatedBody) => cut_body(response, true).await,
        Some(FaultKind::DroppedConnection) => cut_body(response, false).await,
        _ => response,
    }
}

fn html_response(status: u16) -> Response {
    reply_response(ServiceReply::new(status, "text/html; charset=utf-8", html_error_page(status)))
}

/// Keeps the headers (with the full `Content-Length`) but sends only half the body, or none,
/// and then fails the stream so the connection closes early.
async fn cut_body(response: Response, keep_half: bool) -> Response {
    let (mut parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    let full_length = bytes.len().max(2);
    let kept = if keep_half { bytes.slice(..bytes.len() / 2) } else { bytes::Bytes::new() };
    parts.headers.insert("content-length", HeaderValue::from(full_length));
    let chunks: Vec<std::result::Result<bytes::Bytes, std::io::Error>> =
        vec![Ok(kept), Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "injected fault"))];
    Response::from_parts(parts, Body::from_stream(futures_util::stream::iter(chunks)))
}

/// A running embedded service.
pub struct LocalService {
    pub base_url: String,
    pub port: u16,
    pub state: Arc<ServiceState>,
    shutdown: Option<watch::Sender<bool>>,
    task: Option<JoinHandle<()>>,
}

impl LocalService {
    /// Binds 127.0.0.1:`port` and serves in the background on `runtime`.
    pub fn start(runtime: &tokio::runtime::Runtime, config: &ServiceConfig) -> Result<Self> {
        let state = Arc::new(ServiceState::new(config)?);
        let listener = std::net::TcpListener::bind(("127.0.0.1", config.port))
            .map_err(|e| Error::Transport(format!("could not listen on 127.0.0.1:{}: {e}", config.port)))?;
        listener.set_nonblocking(true).map_err(|e| Error::Transport(e.to_string()))?;
        let port = listener.local_addr().map_err(|e| Error::Transport(e.to_string()))?.port();
        let _entered = runtime.enter();
        let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| Error::Transport(e.to_string()))?;
        let (shutdown, stop) = watch::channel(false);
        let _ = state.base_url.set(format!("http://127.0.0.1:{port}"));
        let app = router(state.clone());
        let task = runtime.spawn(serve(listener, app, stop, config.header_timeout));
        Ok(LocalService { base_url: format!("http://127.0.0.1:{port}"), port, state, shutdown: Some(shutdown), task: Some(task) })
    }

    pub fn api_key(&self) -> &str {
        &self.state.api_key
    }

    pub fn is_running(&self) -> bool {
        self.task.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Stops accepting, gives open requests a moment to finish, then drops the server.
    pub fn close(&mut self, runtime: &tokio::runtime::Runtime) {
        self.state.optimizer_jobs.cancel_all();
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(true);
        }
        if let Some(task) = self.task.take() {
            let abort = task.abort_handle();
            let finished = runtime.block_on(async { tokio::time::timeout(Duration::from_millis(500), task).await.is_ok() });
            if !finished {
                abort.abort();
            }
        }
    }
}

/// Accepts connections until `stop` turns true, serving each with HTTP/1.1 and a deadline for its
/// request heads (`header_timeout`: a connection that has not sent a whole head by then, idle or
/// half-sent, is closed). On stop, every connection finishes its current request and closes.
async fn serve(listener: tokio::net::TcpListener, app: Router, mut stop: watch::Receiver<bool>, header_timeout: Duration) {
    let service = hyper_util::service::TowerToHyperService::new(app);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.changed() => return,
        };
        let Ok((stream, _)) = accepted else { continue };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        let mut stop = stop.clone();
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(header_timeout);
            let connection = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stop.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_millis(500), connection).await;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;

    use super::*;
    use crate::limits::{SERVICE_HEADER_TIMEOUT, SERVICE_MAX_BODY_BYTES, SERVICE_MAX_HIT_PATHS};
    use crate::embedded::state::OTHER_PATHS;

    fn started(timeout: Duration) -> (tokio::runtime::Runtime, LocalService) {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let config = ServiceConfig { header_timeout: timeout, body_timeout: timeout, ..ServiceConfig::default() };
        let service = LocalService::start(&runtime, &config).unwrap();
        (runtime, service)
    }

    /// Sends `request` on a new connection and returns what came back before it closed.
    fn exchange(port: u16, request: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).into_owned()
    }

    #[test]
    fn only_requests_that_pass_the_key_check_are_counted() {
        let (runtime, mut service) = started(SERVICE_HEADER_TIMEOUT);
        let port = service.port;
        for index in 0..50 {
            let answer = exchange(port, &format!("GET /x/{index} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nconnection: close\r\n\r\n"));
            assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        }
        assert!(service.state.hits().is_empty());
        let key = service.api_key().to_owned();
        let answer = exchange(port, &format!("GET /api/local/v1/status.json HTTP/1.1\r\nhost: localhost:{port}\r\nx-api-key: {key}\r\nconnection: close\r\n\r\n"));
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert_eq!(service.state.hits().get("/api/local/v1/status.json"), Some(&1));
        service.close(&runtime);
    }

    #[test]
    fn distinct_paths_are_counted_up_to_the_limit() {
        let state = ServiceState::new(&ServiceConfig::default()).unwrap();
        for index in 0..SERVICE_MAX_HIT_PATHS + 10 {
            state.record_hit(&format!("/p/{index}"));
        }
        state.record_hit("/p/0");
        let hits = state.hits();
        assert_eq!(hits.len(), SERVICE_MAX_HIT_PATHS + 1);
        assert_eq!((hits.get(OTHER_PATHS), hits.get("/p/0")), (Some(&10), Some(&2)));
    }

    #[test]
    fn a_host_that_is_not_the_service_is_refused() {
        let (runtime, mut service) = started(SERVICE_HEADER_TIMEOUT);
        let key = service.api_key().to_owned();
        for host in ["evil.example", "127.0.0.1:1", "localhost"] {
            let answer = exchange(service.port, &format!("GET /api/local/v1/status.json HTTP/1.1\r\nhost: {host}\r\nx-api-key: {key}\r\nconnection: close\r\n\r\n"));
            assert!(answer.starts_with("HTTP/1.1 421"), "{host}: {answer}");
        }
        service.close(&runtime);
    }

    #[test]
    fn half_sent_heads_are_closed_after_the_header_timeout() {
        let (runtime, mut service) = started(Duration::from_millis(300));
        let started_at = Instant::now();
        let streams: Vec<TcpStream> = (0..20)
            .map(|_| {
                let mut stream = TcpStream::connect(("127.0.0.1", service.port)).unwrap();
                stream.write_all(b"GET /api/local/v1/status.json HTTP/1.1\r\nhost: 127.0.0.1\r\n").unwrap();
                stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                stream
            })
            .collect();
        for mut stream in streams {
            let mut rest = Vec::new();
            let _ = stream.read_to_end(&mut rest);
        }
        assert!(started_at.elapsed() < Duration::from_secs(4), "{:?}", started_at.elapsed());
        service.close(&runtime);
    }

    /// The first bytes of the answer to `head` and `body_bytes` of body, read once the whole body
    /// is sent, as an HTTP client reads it; or how sending or reading failed. Writes and reads
    /// give up after 10 s, far less than the service's wait for a body.
    fn answer_after_sending(port: u16, head: &str, body_bytes: usize) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.write_all(head.as_bytes()).unwrap();
        let chunk = vec![b'x'; 1 << 20];
        let mut sent = 0;
        while sent < body_bytes {
            let part = chunk.get(..(body_bytes - sent).min(chunk.len())).unwrap();
            if let Err(error) = stream.write_all(part) {
                return format!("sending failed after {sent} bytes: {error}");
            }
            sent += part.len();
        }
        let mut answer = [0u8; 12];
        match stream.read_exact(&mut answer) {
            Ok(()) => String::from_utf8_lossy(&answer).into_owned(),
            Err(error) => format!("reading failed: {error}"),
        }
    }

    #[test]
    fn a_declared_body_over_the_limit_is_answered_413_before_it_is_sent() {
        let (runtime, mut service) = started(Duration::from_secs(600));
        let port = service.port;
        for declared in [SERVICE_MAX_BODY_BYTES as u64 + 1, 1 << 40, 1 << 62] {
            let head = format!("POST /api/optimizer/stable/job/ HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-length: {declared}\r\n\r\n");
            assert_eq!(answer_after_sending(port, &head, 0), "HTTP/1.1 413", "{declared}");
        }
        service.close(&runtime);
    }

    #[test]
    fn a_100_mb_body_gets_a_413_not_a_closed_connection() {
        // With and without a Content-Length: one refused from its head, one once it outgrows the limit.
        let (runtime, mut service) = started(Duration::from_secs(600));
        let port = service.port;
        let size = 100 << 20;
        let declared = format!("POST /api/optimizer/stable/job/ HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-length: {size}\r\n\r\n");
        assert_eq!(answer_after_sending(port, &declared, size), "HTTP/1.1 413");
        let chunked = format!("POST /api/optimizer/stable/job/ HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ntransfer-encoding: chunked\r\n\r\n{size:x}\r\n");
        assert_eq!(answer_after_sending(port, &chunked, size), "HTTP/1.1 413");
        service.close(&runtime);
    }

    #[test]
    fn a_body_that_never_arrives_is_answered_408() {
        let (runtime, mut service) = started(Duration::from_millis(300));
        let mut stream = TcpStream::connect(("127.0.0.1", service.port)).unwrap();
        let head = format!("POST /api/optimizer/stable/job/ HTTP/1.1\r\nhost: 127.0.0.1:{}\r\ncontent-length: 100\r\n\r\n{{", service.port);
        stream.write_all(head.as_bytes()).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut answer = [0u8; 12];
        stream.read_exact(&mut answer).unwrap();
        assert_eq!(&answer, b"HTTP/1.1 408");
        service.close(&runtime);
    }
}
