"""Everything a user sends through a cluster pickles and comes back equal: `Weather` (as one
Arrow IPC stream, its buffer out of band with protocol 5), `ClimateTable`, `PvEstimate`,
`Scenario`, `OptimizerResult` and every exception class."""

from __future__ import annotations

import gzip
import pickle
from pathlib import Path

import polars as pl
import pytest

import sunflux as sf
from sunflux.optimizer import Scenario
from sunflux.optimizer.jobs import OptimizerResult
from sunflux.pvwatts import Weather, read_weather, simulate
from support.paths import DATA
from support.job_server import results_body

WEATHER_FILES = [
    DATA / "723170TYA.CSV.gz",
    DATA / "703165TY.csv.gz",
    DATA / "12839.tm2.gz",
    DATA / "weather_formats" / "greensboro_30min.epw.gz",
    DATA / "weather_formats" / "greensboro_2020_with_feb29.csv.gz",
    DATA / "weather_formats" / "delhi_half_hour_zone.csv.gz",
]
PROTOCOLS = [4, 5]


def unzipped(path: Path, folder: Path) -> Path:
    target = folder / path.name.removesuffix(".gz")
    target.write_bytes(gzip.decompress(path.read_bytes()))
    return target


def weather_facts(weather: Weather) -> tuple[object, ...]:
    return (
        weather.lat, weather.lon, weather.tz, weather.elevation, weather.city, weather.state, weather.country,
        weather.location_id, weather.source, weather.instantaneous, weather.steps_per_hour, weather.has_leap_day, len(weather),
    )


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("path", WEATHER_FILES, ids=lambda p: p.name)
def test_weather_round_trips(path: Path, protocol: int, tmp_path: Path) -> None:
    weather = read_weather(unzipped(path, tmp_path))
    copy = pickle.loads(pickle.dumps(weather, protocol=protocol))
    assert isinstance(copy, Weather)
    assert weather_facts(copy) == weather_facts(weather)
    assert copy.to_arrow().equals(weather.to_arrow()), "every column, the timestamps included"
    system = dict(system_capacity=4, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180)
    assert simulate(copy, **system).hourly.equals(simulate(weather, **system).hourly)


