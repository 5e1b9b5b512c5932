"""The main job: a tour of sunflux against the embedded service, with no key and no network.

Each step prints what it did and what came back; it grows as services land.
"""

from __future__ import annotations

import time
from typing import TextIO

from sunflux._errors import AuthError, ParameterError
from sunflux._local import LocalService


def _step(out: TextIO, title: str) -> None:
    out.write(f"\n== {title}\n")


def run_demo(out: TextIO) -> int:
    """Runs every step; returns the process exit code."""
    started = time.perf_counter()
    with LocalService() as svc:
        out.write(f"embedded service at {svc.base_url} (key {svc.api_key[:4]}…, 40 characters)\n")
        client = svc.client()

        _step(out, "authenticated call")
        status = client.request("GET", "local_status", args={"format": "json"}).json()
        out.write(f"status: {status['outputs']['status']}, rate limit {client.rate_limit}\n")

        _step(out, "the gateway's answers")
        for auth in ("header", "query", "basic"):
            code = svc.client(auth=auth).request("GET", "local_status", args={"format": "json"}).status
            out.write(f"auth={auth:<6} -> HTTP {code}\n")
        try:
            svc.client(api_key=None).request("GET", "local_status", args={"format": "json"})
        except AuthError as missing:
            out.write(f"no key       -> {type(missing).__name__} {missing.code}\n")
        try:
            svc.client(api_key="k" * 41)
        except ParameterError as bad:
            out.write(f"41-char key  -> {type(bad).__name__}: {bad}\n")

    out.write(f"\ndemo finished in {time.perf_counter() - started:.2f} s\n")
    return 0
