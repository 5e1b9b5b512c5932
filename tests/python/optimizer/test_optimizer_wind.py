"""Wind production as the optimizer service computes it: the WIND Toolkit's SRW download as a
typed call (``client.optimizer.wind_resource``) and its synthetic, labelled stand-in in the
embedded service, ``Scenario.resolve`` filling ``Wind.production_factor_series`` with the
service's turbine model (checked against SAM's own ``windpower`` module through PySAM), and
the WIND Toolkit grid check of scenario validation."""

from __future__ import annotations

import math
import urllib.parse
from typing import Any

import pytest

import sunflux as sf
from support.loopback import LoopbackServer, reply
from support.markers import requires_pysam
from sunflux.optimizer import ElectricLoad, ElectricTariff, Scenario, Site, Wind

GOLDEN = (39.91065, -105.2348)
HONOLULU = (21.3, -157.85)
#: The service's large turbine (REopt.jl production_factor.jl).
LARGE_CURVE = [0, 0, 0, 70.119, 166.208, 324.625, 560.952, 890.771, 1329.664, 1893.213] + [2000.0] * 16


def srw(rows: list[tuple[float, float, float, float]], height: int = 80) -> bytes:
    """A small SRW file as the WIND Toolkit writes one."""
    head = [f"1,city??,CO,country??,2012,{GOLDEN[0]},{GOLDEN[1]},Not Available,1,{len(rows)},,",
            "WIND Toolkit data from NREL downloaded on 2026-11-28,,,",
            "Temperature,Pressure,Speed,Direction", "C,atm,m/s,Degrees", ",".join([str(height)] * 4)]
    return ("\n".join(head + [",".join(str(v) for v in row) for row in rows]) + "\n").encode()


def test_wind_resource_is_a_labelled_synthetic_frame(client: sf.Client) -> None:
    frame = client.optimizer.wind_resource(*GOLDEN, hub_height=80)
    assert frame.columns == ["temperature_c", "pressure_atm", "wind_speed_m_per_s", "wind_direction_deg"]
    assert frame.height == 8760
    assert 4.0 < frame["wind_speed_m_per_s"].mean() < 10.0  # type: ignore[operator]
    assert frame["wind_direction_deg"].min() >= 0.0 and frame["wind_direction_deg"].max() < 360.0  # type: ignore[operator]
    assert frame.equals(client.optimizer.wind_resource(*GOLDEN, hub_height=80)), "the same site, the same wind"
    text = client.request("GET", "wind_toolkit_srw", params={"lat": GOLDEN[0], "lon": GOLDEN[1], "hubheight": 80, "year": 2012}).text
    assert "sunflux synthetic wind" in text.splitlines()[0] and "not WIND Toolkit data" in text.splitlines()[1]


def test_the_embedded_route_checks_keys_and_parameters(service: sf.LocalService) -> None:
    bad_key = sf.Client(api_key="x" * 40, base_url=service.base_url)
    with pytest.raises(sf.AuthError):
        bad_key.optimizer.wind_resource(*GOLDEN)
    with pytest.raises(sf.ValidationError) as refused:
        service.client().request("GET", "wind_toolkit_srw", params={"lat": 95, "lon": 0, "hubheight": 55})
    assert refused.value.status == 400
    errors = refused.value.errors
    assert any(e.startswith("lat must be") for e in errors) and any(e.startswith("hubheight must be one of") for e in errors)
    assert any(e.startswith("year must be") for e in errors)


def test_wind_resource_is_checked_before_sending_and_asks_the_services_query(loopback: LoopbackServer) -> None:
    key = "k" * 40
    client = sf.Client(api_key=key, base_url=loopback.url)
    with pytest.raises(sf.ParameterError) as raised:
        client.optimizer.wind_resource(91.0, -105.0, hub_height=50, year=2020)
    assert all(needle in str(raised.value) for needle in ("lat must be", "hubheight must be one of 10, 40", "year must be a year from 2007 to 2014"))
    assert loopback.seen == []
    loopback.handler = lambda request: reply(request, 200, srw([(-1.27, 0.8061, 5.51, 261.79), (-1.5, 0.8062, 6.25, 265.0)], 40),
                                              {"content-type": "text/csv"})
    frame = client.optimizer.wind_resource(*GOLDEN, hub_height=40)
    assert frame["wind_speed_m_per_s"].to_list() == [5.51, 6.25] and frame["pressure_atm"].to_list() == [0.8061, 0.8062]
    path = str(loopback.seen[0]["path"])
    assert path.startswith("/api/wind-toolkit/v2/wind/wtk-srw-download?")
    query = dict(urllib.parse.parse_qsl(path.split("?", 1)[1]))
    assert (query["lat"], query["lon"], query["hubheight"], query["year"]) == (str(GOLDEN[0]), str(GOLDEN[1]), "40", "2012")
    loopback.handler = lambda request: reply(request, 200, b"Temperature,Pressure\nnot an srw file " + key.encode(), {"content-type": "text/csv"})
    with pytest.raises(sf.SunfluxError) as broken:
        client.optimizer.wind_resource(*GOLDEN)
    assert key not in str(broken.value) and key not in repr(broken.value)


