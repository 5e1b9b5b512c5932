"""`sunflux.optimizer.solve` and `solve_many`: the engine in process, on the same scenarios the
embedded service answers, its refusals, and the size limit the embedded service holds too."""

from __future__ import annotations

import json
import math
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

import sunflux as sf
from sunflux.optimizer import solve, solve_many


def daylight(peak: float = 0.8) -> list[float]:
    """A daily arc of PV output per kW, 0 at night (made for these tests)."""
    return [peak * max(0.0, math.sin(math.pi * ((h % 24) - 6) / 12)) if 6 <= h % 24 < 18 else 0.0 for h in range(8760)]


def scenario(pv_cost: float = 1600.0) -> dict[str, Any]:
    return {
        "Site": {"latitude": 39.74, "longitude": -105.17},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 876_000.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.15, "blended_annual_demand_rate": 12.0},
        "PV": {"max_kw": 500, "installed_cost_per_kw": pv_cost, "production_factor_series": daylight()},
        "ElectricStorage": {"max_kwh": 400, "max_kw": 100},
    }


def test_solve_gives_the_embedded_services_answer(client: sf.Client) -> None:
    local = solve(scenario())
    served = client.optimizer.run(scenario(), poll_interval=0.05)
    assert local.optimal and local.raw["job_type"] == "sunflux.solve"
    for section, field in [("Financial", "lcc"), ("PV", "size_kw"), ("ElectricStorage", "size_kwh"), ("Financial", "npv")]:
        assert local.raw["outputs"][section][field] == pytest.approx(served.raw["outputs"][section][field], rel=1e-9), (section, field)
    assert local.series().height == 8760


def test_solve_refuses_what_the_service_would_fetch() -> None:
    without_production = scenario()
    del without_production["PV"]["production_factor_series"]
    with pytest.raises(sf.ParameterError, match="production_factor_series"):
        solve(without_production)
    reference_load = scenario()
    reference_load["ElectricLoad"] = {"doe_reference_name": "Hospital"}
    with pytest.raises(sf.ParameterError, match="resolve"):
        solve(reference_load)


def test_solve_refuses_bad_input_before_solving() -> None:
    broken = scenario()
    broken["PV"]["max_kw"] = -5
    with pytest.raises(sf.ParameterError, match="max_kw"):
        solve(broken)
    with pytest.raises(sf.ParameterError, match="threads"):
        solve(scenario(), threads=0)


def test_solve_many_keeps_the_input_order() -> None:
    costs = [900.0, 5000.0, 1600.0]
    many = solve_many([scenario(cost) for cost in costs], threads=2, progress=False)
    one_by_one = [solve(scenario(cost)) for cost in costs]
    assert [r.raw["outputs"]["Financial"]["lcc"] for r in many] == pytest.approx([r.raw["outputs"]["Financial"]["lcc"] for r in one_by_one], rel=1e-9)
    assert many[0].raw["outputs"]["PV"]["size_kw"] > many[1].raw["outputs"]["PV"]["size_kw"]
    with pytest.raises(sf.ParameterError, match=r"scenarios\[1\]"):
        solve_many([scenario(), {"PV": {"max_kw": -1}}], progress=False)


def test_a_scenario_beyond_the_size_limit_is_refused_at_once_and_the_service_keeps_answering(service: sf.LocalService, client: sf.Client) -> None:
    huge = scenario()
    huge["ElectricUtility"] = {"outage_start_time_steps": list(range(1, 8001)), "outage_durations": [48]}
    started = time.monotonic()
    with pytest.raises(sf.ParameterError, match="outage_start_time_steps"):
        solve(huge)
    assert time.monotonic() - started < 1.0
    body = json.dumps(huge).encode()
    for _ in range(10):
        request = urllib.request.Request(f"{service.base_url}/api/optimizer/stable/job/", data=body, method="POST",
                                         headers={"content-type": "application/json", "X-Api-Key": service.api_key})
        started = time.monotonic()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=5)
        assert refused.value.code == 400
        assert "outage_start_time_steps" in refused.value.read().decode()
        assert time.monotonic() - started < 1.0
    assert client.optimizer.run(scenario(), poll_interval=0.05).optimal
