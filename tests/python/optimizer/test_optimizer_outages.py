"""The outage survival simulation (``sunflux.optimizer.simulate_outages``): hours survived by an
outage starting at every time step of a sized system, in the service's ``resilience_stats`` shape.

Checked on results bodies built here (every number follows from the load-following rules in
``src/optimizer/outage_sim.rs``), on the typed errors, and on a local solve with PV,
storage, a generator and a 48-hour outage (slow).
"""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

import sunflux as sf
from sunflux import _core
from sunflux.optimizer import Scenario, simulate_outages

HOURS = 8760


def body(*, critical_kw: float = 100.0, size_kwh: float = 400.0, size_kw: float = 100.0, soc: float = 1.0,
         generator_kw: float = 0.0, generator_inputs: dict[str, Any] | None = None,
         pv_to_load: list[float] | None = None) -> dict[str, Any]:
    """An optimal results body with a flat critical load, a battery, and optionally a generator
    and PV; storage efficiencies of 1 so that energies are exact."""
    outputs: dict[str, Any] = {
        "ElectricLoad": {"critical_load_series_kw": [critical_kw] * HOURS},
        "ElectricStorage": {"size_kwh": size_kwh, "size_kw": size_kw, "soc_series_fraction": [soc] * HOURS},
        "Generator": {"size_kw": generator_kw},
    }
    if pv_to_load is not None:
        outputs["PV"] = {"electric_to_load_series_kw": pv_to_load}
    storage = {"internal_efficiency_fraction": 1.0, "inverter_efficiency_fraction": 1.0, "rectifier_efficiency_fraction": 1.0}
    return {"status": "optimal", "inputs": {"ElectricStorage": storage, "Generator": generator_inputs or {}}, "outputs": outputs}


def test_a_full_battery_carries_its_energy_over_the_load_from_every_start() -> None:
    stats = simulate_outages(body())
    assert stats["resilience_by_time_step"] == [4.0] * HOURS
    assert (stats["resilience_hours_min"], stats["resilience_hours_max"], stats["resilience_hours_avg"]) == (4.0, 4.0, 4.0)
    assert stats["outage_durations"] == [1, 2, 3, 4, 5]
    assert stats["probs_of_surviving"] == [1.0, 1.0, 1.0, 1.0, 0.0]


def test_the_battery_power_limits_what_it_carries() -> None:
    """A 50 kW battery cannot carry a 100 kW load at all, whatever its energy."""
    stats = simulate_outages(body(size_kw=50.0))
    assert stats["resilience_hours_max"] == 0.0 and stats["probs_of_surviving"] == [0.0]


def test_fuel_limits_the_generator() -> None:
    """10 kW from a generator burning 1/(0.25·40) = 0.1 gal/kWh (no intercept): 10 gallons
    last 10 hours."""
    generator = {"fuel_avail_gal": 10.0, "electric_efficiency_full_load": 0.25,
                 "fuel_higher_heating_value_kwh_per_gal": 40.0}
    stats = simulate_outages(body(critical_kw=10.0, size_kwh=0.0, size_kw=0.0, generator_kw=20.0, generator_inputs=generator))
    assert all(math.isclose(h, 10.0) for h in stats["resilience_by_time_step"])


def test_pv_surplus_charges_the_battery_and_extends_survival() -> None:
    """Daytime PV carries the day and its surplus recharges the battery: an outage starting at
    08:00 with a full 800 kWh battery lasts the 8 hours of sun and 8 hours of the night; one
    starting at 04:00 uses half the battery before sunrise, refills it (8 h · 50 kW) and lasts
    20 hours, the longest."""
    pv = [150.0 if 8 <= hour % 24 < 16 else 0.0 for hour in range(HOURS)]
    without = simulate_outages(body(size_kwh=800.0))
    with_pv = simulate_outages(body(size_kwh=800.0, pv_to_load=pv))
    assert without["resilience_hours_max"] == 8.0
    assert with_pv["resilience_hours_max"] == 20.0 and with_pv["resilience_by_time_step"][4] == 20.0 and with_pv["resilience_by_time_step"][8] == 16.0
    assert with_pv["resilience_hours_avg"] > without["resilience_hours_avg"]
    assert all(a >= b for a, b in zip(with_pv["resilience_by_time_step"], without["resilience_by_time_step"]))


