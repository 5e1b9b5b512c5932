"""The grid emissions and health costs the optimizer service takes from outside: its AVERT,
Cambium and EASIUR look-ups as typed calls (``client.optimizer.avert_emissions_profile``,
``cambium_profile``, ``easiur_costs``) and their synthetic, labelled stand-ins in the embedded
service, ``Scenario.resolve`` filling the ``ElectricUtility`` series and ``Financial`` health costs
the service would fill (and only those), cached, and a resolved CO2-bound scenario solved in
process within its bounds."""

from __future__ import annotations

import json
import urllib.parse
import warnings
from typing import Any

import pytest

import sunflux as sf
from support.loopback import LoopbackServer, reply
from sunflux.optimizer import PV, ElectricLoad, ElectricTariff, Scenario, Site, solve
from sunflux.optimizer._base import UnknownFieldWarning

DENVER = (39.74, -105.17)
PARIS = (48.86, 2.35)
HONOLULU = (21.3, -157.85)
STAND_IN = "sunflux synthetic stand-in"
SERIES = [f"emissions_factor_series_lb_{p}_per_kwh" for p in ("CO2", "NOx", "SO2", "PM25")]
HEALTH_COSTS = [f"{p}_{kind}" for p in ("NOx", "SO2", "PM25")
                for kind in ("grid_cost_per_tonne", "onsite_fuelburn_cost_per_tonne", "cost_escalation_rate_fraction")]
LOOKUP_PATHS = {f"/api/optimizer/stable/{name}/" for name in ("avert_emissions_profile", "cambium_profile", "easiur_costs")}


def test_the_three_lookups_are_typed_labelled_answers(client: sf.Client) -> None:
    avert = client.optimizer.avert_emissions_profile(*DENVER, load_year=2017)
    assert (avert.avert_region, avert.avert_region_abbr, avert.avert_meters_to_region) == ("Rocky Mountains", "RM", 0.0)
    assert avert.data_source is not None and STAND_IN in avert.data_source and "ynthetic" in avert.description
    co2 = avert.emissions_factor_series_lb_CO2_per_kwh
    assert len(co2) == 8760 and all(0.4 <= lb <= 1.0 for lb in co2), "lb CO2/kWh of a fossil-heavy grid"
    assert co2[4] > co2[16], "a daily shape: more at night than in the afternoon"
    assert all(0 < lb < 1e-3 for lb in avert.emissions_factor_series_lb_NOx_per_kwh + avert.emissions_factor_series_lb_PM25_per_kwh)
    monday = client.optimizer.avert_emissions_profile(*DENVER, load_year=2018).emissions_factor_series_lb_CO2_per_kwh
    assert monday[0] - co2[0] == pytest.approx(0.03, abs=2e-6), "1 January 2017 is a Sunday, 2018's a Monday"

    cambium = client.optimizer.cambium_profile(*DENVER)
    assert (cambium.metric_col, cambium.units, len(cambium.data_series)) == ("lrmer_co2e", "Pounds emissions per kWh", 8760)
    assert cambium.data_source is not None and STAND_IN in cambium.data_source
    clean = client.optimizer.cambium_profile(*DENVER, metric_col="cef_load", lifetime=10)
    assert clean.units == "Fraction of clean energy" and all(0.0 <= f <= 1.0 for f in clean.data_series)
    assert max(clean.data_series[:24]) == clean.data_series[12], "the clean share peaks at noon"
    longer = client.optimizer.cambium_profile(*DENVER, lifetime=25)
    assert sum(longer.data_series) < sum(client.optimizer.cambium_profile(*DENVER, lifetime=5).data_series), "a greener grid over more years"

    costs = client.optimizer.easiur_costs(*DENVER, inflation=0.025)
    assert costs.units_costs == "US dollars per metric ton" and costs.data_source is not None and STAND_IN in costs.data_source
    for pollutant in ("NOx", "SO2", "PM25"):
        grid = getattr(costs, f"{pollutant}_grid_cost_per_tonne")
        assert 1_000 < grid < getattr(costs, f"{pollutant}_onsite_fuelburn_cost_per_tonne"), "ground-level emissions cost more"
    real = client.optimizer.easiur_costs(*DENVER, inflation=0.0)
    assert costs.SO2_cost_escalation_rate_fraction - real.SO2_cost_escalation_rate_fraction == pytest.approx(0.025)


