"""PVWatts v8: the local engine's Python face (`simulate(..., version="v8")`, `simulate_many`,
results equal to SSC's in ``tests/data/pvref_v8``, validation in one place), the client
(``client.pv.estimate(..., version="v8")``: validation before sending, the route per profile, v8
answers parsed into `PvEstimate`) and the embedded service's v8 endpoint (its answer equals the
local engine on the station's weather exactly). Optional: PySAM on every real weather file of the
folders ``SUNFLUX_WEATHER_CORPUS`` lists, hourly, sub-hourly and EPW, on every record."""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import sunflux as sf
from support.paths import DATA
from support.markers import requires_pysam, requires_weather_corpus, weather_corpus_files
from support.ssc_resource import read_year_for_ssc
from sunflux.pv import ArrayType, ModuleType
from sunflux.pvwatts import Weather, read_weather, simulate, simulate_many

PVREF = DATA / "pvref_v8"
WEATHER_FILES = {
    "723170TYA": DATA / "723170TYA.CSV.gz",
    "703165TY": DATA / "703165TY.csv.gz",
    "12839": DATA / "12839.tm2.gz",
    "snow_723170TYA": PVREF / "snow_723170TYA.csv.gz",
    "snow_703165TY": PVREF / "snow_703165TY.csv.gz",
}
POSITIONAL = ("system_capacity", "module_type", "losses", "array_type", "tilt", "azimuth")
V6_HOURLY = ["ac", "poa", "dn", "dc", "df", "tamb", "tcell", "wspd"]
V8_LOCAL_EXTRA = ["alb", "gh", "tpoa", "aoi", "sunup", "ss_beam_factor", "ss_sky_diffuse_factor", "ss_gnd_diffuse_factor",
                  "soiling_f", "dcsnowderate", "snow_cover", "inv_eff_output"]
#: Hourly AC and annual energy tolerances against SSC (issue #23).
HOURLY_AC_TOL_W = 1e-6
ANNUAL_REL_TOL = 1e-12


@pytest.fixture(scope="module")
def weathers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Weather]:
    folder = tmp_path_factory.mktemp("weather")
    out = {}
    for key, path in WEATHER_FILES.items():
        unzipped = folder / path.name.removesuffix(".gz")
        unzipped.write_bytes(gzip.decompress(path.read_bytes()))
        out[key] = read_weather(unzipped)
    return out


REFERENCE = json.loads((PVREF / "cases.json").read_text())