def test_survival_never_falls_when_the_battery_grows() -> None:
    load = [60.0 + 40.0 * math.sin(hour / 24 * 2 * math.pi) for hour in range(HOURS)]
    previous: list[float] | None = None
    for size_kwh in (0.0, 50.0, 200.0, 400.0, 1600.0):
        result = body(size_kwh=size_kwh, soc=0.7)
        result["outputs"]["ElectricLoad"]["critical_load_series_kw"] = load
        hours = simulate_outages(result)["resilience_by_time_step"]
        if previous is not None:
            assert all(now >= then for now, then in zip(hours, previous)), size_kwh
        previous = hours


def test_a_site_with_nothing_survives_nothing() -> None:
    stats = simulate_outages(body(size_kwh=0.0, size_kw=0.0))
    assert stats["resilience_hours_max"] == 0.0 and stats["outage_durations"] == [] and stats["probs_of_surviving"] == []


def test_the_result_method_is_the_function() -> None:
    from sunflux.optimizer.jobs import OptimizerResult

    assert OptimizerResult(body()).simulate_outages() == simulate_outages(body())


@pytest.mark.parametrize(("change", "message"), [
    (lambda b: b.update(status="error"), "needs an optimal result"),
    (lambda b: b["outputs"]["ElectricLoad"].pop("critical_load_series_kw"), "critical_load_series_kw"),
    (lambda b: b["outputs"]["ElectricLoad"].update(critical_load_series_kw=[1.0] * 100), "8760, 17520 or 35040"),
    (lambda b: b["outputs"]["ElectricStorage"].update(soc_series_fraction=[1.0] * 10), "initial_soc_fraction"),
    (lambda b: b["outputs"]["ElectricStorage"].update(size_kwh=-1.0), "must not be negative"),
    (lambda b: b["inputs"]["Generator"].update(electric_efficiency_full_load=0.0), "above 0"),
])
def test_bad_results_raise_parameter_error(change: Any, message: str) -> None:
    broken = copy.deepcopy(body())
    change(broken)
    with pytest.raises(sf.ParameterError, match=message):
        simulate_outages(broken)


def test_the_core_refuses_non_finite_numbers() -> None:
    with pytest.raises(sf.ParameterError, match="finite"):
        _core.simulate_outages([math.nan] * HOURS, [], 0.0, 0.0, [], 1.0, 1.0, 1.0, 0.3, 0.3, 40.7, 0.0)


@pytest.mark.slow
def test_a_sized_system_with_a_48_hour_outage() -> None:
    """A local solve with storage and a generator that must ride through 48 hours of a
    critical load repeating every day (40 kW at night, 70 kW by day): the simulation of its
    result has one value per step, consistent statistics, and since any 48 hours ask what the
    optimized outage asked, every start survives at least 48 hours."""
    load = [80.0 + 60.0 * (8 <= hour % 24 < 20) for hour in range(HOURS)]
    scenario = Scenario.from_dict({
        "Site": {"latitude": 39.7, "longitude": -105.2},
        "ElectricLoad": {"loads_kw": load, "year": 2017, "critical_load_fraction": 0.5},
        "ElectricTariff": {"blended_annual_energy_rate": 0.12, "blended_annual_demand_rate": 12.0},
        "ElectricUtility": {"outage_start_time_step": 4000, "outage_end_time_step": 4047},
        "ElectricStorage": {"installed_cost_constant": 0.0},
        "Generator": {"installed_cost_per_kw": 650.0, "fuel_avail_gal": 2000.0, "fuel_cost_per_gallon": 3.0},
    })
    with sf.LocalService() as service:
        result = service.client().optimizer.run(scenario, timeout=300, poll_interval=0.1)
    stats = result.simulate_outages()
    hours = stats["resilience_by_time_step"]
    assert len(hours) == HOURS
    assert stats["resilience_hours_min"] == min(hours) and stats["resilience_hours_max"] == max(hours)
    assert stats["resilience_hours_avg"] == round(sum(hours) / HOURS, 2)
    assert stats["probs_of_surviving"] == sorted(stats["probs_of_surviving"], reverse=True)
    assert stats["resilience_hours_min"] >= 48.0