def wind_scenario(wind: Wind, site: tuple[float, float] = GOLDEN, steps_per_hour: int = 1) -> Scenario:
    return (
        Scenario(site=Site(latitude=site[0], longitude=site[1]))
        .with_settings(time_steps_per_hour=steps_per_hour)
        .with_load(ElectricLoad(loads_kw=[500.0] * 8760 * steps_per_hour, year=2017))
        .with_tariff(ElectricTariff(blended_annual_energy_rate=0.12, blended_annual_demand_rate=10.0))
        .with_section(wind)
    )


def test_resolve_fills_the_wind_production_once_and_caches_the_resource(service: sf.LocalService, tmp_path: Any) -> None:
    client = service.client()
    scenario = wind_scenario(Wind(max_kw=2000.0), steps_per_hour=2)
    before = service.hits()
    resolved = scenario.resolve(client, cache_dir=tmp_path)
    fetched = {path: n - before.get(path, 0) for path, n in service.hits().items() if n != before.get(path, 0)}
    wind_downloads = {path: n for path, n in fetched.items() if "wind" in path}
    assert wind_downloads == {"/api/wind-toolkit/v2/wind/wtk-srw-download": 1}, "500 kW on average: the medium turbine at 60 m"
    factor = resolved.to_dict()["Wind"]["production_factor_series"]
    assert len(factor) == 2 * 8760 and factor[0] == factor[1], "hourly values repeated to the time steps"
    assert all(0.0 <= f <= 1.0 for f in factor) and 0.05 < sum(factor) / len(factor) < 0.6
    resource = client.optimizer.wind_resource(*GOLDEN, hub_height=60)
    calm = resource["wind_speed_m_per_s"] < 2.0
    assert all(factor[2 * hour] == 0.0 for hour in calm.arg_true().to_list()), "below cut-in nothing"
    after = service.hits()
    assert scenario.resolve(client, cache_dir=tmp_path) == resolved and service.hits() == after, "the second resolve fetched nothing"
    cached = [p.read_text() for p in tmp_path.rglob("wind_resource/*.json")]
    assert len(cached) == 1 and service.api_key not in cached[0] and "wind_resource" in cached[0]
    assert resolved.validate() == []


def test_resolve_refuses_a_site_outside_the_wind_toolkit_as_validation_does(client: sf.Client) -> None:
    scenario = wind_scenario(Wind(size_class="commercial"), site=HONOLULU)
    message = "latitude/longitude not in the WindToolkit database. Cannot retrieve wind resource data."
    assert [(p.section, p.field, p.message) for p in scenario.validate()] == [("Wind", "Site", message)]
    with pytest.raises(sf.ParameterError, match="not in the WindToolkit database"):
        scenario.resolve(client, cache_dir=None)
    assert wind_scenario(Wind(size_class="commercial")).validate() == [], "Golden, Colorado is in the toolkit"