def case_arguments(case: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """`simulate`'s arguments for a reference case (SSC's inputs; its default use_wf_albedo is 1)."""
    system, resource = dict(case["system"]), case["resource"]
    keywords = {name: value for name, value in system.items() if name not in POSITIONAL}
    keywords["albedo"] = resource.get("albedo")
    keywords["use_wf_albedo"] = bool(resource.get("use_wf_albedo", 1))
    if "en_snowloss" in keywords:
        keywords["en_snowloss"] = bool(keywords["en_snowloss"])
    return [system[name] for name in POSITIONAL], keywords


def hourly_reference(name: str) -> np.ndarray:
    frame = pl.read_csv(gzip.decompress((PVREF / "hourly_ac.csv.gz").read_bytes()), columns=[name])
    return frame[name].to_numpy()


#: One case of every kind (the Rust reference test runs all 84).
PYTHON_CASES = [
    "723170TYA_at1_mt0", "703165TY_at0_mt2", "723170TYA_at3_mt1_tilt0", "703165TY_at4_mt1", "723170TYA_bifacial_at0",
    "703165TY_albedo_monthly_bifacial_at3", "723170TYA_albedo_default_at2", "703165TY_soiling_at0",
    "snow_703165TY_albedo_default_at0", "12839_at1",
]


@pytest.mark.parametrize("name", PYTHON_CASES)
def test_simulate_matches_ssc(weathers: dict[str, Weather], name: str) -> None:
    case = next(c for c in REFERENCE["cases"] if c["name"] == name)
    positional, keywords = case_arguments(case)
    result = simulate(weathers[case["weather"]], *positional, version="v8", **keywords)
    assert abs(result.ac_annual / case["ac_annual"] - 1) <= ANNUAL_REL_TOL
    assert result.monthly["ac"].to_list() == pytest.approx(case["ac_monthly"], rel=ANNUAL_REL_TOL)
    assert result.hourly is not None
    assert np.abs(result.hourly["ac"].to_numpy() - hourly_reference(name)).max() <= HOURLY_AC_TOL_W


def test_the_hourly_frame_has_v8_outputs_as_extra_columns(weathers: dict[str, Weather]) -> None:
    result = simulate(weathers["723170TYA"], 4, 0, 14, 0, 20, 180, version="v8", bifaciality=0.7, soiling=[2.0] * 12)
    hourly = result.hourly
    assert hourly is not None and hourly.columns == ["timestamp", *V6_HOURLY, *V8_LOCAL_EXTRA]
    up = hourly.filter(pl.col("sunup") > 0)
    assert up["soiling_f"].unique().to_list() == [0.02]
    assert (hourly.filter(pl.col("sunup") == 0)["ac"] == 0).all()
    assert 0 < up["ss_beam_factor"].min() < 1, "open racks shade each other in the morning and evening"
    monofacial = simulate(weathers["723170TYA"], 4, 0, 14, 0, 20, 180, version="v8", soiling=[2.0] * 12)
    assert result.ac_annual > monofacial.ac_annual * 1.02


def test_v8_differs_from_v5_on_the_same_weather(weathers: dict[str, Weather]) -> None:
    v5 = simulate(weathers["723170TYA"], 4, 0, 14, 1, 20, 180, timeframe="monthly")
    v8 = simulate(weathers["723170TYA"], 4, 0, 14, 1, 20, 180, timeframe="monthly", version="v8")
    assert v5.ac_annual != v8.ac_annual and abs(v8.ac_annual / v5.ac_annual - 1) < 0.05


def test_a_table_with_snow_depth_gives_the_file_result(weathers: dict[str, Weather]) -> None:
    weather = weathers["snow_703165TY"]
    frame = weather.to_polars()
    assert "snow_depth" in frame.columns
    again = read_weather(frame, lat=weather.lat, lon=weather.lon, tz=weather.tz, elevation=weather.elevation)
    args = (4, 0, 14, 0, 20, 180)
    assert simulate(again, *args, version="v8", en_snowloss=True).ac_annual == simulate(weather, *args, version="v8", en_snowloss=True).ac_annual


def test_the_snow_model_needs_snow_depth(weathers: dict[str, Weather]) -> None:
    with pytest.raises(sf.ParameterError, match="snow model needs snow depth"):
        simulate(weathers["723170TYA"], 4, 0, 14, 0, 20, 180, version="v8", en_snowloss=True)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(bifaciality=1.5), "bifaciality must be between 0 and 1 (got 1.5)"),
        (dict(bifaciality="high"), 'bifaciality must be a number between 0 and 1 (got "high")'),
        (dict(albedo=1.0), "albedo values must each be greater than 0 and less than 1 (got 1 at position 0)"),
        (dict(albedo=[0.2] * 5), "albedo must be one value or 12 monthly values (got 5 values)"),
        (dict(soiling=[1.0] * 11), "soiling must be 12 monthly values in % (got 11 values)"),
        (dict(soiling=[1.0] * 11 + [101.0]), "soiling values must each be between 0 and 100 (got 101 at position 11)"),
        (dict(soiling=[1.0] * 11 + ["x"]), 'soiling must be 12 monthly numbers in % separated by |: not a number: "x" at position 11'),
        (dict(use_wf_albedo=2), "use_wf_albedo must be 0 or 1 (got 2)"),
        (dict(en_snowloss="maybe"), 'en_snowloss must be 0 or 1 (got "maybe")'),
        (dict(gcr=0.995), "gcr must be between 0.01 and 0.99 (got 0.995)"),
        (dict(tilt=95), "tilt must be between 0 and 90 (got 95)"),
    ],
)
def test_every_v8_parameter_is_validated_with_its_range(weathers: dict[str, Weather], change: dict[str, Any], message: str) -> None:
    keywords = {name: value for name, value in change.items() if name not in POSITIONAL}
    args = [change.get(name, default) for name, default in zip(POSITIONAL, (4, 0, 14, 0, 20, 180))]
    with pytest.raises(sf.ParameterError) as caught:
        simulate(weathers["723170TYA"], *args, version="v8", **keywords)
    assert caught.value.errors == [message]


