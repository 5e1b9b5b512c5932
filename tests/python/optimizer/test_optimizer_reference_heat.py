"""Heating and cooling reference loads (issue #30): ``client.optimizer.simulated_load(load_type=…)``
against the embedded service's synthetic, labelled shapes (frames named by the service's unit,
scaled to the given totals), its parameters checked before anything is sent, and
``Scenario.resolve`` turning heating and cooling references into the series the local optimizer
reads, cached like the electric load, up to a local solve of a Hospital's space heating."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import polars as pl
import pytest

import sunflux as sf
from support.loopback import LoopbackServer, reply
from sunflux.optimizer import Scenario

#: The most a year of values rounded to 0.001 per hour (as the service rounds them) can miss the
#: requested total by.
ROUNDING_PER_YEAR = 0.0005 * 8760


def test_heating_frames_are_fuel_per_hour_scaled_to_the_given_energy(client: sf.Client) -> None:
    space = client.optimizer.simulated_load(39.74, -105.17, "Hospital", load_type="space_heating", annual_mmbtu=10_000)
    assert space.columns == ["timestamp", "load_mmbtu_per_hour"] and space.height == 8760
    assert space.schema["load_mmbtu_per_hour"] == pl.Float64 and space["timestamp"][0].year == 2017
    assert space["load_mmbtu_per_hour"].sum() == pytest.approx(10_000, abs=ROUNDING_PER_YEAR)
    january, july = space["load_mmbtu_per_hour"][:744].sum(), space["load_mmbtu_per_hour"][4344:5088].sum()
    assert january > 3 * july, "space heating follows the site's cold"

    addressable = client.optimizer.simulated_load(39.74, -105.17, "Hospital", load_type="space_heating", annual_mmbtu=10_000,
                                                  addressable_load_fraction=0.5, boiler_efficiency=0.8)
    assert addressable["load_mmbtu_per_hour"].sum() == pytest.approx(5_000, abs=ROUNDING_PER_YEAR), "the addressable share of the fuel"

    months = [100.0 + 10 * m for m in range(12)]
    heating = client.optimizer.simulated_load(39.74, -105.17, {"Hospital": 0.5, "MediumOffice": 0.5}, load_type="heating", monthly_mmbtu=months)
    assert heating.columns == ["timestamp", "load_mmbtu_per_hour", "space_load_mmbtu_per_hour", "dhw_load_mmbtu_per_hour"]
    monthly = heating.group_by(pl.col("timestamp").dt.month()).agg(pl.col("load_mmbtu_per_hour").sum()).sort("timestamp")
    assert monthly["load_mmbtu_per_hour"].to_list() == pytest.approx(months, abs=ROUNDING_PER_YEAR / 12)
    parts = heating["space_load_mmbtu_per_hour"] + heating["dhw_load_mmbtu_per_hour"] - heating["load_mmbtu_per_hour"]
    assert parts.abs().max() <= 0.0011, "the total is its two parts (each rounded to 0.001)"

    process = client.optimizer.simulated_load(39.74, -105.17, "FlatLoad_24_5", load_type="process_heat", annual_mmbtu=2_600)
    assert process["load_mmbtu_per_hour"].max() == pytest.approx(2_600 / (24 * 260), abs=1e-3), "a FlatLoad is exact: 260 weekdays in 2017"


def test_cooling_frames_are_tons_or_fractions(client: sf.Client) -> None:
    cooling = client.optimizer.simulated_load(30.0, -95.0, "LargeOffice", load_type="cooling", annual_tonhour=300_000)
    assert cooling.columns == ["timestamp", "load_ton"] and cooling.height == 8760
    assert cooling["load_ton"].sum() == pytest.approx(300_000, abs=ROUNDING_PER_YEAR)
    fraction = client.optimizer.simulated_load(30.0, -95.0, load_type="cooling", monthly_fraction=[0.1] * 6 + [0.3] * 6)
    assert fraction.columns == ["timestamp", "load_fraction"]
    assert (fraction["load_fraction"][0], fraction["load_fraction"][8759]) == (0.1, 0.3)


def test_bad_parameters_are_named_each_and_nothing_is_sent(loopback: LoopbackServer) -> None:
    client = sf.Client(api_key="k" * 40, base_url=loopback.url)
    with pytest.raises(sf.ParameterError) as raised:
        client.optimizer.simulated_load(39.7, -105.2, "Hospital", load_type="space_heating", annual_kwh=1000, annual_mmbtu=-5,
                                        addressable_load_fraction=1.5, boiler_efficiency=0, chiller_cop=4.0, time_steps_per_hour=2)
    text = str(raised.value)
    for needle in ("Invalid key annual_kwh for load_type=space_heating", "annual_mmbtu must be a number of at least 0 MMBtu",
                   "addressable_load_fraction must be a number at least 0 and at most 1", "boiler_efficiency must be a number above 0",
                   "Invalid key chiller_cop for load_type=space_heating", "Invalid key time_steps_per_hour for load_type=space_heating"):
        assert needle in text, needle
    with pytest.raises(sf.ParameterError) as raised:
        client.optimizer.simulated_load(39.7, -105.2, "Hospital", load_type="cooling", annual_mmbtu=10)
    assert "Invalid key annual_mmbtu for load_type=cooling" in str(raised.value)
    assert "Use load_type=electric to get cooling load" in str(raised.value), "cooling by building type needs ton-hours"
    with pytest.raises(sf.ParameterError, match=r"Invalid industrial_reference_name - \"Hospital\""):
        client.optimizer.simulated_load(39.7, -105.2, "Hospital", load_type="process_heat")
    with pytest.raises(sf.ParameterError, match="load_type must be one of"):
        client.optimizer.simulated_load(39.7, -105.2, "Hospital", load_type="steam")
    assert loopback.seen == []


def test_heating_queries_take_the_services_form(loopback: LoopbackServer) -> None:
    body = json.dumps({"loads_mmbtu_per_hour": [0.5] * 8760, "annual_mmbtu": 4380.0, "max_mmbtu_per_hour": 0.5}).encode()
    loopback.handler = lambda request: reply(request, 200, body)
    client = sf.Client(api_key="k" * 40, base_url=loopback.url)
    frame = client.optimizer.simulated_load(40.0, -105.0, "Chemical", load_type="process_heat", monthly_mmbtu=[365.0] * 12,
                                            addressable_load_fraction=[0.9] * 12)
    assert frame["load_mmbtu_per_hour"].sum() == pytest.approx(4380.0)
    query = dict(urllib.parse.parse_qsl(str(loopback.seen[0]["path"]).split("?", 1)[1]))
    assert (query["load_type"], query["industrial_reference_name"], query["monthly_mmbtu[11]"], query["addressable_load_fraction[0]"]) == (
        "process_heat", "Chemical", "365", "0.9")
    assert "time_steps_per_hour" not in query and "doe_reference_name" not in query


def hospital(**space_heating: Any) -> Scenario:
    return Scenario.from_dict({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"doe_reference_name": "Hospital", "annual_kwh": 8_760_000.0},
        "SpaceHeatingLoad": {"doe_reference_name": "Hospital", "annual_mmbtu": 29_897.6, **space_heating},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 10.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.12, "blended_annual_demand_rate": 10.0},
    })


def test_resolve_fills_heating_and_cooling_series_and_caches_them(service: sf.LocalService, tmp_path: Any) -> None:
    client = service.client()
    scenario = hospital(addressable_load_fraction=[0.8] * 12).with_section(
        sf.optimizer.DomesticHotWaterLoad(monthly_mmbtu=[50.0] * 12),
        sf.optimizer.CoolingLoad(doe_reference_name="LargeOffice", annual_tonhour=120_000.0),
    )
    before = service.hits()
    resolved = scenario.resolve(client, cache_dir=tmp_path).to_dict()
    assert service.hits()["/api/optimizer/stable/simulated_load/"] - before.get("/api/optimizer/stable/simulated_load/", 0) == 4
    space, water, cooling = resolved["SpaceHeatingLoad"], resolved["DomesticHotWaterLoad"], resolved["CoolingLoad"]
    assert sorted(space) == ["addressable_load_fraction", "fuel_loads_mmbtu_per_hour"], "the reference and its energy are gone"
    assert len(space["fuel_loads_mmbtu_per_hour"]) == 8760 and len(space["addressable_load_fraction"]) == 8760
    assert sum(space["fuel_loads_mmbtu_per_hour"]) == pytest.approx(29_897.6, abs=ROUNDING_PER_YEAR), "the fuel, before the addressable share"
    assert sum(water["fuel_loads_mmbtu_per_hour"]) == pytest.approx(600.0, abs=ROUNDING_PER_YEAR), "ElectricLoad's Hospital, monthly fuel"
    assert sum(cooling["thermal_loads_ton"]) == pytest.approx(120_000.0, abs=ROUNDING_PER_YEAR)
    assert "doe_reference_name" not in cooling and len(resolved["ElectricLoad"]["loads_kw"]) == 8760
    after = service.hits()
    assert scenario.resolve(client, cache_dir=tmp_path).to_dict() == resolved and service.hits() == after, "the second resolve fetched nothing"


@pytest.mark.slow
def test_a_resolved_hospital_space_heating_load_solves_locally(client: sf.Client) -> None:
    """The local optimizer refused ``SpaceHeatingLoad.doe_reference_name=Hospital``; resolved, it
    reads the fuel series and the existing boiler serves it."""
    resolved = hospital().resolve(client, cache_dir=None)
    result = sf.optimizer.solve(resolved)
    assert result.optimal
    boiler = result.outputs.ExistingBoiler
    assert boiler.annual_fuel_consumption_mmbtu == pytest.approx(29_897.6, abs=ROUNDING_PER_YEAR)


#: kW of cooling per ton.
KW_PER_TON = 3.51685


def test_an_electric_load_asked_with_cooling_buildings_carries_their_cooling_defaults(client: sf.Client) -> None:
    frame = client.optimizer.simulated_load(37.78, -122.45, "Hospital", annual_kwh=8_760_000, cooling_doe_ref_name="Hospital")
    assert frame.columns == ["timestamp", "load_kw", "cooling_load_ton", "cooling_fraction_of_total_electric", "cooling_chiller_cop"]
    fraction, cop = frame["cooling_fraction_of_total_electric"], frame["cooling_chiller_cop"]
    assert 0 < fraction.max() < 1 and cop.n_unique() == 1 and cop[0] in (4.40, 4.69)
    # The tons are rounded to 0.001: the electricity they stand for misses by at most half of that.
    gap = (fraction * frame["load_kw"] - frame["cooling_load_ton"] * KW_PER_TON / cop).abs()
    assert gap.max() <= 0.0005 * KW_PER_TON / cop[0] + 1e-6, gap.max()
    assert frame["cooling_load_ton"].sum() > 0

    blend = client.optimizer.simulated_load(37.78, -122.45, "Hospital", cooling_doe_ref_name={"Hospital": 0.5, "LargeOffice": 0.5})
    office = client.optimizer.simulated_load(37.78, -122.45, "Hospital", cooling_doe_ref_name="LargeOffice")
    weighted = 0.5 * fraction + 0.5 * office["cooling_fraction_of_total_electric"]
    assert (blend["cooling_fraction_of_total_electric"] - weighted).abs().max() <= 1e-9, "each building's share times its percent"
    plain = client.optimizer.simulated_load(37.78, -122.45, "Hospital")
    assert plain.columns == ["timestamp", "load_kw"]


@pytest.mark.slow
def test_a_resolved_hospital_cooling_load_without_ton_hours_solves_locally(service: sf.LocalService, tmp_path: Any) -> None:
    """``CoolingLoad.doe_reference_name=Hospital`` without ton-hours was refused; resolve fills its
    share of the electric load per step, the local optimizer converts it at the default COP of the
    peak, and the chiller serves exactly the tons the load endpoint names for the same site."""
    client = service.client()
    scenario = Scenario.from_dict({
        "Site": {"latitude": 37.78, "longitude": -122.45},
        "ElectricLoad": {"doe_reference_name": "Hospital", "annual_kwh": 8_760_000.0},
        "CoolingLoad": {"doe_reference_name": "Hospital"},
        "ElectricTariff": {"blended_annual_energy_rate": 0.12, "blended_annual_demand_rate": 10.0},
    })
    resolved = scenario.resolve(client, cache_dir=tmp_path)
    unresolved_cooling = Scenario.from_dict({**resolved.to_dict(), "CoolingLoad": {"doe_reference_name": "Hospital"}})
    with pytest.raises(sf.ParameterError, match=r"CoolingLoad.doe_reference_name=Hospital \(reference cooling profiles.*Scenario.resolve"):
        sf.optimizer.solve(unresolved_cooling)
    cooling = resolved.to_dict()["CoolingLoad"]
    assert list(cooling) == ["per_time_step_fractions_of_electric_load"] and len(cooling["per_time_step_fractions_of_electric_load"]) == 8760
    result = sf.optimizer.solve(resolved)
    assert result.optimal
    load, chiller = result.outputs.CoolingLoad, result.outputs.ExistingChiller
    expected = client.optimizer.simulated_load(37.78, -122.45, "Hospital", annual_kwh=8_760_000, cooling_doe_ref_name="Hospital")
    assert load.load_series_ton == pytest.approx(expected["cooling_load_ton"].to_list(), abs=0.0006)
    # Both series are rounded to 0.001 as the service rounds its outputs.
    assert chiller.thermal_to_load_series_ton == pytest.approx(load.load_series_ton, abs=0.00051), "the chiller serves the whole load"
    electric = [ton * KW_PER_TON / expected["cooling_chiller_cop"][0] for ton in load.load_series_ton]
    assert load.electric_chiller_base_load_series_kw == pytest.approx(electric, abs=0.0006)
