"""REopt.jl's "Net Metering Limit and Wholesale" testset (``test/runtests.jl``) on its own scenario
file, ``REopt.jl__net_metering.json`` of the corpus named by ``SUNFLUX_SCENARIO_CORPUS`` (skipped
without it): resolved against the embedded service, modified as the testset's three cases, and
solved locally. The file gives its own PV production and a flat load, so the resolved inputs are
the service's and the testset's numbers hold as they are: PV 30 kW (case 1), 7,440 kW (case 2),
no export and no export benefit (case 3), each atol 1e-3."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import sunflux as sf
from support.markers import SCENARIO_CORPUS, requires_scenario_corpus
from sunflux.optimizer import Scenario, UnknownFieldWarning

pytestmark = [requires_scenario_corpus, pytest.mark.slow]


@pytest.fixture(scope="module")
def resolved() -> Any:
    """The scenario file resolved against the embedded service, as a dict to modify."""
    assert SCENARIO_CORPUS is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownFieldWarning)
        scenario = Scenario.from_json(SCENARIO_CORPUS / "REopt.jl__net_metering.json")
    with sf.LocalService() as service:
        client = service.client()
        yield client, scenario.resolve(client, cache_dir=False).to_dict()


def run(resolved: Any, change: dict[str, dict[str, Any]]) -> Any:
    client, data = resolved
    sections = {name: dict(section) if isinstance(section, dict) else section for name, section in data.items()}
    for name, fields in change.items():
        sections.setdefault(name, {}).update(fields)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownFieldWarning)
        scenario = Scenario.from_dict(sections)
    result = client.optimizer.run(scenario, timeout=1200, poll_interval=0.2)
    assert result.optimal
    return result.outputs


def test_case_1_pv_meets_the_net_metering_limit(resolved: Any) -> None:
    outputs = run(resolved, {})
    assert outputs.PV.size_kw == pytest.approx(30.0, abs=1e-3)


def test_case_2_a_high_wholesale_rate_meets_the_big_m(resolved: Any) -> None:
    outputs = run(resolved, {"ElectricTariff": {"wholesale_rate": 5.0}, "PV": {"can_wholesale": True}})
    assert outputs.PV.size_kw == pytest.approx(7440.0, abs=1e-3)


def test_case_3_past_the_limit_without_wholesale_nothing_is_exported(resolved: Any) -> None:
    outputs = run(resolved, {
        "ElectricTariff": {"wholesale_rate": 0.0},
        "PV": {"can_wholesale": True, "min_kw": 50},
        "Site": {"renewable_electricity_min_fraction": 0.35},
    })
    assert sum(outputs.PV.electric_to_grid_series_kw) == pytest.approx(0.0, abs=1e-3)
    assert outputs.ElectricTariff.lifecycle_export_benefit_after_tax == pytest.approx(0.0, abs=1e-3)