def test_sites_outside_the_data_and_bad_inputs_raise_parameter_error(client: sf.Client) -> None:
    with pytest.raises(sf.ParameterError, match=r"Could not look up AVERT emissions region within 5 miles from point \(48.86, 2.35\)"):
        client.optimizer.avert_emissions_profile(*PARIS)
    with pytest.raises(sf.ParameterError, match="Location is likely invalid or outside the CAMx grid"):
        client.optimizer.easiur_costs(*PARIS)
    with pytest.raises(sf.ParameterError, match="Location is likely outside contiguous US"):
        client.optimizer.cambium_profile(*HONOLULU)
    assert client.optimizer.avert_emissions_profile(*HONOLULU).avert_region == "Hawaii (Oahu)", "AVERT covers Hawaii, Cambium does not"
    with pytest.raises(sf.ParameterError, match="scenario must be one of Mid-case"):
        client.optimizer.cambium_profile(*DENVER, scenario="Made-up case")


def test_parameters_are_checked_before_sending_and_the_query_is_the_apis(loopback: LoopbackServer) -> None:
    client = sf.Client(api_key="k" * 40, base_url=loopback.url)
    with pytest.raises(sf.ParameterError) as raised:
        client.optimizer.cambium_profile(95.0, -105.0, lifetime=0, metric_col="")
    assert all(p in str(raised.value) for p in ("latitude must be a number from -90 to 90", "lifetime must be a whole number from 1 to 100", "metric_col must be"))
    with pytest.raises(sf.ParameterError, match="load_year must be a whole number"):
        client.optimizer.avert_emissions_profile(*DENVER, load_year=2017.5)  # type: ignore[arg-type]
    assert loopback.seen == []
    answer = {"NOx_grid_cost_per_tonne": 1.0, "SO2_grid_cost_per_tonne": 2.0, "PM25_grid_cost_per_tonne": 3.0,
              "NOx_onsite_fuelburn_cost_per_tonne": 4.0, "SO2_onsite_fuelburn_cost_per_tonne": 5.0, "PM25_onsite_fuelburn_cost_per_tonne": 6.0,
              "NOx_cost_escalation_rate_fraction": 0.07, "SO2_cost_escalation_rate_fraction": 0.08, "PM25_cost_escalation_rate_fraction": 0.09,
              "units_costs": "US dollars per metric ton", "units_escalation": "nominal annual fraction",
              "description_costs": "", "description_escalation": ""}
    loopback.handler = lambda request: reply(request, 200, json.dumps(answer).encode(), {"content-type": "application/json"})
    costs = client.optimizer.easiur_costs(*DENVER, inflation=0.02)
    assert (costs.PM25_onsite_fuelburn_cost_per_tonne, costs.SO2_cost_escalation_rate_fraction, costs.data_source) == (6.0, 0.08, None)
    path = str(loopback.seen[0]["path"])
    assert path.startswith("/api/optimizer/stable/easiur_costs/?")
    query = dict(urllib.parse.parse_qsl(path.split("?", 1)[1]))
    assert {k: v for k, v in query.items() if k != "api_key"} == {"latitude": "39.74", "longitude": "-105.17", "inflation": "0.02"}
    loopback.handler = lambda request: reply(request, 400, b'{"error": "Could not look up EASIUR health cost data from point (1,2)."}',
                                              {"content-type": "application/json"})
    with pytest.raises(sf.ParameterError, match=r"Could not look up EASIUR health cost data from point \(1,2\)\."):
        client.optimizer.easiur_costs(*DENVER)


