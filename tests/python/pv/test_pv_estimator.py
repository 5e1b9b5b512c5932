"""PV estimator v6 against the embedded service: the answer equals the local engine on the same
weather exactly, validation names every parameter, 422 answers, file_id rules, formats."""

from __future__ import annotations

import asyncio
import itertools
import warnings

import polars as pl
import pytest

import sunflux as sf
from support.loopback import LoopbackServer, reply
from sunflux.pv import ArrayType, ModuleType, parse_estimate

PLACES = [(40.0, -105.0, "satdb"), (33.45, -112.07, "tmy3"), (47.6, -122.3, "tmy2"), (48.85, 2.35, "intl"), (-23.5, -46.6, "satdb")]
HOURLY = ["ac", "poa", "dn", "dc", "df", "tamb", "tcell", "wspd"]


def estimate(client: sf.Client, *args: object, **kwargs: object) -> sf.PvEstimate:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.ServiceWarning)
        return client.pv.estimate(*args, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("lat, lon, dataset", PLACES)
def test_service_equals_local_engine_exactly_for_every_array_and_module_type(
    service: sf.LocalService, client: sf.Client, lat: float, lon: float, dataset: str
) -> None:
    weather = None
    for array_type, module_type in itertools.product(ArrayType, ModuleType):
        tilt = 0 if array_type in (ArrayType.ONE_AXIS, ArrayType.ONE_AXIS_BACKTRACKING) and lat > 45 else 25
        remote = estimate(client, 5, module_type, 14, array_type, tilt, 180, lat=lat, lon=lon, dataset=dataset, radius=0, timeframe="hourly")
        assert remote.station_info is not None
        if weather is None:
            weather = service.station_weather(remote.station_info.location)
        local = sf.pvwatts.simulate(weather, 5, module_type, 14, array_type, tilt, 180)
        assert remote.ac_annual == local.ac_annual
        assert remote.solrad_annual == local.solrad_annual
        assert remote.capacity_factor == local.capacity_factor
        assert remote.monthly.equals(local.monthly)
        assert remote.hourly is not None and local.hourly is not None
        assert remote.hourly.select(HOURLY).equals(local.hourly.select(HOURLY)), (array_type, module_type)


def test_hourly_frame_shape_units_and_time(client: sf.Client) -> None:
    result = estimate(client, 4, 0, 14, 1, 20, 180, lat=40, lon=-105, timeframe="hourly")
    hourly = result.hourly
    assert hourly is not None and hourly.height == 8760
    assert hourly.columns == ["timestamp", *HOURLY]
    assert hourly.schema["timestamp"] == pl.Datetime("us", "Etc/GMT+7")
    assert hourly["timestamp"].dt.hour().to_list()[:3] == [0, 1, 2]
    assert result.monthly.height == 12 and result.monthly.columns == ["month", "poa", "dc", "ac", "solrad"]
    assert abs(result.monthly["ac"].sum() - result.ac_annual) < 1e-6 * result.ac_annual
    assert abs(hourly["ac"].sum() / 1000 - result.ac_annual) < 1e-6 * result.ac_annual
    assert 10 < result.capacity_factor < 30
    monthly_only = estimate(client, 4, 0, 14, 1, 20, 180, lat=40, lon=-105)
    assert monthly_only.hourly is None and monthly_only.ac_annual == result.ac_annual


def test_json_xml_and_jsonp_parse_to_the_same_result(client: sf.Client) -> None:
    args = (4, ModuleType.PREMIUM, 10, ArrayType.ONE_AXIS_BACKTRACKING, 0, 180)
    as_json = estimate(client, *args, lat=35, lon=-100, timeframe="hourly")
    as_xml = estimate(client, *args, lat=35, lon=-100, timeframe="hourly", format="xml")
    jsonp = estimate(client, *args, lat=35, lon=-100, callback="handleEstimate")
    assert as_xml.hourly is not None and as_json.hourly is not None
    assert as_xml.hourly.equals(as_json.hourly)
    assert as_xml.station_info == as_json.station_info and as_xml.ssc_info == as_json.ssc_info
    assert jsonp.ac_annual == as_json.ac_annual
    assert jsonp.raw.startswith("handleEstimate(")


def test_station_info_and_inputs(client: sf.Client, service: sf.LocalService) -> None:
    result = estimate(client, 4, 0, 14, 1, 20, 180, lat=39.74, lon=-104.99, dataset="tmy3")
    info = result.station_info
    assert info is not None and info.distance is not None and info.distance > 0
    assert info.solar_resource_file.endswith(".csv") and info.location.startswith("1-")
    assert result.inputs["system_capacity"] == "4" and "api_key" not in result.inputs
    assert service.api_key not in result.raw
    assert result.version and result.ssc_info and result.ssc_info.version == 306


def test_file_id_from_v1_works_and_v2_is_refused(client: sf.Client) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.ServiceWarning)
        v1 = client.solar.data_query(39.74, -104.99, version="v1").closest["tmy3"]
        v2 = client.solar.data_query(39.74, -104.99, version="v2").closest["tmy3"]
    assert v1 is not None and v2 is not None
    by_station = estimate(client, 4, 0, 14, 1, 20, 180, file_id=v1)
    by_id = estimate(client, 4, 0, 14, 1, 20, 180, file_id=v1.id)
    by_location = estimate(client, 4, 0, 14, 1, 20, 180, lat=39.74, lon=-104.99, dataset="tmy3")
    assert by_station.ac_annual == by_id.ac_annual == by_location.ac_annual
    with pytest.raises(sf.ParameterError, match="v1 ids work only with the v6 estimator"):
        estimate(client, 4, 0, 14, 1, 20, 180, file_id=v2)
    with pytest.raises(sf.ParameterError, match="v1 ids work only with the v6 estimator"):
        estimate(client, 4, 0, 14, 1, 20, 180, file_id=v2.id)
    with pytest.raises(sf.ValidationError, match="Unable to load data file for file_id specified: 1-999999"):
        estimate(client, 4, 0, 14, 1, 20, 180, file_id="1-999999")


