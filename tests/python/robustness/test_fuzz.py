"""The fuzz suite (issue #20): every parser — dataset query and estimator answers (JSON, XML, CSV),
climate CSV and zips, technical-potential answers, answers as a server sends them (status,
framing, headers), weather files and tables, optimizer scenario dicts, cache entries of every
file type — gets mutated real
samples from ``tools/fuzz.py``, which runs them in a supervised worker process so that a crash is
a reported failure with its input saved, not the end of the test run.

The default run tries 1,400 inputs (100 per target, about a minute); the slow suite 5,600 more
(a few minutes). The release run is ``python tools/fuzz.py --inputs 100000`` (see
docs/design.md, "Fuzzing").
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT

FUZZ = ROOT / "tools" / "fuzz.py"


def run_fuzz(inputs: int, seed: int, out: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(FUZZ), "--inputs", str(inputs), "--seed", str(seed), "--out", str(out), "--hang", "30"],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert done.stdout.strip().startswith("{"), done.stderr[-3000:]
    summary: dict[str, object] = json.loads(done.stdout)
    findings = summary["findings"]
    assert not findings, "findings (inputs saved):\n" + "\n".join(json.dumps(f) for f in findings)  # type: ignore[union-attr]
    assert done.returncode == 0, done.stderr[-3000:]
    return summary


def test_every_parser_survives_mutated_inputs(tmp_path: Path) -> None:
    summary = run_fuzz(1600, seed=20, out=tmp_path)
    assert summary["inputs"] == 1600
    assert set(summary["targets"]) >= {
        "climate_zip", "data_query_xml", "weather_table", "scenario", "http_answers", "cache_entry", "optimizer_results", "arguments",
    }  # type: ignore[arg-type]


@pytest.mark.slow
def test_every_parser_survives_a_longer_run(tmp_path: Path) -> None:
    summary = run_fuzz(6_400, seed=21, out=tmp_path)
    assert summary["inputs"] == 6_400


def test_a_crash_is_reported_with_its_input(tmp_path: Path) -> None:
    """The supervisor itself: a worker that dies by a signal is a crash, its input saved."""
    script = FUZZ.read_text().replace(
        "                target.run(value)",
        "                (__import__('os').kill(__import__('os').getpid(), 11) if index == 3 else target.run(value))",
    )
    crashing = tmp_path / "fuzz_crashing.py"
    crashing.write_text(script.replace("REPO = Path(__file__).resolve().parents[1]", f"REPO = Path({str(FUZZ.parents[1])!r})"))
    done = subprocess.run(
        [sys.executable, str(crashing), "--inputs", "10", "--targets", "technical_potential_job", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert (summary["inputs"], summary["crashes"]) == (10, 1)
    saved = Path(summary["findings"][0]["input"])
    name, index, value = pickle.loads(saved.read_bytes())
    assert (name, index) == ("technical_potential_job", 3) and isinstance(value, bytes)


#: Values no parameter accepts in all of its positions: wrong types, negative, huge (beyond i64
#: and beyond a float's range), NaN and fractional numbers, empty and very long text, containers.
BAD_VALUES = [None, -1, -(2**70), 2**70, 10**400, -(10**400), 1e300, float("nan"), float("inf"), -0.5, 2010.5, True, "", "x" * 300, "\x00", b"bytes", [], {}, [1, "a"], {"a": 1}, object(), (1,), 0]


def test_every_bad_argument_is_a_sunflux_error() -> None:
    """Each parameter of each public call, in turn given each bad value (about 2,600 calls): the call
    succeeds or raises a sunflux error — never TypeError, OverflowError, ValueError or a panic."""
    import asyncio
    import warnings

    import sunflux as sf

    slug = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"
    untyped: dict[str, list[str]] = {}
    with warnings.catch_warnings(), sf.LocalService(climate=sf.ClimateSettings(csv_interval=0, json_interval=0)) as service:
        warnings.simplefilter("ignore")
        client = service.client(throttle=False, retries=0, timeout=5, deadline=10)
        aclient = service.async_client(throttle=False, retries=0, timeout=5, deadline=10)
        weather = service.station_weather(client.solar.data_query(39.74, -105.18, version="v1").closest["tmy3"].file_id)  # type: ignore[union-attr]
        table = {name: [0.0] for name in ("year", "month", "day", "hour", "ghi", "dni", "dhi", "temp_air", "wind_speed")}
        calls: dict[str, tuple[Any, dict[str, Any]]] = {
            "solar.data_query": (client.solar.data_query, dict(lat=39.74, lon=-105.18, radius=50, all=False, version="v2", format="json")),
            "pv.estimate": (client.pv.estimate, dict(system_capacity=4, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180, lat=39.74, lon=-105.18, timeframe="monthly", dc_ac_ratio=1.2, gcr=0.4, inv_eff=96, format="json")),
            "pv.estimate v8": (client.pv.estimate, dict(system_capacity=4, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180, lat=39.74, lon=-105.18, version="v8", bifaciality=0.7, albedo=0.2, use_wf_albedo=False, soiling=[1.0] * 12, en_snowloss=False)),
            "request": (client.request, dict(method="GET", endpoint="optimizer_simulated_load", params={"load_type": "retail"})),
            "climate.download_csv": (client.climate.download_csv, dict(dataset=slug, lat=39.74, lon=-105.18, year=2010, email="a@example.org", attributes="ghi", utc=True, leap_day=False)),
            "climate.request": (client.climate.request, dict(dataset=slug, wkt="POINT(-105 39)", years=[2010], email="a@example.org", attributes="ghi", method="POST")),
            "climate.fetch": (client.climate.fetch, dict(download_url=f"{service.base_url}/files/climate/{'0' * 32}.zip", wait=False, timeout=1)),
            "climate.bulk": (client.climate.bulk, dict(dataset=slug, points=[(39.74, -105.18)], years=[2010], email="a@example.org", attributes="ghi", progress=False, workers=2)),
            "optimizer.results": (client.optimizer.results, dict(run_uuid="2f1c5e0a-7b3d-4c2e-9a41-0d8e6b7f5c13")),
            "technical_potential.config": (client.technical_potential.config, dict(explorer="rede", countries=None, wkt=None)),
            "pvwatts.simulate": (sf.pvwatts.simulate, dict(weather=weather, system_capacity=4, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180, dc_ac_ratio=1.2, gcr=0.4, inv_eff=96, timeframe="monthly")),
            "pvwatts.simulate_many": (sf.pvwatts.simulate_many, dict(weather=weather, systems=[{"system_capacity": 4, "module_type": 0, "losses": 14, "array_type": 1, "tilt": 20, "azimuth": 180}], threads=1, timeframe="monthly", output="table")),
            "pvwatts.read_weather": (sf.pvwatts.read_weather, dict(source=table, lat=1, lon=2, tz=0, elevation=0)),
            "solar.parse_data_query": (sf.solar.parse_data_query, dict(body=b"{}", lat=1, lon=2, radius=100, all=False, version="v2", format="json")),
            "pv.parse_estimate": (sf.pv.parse_estimate, dict(body=b"{}", format="json")),
            "climate.parse_csv": (sf.climate.parse_csv, dict(body=b"x", whole_year=True)),
            "climate.parse_zip": (sf.climate.parse_zip, dict(body=b"x", max_unzipped=None)),
            "Client": (sf.Client, dict(api_key="k" * 40, base_url="http://127.0.0.1:1", auth="header", routes="spec", timeout=1, retries=0, backoff=0.1, deadline=5, max_bytes=None, limits=None, throttle=True, retry_rate_limited=True)),
            "AsyncClient.solar.data_query": (lambda **kw: asyncio.run(aclient.solar.data_query(**kw)), dict(lat=39.74, lon=-105.18, radius=50, version="v2")),
        }
        count = 0
        for name, (call, arguments) in calls.items():
            for parameter in arguments:
                for bad in BAD_VALUES:
                    count += 1
                    try:
                        call(**{**arguments, parameter: bad})
                    except sf.SunfluxError:
                        pass
                    except BaseException as error:  # noqa: BLE001 - anything else is the finding
                        untyped.setdefault(f"{name}({parameter}=...)", []).append(f"{bad!r:.30}: {type(error).__name__}: {error}")
    assert count > 2000
    assert not untyped, json.dumps(untyped, indent=1)[:5000]