def test_v8_parameters_need_version_v8_and_versions_are_checked(weathers: dict[str, Weather]) -> None:
    with pytest.raises(sf.ParameterError) as caught:
        simulate(weathers["723170TYA"], 4, 0, 14, 0, 20, 180, bifaciality=0.7, soiling=[1.0] * 12)
    assert caught.value.errors == ['bifaciality is a PVWatts v8 parameter: pass version="v8"', 'soiling is a PVWatts v8 parameter: pass version="v8"']
    with pytest.raises(sf.ParameterError, match='version must be "v5" or "v8"'):
        simulate(weathers["723170TYA"], 4, 0, 14, 0, 20, 180, version="v6")


def test_simulate_many_v8_equals_simulate_one_by_one(weathers: dict[str, Weather]) -> None:
    systems = [
        dict(system_capacity=4, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180),
        dict(system_capacity=4, module_type=1, losses=10, array_type=0, tilt=30, azimuth=200, bifaciality=0.7, albedo=[0.3] * 12),
        dict(system_capacity=50, module_type=2, losses=14, array_type=3, tilt=0, azimuth=180, gcr=0.3, soiling=[3.0] * 12),
        dict(system_capacity=4, module_type=0, losses=14, array_type=0, tilt=20, azimuth=180, en_snowloss=True),
    ]
    sites = [weathers["723170TYA"], weathers["703165TY"], weathers["12839"], weathers["snow_703165TY"]]
    batch = simulate_many(sites, systems, version="v8", output="results")
    for weather, system, result in zip(sites, systems, batch):
        keywords = {name: value for name, value in system.items() if name not in POSITIONAL}
        one = simulate(weather, *[system[name] for name in POSITIONAL], version="v8", **keywords)
        assert result.ac_annual == one.ac_annual
        assert result.hourly is not None and one.hourly is not None and result.hourly.equals(one.hourly)
    table = simulate_many(weathers["723170TYA"], systems[:3], version="v8", timeframe="monthly")
    assert table.height == 36 and table.columns[0] == "system"
    with pytest.raises(sf.ParameterError, match='pass version="v8"'):
        simulate_many(weathers["723170TYA"], systems[1:2])
    with pytest.raises(sf.ParameterError, match=r"systems\[0\]: gcr must be between 0.01 and 0.99"):
        simulate_many(weathers["723170TYA"], [dict(systems[0], gcr=2.0)], version="v8")


# --- client and embedded service -----------------------------------------------------------------