def grid_scenario(steps_per_hour: int = 1, **utility: Any) -> Scenario:
    scenario = (
        Scenario(site=Site(latitude=DENVER[0], longitude=DENVER[1]))
        .with_settings(time_steps_per_hour=steps_per_hour)
        .with_load(ElectricLoad(loads_kw=[400.0] * 8760 * steps_per_hour, year=2017))
        .with_tariff(ElectricTariff(blended_annual_energy_rate=0.12, blended_annual_demand_rate=10.0))
    )
    document = scenario.to_dict()
    if utility:
        document["ElectricUtility"] = utility
    return Scenario.from_dict(document)


def fetched_since(service: sf.LocalService, before: dict[str, int]) -> dict[str, int]:
    return {path: n - before.get(path, 0) for path, n in service.hits().items() if n != before.get(path, 0)}


def test_resolve_fills_what_the_service_would_and_caches_it(service: sf.LocalService, tmp_path: Any) -> None:
    client = service.client()
    scenario = grid_scenario(steps_per_hour=2)
    before = service.hits()
    resolved = scenario.resolve(client, cache_dir=tmp_path).to_dict()
    assert fetched_since(service, before) == {"/api/optimizer/stable/avert_emissions_profile/": 1, "/api/optimizer/stable/cambium_profile/": 2,
                                               "/api/optimizer/stable/easiur_costs/": 1}
    utility = resolved["ElectricUtility"]
    assert set(utility) == {*SERIES, "renewable_energy_fraction_series", "emissions_factor_CO2_decrease_fraction"}
    assert utility["emissions_factor_CO2_decrease_fraction"] == 0.0, "the service's default with Cambium CO2"
    twice = lambda hourly: [v for v in hourly for _ in range(2)]  # noqa: E731
    cambium = client.optimizer.cambium_profile(*DENVER, lifetime=25, load_year=2017)
    assert utility["emissions_factor_series_lb_CO2_per_kwh"] == twice(cambium.data_series), "CO2 from Cambium, repeated to 2 steps an hour"
    avert = client.optimizer.avert_emissions_profile(*DENVER, load_year=2017)
    assert utility["emissions_factor_series_lb_SO2_per_kwh"] == twice(avert.emissions_factor_series_lb_SO2_per_kwh)
    assert utility["renewable_energy_fraction_series"] == twice(client.optimizer.cambium_profile(*DENVER, metric_col="cef_load").data_series)
    costs = client.optimizer.easiur_costs(*DENVER, inflation=0.025)
    assert {name: resolved["Financial"][name] for name in HEALTH_COSTS} == {name: getattr(costs, name) for name in HEALTH_COSTS}
    assert resolved == Scenario.from_dict(resolved).to_dict() and Scenario.from_dict(resolved).validate() == []

    after = service.hits()
    assert scenario.resolve(client, cache_dir=tmp_path).to_dict() == resolved and service.hits() == after, "the second resolve fetched nothing"
    cached = [p.read_text() for p in tmp_path.rglob("*.json")]
    assert len(cached) == 4 and all(service.api_key not in text and service.base_url.rstrip("/") in text for text in cached)