def sam_production_factor(heights: list[tuple[float, dict[str, list[float]]]], hub_m: float, rotor_m: float, rated_kw: float, curve: list[float]) -> list[float]:
    """SAM's windpower (PySAM) with the inputs REopt.jl gives it: one turbine, no losses; the
    resource as (height, columns) pairs, each height's columns temperature, pressure, speed,
    direction as REopt.jl orders them."""
    import PySAM.Windpower as Windpower

    model = Windpower.new()
    order = ("temperature_c", "pressure_atm", "wind_speed_m_per_s", "wind_direction_deg")
    rows = [[columns[name][step] for _, columns in heights for name in order] for step in range(8760)]
    model.Resource.wind_resource_data = {"lat": GOLDEN[0], "lon": GOLDEN[1], "elev": 0, "year": 2012, "data": rows,
                                         "heights": [h for h, _ in heights for _ in order], "fields": [1, 2, 3, 4] * len(heights)}
    model.Resource.wind_resource_model_choice = 0
    model.Turbine.wind_resource_shear = 0.14000000059604645
    model.Turbine.wind_turbine_rotor_diameter = rotor_m
    model.Turbine.wind_turbine_hub_ht = hub_m
    model.Turbine.wind_turbine_max_cp = 0.44999998807907104
    model.Turbine.wind_turbine_powercurve_windspeeds = list(range(26))
    model.Turbine.wind_turbine_powercurve_powerout = curve
    model.Farm.wind_resource_turbulence_coeff = 0.10000000149011612
    model.Farm.system_capacity = rated_kw
    model.Farm.wind_farm_wake_model = 0
    model.Farm.wind_farm_xCoordinates = [0.0]
    model.Farm.wind_farm_yCoordinates = [0.0]
    model.Losses.assign({name: 0.0 for name in ("avail_bop_loss", "avail_grid_loss", "avail_turb_loss", "elec_eff_loss", "elec_parasitic_loss",
                                                "env_degrad_loss", "env_env_loss", "env_exposure_loss", "env_icing_loss", "ops_env_loss",
                                                "ops_grid_loss", "ops_load_loss", "ops_strategies_loss", "turb_generic_loss",
                                                "turb_hysteresis_loss", "turb_perf_loss", "turb_specific_loss", "wake_ext_loss",
                                                "wake_future_loss", "wake_int_loss", "en_icing_cutoff", "en_low_temp_cutoff")})
    model.AdjustmentFactors.adjust_constant = 0.0
    model.execute(0)
    return [kw / rated_kw for kw in model.Outputs.gen[:8760]]


@requires_pysam
def test_the_turbine_model_matches_sams_windpower_on_given_series(client: sf.Client) -> None:
    """The large turbine on the section's own series (air thinned on some hours, so the density
    correction and its 0.001 kg/m3 memory are exercised): resolve's factor equals SAM's to 1e-9."""
    frame = client.optimizer.wind_resource(*GOLDEN, hub_height=80)
    columns = {name: frame[name].to_list() for name in frame.columns}
    columns["pressure_atm"] = [p * (0.85 if (h // 500) % 2 else 1.0) for h, p in enumerate(columns["pressure_atm"])]
    series = {"temperature_celsius": columns["temperature_c"], "pressure_atmospheres": columns["pressure_atm"],
              "wind_meters_per_sec": columns["wind_speed_m_per_s"], "wind_direction_degrees": columns["wind_direction_deg"]}
    ours = wind_scenario(Wind(size_class="large", **series)).resolve(client, cache_dir=None).to_dict()["Wind"]["production_factor_series"]
    sam = sam_production_factor([(80.0, columns)], 80.0, 110.0, 2000.0, LARGE_CURVE)
    assert len(ours) == 8760 and max(abs(a - b) for a, b in zip(ours, sam)) < 1e-9
    assert math.fsum(sam) > 1000.0, "the comparison covers a windy year, not zeros"


@requires_pysam
def test_the_residential_turbine_interpolates_between_toolkit_heights_as_sam_does(client: sf.Client) -> None:
    """The residential hub (20 m) between the toolkit's 10 m and 40 m: resolve downloads both and
    its factor equals SAM's on the same two heights to 1e-9."""
    ours = wind_scenario(Wind(size_class="residential")).resolve(client, cache_dir=None).to_dict()["Wind"]["production_factor_series"]
    heights = []
    for height in (10, 40):
        frame = client.optimizer.wind_resource(*GOLDEN, hub_height=height)
        heights.append((float(height), {name: frame[name].to_list() for name in frame.columns}))
    curve = [0, 0, 0, 0.070542773, 0.1672125, 0.326586914, 0.564342188, 0.896154492, 1.3377, 1.904654883] + [2.5] * 9 + [0.0] * 7
    sam = sam_production_factor(heights, 20.0, 3.7, 2.5, curve)
    assert max(abs(a - b) for a, b in zip(ours, sam)) < 1e-9
    assert math.fsum(sam) > 100.0