def test_no_station_gives_the_real_422_message(client: sf.Client) -> None:
    with pytest.raises(sf.ValidationError) as caught:
        estimate(client, 4, 0, 14, 1, 20, 180, lat=0, lon=-160, dataset="tmy3", radius=10)
    assert caught.value.status == 422
    assert caught.value.errors == ["No climate data found with dataset=tmy3 for location specified: lat=0 lon=-160"]


BASE = dict(system_capacity=4, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180)


@pytest.mark.parametrize(
    "change, parameter",
    [
        ({"system_capacity": 0.04}, "system_capacity"),
        ({"system_capacity": 500001}, "system_capacity"),
        ({"module_type": 3}, "module_type"),
        ({"module_type": 1.5}, "module_type"),
        ({"losses": -5.1}, "losses"),
        ({"losses": 99.5}, "losses"),
        ({"array_type": 5}, "array_type"),
        ({"tilt": -1}, "tilt"),
        ({"tilt": 90.5}, "tilt"),
        ({"azimuth": 360}, "azimuth"),
        ({"azimuth": -0.1}, "azimuth"),
        ({"lat": 90.1}, "lat"),
        ({"lon": -180.5}, "lon"),
        ({"dataset": "nsrdb"}, "dataset"),
        ({"radius": -1}, "radius"),
        ({"timeframe": "daily"}, "timeframe"),
        ({"dc_ac_ratio": 0}, "dc_ac_ratio"),
        ({"gcr": 3.1}, "gcr"),
        ({"inv_eff": 89.9}, "inv_eff"),
        ({"inv_eff": 99.6}, "inv_eff"),
        ({"format": "csv"}, "format"),
        ({"callback": "alert(1)"}, "callback"),
        ({"callback": "cb", "format": "xml"}, "callback"),
        ({"file_id": "1-724699"}, "file_id"),
        ({"lat": None}, "lat"),
        ({"tilt": "steep"}, "tilt"),
    ],
)
def test_every_invalid_parameter_is_named_and_nothing_is_sent(
    client: sf.Client, service: sf.LocalService, change: dict[str, object], parameter: str
) -> None:
    arguments = {**BASE, "lat": 40.0, "lon": -105.0, **change}
    positional = [arguments.pop(name) for name in BASE]
    with pytest.raises(sf.ParameterError) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.UnitWarning)  # 500001 kW on a roof also warns
        client.pv.estimate(*positional, **arguments)  # type: ignore[arg-type]
    assert any(str(problem).startswith(parameter) for problem in caught.value.errors), caught.value.errors
    assert service.hits() == {}


def test_all_problems_at_once(client: sf.Client) -> None:
    with pytest.raises(sf.ParameterError) as caught:
        client.pv.estimate(0, 9, 100, 9, 100, 400, lat=100, lon=200, gcr=5, inv_eff=50)
    assert len(caught.value.errors) == 10


@pytest.mark.parametrize("fmt", ["json", "xml"])
def test_hand_sent_bad_request_gets_422_with_the_client_wording(client: sf.Client, fmt: str) -> None:
    with pytest.raises(sf.ValidationError) as caught:
        client.request("GET", "pv_estimator", args={"format": fmt}, params={**BASE, "tilt": 95, "lat": 40, "lon": -105, "gcr": 4})
    assert caught.value.status == 422
    assert "tilt must be between 0 and 90 (got 95)" in caught.value.errors
    assert "gcr must be between 0 and 3 (got 4)" in caught.value.errors