def test_resolve_leaves_what_is_given_and_asks_avert_for_co2_when_told(service: sf.LocalService) -> None:
    client = service.client()
    given = {"emissions_factor_series_lb_NOx_per_kwh": 0.001, "renewable_energy_fraction_series": [0.4] * 8760, "co2_from_avert": True}
    before = service.hits()
    resolved = grid_scenario(**given).resolve(client, cache_dir=None).to_dict()
    assert set(fetched_since(service, before)) == {"/api/optimizer/stable/avert_emissions_profile/", "/api/optimizer/stable/easiur_costs/"}
    utility = resolved["ElectricUtility"]
    avert = client.optimizer.avert_emissions_profile(*DENVER, load_year=2017)
    assert utility["emissions_factor_series_lb_CO2_per_kwh"] == avert.emissions_factor_series_lb_CO2_per_kwh
    assert "emissions_factor_CO2_decrease_fraction" not in utility, "AVERT's CO2 keeps the service's 0.0459 default"
    assert (utility["emissions_factor_series_lb_NOx_per_kwh"], utility["renewable_energy_fraction_series"]) == (0.001, [0.4] * 8760)

    everything = {name: [0.5] * 8760 for name in SERIES} | {"renewable_energy_fraction_series": [0.3] * 8760}
    document = grid_scenario(**everything).to_dict()
    document["Financial"] = {name: 1.0 for name in HEALTH_COSTS}
    before = service.hits()
    assert Scenario.from_dict(document).resolve(client, cache_dir=None).to_dict() == document
    assert not set(fetched_since(service, before)) & LOOKUP_PATHS, "nothing left out, nothing asked"

    with pytest.raises(sf.ParameterError, match=r'avert_emissions_region "Texas" is not the site\'s region \("Rocky Mountains"\)'):
        grid_scenario(avert_emissions_region="Texas").resolve(client, cache_dir=None)
    assert "ElectricUtility" in grid_scenario(avert_emissions_region="Rocky Mountains").resolve(client, cache_dir=None).to_dict()


def test_off_grid_no_grid_series_are_fetched(service: sf.LocalService) -> None:
    client = service.client()
    scenario = Scenario(site=Site(latitude=DENVER[0], longitude=DENVER[1])).with_settings(off_grid_flag=True).with_load(ElectricLoad(loads_kw=[50.0] * 8760, year=2017))
    before = service.hits()
    resolved = scenario.resolve(client, cache_dir=None).to_dict()
    assert set(fetched_since(service, before)) & LOOKUP_PATHS == {"/api/optimizer/stable/easiur_costs/"}
    assert "ElectricUtility" not in resolved
    assert set(resolved["Financial"]) == {name for name in HEALTH_COSTS if "_grid_" not in name}, "off grid the service asks EASIUR only for on-site costs"


@pytest.mark.slow
def test_a_resolved_co2_bound_scenario_solves_within_its_bounds(service: sf.LocalService) -> None:
    """The engine refuses CO2 bounds without the grid's CO2 series and points to resolve; the
    resolved copy solves optimal with the lifecycle CO2 reduction within [0.3, 0.5]: at 0.3,
    where without the bounds it is below (more PV is bought to reach it)."""
    bounded = grid_scenario(co2_from_avert=True).to_dict()
    bounded["Site"] |= {"CO2_emissions_reduction_min_fraction": 0.3, "CO2_emissions_reduction_max_fraction": 0.5}
    with pytest.raises(sf.SunfluxError, match=r"emissions_factor_series_lb_CO2_per_kwh .*Scenario.resolve\(client\) fills it"):
        solve(bounded)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownFieldWarning)
        scenario = Scenario.from_dict(bounded).with_pv(PV(installed_cost_per_kw=1400.0, om_cost_per_kw=15.0))
        resolved = scenario.resolve(service.client(), cache_dir=None).to_dict()
    assert resolved["Site"]["CO2_emissions_reduction_min_fraction"] == 0.3
    result = solve(resolved)
    assert result.optimal
    reduction = result.raw["outputs"]["Site"]["lifecycle_emissions_reduction_CO2_fraction"]
    assert 0.3 - 1e-3 <= reduction <= 0.5 + 1e-3, reduction
    free = {**resolved, "Site": {k: v for k, v in resolved["Site"].items() if not k.startswith("CO2_emissions_reduction")}}
    unbound = solve(free).raw["outputs"]
    assert unbound["Site"]["lifecycle_emissions_reduction_CO2_fraction"] < 0.3 - 1e-3 and reduction == pytest.approx(0.3, abs=1e-3), "the bound binds"
    assert result.raw["outputs"]["PV"]["size_kw"] > unbound["PV"]["size_kw"], "more PV makes the reduction"
