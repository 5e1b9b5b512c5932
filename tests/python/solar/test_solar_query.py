"""Solar dataset query v1/v2 against the embedded service: formats, versions, warnings, all=1,
validation, 422 answers and the v1/v2 id rule."""

from __future__ import annotations

import asyncio
import json
import warnings
from typing import Any, Callable

import polars as pl
import pytest

import sunflux as sf
from support.paths import DATA
from support.loopback import LoopbackServer, reply
from sunflux.solar import parse_data_query



def query(client: sf.Client, *args: object, **kwargs: object) -> sf.solar.StationQuery:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.ServiceWarning)
        return client.solar.data_query(*args, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_three_formats_parse_to_the_same_result(client: sf.Client, version: str) -> None:
    results = {fmt: query(client, 39.74, -104.99, version=version, format=fmt) for fmt in ("json", "xml", "csv")}
    reference = results["json"]
    assert set(reference.closest) == {"tmy2", "tmy3", "intl", "satdb"}
    for fmt, result in results.items():
        assert result.closest == reference.closest, fmt
        assert result.warnings == reference.warnings, fmt
        assert result.to_polars().equals(reference.to_polars()), fmt
        assert result.query_version == version


def test_v1_and_v2_differ_as_the_spec_says(client: sf.Client, service: sf.LocalService) -> None:
    v1 = query(client, 40.0, -105.0, version="v1")
    v2 = query(client, 40.0, -105.0, version="v2")
    assert all(s is None or s.weather_data_source is None for s in v1.closest.values())
    assert all(s is None or (s.weather_data_source or "").lower().find("synthetic") >= 0 for s in v2.closest.values())
    satdb = v2.closest["satdb"]
    assert satdb is not None and satdb.country and satdb.resolution
    assert "api_key" not in v1.inputs and "api_key" not in v2.inputs
    assert service.api_key not in v2.raw
    assert isinstance(v1.version, str) and isinstance(v2.version, str)
    assert v1.metadata == {} and v2.metadata == {}


def test_dataset_without_station_is_none_with_a_note_on_the_result_not_a_python_warning(client: sf.Client) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = client.solar.data_query(40.0, -105.0)
    assert result.closest["intl"] is None
    assert "No intl data found for lat=40.0 lon=-105.0" in result.warnings


def answer_from(loopback: LoopbackServer, client: sf.Client, edit: Callable[[dict[str, Any]], None]) -> sf.Client:
    """A client of a loopback server that answers the local service's v2 answer at Denver, edited."""
    body = json.loads(client.request("GET", "data_query", args={"version": "v2", "format": "json"}, params={"lat": 40.0, "lon": -105.0}).content)
    edit(body)
    loopback.handler = lambda request: reply(request, 200, json.dumps(body).encode(), {"content-type": "application/json"})
    return sf.Client(api_key="k" * 40, base_url=loopback.url, throttle=False)


def test_no_station_in_any_dataset_is_raised_as_a_service_warning(loopback: LoopbackServer, client: sf.Client) -> None:
    def nowhere(body: dict[str, Any]) -> None:
        body["outputs"] = {code: None for code in body["outputs"]}
        body["warnings"] = [f"No {code} data found for lat=40.0 lon=-105.0" for code in body["outputs"]]

    with pytest.warns(sf.ServiceWarning) as caught:
        result = answer_from(loopback, client, nowhere).solar.data_query(40.0, -105.0)
    assert all(station is None for station in result.closest.values())
    assert sorted(str(w.message) for w in caught if w.category is sf.ServiceWarning) == sorted(result.warnings)


def test_other_service_warnings_are_raised(loopback: LoopbackServer, client: sf.Client) -> None:
    with pytest.warns(sf.ServiceWarning, match="under maintenance") as caught:
        answer_from(loopback, client, lambda body: body["warnings"].append("The station data are under maintenance")).solar.data_query(40.0, -105.0)
    assert [str(w.message) for w in caught if w.category is sf.ServiceWarning] == ["The station data are under maintenance"]


def test_all_stations_are_ordered_by_distance_and_carry_their_dataset(client: sf.Client) -> None:
    result = query(client, 40.0, -105.0, version="v1", all=True, radius=100)
    stations = result.all_stations
    assert stations is not None and len(stations) > 10
    distances = [s.distance for s in stations]
    assert distances == sorted(distances)
    assert {s.dataset for s in stations} <= {"tmy2", "tmy3", "intl", "satdb"}
    assert all(s.distance <= 100 * 1609.344 + 1 for s in stations)
    frame = result.to_polars()
    assert frame.height == len(stations)
    assert frame.schema["distance"] == pl.Int64 and frame.schema["lat"] == pl.Float64
    assert frame["resolution"].null_count() > 0


def test_radius_zero_always_finds_the_closest(client: sf.Client) -> None:
    result = query(client, -33.9, 18.4, radius=0)
    assert result.closest["intl"] is not None
    assert result.warnings == [f"No {d} data found for lat=-33.9 lon=18.4" for d in ("tmy2", "tmy3")] or all(
        "No" in w for w in result.warnings
    )


@pytest.mark.parametrize(
    "kwargs, parameter",
    [
        ({"lat": 91}, "lat"),
        ({"lat": -90.5}, "lat"),
        ({"lon": 180.1}, "lon"),
        ({"lat": "north"}, "lat"),
        ({"radius": -1}, "radius"),
        ({"radius": 2001}, "radius"),
        ({"radius": 2.5}, "radius"),
        ({"all": 2}, "all"),
        ({"all": True, "radius": 0}, "all"),
        ({"version": "v3"}, "version"),
        ({"format": "yaml"}, "format"),
    ],
)
def test_every_invalid_parameter_is_named_and_nothing_is_sent(
    client: sf.Client, service: sf.LocalService, kwargs: dict[str, object], parameter: str
) -> None:
    args = {"lat": 40.0, "lon": -105.0, **kwargs}
    lat, lon = args.pop("lat"), args.pop("lon")
    with pytest.raises(sf.ParameterError) as caught:
        client.solar.data_query(lat, lon, **args)  # type: ignore[arg-type]
    assert any(str(e).startswith(parameter) for e in caught.value.errors), caught.value.errors
    assert service.hits() == {}


def test_all_problems_are_reported_at_once(client: sf.Client) -> None:
    with pytest.raises(sf.ParameterError) as caught:
        client.solar.data_query(100, 200, radius=-5, version="v9")
    assert len(caught.value.errors) == 4


@pytest.mark.parametrize("fmt", ["json", "xml", "csv"])
def test_hand_sent_invalid_request_gets_422_with_errors(client: sf.Client, fmt: str) -> None:
    with pytest.raises(sf.ValidationError) as caught:
        client.request("GET", "data_query", args={"version": "v2", "format": fmt}, params={"lat": 95, "lon": 10, "all": 1, "radius": 0})
    assert caught.value.status == 422
    assert any("lat" in e for e in caught.value.errors)
    assert any("all" in e for e in caught.value.errors)


def test_missing_parameters_get_422(client: sf.Client) -> None:
    with pytest.raises(sf.ValidationError, match="lat"):
        client.request("GET", "data_query", args={"version": "v1", "format": "json"})


def test_v1_station_is_a_file_id_and_v2_is_not(client: sf.Client) -> None:
    v1 = query(client, 40.0, -105.0, version="v1").closest["tmy3"]
    v2 = query(client, 40.0, -105.0, version="v2").closest["tmy3"]
    assert v1 is not None and v2 is not None
    assert v1.file_id == v1.id
    with pytest.raises(sf.ParameterError, match="v1 ids work only with the v6 estimator"):
        _ = v2.file_id


def test_real_response_bodies_parse() -> None:
    body = (DATA / "data_query_v1_all.json").read_bytes()
    result = parse_data_query(body, 40, -105, radius=50, all=True, version="v1")
    assert result.version == "1.3.1"
    assert "nsrdb" in result.closest and result.closest["intl"] is None
    assert result.all_stations and {s.dataset for s in result.all_stations} >= {"nsrdb"}
    v2 = parse_data_query((DATA / "data_query_v2_radius0.json").read_bytes(), 40, -105, radius=0, version="v2")
    assert v2.closest["intl"] is not None and v2.closest["intl"].city == "YELLOWKNIFE"
    assert "api_key" not in v2.inputs
    perez = parse_data_query((DATA / "data_query_v1_perez.json").read_bytes(), 40, -105, version="v1")
    assert "perez" in perez.closest


def test_pandas_and_pyarrow_views(client: sf.Client) -> None:
    result = query(client, 40.0, -105.0, version="v1", all=True, radius=30)
    assert len(result.to_pandas()) == len(result.to_arrow()) == result.to_polars().height
    assert pl.DataFrame(result).height == result.to_polars().height


def test_async_data_query(service: sf.LocalService) -> None:
    async def main() -> list[str | None]:
        client = service.async_client()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sf.ServiceWarning)
            results = await asyncio.gather(*(client.solar.data_query(30 + i, -100) for i in range(5)))
        return [r.closest["tmy3"].id if r.closest["tmy3"] else None for r in results]

    ids = asyncio.run(main())
    assert len(ids) == 5 and all(ids)


def test_same_query_same_answer(client: sf.Client) -> None:
    first = query(client, 35.0, -90.0, version="v1", all=True, radius=200)
    second = query(client, 35.0, -90.0, version="v1", all=True, radius=200)
    assert first.all_stations == second.all_stations
    assert json.loads(first.raw) == json.loads(second.raw)