@pytest.mark.slow
def test_battery_only_survival_is_its_charge_over_the_load() -> None:
    """Mirrors REopt.jl's "Compare backup_reliability and simulate_outages", first part: a flat
    20 MW load with a 4 MW critical load (fraction 0.2) and a fixed 4 MW / 400 MWh battery kept
    above 80 % (initial 90 %). The case's rate is a URDB label (network); a time-of-use rate
    stands in, so the battery cycles. With nothing to recharge it, the battery alone carries
    ⌊state of charge · 400,000 / 4,000⌋ hours from each start (discharge is lossless in the
    simulation), which is what the case's Markov model gives too; at least 80 hours."""
    tou = [0.30 if 16 <= hour % 24 < 20 else 0.08 for hour in range(HOURS)]
    scenario = Scenario.from_dict({
        "Settings": {"run_bau": False},
        "Site": {"latitude": 31.810468380036337, "longitude": -106.42077256104001},
        "ElectricStorage": {"min_kw": 4000, "max_kw": 4000, "min_kwh": 400000, "max_kwh": 400000,
                            "soc_min_fraction": 0.8, "soc_init_fraction": 0.9},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 175200000.0, "critical_load_fraction": 0.2},
        "ElectricTariff": {"tou_energy_rates_per_kwh": tou},
    })
    with sf.LocalService() as service:
        result = service.client().optimizer.run(scenario, timeout=600, poll_interval=0.2)
    stats = result.simulate_outages()
    soc = result.raw["outputs"]["ElectricStorage"]["soc_series_fraction"]
    assert result.raw["outputs"]["ElectricLoad"]["critical_load_series_kw"][0] == pytest.approx(4000.0)
    for hours, fraction in zip(stats["resilience_by_time_step"], soc):
        energy_hours = fraction * 400000.0 / 4000.0
        if abs(energy_hours - round(energy_hours)) > 1e-6:  # away from a whole hour, exact
            assert hours == math.floor(energy_hours)
        else:
            assert abs(hours - round(energy_hours)) <= 1.0
    assert stats["resilience_hours_min"] >= 80.0 - 1.0
    assert max(soc) > min(soc), "the time-of-use spread makes the battery cycle"
    assert stats["probs_of_surviving"][79] >= 0.99


def test_microgrid_only_simulates_what_the_microgrid_includes() -> None:
    """The service's ``microgrid_only``: PV left out of the microgrid does not count, and the
    generator counts with its microgrid size."""
    pv = [150.0 if 8 <= hour % 24 < 16 else 0.0 for hour in range(HOURS)]
    result = body(size_kwh=800.0, pv_to_load=pv)
    result["outputs"]["Outages"] = {"PV_upgraded": False, "electric_storage_microgrid_upgraded": True,
                                    "generator_microgrid_size_kw": 0.0}
    assert simulate_outages(result)["resilience_hours_max"] == 20.0
    assert simulate_outages(result, microgrid_only=True)["resilience_hours_max"] == 8.0
    result["outputs"]["Outages"]["electric_storage_microgrid_upgraded"] = False
    assert simulate_outages(result, microgrid_only=True)["outage_durations"] == []
    result["outputs"]["Outages"]["generator_microgrid_size_kw"] = 200.0
    assert simulate_outages(result, microgrid_only=True)["resilience_hours_min"] == HOURS
    del result["outputs"]["Outages"]
    with pytest.raises(sf.ParameterError, match="microgrid_only needs"):
        simulate_outages(result, microgrid_only=True)


@pytest.mark.slow
def test_the_generator_runs_at_its_turndown_or_not_at_all_in_the_results() -> None:
    """The embedded optimizer gives the generator the service's on/off binary (docs/design.md):
    a 100 kW generator with a 50 % turndown that may curtail, serving a flat 10 kW off-grid load,
    runs at 50 kW or more whenever it runs, curtailing the rest, and the results carry no
    turndown warning."""
    scenario = Scenario.from_dict({
        "Settings": {"off_grid_flag": True},
        "Site": {"latitude": 34.5794343, "longitude": -118.1164613},
        "Generator": {"min_kw": 100, "max_kw": 100, "min_turn_down_fraction": 0.5, "can_curtail": True},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0},
    })
    with sf.LocalService() as service:
        result = service.client().optimizer.run(scenario, timeout=600, poll_interval=0.1)
    assert "Generator" not in result.messages["warnings"]
    generator = result.raw["outputs"]["Generator"]
    running = [a + b for a, b in zip(generator["electric_to_load_series_kw"], generator["electric_curtailed_series_kw"]) if a + b > 1e-6]
    assert len(running) >= 8700
    assert min(running) >= 50.0 - 1e-5