def estimate(client: sf.Client, *args: object, **kwargs: object) -> sf.PvEstimate:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.ServiceWarning)
        return client.pv.estimate(*args, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("lat, lon, dataset", [(40.0, -105.0, "nsrdb"), (33.45, -112.07, "tmy3"), (48.85, 2.35, "intl")])
def test_service_v8_equals_the_local_engine_exactly(service: sf.LocalService, client: sf.Client, lat: float, lon: float, dataset: str) -> None:
    for array_type, module_type, bifaciality in [(ArrayType.FIXED_ROOF_MOUNT, ModuleType.STANDARD, None),
                                                 (ArrayType.FIXED_OPEN_RACK, ModuleType.PREMIUM, 0.7),
                                                 (ArrayType.ONE_AXIS_BACKTRACKING, ModuleType.THIN_FILM, None)]:
        tilt = 0 if array_type == ArrayType.ONE_AXIS_BACKTRACKING else 25
        remote = estimate(client, 5, module_type, 14, array_type, tilt, 180, lat=lat, lon=lon, dataset=dataset, radius=0,
                          timeframe="hourly", version="v8", bifaciality=bifaciality, soiling=[2.5] * 12)
        assert remote.station_info is not None and remote.ssc_info is not None and remote.ssc_info.module == "pvwattsv8"
        weather = service.station_weather(remote.station_info.location)
        local = simulate(weather, 5, module_type, 14, array_type, tilt, 180, version="v8", bifaciality=bifaciality, soiling=[2.5] * 12)
        assert remote.ac_annual == local.ac_annual and remote.capacity_factor == local.capacity_factor
        assert remote.monthly.equals(local.monthly)
        assert remote.hourly is not None and local.hourly is not None
        assert remote.hourly.columns == ["timestamp", *V6_HOURLY, "alb"]
        assert remote.hourly.select([*V6_HOURLY, "alb"]).equals(local.hourly.select([*V6_HOURLY, "alb"]))


def test_v8_answers_in_json_xml_and_jsonp_agree(client: sf.Client) -> None:
    args = (4, ModuleType.PREMIUM, 10, ArrayType.ONE_AXIS, 0, 180)
    keywords = dict(lat=35, lon=-100, version="v8", albedo=[0.25] * 12, bifaciality=0.6)
    as_json = estimate(client, *args, timeframe="hourly", **keywords)
    as_xml = estimate(client, *args, timeframe="hourly", format="xml", **keywords)
    jsonp = estimate(client, *args, callback="handleEstimate", **keywords)
    assert as_json.hourly is not None and as_xml.hourly is not None and as_xml.hourly.equals(as_json.hourly)
    assert as_json.hourly["alb"].unique().to_list() == [0.25]
    assert as_xml.ssc_info == as_json.ssc_info and as_xml.station_info == as_json.station_info
    assert jsonp.ac_annual == as_json.ac_annual and jsonp.raw.startswith("handleEstimate(")
    assert as_json.version and as_json.version.startswith("8.")
    assert as_json.inputs["use_wf_albedo"] == "0" and as_json.inputs["bifaciality"] == "0.6"


def test_v8_parameters_are_checked_before_sending(service: sf.LocalService, client: sf.Client) -> None:
    with pytest.raises(sf.ParameterError) as caught:
        client.pv.estimate(4, 0, 14, 1, 20, 180, lat=40, lon=-105, version="v8", dataset="satdb", gcr=0.001,
                           bifaciality=-1, albedo=[0.3, 0.4], soiling=[200.0] * 12, use_wf_albedo="often")
    names = [problem.split()[0] for problem in caught.value.errors]
    assert sorted(set(names)) == ["albedo", "bifaciality", "dataset", "gcr", "soiling", "use_wf_albedo"]
    with pytest.raises(sf.ParameterError) as caught:
        client.pv.estimate(4, 0, 14, 1, 20, 180, lat=40, lon=-105, bifaciality=0.7)
    assert caught.value.errors == ['bifaciality is a v8 parameter: pass version="v8"']
    with pytest.raises(sf.ParameterError, match='version must be "v6" or "v8"'):
        client.pv.estimate(4, 0, 14, 1, 20, 180, lat=40, lon=-105, version="v7")
    assert not [path for path in service.hits() if "pv-estimator" in path]


def test_hand_sent_bad_v8_request_gets_422_with_the_client_wording(client: sf.Client) -> None:
    with pytest.raises(sf.ValidationError) as caught:
        client.request("GET", "pv_estimator_v8", args={"format": "json"},
                       params=dict(system_capacity=4, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180, lat=40, lon=-105,
                                   soiling="1|2|3", albedo="1.5"))
    assert caught.value.status == 422
    assert "soiling must be 12 monthly values in % (got 3 values)" in caught.value.errors
    assert "albedo values must each be greater than 0 and less than 1 (got 1.5 at position 0)" in caught.value.errors


def test_the_snow_model_on_station_weather_without_snow_is_refused_by_the_service(client: sf.Client) -> None:
    with pytest.raises(sf.ValidationError, match="snow model needs snow depth"):
        estimate(client, 4, 0, 14, 0, 20, 180, lat=40, lon=-105, version="v8", en_snowloss=True)


def test_v8_takes_stations_of_dataset_query_v2(client: sf.Client) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.ServiceWarning)
        v1 = client.solar.data_query(39.74, -104.99, version="v1").closest["tmy3"]
        v2 = client.solar.data_query(39.74, -104.99, version="v2").closest["tmy3"]
    assert v1 is not None and v2 is not None
    by_station = estimate(client, 4, 0, 14, 1, 20, 180, file_id=v2, version="v8")
    by_location = estimate(client, 4, 0, 14, 1, 20, 180, lat=39.74, lon=-104.99, dataset="tmy3", version="v8")
    assert by_station.ac_annual == by_location.ac_annual
    assert by_station.station_info is not None and by_station.station_info.location == v2.id
    with pytest.raises(sf.ParameterError, match="the v8 estimator takes ids from dataset query v2"):
        estimate(client, 4, 0, 14, 1, 20, 180, file_id=v1, version="v8")
    with pytest.raises(sf.ValidationError, match="the v8 estimator takes ids from dataset query v2"):
        estimate(client, 4, 0, 14, 1, 20, 180, file_id=v1.id, version="v8")


