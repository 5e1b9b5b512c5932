"""A small loopback HTTP server whose answers a test scripts, for transport and job-client tests
(never the internet)."""

from __future__ import annotations

import http.server
import threading
from typing import Callable

Handler = Callable[[http.server.BaseHTTPRequestHandler], None]


def reply(request: http.server.BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    """Answers ``request`` with ``status`` and ``body`` (JSON unless ``headers`` say otherwise)."""
    request.send_response(status)
    for name, value in (headers or {"content-type": "application/json"}).items():
        request.send_header(name, value)
    request.send_header("content-length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


class LoopbackServer:
    """A threaded HTTP server on a loopback address whose answers a test scripts."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.seen: list[dict[str, object]] = []
        self.handler: Handler = lambda request: reply(request, 200, b"{}")
        owner = self

        class _Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                owner.seen.append({"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body})
                self.body = body
                owner.handler(self)

            do_GET = do_POST = do_DELETE = _any

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer((host, 0), _Handler)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
