"""One round of `compare_revisions.py`: times sunflux's transport and climate parsing with whichever
sunflux is first on the import path, and prints the figures as one JSON line.

The operations are those `bench_transport` and `bench_climate` time for sunflux (their contenders'
code and sizes), so the before/after table reads like those sections.
"""

from __future__ import annotations

import json
import sys
import pathlib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import sunflux as sf  # noqa: E402  (after the benches folder joins the path)
from sunflux.climate import parse_csv, parse_zip  # noqa: E402

import bench_climate  # noqa: E402
import bench_transport  # noqa: E402
from timing import best_of, per_call_samples, percentile  # noqa: E402

TRANSPORT_ROUNDS = 2


def transport_p50() -> float:
    with sf.LocalService(rate_limits=sf.RateLimits(requests=10**9, window=3600)) as service:
        client = service.client(throttle=False)

        def call() -> object:
            return client.request("GET", "local_status", args={"format": "json"}).json()

        for _ in range(50):
            call()
        samples = per_call_samples({"sunflux": call}, bench_transport.CALLS, TRANSPORT_ROUNDS)["sunflux"]
    return percentile(samples, 0.5)


def main() -> None:
    csv_body, zip_body = bench_climate._fetch_bodies()
    csv_samples = per_call_samples({"sunflux": lambda: parse_csv(csv_body).data}, bench_climate.CSV_CALLS * 3, 1)
    figures = {
        "transport_p50_us": transport_p50() * 1e6,
        "csv_p50_ms": percentile(csv_samples["sunflux"], 0.5) * 1e3,
        "zip_best_s": best_of(lambda: parse_zip(zip_body), bench_climate.ZIP_REPEAT),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