def test_each_route_profile_has_its_default_version(service: sf.LocalService) -> None:
    spec = service.client(routes="spec")
    nlr = service.client(routes="nlr")
    assert spec.url("pv_estimator_v8", format="json").endswith("/api/pv-estimator/v8.json")
    assert nlr.url("pv_estimator_v8", format="xml").endswith("/api/pvwatts/v8.xml")
    assert estimate(spec, 4, 0, 14, 1, 20, 180, lat=40, lon=-105).version == "1.4.0-sunflux-local"
    default_nlr = estimate(nlr, 4, 0, 14, 1, 20, 180, lat=40, lon=-105)
    assert default_nlr.version == "8.5.0-sunflux-local"
    assert "/api/pvwatts/v8.json" in service.hits()


def test_async_client_estimates_with_v8(service: sf.LocalService) -> None:
    async def run() -> sf.PvEstimate:
        async with service.async_client() as client:
            return await client.pv.estimate(4, 0, 14, 1, 20, 180, lat=40, lon=-105, version="v8", soiling=[1] * 12)

    import asyncio

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.ServiceWarning)
        result = asyncio.run(run())
    assert result.ssc_info is not None and result.ssc_info.module == "pvwattsv8"


# --- optional: real weather files -------------------------------------------------------------------

CORPUS_SYSTEMS = [
    dict(array_type=0, module_type=0, tilt=20.0, azimuth=180.0),
    dict(array_type=1, module_type=1, tilt=20.0, azimuth=180.0),
    dict(array_type=2, module_type=2, tilt=0.0, azimuth=180.0),
    dict(array_type=3, module_type=0, tilt=0.0, azimuth=180.0),
    dict(array_type=4, module_type=1, tilt=20.0, azimuth=180.0),
    dict(array_type=0, module_type=0, tilt=30.0, azimuth=200.0, bifaciality=0.7),
    dict(array_type=2, module_type=0, tilt=0.0, azimuth=180.0, bifaciality=0.7),
    dict(array_type=3, module_type=1, tilt=20.0, azimuth=270.0),
    dict(array_type=0, module_type=2, tilt=35.0, azimuth=180.0, soiling=[2.0] * 12, albedo=[0.3], use_wf_albedo=0),
]


@requires_weather_corpus
@requires_pysam
@pytest.mark.slow
@pytest.mark.parametrize("path", weather_corpus_files())
def test_real_weather_files_match_ssc(path: Path) -> None:
    import PySAM.Pvwattsv8 as pvwattsv8

    year = read_year_for_ssc(path)
    if year is None:
        return
    weather, resource = year
    for system in CORPUS_SYSTEMS:
        model = pvwattsv8.new()
        albedo = {key: system[key] for key in ("albedo", "use_wf_albedo") if key in system}
        for key, value in {**resource, **albedo}.items():
            setattr(model.SolarResource, key, value)
        design = dict(system_capacity=4.0, losses=14.0, dc_ac_ratio=1.2, gcr=0.4, inv_eff=96.0,
                      **{key: value for key, value in system.items() if key not in albedo})
        for key, value in design.items():
            setattr(model.SystemDesign, key, value)
        model.execute(0)
        keywords = {key: value for key, value in system.items() if key not in ("array_type", "module_type", "tilt", "azimuth")}
        if "use_wf_albedo" in keywords:
            keywords["use_wf_albedo"] = bool(keywords["use_wf_albedo"])
        ours = simulate(weather, 4.0, system["module_type"], 14.0, system["array_type"], system["tilt"], system["azimuth"],
                        version="v8", **keywords)
        assert ours.hourly is not None and ours.hourly.height == len(model.Outputs.ac)
        gap = float(np.abs(ours.hourly["ac"].to_numpy() - np.asarray(model.Outputs.ac)).max())
        assert gap <= HOURLY_AC_TOL_W, (system, gap)
        assert abs(ours.ac_annual / model.Outputs.ac_annual - 1) <= ANNUAL_REL_TOL, system