def test_weather_travels_as_one_arrow_buffer(tmp_path: Path) -> None:
    """With protocol 5 the columns leave as one out-of-band buffer (no Python floats)."""
    weather = read_weather(unzipped(WEATHER_FILES[0], tmp_path))
    buffers: list[pickle.PickleBuffer] = []
    inline = pickle.dumps(weather, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and buffers[0].raw().nbytes > 8760 * 5 * 8
    assert len(inline) < 1000, "only the rebuild call and the buffer reference are in the pickle"
    copy = pickle.loads(inline, buffers=buffers)
    assert copy.to_arrow().equals(weather.to_arrow())


def test_a_table_weather_round_trips() -> None:
    """A weather built from a table (values as given, no file rounding) with a place."""
    hours = pl.datetime_range(pl.datetime(2021, 1, 1), pl.datetime(2021, 12, 31, 23), "1h", eager=True)
    frame = pl.DataFrame({"timestamp": hours}).with_columns(
        ghi=(pl.col("timestamp").dt.hour() - 12).abs().mul(-1.0).add(6).clip(0) * 117.3,
        dni=pl.lit(412.123456789), dhi=pl.lit(51.5), temp_air=pl.lit(11.25), wind_speed=pl.lit(2.5), pressure=pl.lit(1003.0),
    )
    weather = read_weather(frame, lat=35.123456789, lon=-106.6, tz=-7, elevation=1619.5)
    copy = pickle.loads(pickle.dumps(weather))
    assert weather_facts(copy) == weather_facts(weather)
    assert copy.to_arrow().equals(weather.to_arrow())


@pytest.mark.parametrize("timeframe", ["hourly", "monthly"])
def test_pv_estimate_round_trips(timeframe: str, tmp_path: Path) -> None:
    weather = read_weather(unzipped(WEATHER_FILES[2], tmp_path))
    estimate = simulate(weather, 4, 0, 14, 1, 20, 180, timeframe=timeframe)
    copy = pickle.loads(pickle.dumps(estimate, protocol=5))
    for name in ("ac_annual", "solrad_annual", "capacity_factor", "version", "warnings", "errors", "raw", "inputs",
                 "station_info", "ssc_info"):
        assert getattr(copy, name) == getattr(estimate, name), name
    assert copy.monthly.equals(estimate.monthly)
    assert (copy.hourly is None) == (estimate.hourly is None)
    if estimate.hourly is not None:
        assert copy.hourly.equals(estimate.hourly)
    assert copy.to_pandas().equals(estimate.to_pandas())
    assert copy.to_pandas().equals(estimate.to_pandas()), "a second conversion works on the copy too"
    assert repr(copy) == repr(estimate)


def test_service_estimate_round_trips(client: sf.Client) -> None:
    """An estimator answer (station info, SSC info, raw body) survives a pickle."""
    estimate = client.pv.estimate(4, 0, 14, 1, 20, 180, lat=39.74, lon=-105.18, timeframe="hourly")
    copy = pickle.loads(pickle.dumps(estimate))
    assert copy.station_info == estimate.station_info and copy.station_info is not None
    assert copy.ssc_info == estimate.ssc_info and copy.raw == estimate.raw and copy.inputs == estimate.inputs
    assert copy.hourly.equals(estimate.hourly) and copy.ac_annual == estimate.ac_annual


def test_climate_table_round_trips(client: sf.Client) -> None:
    table = client.climate.download_csv("nsrdb-GOES-aggregated-v4-0-0", lat=39.74, lon=-105.18, year=2020,
                                        email="analyst@example.org")
    copy = pickle.loads(pickle.dumps(table, protocol=5))
    assert copy.data.equals(table.data)
    assert copy.metadata == table.metadata
    assert copy.to_pandas().equals(table.to_pandas()) and copy.to_pandas().equals(table.to_pandas())
    assert pl.DataFrame(copy).equals(pl.DataFrame(table)), "the Arrow stream export"
    assert weather_facts(copy.weather()) == weather_facts(table.weather())
    assert copy.weather().to_arrow().equals(table.weather().to_arrow())


def test_scenario_round_trips() -> None:
    scenario = Scenario.from_dict(
        {"Site": {"latitude": 39.7407, "longitude": -105.1686}, "ElectricLoad": {"doe_reference_name": "Hospital",
         "annual_kwh": 1_000_000}, "ElectricTariff": {"blended_annual_energy_rate": 0.12, "blended_annual_demand_rate": 12},
         "PV": {"max_kw": 500}}
    )
    copy = pickle.loads(pickle.dumps(scenario, protocol=5))
    assert copy == scenario and copy.to_dict() == scenario.to_dict()


def test_optimizer_result_round_trips() -> None:
    result = OptimizerResult(results_body(), http_status=200)
    copy = pickle.loads(pickle.dumps(result, protocol=5))
    assert copy.raw == result.raw and copy.http_status == result.http_status and copy.status == result.status
    assert copy.outputs.PV.size_kw == result.outputs.PV.size_kw
    assert copy.series().equals(result.series())
    assert repr(copy) == repr(result)


def error_instances() -> list[Exception]:
    api = dict(status=429, errors=["slow down"], code="OVER_RATE_LIMIT", body='{"error": {}}', url="http://x/y",
               retry_after=3.5, remaining=0)
    return [
        sf.SunfluxError("base"),
        sf.ParameterError(["tilt must be 0-90", "losses must be -5-99"]),
        sf.MissingFileError("weather file not found: /nowhere"),
        sf.ArgumentError(["ClimateService.download_csv() needs email="]),
        sf.TransportError("connection refused"),
        *(cls("answered", **api) for cls in (sf.ApiError, sf.ValidationError, sf.AuthError, sf.RateLimitError,
                                             sf.QueueFullError, sf.NotFoundError, sf.ServerError)),
        sf.JobFailed("optimizer failed", job_id="abc", messages={"errors": ["infeasible"]}, status="error"),
        sf.JobTimeout("still running", job_id="abc", last_status="Optimizing..."),
    ]


def test_every_error_class_is_covered() -> None:
    def subclasses(cls: type) -> set[type]:
        return {cls} | {s for sub in cls.__subclasses__() for s in subclasses(sub)}

    public = {cls for cls in subclasses(sf.SunfluxError) if cls.__module__.startswith("sunflux") and not cls.__name__.startswith("_")}
    assert public == {type(error) for error in error_instances()}


@pytest.mark.parametrize("error", error_instances(), ids=lambda e: type(e).__name__)
def test_errors_round_trip(error: Exception) -> None:
    copy = pickle.loads(pickle.dumps(error, protocol=5))
    assert type(copy) is type(error) and str(copy) == str(error) and repr(copy) == repr(error)
    attributes = {k: v for k, v in vars(error).items() if not k.startswith("__")}
    assert {k: v for k, v in vars(copy).items() if not k.startswith("__")} == attributes
