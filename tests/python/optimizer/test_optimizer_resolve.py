"""The optimizer's inputs from outside: ``client.optimizer.simulated_load`` (typed, validated,
a polars frame), the Utility Rate Database calls and their stand-in, ``Scenario.resolve`` with
its disk cache, and local solves of what resolve returns (URDB rates, several PV arrays,
coincident peaks) against the embedded service."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import polars as pl
import pytest

import sunflux as sf
from support.loopback import LoopbackServer, reply
from sunflux.optimizer import PV, ElectricLoad, ElectricTariff, Scenario, Site

SYNTHETIC_TOU = "5fa1e0000000000000000002"
DECLINING_BLOCK = "5fa1e0000000000000000003"


def building_scenario(**tariff: Any) -> Scenario:
    return (
        Scenario(site=Site(latitude=39.74, longitude=-105.17))
        .with_load(ElectricLoad(doe_reference_name="MediumOffice", annual_kwh=400_000))
        .with_tariff(ElectricTariff(**tariff))
    )


def test_simulated_load_is_a_frame_of_the_requested_energy(client: sf.Client) -> None:
    frame = client.optimizer.simulated_load(39.74, -105.17, "MediumOffice", annual_kwh=400_000)
    assert frame.columns == ["timestamp", "load_kw"]
    assert frame.schema["load_kw"] == pl.Float64 and frame.height == 8760
    assert frame["timestamp"][0].year == 2017
    assert frame["load_kw"].sum() == pytest.approx(400_000, rel=1e-5)
    weekday_noon, sunday_noon = frame["load_kw"][24 + 12], frame["load_kw"][12]
    assert weekday_noon > sunday_noon, "2017-01-01 is a Sunday: the office is closed"


def test_blends_and_monthly_energy(client: sf.Client) -> None:
    months = [10_000.0 + 1000 * m for m in range(12)]
    frame = client.optimizer.simulated_load(
        30.0, -95.0, {"Hospital": 0.75, "LargeOffice": 0.25}, monthly_totals_kwh=months, time_steps_per_hour=2
    )
    assert frame.height == 17_520
    monthly = frame.group_by(pl.col("timestamp").dt.month()).agg((pl.col("load_kw").sum() / 2).alias("kwh")).sort("timestamp")
    assert monthly["kwh"].to_list() == pytest.approx(months, rel=1e-3)


def test_simulated_load_parameters_are_checked_before_sending(loopback: LoopbackServer) -> None:
    client = sf.Client(api_key="k" * 40, base_url=loopback.url)
    with pytest.raises(sf.ParameterError) as raised:
        client.optimizer.simulated_load(91.0, -105.0, {"Castle": 0.5, "Hospital": 0.4}, annual_kwh=5, monthly_totals_kwh=[1.0] * 12)
    text = str(raised.value)
    for needle in ("latitude must be", "Invalid doe_reference_name", "percent_share must sum to 1", "Cannot provide both"):
        assert needle in text
    assert loopback.seen == []


def test_simulated_load_sends_the_services_query_form(loopback: LoopbackServer) -> None:
    body = json.dumps({"loads_kw": [1.0] * 8760, "annual_kwh": 8760.0, "min_kw": 1.0, "mean_kw": 1.0, "max_kw": 1.0,
                       "monthly_totals_kwh": [730.0] * 12, "monthly_peaks_kw": [1.0] * 12}).encode()
    loopback.handler = lambda request: reply(request, 200, body)
    client = sf.Client(api_key="k" * 40, base_url=loopback.url)
    client.optimizer.simulated_load(40.0, -105.0, {"Hospital": 0.5, "RetailStore": 0.5}, annual_kwh=1e5)
    path = str(loopback.seen[0]["path"])
    assert path.startswith("/api/optimizer/stable/simulated_load/?")
    query = dict(urllib.parse.parse_qsl(path.split("?", 1)[1]))
    assert query["doe_reference_name[1]"] == "RetailStore" and query["percent_share[0]"] == "0.5"
    assert "api_key" not in query, "the optimizer service gets the key in the header"


def test_rate_database_calls_carry_the_key_as_a_query_parameter(loopback: LoopbackServer) -> None:
    loopback.handler = lambda request: reply(request, 200, b'{"items": []}')
    key = "k" * 40
    client = sf.Client(api_key=key, base_url="http://127.0.0.1:9", urdb_base_url=loopback.url)
    with pytest.raises(sf.NotFoundError, match="no rate for label"):
        client.optimizer.urdb_rate("5ed6c1a15457a3367add15ae")
    query = dict(urllib.parse.parse_qsl(str(loopback.seen[0]["path"]).split("?", 1)[1]))
    assert query["getpage"] == "5ed6c1a15457a3367add15ae" and query["api_key"] == key and query["detail"] == "full"
    with pytest.raises(sf.ParameterError, match="24 hexadecimal digits"):
        client.optimizer.urdb_rate("not-a-label")
    assert client.urdb_base_url == loopback.url


def test_stand_in_serves_synthetic_rates_by_label_and_by_name(client: sf.Client) -> None:
    rate = client.optimizer.urdb_rate(SYNTHETIC_TOU)
    assert "synthetic" in rate["name"] and rate["label"] == SYNTHETIC_TOU
    named = client.optimizer.urdb_rate_by_name("Sunflux Synthetic Utility", "Declining block energy (synthetic, sunflux stand-in)")
    assert named["label"] == DECLINING_BLOCK
    with pytest.raises(sf.NotFoundError):
        client.optimizer.urdb_rate("5ed6c1a15457a3367add15ae")


def test_resolve_replaces_references_and_caches_by_input(service: sf.LocalService, tmp_path: Any) -> None:
    client = service.client()
    scenario = building_scenario(urdb_label=SYNTHETIC_TOU).with_settings(time_steps_per_hour=2)
    resolved = scenario.resolve(client, cache_dir=tmp_path)
    load = resolved.to_dict()["ElectricLoad"]
    assert set(load) == {"loads_kw", "year"} and load["year"] == 2017 and len(load["loads_kw"]) == 17_520
    assert resolved.to_dict()["ElectricTariff"]["urdb_response"]["label"] == SYNTHETIC_TOU
    assert resolved.validate() == []
    assert scenario.to_dict()["ElectricLoad"]["doe_reference_name"] == "MediumOffice", "the original is unchanged"
    before = service.hits()
    again = scenario.resolve(client, cache_dir=tmp_path)
    assert again == resolved and service.hits() == before, "the second resolve fetched nothing"
    files = [p for kind in ("simulated_load", "urdb_rate") for p in tmp_path.rglob(f"{kind}/*.json")]
    assert len(files) == 2, "one load and one rate, beside the grid emissions look-ups"
    for file in files:
        assert client.urdb_base_url in file.read_text() and service.api_key not in file.read_text()
    files[0].write_text("damaged")
    scenario.resolve(client, cache_dir=tmp_path)
    assert sum(service.hits().values()) == sum(before.values()) + 1, "a damaged file is a miss"


def test_resolve_keeps_a_given_rate_and_needs_a_site(client: sf.Client) -> None:
    rate = {"energyratestructure": [[{"rate": 0.2}]], "energyweekdayschedule": [[0] * 24] * 12, "energyweekendschedule": [[0] * 24] * 12}
    scenario = building_scenario(urdb_label=SYNTHETIC_TOU, urdb_response=rate)
    assert scenario.resolve(client, cache_dir=None).to_dict()["ElectricTariff"]["urdb_response"] == rate
    no_site = Scenario.from_dict({k: v for k, v in scenario.to_dict().items() if k != "Site"})
    with pytest.raises(sf.ParameterError, match="Site.latitude"):
        no_site.resolve(client, cache_dir=None)


def test_unresolved_references_are_refused_with_a_hint(client: sf.Client) -> None:
    with pytest.raises(sf.JobFailed, match=r"resolve them into loads_kw with Scenario.resolve\(client\)"):
        client.optimizer.run(building_scenario(blended_annual_energy_rate=0.1, blended_annual_demand_rate=5.0), timeout=60, poll_interval=0.05)


def pv(**fields: Any) -> PV:
    return PV(installed_cost_per_kw=1400.0, om_cost_per_kw=15.0, **fields)


@pytest.mark.slow
def test_urdb_tou_rate_with_tiers_pv_and_storage_solves(client: sf.Client) -> None:
    scenario = building_scenario(urdb_label=SYNTHETIC_TOU).with_pv(pv(max_kw=300)).with_storage(max_kw=100, max_kwh=400)
    result = client.optimizer.run(scenario.resolve(client, cache_dir=None), timeout=600, poll_interval=0.2)
    tariff = result.outputs.ElectricTariff
    assert tariff.year_one_fixed_cost_before_tax == pytest.approx(12 * 1.5 * 30.4375, abs=0.01)
    assert tariff.year_one_bill_before_tax < tariff.year_one_bill_before_tax_bau
    assert tariff.year_one_bill_before_tax == pytest.approx(
        tariff.year_one_energy_cost_before_tax + tariff.year_one_demand_cost_before_tax + tariff.year_one_fixed_cost_before_tax
        + tariff.year_one_min_charge_adder_before_tax + tariff.year_one_coincident_peak_cost_before_tax, abs=0.05)
    assert result.outputs.ElectricLoad.annual_calculated_kwh == pytest.approx(400_000, rel=1e-4)


@pytest.mark.slow
def test_several_pv_arrays_are_sized_and_reported_by_name(client: sf.Client) -> None:
    arrays = [pv(name="roof_south", location="roof", max_kw=80, azimuth=180.0),
              pv(name="roof_west", location="roof", max_kw=80, azimuth=270.0),
              pv(name="ground", location="ground", max_kw=50, existing_kw=10.0)]
    scenario = (
        Scenario(site=Site(latitude=39.74, longitude=-105.17, roof_squarefeet=10_000))
        .with_load(ElectricLoad.flat(annual_kwh=1_000_000))
        .with_tariff(ElectricTariff.blended(energy_rate=0.25, demand_rate=5.0))
        .with_pv(*arrays)
    )
    result = client.optimizer.run(scenario, timeout=600, poll_interval=0.2)
    outputs = result.raw["outputs"]["PV"]
    assert [array["name"] for array in outputs] == ["roof_south", "roof_west", "ground"]
    roof = sum(array["size_kw"] for array in outputs[:2])
    assert roof == pytest.approx(100.0, abs=1e-3), "10,000 ft² at 0.01 kW/ft² is shared by the roof arrays"
    assert 10.0 <= outputs[2]["size_kw"] <= 60.0 + 1e-6, "existing 10 kW plus at most 50 kW new"
    to_load = [sum(values) for values in zip(*(array["electric_to_load_series_kw"] for array in outputs))]
    grid = result.raw["outputs"]["ElectricUtility"]["electric_to_load_series_kw"]
    load = result.raw["outputs"]["ElectricLoad"]["load_series_kw"]
    assert max(abs(a + b - c) for a, b, c in zip(to_load, grid, load)) < 1e-4


@pytest.mark.slow
def test_declining_block_rate_fills_the_first_block_before_the_cheaper_one(client: sf.Client) -> None:
    scenario = (
        Scenario(site=Site(latitude=39.74, longitude=-105.17))
        .with_load(ElectricLoad(doe_reference_name="RetailStore", annual_kwh=600_000))
        .with_tariff(ElectricTariff(urdb_label=DECLINING_BLOCK))
        .with_pv(pv(max_kw=300))
        .with_settings(timeout_seconds=1200)
    )
    result = client.optimizer.run(scenario.resolve(client, cache_dir=None), timeout=1300, poll_interval=0.2)
    energy = result.outputs.ElectricTariff.year_one_energy_cost_before_tax
    purchases = result.raw["outputs"]["ElectricUtility"]["electric_to_load_series_kw"]
    month_hours = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    expected, start = 0.0, 0
    for days in month_hours:
        kwh = sum(purchases[start:start + 24 * days])
        expected += 0.14 * min(kwh, 20_000) + 0.10 * max(kwh - 20_000, 0)
        start += 24 * days
    assert energy == pytest.approx(expected, abs=0.05), "block 2 at $0.10 only after 20,000 kWh at $0.14"


def test_resolve_fills_pv_production_from_the_estimator_as_the_service_asks(service: sf.LocalService, tmp_path: Any) -> None:
    """A PV array without production gets the estimator v8's hourly AC of a 1 kW system with
    REopt.jl's parameters, on the data set the dataset query picks; cached like the other inputs."""
    client = service.client()
    scenario = building_scenario(blended_annual_energy_rate=0.1, blended_annual_demand_rate=5.0).with_pv(pv(name="roof", tilt=25.0, losses=0.1))
    before = service.hits()
    resolved = scenario.resolve(client, cache_dir=tmp_path)
    asked = {path for path, n in service.hits().items() if n != before.get(path, 0)}
    lookups = {f"/api/optimizer/stable/{name}/" for name in ("avert_emissions_profile", "cambium_profile", "easiur_costs")}
    assert asked - lookups == {"/api/optimizer/stable/simulated_load/", "/api/solar/data_query/v2.json", "/api/pv-estimator/v8.json"}
    factor = resolved.to_dict()["PV"]["production_factor_series"]
    params = {"lat": 39.74, "lon": -105.17, "tilt": 25, "system_capacity": 1, "azimuth": 180, "module_type": 0, "array_type": 1,
              "losses": 10, "dc_ac_ratio": 1.2, "gcr": 0.4, "inv_eff": 96, "radius": 0, "timeframe": "hourly", "dataset": "nsrdb"}
    estimate = client.request("GET", "pv_estimator_v8", args={"format": "json"}, params=params).json()
    assert factor == [watts / 1000 for watts in estimate["outputs"]["ac"]]
    assert 0.1 < sum(factor) / 8760 < 0.3, "a plausible capacity factor"
    after = service.hits()
    assert scenario.resolve(client, cache_dir=tmp_path) == resolved and service.hits() == after, "the second resolve fetched nothing"
