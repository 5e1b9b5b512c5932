"""A scripted optimizer job server on the loopback (POST answers a run_uuid, each GET the next
scripted status) and the documents it serves: the job tests of the optimizer, its polling, the
job client and pickling use them."""

from __future__ import annotations

import json
import math
import threading
from typing import Any

import sunflux as sf
from support.loopback import LoopbackServer, reply
from support.paths import SCENARIOS
from sunflux.optimizer import ElectricLoad, ElectricTariff, Scenario, Site

#: The project's own stored results body of one optimal run.
RESPONSE = SCENARIOS / "results_response.json"
UUID = "288523d9-b3ca-491b-a490-27b10c384ce1"


def scenario() -> Scenario:
    """A flat 100 MWh load on a blended rate in Golden, CO: what the scripted jobs were asked."""
    return (
        Scenario(site=Site(latitude=39.74, longitude=-105.17))
        .with_load(ElectricLoad.flat(annual_kwh=100_000))
        .with_tariff(ElectricTariff.blended(energy_rate=0.12, demand_rate=10.0))
    )


class JobServer:
    """Answers POST with a run_uuid and each GET from a script of (status code, body)."""

    def __init__(self, loopback: LoopbackServer, script: list[tuple[int, dict[str, Any]]], post: tuple[int, dict[str, Any]] | None = None) -> None:
        self.script = list(script)
        self.lock = threading.Lock()
        self.posted: list[dict[str, Any]] = []
        post_answer = post or (201, {"run_uuid": UUID})

        def handle(request: Any) -> None:
            if request.command == "POST":
                self.posted.append(json.loads(loopback.seen[-1]["body"]))
                reply(request, post_answer[0], json.dumps(post_answer[1]).encode())
                return
            with self.lock:
                status, body = self.script.pop(0) if len(self.script) > 1 else self.script[0]
            reply(request, status, json.dumps(body).encode())

        loopback.handler = handle
        self.client = sf.Client(api_key="a" * 40, base_url=loopback.url, routes="spec", retries=0)


def body(status: str, **extra: Any) -> dict[str, Any]:
    return {"run_uuid": UUID, "status": status, "messages": {"info": "", "errors": {}, "warnings": {}}, **extra}


#: The service's answer to a GET that comes too quickly after the POST.
NOT_IN_DB = (404, {"status": "error", "messages": {"error": f"run_uuid {UUID} not in database. You may have hit the results endpoint too quickly after POST'ing scenario."}})


def results_body(time_steps_per_hour: int = 1) -> dict[str, Any]:
    """The stored results body with one value per time step added to four output series."""
    raw = json.loads(RESPONSE.read_text(encoding="utf-8"))
    raw["inputs"]["Settings"]["time_steps_per_hour"] = time_steps_per_hour
    steps = 8760 * time_steps_per_hour
    hours = [(step / time_steps_per_hour) % 24 for step in range(steps)]
    sun = [max(0.0, math.sin(math.pi * (hour - 6) / 14)) if 6 <= hour <= 20 else 0.0 for hour in hours]
    load = [round(120.0 + 60.0 * daylight, 3) for daylight in sun]
    pv_to_load = [round(min(value, 210.0 * daylight), 3) for value, daylight in zip(load, sun)]
    raw["outputs"]["ElectricLoad"]["load_series_kw"] = load
    raw["outputs"]["PV"]["electric_to_load_series_kw"] = pv_to_load
    raw["outputs"]["PV"]["electric_to_grid_series_kw"] = [0] * steps
    raw["outputs"]["ElectricUtility"]["electric_to_load_series_kw"] = [
        round(total - solar, 3) for total, solar in zip(load, pv_to_load)
    ]
    return raw
