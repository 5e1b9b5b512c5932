"""Sequential request round trips against the embedded service: sunflux vs httpx vs requests."""

from __future__ import annotations

import httpx
import requests

import sunflux as sf
from timing import per_call_samples, percentile

TITLE = "Transport: sequential round trips against LocalService"
CALLS = 500
ROUNDS = 6


def run() -> str:
    with sf.LocalService(rate_limits=sf.RateLimits(requests=10**9, window=3600)) as svc:
        url = f"{svc.base_url}/api/local/v1/status.json"
        headers = {"X-Api-Key": svc.api_key}
        client = svc.client(throttle=False)
        session = requests.Session()
        hx = httpx.Client(headers=headers)
        contenders = {
            "sunflux Client.request": lambda: client.request("GET", "local_status", args={"format": "json"}).json(),
            "httpx.Client.get": lambda: hx.get(url).json(),
            "requests.Session.get": lambda: session.get(url, headers=headers).json(),
        }
        for fn in contenders.values():
            for _ in range(50):
                fn()
        samples = per_call_samples(contenders, CALLS, ROUNDS)
        hx.close()
    p50 = {name: percentile(values, 0.5) for name, values in samples.items()}
    reference = p50["requests.Session.get"]
    rows = [
        f"| {name} | {p50[name] * 1e6:.0f} | {percentile(values, 0.9) * 1e6:.0f} | {reference / p50[name]:.2f}x |"
        for name, values in samples.items()
    ]
    return (
        f"{CALLS * ROUNDS} sequential GETs per contender (keep-alive, JSON decoded), {ROUNDS} interleaved rounds, "
        "same embedded service in the same process.\n\n"
        "| contender | p50 µs/call | p90 µs/call | speed vs requests (p50) |\n|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
        f"Goal: sunflux at least 2x faster per call than requests — measured "
        f"{reference / p50['sunflux Client.request']:.2f}x (httpx: {p50['httpx.Client.get'] / p50['sunflux Client.request']:.2f}x slower than sunflux)."
    )
