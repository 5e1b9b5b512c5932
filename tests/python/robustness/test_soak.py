"""Slow reliability runs (issue #20): the fault matrix — every fault kind at several rates against
every service of the embedded service — gives right answers or typed errors, never a wrong answer,
an untyped error or a hang; and soaks — threads on one client, rounds of 500 concurrent async
calls, large batches — keep memory bounded.

Run them with ``pytest -m slow tests/python/robustness/test_soak.py -s`` to see the matrix and the memory curves.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import sunflux as sf
from support.paths import SCENARIOS

pytestmark = pytest.mark.slow

SLUG = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"
EMAIL = "analyst@example.org"
SCENARIO = json.loads((SCENARIOS / "valid_minimal.json").read_text())


def rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


# ---------------------------------------------------------------------------------------------
# The fault matrix

RATES = (0.1, 0.3, 0.5)
KINDS = (*sf.FAULT_KINDS, "all")
CALLS_PER_CELL = 6


def _services(client: sf.Client, reference: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """One call per service, each returning a value comparable with the fault-free answer."""

    def download() -> Any:
        return client.climate.download_csv(SLUG, lat=39.74, lon=-105.18, year=2010, email=EMAIL, attributes="ghi").data

    def fetch() -> Any:
        return client.climate.fetch(reference["download_url"], timeout=30).data

    def optimizer() -> Any:
        result = client.optimizer.results(reference["run_uuid"])
        return (result.run_uuid, result.status)

    return {
        "data_query": lambda: client.solar.data_query(39.74, -105.18, version="v1").closest,
        "estimate": lambda: client.pv.estimate(4, 0, 14, 1, 20, 180, lat=39.74, lon=-105.18).ac_annual,
        "climate_csv": download,
        "climate_zip": fetch,
        "optimizer": optimizer,
        "technical_potential": lambda: [region.label for region in client.technical_potential.config("rede").regions],
    }


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, pl.DataFrame):
        return isinstance(right, pl.DataFrame) and left.equals(right)
    return bool(left == right)


def test_fault_matrix_gives_right_answers_or_typed_errors(capsys: pytest.CaptureFixture[str]) -> None:
    warnings.simplefilter("ignore", sf.ServiceWarning)
    warnings.simplefilter("ignore", DeprecationWarning)
    with sf.LocalService(climate=sf.ClimateSettings(csv_interval=0, json_interval=0)) as clean:
        client = clean.client(throttle=False)
        request = client.climate.request(SLUG, wkt="MULTIPOINT(-105.18 39.74, -104.9 39.8)", years=[2010], email=EMAIL, attributes="ghi")
        client.climate.fetch(request.download_url)
        run_uuid = client.optimizer.submit(SCENARIO)
        reference: dict[str, Any] = {"download_url": request.download_url, "run_uuid": run_uuid}
        expected = {name: call() for name, call in _services(client, reference).items()}
    matrix: dict[tuple[float, str, str], Counter[str]] = {}
    for rate in RATES:
        for kind in KINDS:
            kinds = sf.FAULT_KINDS if kind == "all" else (kind,)
            faults = sf.Faults(rate=rate, seed=int(rate * 100) + len(kind), kinds=kinds, delay=0.02, retry_after=0.01)
            with sf.LocalService(faults=faults, climate=sf.ClimateSettings(csv_interval=0, json_interval=0)) as service:
                client = service.client(throttle=False, retries=3, backoff=0.005, timeout=5, deadline=20)
                request = None
                for _ in range(20):
                    try:
                        request = client.climate.request(SLUG, wkt="MULTIPOINT(-105.18 39.74, -104.9 39.8)", years=[2010], email=EMAIL, attributes="ghi")
                        run_uuid = client.optimizer.submit(SCENARIO)
                        break
                    except sf.SunfluxError:
                        continue
                assert request is not None
                reference = {"download_url": request.download_url, "run_uuid": run_uuid}
                for name, call in _services(client, reference).items():
                    outcomes = matrix.setdefault((rate, kind, name), Counter())
                    for _ in range(CALLS_PER_CELL):
                        started = time.monotonic()
                        try:
                            value = call()
                        except sf.SunfluxError as error:
                            outcomes[type(error).__name__] += 1
                        except Exception as error:  # noqa: BLE001 - an untyped error is what this test looks for
                            outcomes[f"untyped {type(error).__name__}"] += 1
                        else:
                            right = _same(value, expected[name]) or (name == "optimizer" and value[0] == run_uuid)
                            outcomes["right" if right else "WRONG"] += 1
                        if time.monotonic() - started > 25:
                            outcomes["hang"] += 1
    with capsys.disabled():
        print("\nfault matrix: rate kind service -> outcomes")
        for (rate, kind, name), outcomes in matrix.items():
            print(f"{rate:4} {kind:16} {name:20} {dict(outcomes)}")
    totals: Counter[str] = Counter()
    for outcomes in matrix.values():
        totals.update(outcomes)
    with capsys.disabled():
        print(f"totals over {sum(totals.values())} calls: {dict(totals)}")
    assert totals["WRONG"] == 0
    assert totals["hang"] == 0
    assert not [name for name in totals if name.startswith("untyped")]
    assert totals["right"] > sum(totals.values()) // 2


# ---------------------------------------------------------------------------------------------
# Soaks

ROUND_GROWTH_MIB = 4.0


def _bounded(curve: list[float]) -> bool:
    """After the first (warm-up) round, the least-squares slope of the curve is under a few MiB per
    round. A slope over every round, unlike the difference of two readings, does not turn a few
    MiB of allocator noise in one reading into a trend, and a real leak still shows as a slope."""
    return _slope(curve[1:]) < ROUND_GROWTH_MIB


def _slope(curve: list[float]) -> float:
    """The least-squares slope of ``curve`` per step."""
    mean_x = (len(curve) - 1) / 2
    mean_y = sum(curve) / len(curve)
    spread = sum((x - mean_x) ** 2 for x in range(len(curve)))
    return sum((x - mean_x) * (y - mean_y) for x, y in enumerate(curve)) / spread


def test_threads_sharing_one_client_keep_memory_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    with sf.LocalService(rate_limits=sf.RateLimits(10**9, 3600)) as service:
        client = service.client(throttle=False)
        curve = []
        errors: list[BaseException] = []

        def worker() -> None:
            try:
                for _ in range(250):
                    client.request("GET", "local_status", args={"format": "json"})
            except BaseException as error:  # noqa: BLE001
                errors.append(error)

        for _ in range(10):
            threads = [threading.Thread(target=worker) for _ in range(16)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            gc.collect()
            curve.append(round(rss_mib(), 1))
    with capsys.disabled():
        print(f"\nthreads: RSS MiB per round of 16 x 250 calls: {curve}")
    assert errors == []
    assert _bounded(curve), curve


ASYNC_SOAK = """
import asyncio, ctypes, ctypes.util, gc, json, sunflux as sf

