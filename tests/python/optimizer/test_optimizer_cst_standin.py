"""The CST production factor without SAM: ``sunflux.optimizer.trough_production_factor`` on weather
made here (a hand calculation at a clear noon, night, the rating's relation, refusals), and the
embedded service filling a posted CST job's factor with the same stand-in on its synthetic weather
(the job solves optimal, CST produces factor · size in every hour, the warnings say so), while the
in-process ``solve`` refuses a CST without a factor and names the way to get one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest

import sunflux as sf
from sunflux.optimizer import ParameterError, solve, trough_production_factor

HOURS = 8760
DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
TUCSON = {"latitude": 32.2, "longitude": -110.9, "tz": -7.0, "elevation": 0.0}
#: REopt.jl 0.56.4 `normalize_response`: 39.37/60000 MWt per m² of aperture, in W/m².
RATED_PER_APERTURE = 39.37 / 60000 * 1e6
#: The CST of a scenario rated by its aperture (the service's SSC_Inputs switch).
BY_APERTURE = {"SSC_Inputs": {"use_solar_mult_or_aperture_area": 1}}
KWH_PER_MMBTU = 293.07107


def weather_frame(dni: float, temperature: float = 35.0, wind: float = 3.0) -> pl.DataFrame:
    """A 2010 year of hourly records: ``dni`` W/m² from 06:00 to 18:00 (local standard time), 0
    otherwise, a steady temperature and wind."""
    rows: dict[str, list[float]] = {name: [] for name in ["Year", "Month", "Day", "Hour", "GHI", "DNI", "DHI", "Temperature", "Wind Speed"]}
    for month, days in enumerate(DAYS, start=1):
        for day in range(1, days + 1):
            for hour in range(24):
                sunny = 6 <= hour < 18
                for name, value in zip(rows, [2010, month, day, hour, 0.8 * dni if sunny else 0.0, dni if sunny else 0.0, 0.1 * dni if sunny else 0.0, temperature, wind]):
                    rows[name].append(value)
    return pl.DataFrame(rows)


def test_clear_noon_matches_a_hand_calculation_and_nights_give_nothing() -> None:
    factor = trough_production_factor(weather_frame(1000.0), **TUCSON, cst=BY_APERTURE)
    assert len(factor) == HOURS
    assert all(factor[day * 24 + hour] == 0.0 for day in range(365) for hour in [*range(6), *range(18, 24)])
    # 21 June 12:30 MST: hour angle 1.2°, declination 23.44° (as the Rust unit test derives them).
    lat, dec, omega = (math.radians(v) for v in (32.2, 23.44, 1.2))
    cos_zenith = math.sin(lat) * math.sin(dec) + math.cos(lat) * math.cos(dec) * math.cos(omega)
    cos_theta = math.sqrt(cos_zenith**2 + (math.cos(dec) * math.sin(omega)) ** 2)
    theta = math.acos(cos_theta)
    modifier = min(1.0, 1 + (0.0327 * theta - 0.1351 * theta**2) / cos_theta)
    end = 1 - 2.15 * math.tan(theta) / 115
    optical = 0.988 * 0.952 * 0.93 * 0.97 * 0.935 * 0.98 * 0.963 * 0.964
    receiver = (0.141 * 225 + 6.48e-9 * (415**5 - 35**5) / 1900) * 115 / 656
    piping = 0.45 * 0.05 * (260 - 35)
    expected = (1000 * cos_theta * modifier * end * optical - receiver - piping) / RATED_PER_APERTURE
    assert factor[171 * 24 + 12] == pytest.approx(expected, rel=2e-3)
    capacity_factor = sum(factor) / HOURS
    assert 0.25 < capacity_factor < 0.45


def test_the_rating_scales_every_hour_alike_and_hotter_loops_give_less() -> None:
    weather = sf.pvwatts.read_weather(weather_frame(800.0, temperature=20.0), lat=35.0, lon=-106.0, tz=-7.0, elevation=1600.0)
    by_aperture = trough_production_factor(weather, cst=BY_APERTURE)
    by_design = trough_production_factor(weather)
    ratios = [d / a for d, a in zip(by_design, by_aperture) if a > 0.01]
    # 656.17 W/m² over the design point's 666.28 W/m² (950 W/m², 70 → 450 °C, 25 °C ambient).
    assert len(ratios) > 1000 and max(ratios) - min(ratios) < 1e-12
    assert ratios[0] == pytest.approx(RATED_PER_APERTURE / 666.2807, rel=1e-5)
    cool = trough_production_factor(weather, cst={"inlet_temp_degF": 200.0, "outlet_temp_degF": 120.0} | BY_APERTURE)
    assert sum(cool) > sum(by_aperture)
    brighter = trough_production_factor(weather_frame(950.0, temperature=20.0), latitude=35.0, longitude=-106.0, tz=-7.0, elevation=1600.0, cst=BY_APERTURE)
    assert all(b >= a for a, b in zip(by_aperture, brighter)) and sum(brighter) > sum(by_aperture)


def test_other_tech_types_and_bad_weather_are_refused() -> None:
    with pytest.raises(ParameterError, match="CST.tech_type=lf"):
        trough_production_factor(weather_frame(800.0), **TUCSON, cst={"tech_type": "lf"})
    with pytest.raises(ParameterError, match="loop outlet temperature"):
        trough_production_factor(weather_frame(800.0), **TUCSON, cst={"SSC_Inputs": {"T_loop_in_des": 300.0, "T_loop_out": 200.0}})


def cst_scenario(cst: dict[str, Any]) -> dict[str, Any]:
    """A flat 100 kW electric load and a flat process-heat load of 5 MMBtu/h of boiler fuel
    (1,172 kW of heat, more than the 500 kW CST ever makes), at Albuquerque."""
    return {
        "Settings": {"run_bau": False},
        "Site": {"latitude": 35.08, "longitude": -106.65, "land_acres": 50.0},
        "ElectricLoad": {"loads_kw": [100.0] * HOURS, "year": 2022},
        "ElectricTariff": {"blended_annual_energy_rate": 0.10, "blended_annual_demand_rate": 0.0},
        "ExistingBoiler": {"efficiency": 0.8, "fuel_cost_per_mmbtu": 10.0},
        "ProcessHeatLoad": {"fuel_loads_mmbtu_per_hour": [5.0] * HOURS},
        "CST": {"min_kw": 500.0, "max_kw": 500.0, "can_serve_process_heat": True, "can_serve_dhw": False, "can_serve_space_heating": False, **cst},
    }


@pytest.fixture(scope="module")
def client() -> Iterator[sf.Client]:
    with sf.LocalService() as service:
        yield service.client()


def test_the_embedded_service_fills_the_factor_and_cst_produces_it(client: sf.Client) -> None:
    result = client.optimizer.run(cst_scenario({}), timeout=300, poll_interval=0.1, max_interval=0.5)
    assert result.optimal
    raw = result.raw
    factor = raw["inputs"]["CST"]["production_factor"]
    assert len(factor) == HOURS and min(factor) == 0.0 and 0.1 < sum(factor) / HOURS < 0.45
    note = raw["messages"]["warnings"]["CST"]
    # The schema's defaults, inlet 400 °F and outlet 70 °F, reach the service as a loop from 21 °C to
    # (400 °F = 204 °C) + 50 K.
    assert "stand-in" in note and "not SAM" in note and "loop 21 → 254 °C" in note
    cst = raw["outputs"]["CST"]
    assert cst["size_kw"] == pytest.approx(500.0, abs=1e-3)
    production = cst["thermal_production_series_mmbtu_per_hour"]
    for t in range(HOURS):
        assert production[t] * KWH_PER_MMBTU == pytest.approx(factor[t] * cst["size_kw"], abs=0.01), t


def test_other_tech_types_stay_refused_by_name(client: sf.Client) -> None:
    with pytest.raises(sf.JobFailed, match=r"CST without production_factor \(CST.tech_type=lf"):
        client.optimizer.run(cst_scenario({"tech_type": "lf", "SSC_Inputs": {"q_pb_design": 1.0}}), timeout=120, poll_interval=0.1)


def test_solve_in_process_refuses_and_names_the_function() -> None:
    with pytest.raises(ParameterError, match="trough_production_factor"):
        solve(cst_scenario({}))