def test_a_system_is_the_estimators_parameters(service: sf.LocalService, client: sf.Client) -> None:
    """``client.pv.estimate(**system, lat=..., lon=...)``: the same request and answer as the
    parameters one by one, checked by the same rules."""
    system = sf.System(5, ModuleType.PREMIUM, 10, ArrayType.FIXED_OPEN_RACK, 30, 170, dc_ac_ratio=1.3)
    given = estimate(client, **system, lat=40.0, lon=-105.0, timeframe="hourly")
    spelled = estimate(client, 5, 1, 10, 0, 30, 170, lat=40.0, lon=-105.0, timeframe="hourly", dc_ac_ratio=1.3)
    assert given.ac_annual == spelled.ac_annual and given.inputs == spelled.inputs
    with pytest.raises(sf.ParameterError, match="tilt"):
        client.pv.estimate(**sf.System(5, 1, 10, 0, 95, 170), lat=40.0, lon=-105.0)


def test_nlr_route_profile_reaches_the_alias_path(service: sf.LocalService) -> None:
    client = service.client(routes="nlr")
    assert client.url("pv_estimator", format="json").endswith("/api/pvwatts/v6.json")
    assert estimate(client, 4, 0, 14, 1, 20, 180, lat=40, lon=-105, version="v6").ac_annual > 0
    assert "/api/pvwatts/v6.json" in service.hits()


def test_http_200_with_errors_raises(loopback: LoopbackServer) -> None:
    body = b'{"inputs":{},"errors":["An internal error occurred in the pvwattsv5 module."],"warnings":[],"version":"1.4.0","outputs":{}}'
    loopback.handler = lambda request: reply(request, 200, body)
    client = sf.Client(api_key="a" * 40, base_url=loopback.url, routes="spec")
    with pytest.raises(sf.ApiError, match="internal error occurred in the pvwattsv5 module"):
        client.pv.estimate(**BASE, lat=40, lon=-105)  # type: ignore[arg-type]
    xml = b'<?xml version="1.0"?><response><errors type="array"><error>An internal error occurred in the pvwattsv5 module.</error></errors><outputs type="hash"/></response>'
    loopback.handler = lambda request: reply(request, 200, xml, {"content-type": "application/xml"})
    with pytest.raises(sf.ApiError, match="internal error"):
        client.pv.estimate(**BASE, lat=40, lon=-105, format="xml")  # type: ignore[arg-type]


def test_real_v6_body_parses() -> None:
    body = (
        '{"inputs":{"lat":"40","lon":"-105","system_capacity":"4","azimuth":"180","tilt":"40","array_type":"1",'
        '"module_type":"1","losses":"10"},"errors":[],"warnings":[],"version":"1.4.0","ssc_info":{"version":45,'
        '"build":"Linux 64 bit GNU/C++ Jul  7 2015 14:24:09"},"station_info":{"lat":40.0099983215332,"lon":'
        '-105.0199966430664,"elev":1581.84,"tz":-7,"location":"None","city":"","state":"Colorado",'
        '"solar_resource_file":"W10502N4001.csv","distance":2029},"outputs":{"ac_monthly":[1,2,3,4,5,6,7,8,9,10,11,12],'
        '"poa_monthly":[1,2,3,4,5,6,7,8,9,10,11,12],"solrad_monthly":[1,2,3,4,5,6,7,8,9,10,11,12],'
        '"dc_monthly":[1,2,3,4,5,6,7,8,9,10,11,12],"ac_annual":6575.3188,"solrad_annual":5.618,"capacity_factor":18.765}}'
    )
    result = parse_estimate(body)
    assert result.ac_annual == 6575.3188 and result.capacity_factor == 18.765
    assert result.station_info is not None and result.station_info.location == "None" and result.station_info.distance == 2029
    assert result.inputs["tilt"] == "40" and result.monthly["ac"].to_list() == list(map(float, range(1, 13)))
    assert parse_estimate(f"cb({body});").ac_annual == 6575.3188


def test_async_estimate(service: sf.LocalService) -> None:
    async def main() -> list[float]:
        client = service.async_client()
        results = await asyncio.gather(*(client.pv.estimate(4, 0, 14, a, 20, 180, lat=40, lon=-105) for a in range(5)))
        return [r.ac_annual for r in results]

    annual = asyncio.run(main())
    assert len(set(annual)) == 5 and all(a > 0 for a in annual)


def test_enums_are_ints() -> None:
    assert ModuleType.PREMIUM == 1 and ArrayType.ONE_AXIS_BACKTRACKING == 3 and ArrayType.TWO_AXIS == 4