libc = ctypes.CDLL(ctypes.util.find_library("c"))


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


libc.mallinfo2.restype = MallInfo2


def rss_mib():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def in_use_mib():
    # Bytes malloc has handed out and not had back, in every arena: what a leak would grow.
    info = libc.mallinfo2()
    return (info.uordblks + info.hblkhd) / 2**20


async def main():
    curves = {"rss": [], "in_use": []}
    with sf.LocalService(rate_limits=sf.RateLimits(10**9, 3600)) as service:
        client = service.async_client(throttle=False)
        for round_number in range(ROUNDS):
            # Every call at new coordinates: each answer brings new warning texts.
            calls = [client.solar.data_query(30 + (round_number * 500 + i) * 0.0007, -100.2, version="v2") for i in range(500)]
            outcomes = await asyncio.gather(*calls, return_exceptions=True)
            assert not [o for o in outcomes if isinstance(o, BaseException)], outcomes
            del calls, outcomes
            gc.collect()
            curves["rss"].append(round(rss_mib(), 1))
            curves["in_use"].append(round(in_use_mib(), 2))
    return curves

print(json.dumps(asyncio.run(main())))
"""

#: The slope (MiB per round) the memory in use may keep after warm-up: a leak of 1 KiB per call
#: would show as 0.5.
IN_USE_GROWTH_MIB = 0.1


def test_rounds_of_500_concurrent_async_calls_keep_memory_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    """In a program of its own (the default warning filters, no test harness recording every
    warning): 40 rounds of 500 concurrent calls, each at new coordinates. The memory malloc has
    handed out stays flat; the resident size rises by less each round, as glibc's per-thread
    arenas settle (docs/design.md, "Memory under load")."""
    script = "ROUNDS = 40\n" + ASYNC_SOAK
    done = subprocess.run([sys.executable, "-W", "ignore::sunflux.ServiceWarning", "-c", script],
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    curves = json.loads(done.stdout.splitlines()[-1])
    with capsys.disabled():
        print(f"\nasync: RSS MiB per round of 500 concurrent calls: {curves['rss']}")
        print(f"async: malloc in-use MiB per round: {curves['in_use']}")
    assert _slope(curves["in_use"][5:]) < IN_USE_GROWTH_MIB, curves["in_use"]
    assert _bounded(curves["rss"]), curves["rss"]


BATCH_SOAK = """
import ctypes, ctypes.util, gc, json, tempfile
from pathlib import Path
import sunflux as sf

libc = ctypes.CDLL(ctypes.util.find_library("c"))

def held_mib():
    # Free pages go back to the system first, so the reading is memory the process still holds
    # rather than what glibc keeps cached for the next round.
    if hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20

cache = Path(tempfile.mkdtemp())
curve = []
with sf.LocalService(climate=sf.ClimateSettings(csv_interval=0)) as service:
    client = service.client(limits={"climate_csv": sf.ServiceLimits(min_interval=0.001)})
    weather = service.station_weather(client.solar.data_query(39.74, -105.18, version="v1").closest["tmy3"].file_id)
    systems = [{"system_capacity": 4, "module_type": 0, "losses": 14, "array_type": 1, "tilt": t % 60, "azimuth": 180} for t in range(2000)]
    for round_number in range(ROUNDS):
        points = [(30 + (round_number * 40 + i) * 0.05, -100.0) for i in range(40)]
        frame = client.climate.bulk(SLUG, points=points, years=[2010], email=EMAIL, attributes="ghi", cache_dir=cache / str(round_number), progress=False)
        assert frame.height == 40 * 8760
        table = sf.pvwatts.simulate_many(weather, systems, timeframe="monthly", progress=False)
        assert table.height == 2000 * 12
        del frame, table
        gc.collect()
        curve.append(round(held_mib(), 1))
print(json.dumps(curve))
"""


def test_large_batches_keep_memory_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    """In a program of its own, so that the heap other tests leave behind does not decide where
    each round's buffers land: eight rounds of a 40-site-year bulk download and 2,000 simulations."""
    script = f"ROUNDS, SLUG, EMAIL = 8, {SLUG!r}, {EMAIL!r}\n" + BATCH_SOAK
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    curve = json.loads(done.stdout.splitlines()[-1])
    with capsys.disabled():
        print(f"\nbatches: RSS MiB per round (40 site-years bulk + 2,000 simulations): {curve}")
    assert _bounded(curve), curve
