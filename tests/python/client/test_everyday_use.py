"""Everyday use (issue #32): messages at the edges of the API (a missing argument named with the
public call, pvlib's argument names, a client without a key, the e-mail kept out of error URLs,
a time-of-use tariff of the wrong length), the "synthetic" label on the embedded service's frames
and reprs, the pytest plugin's async and session fixtures, and pandas frames with a
`DatetimeIndex`."""

from __future__ import annotations

import asyncio
import gzip
import io
import warnings
import zipfile

import pandas as pd
import pyarrow as pa
import pytest

import sunflux as sf
from sunflux.optimizer import ElectricTariff
from sunflux.pvwatts import read_weather, simulate, simulate_many

from support.paths import DATA
from support.loopback import LoopbackServer, reply

#: ``pytester`` runs a user's test file against the sunflux plugin.
pytest_plugins = ["pytester"]

SLUG = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"
EMAIL = "analyst@example.org"
KEY = "0123456789abcdefghijKLMNOPQRSTuvwxyz0123"
#: A base URL nothing listens on: the calls below must fail before anything is sent.
NOWHERE = "http://127.0.0.1:9"
SYSTEM = dict(system_capacity=4, module_type=0, losses=14, array_type=1)
#: A committed TMY3 year.
TMY3 = read_weather(gzip.decompress((DATA / "723170TYA.CSV.gz").read_bytes()))


# ---------------------------------------------------------------------------------------------
# Edge messages


def test_a_missing_email_names_the_public_call_and_the_argument() -> None:
    client = sf.Client(api_key=KEY, base_url=NOWHERE)
    with pytest.raises(sf.ArgumentError) as caught:
        client.climate.download_csv(SLUG, lat=39.74, lon=-105.18, year=2010)  # type: ignore[call-arg]
    assert str(caught.value) == "ClimateService.download_csv() needs email="
    assert isinstance(caught.value, sf.ParameterError) and isinstance(caught.value, TypeError)
    assert "_ClimateBase" not in str(caught.value)


def test_a_missing_email_on_the_async_client_names_its_public_call() -> None:
    async def call() -> None:
        async with sf.AsyncClient(api_key=KEY, base_url=NOWHERE) as client:
            await client.climate.bulk(SLUG, points=[(39.74, -105.18)], years=[2010])  # type: ignore[call-arg]

    with pytest.raises(sf.ArgumentError, match=r"^AsyncClimateService\.bulk\(\) needs email=$"):
        asyncio.run(call())


def test_pvlib_argument_names_are_told_sunflux_names() -> None:
    with pytest.raises(sf.ArgumentError) as caught:
        simulate("weather.csv", **SYSTEM, surface_tilt=20, surface_azimuth=180)  # type: ignore[call-arg]
    assert caught.value.errors == [
        "sunflux.pvwatts.simulate() has no argument surface_tilt= (pvlib's surface_tilt is sunflux's tilt=)",
        "sunflux.pvwatts.simulate() has no argument surface_azimuth= (pvlib's surface_azimuth is sunflux's azimuth=)",
        "sunflux.pvwatts.simulate() needs tilt=",
        "sunflux.pvwatts.simulate() needs azimuth=",
    ]
    client = sf.Client(api_key=KEY, base_url=NOWHERE)
    with pytest.raises(sf.ArgumentError, match=r"PvService\.estimate\(\) has no argument surface_tilt= \(pvlib's surface_tilt is sunflux's tilt=\)"):
        client.pv.estimate(**SYSTEM, surface_tilt=20, azimuth=180, lat=39.7, lon=-105.2)  # type: ignore[call-arg]
    with pytest.raises(sf.ArgumentError, match=r"simulate_many\(\) has no argument surface_tilt="):
        simulate_many("weather.csv", [], surface_tilt=20)  # type: ignore[call-overload]
    with pytest.raises(sf.ParameterError, match=r"systems\[0\] has unknown fields \['surface_tilt'\].*\(pvlib's surface_tilt is sunflux's tilt=\)"):
        simulate_many(TMY3, [dict(SYSTEM, surface_tilt=20, azimuth=180)])
    with pytest.raises(sf.ArgumentError, match=r"sunflux\.pvwatts\.read_weather\(\) has no argument threads="):
        sf.pvwatts.read_weather(TMY3, threads=2)  # type: ignore[call-arg]


def test_a_type_error_from_inside_a_call_is_kept() -> None:
    client = sf.Client(api_key=KEY, base_url=NOWHERE)
    with pytest.raises(TypeError) as caught:
        client.climate.bulk(SLUG, points=[(39.74, -105.18)], years=[2010], email=EMAIL, cache_dir=3.5)  # type: ignore[arg-type]
    assert not isinstance(caught.value, sf.ArgumentError)


def test_a_client_without_a_key_is_told_how_to_give_one(service: sf.LocalService, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in sf._client.API_KEY_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        keyless = sf.Client(base_url=service.base_url, routes="spec")
    with pytest.raises(sf.AuthError) as caught:
        keyless.pv.estimate(**SYSTEM, tilt=20, azimuth=180, lat=39.7, lon=-105.2)
    assert caught.value.code == "API_KEY_MISSING"
    assert "this client has no API key: give sunflux.Client an api_key or set SUNFLUX_API_KEY" in str(caught.value)
    wrong = sf.Client(api_key="w" * 40, base_url=service.base_url, routes="spec")
    with pytest.raises(sf.AuthError) as refused:
        wrong.pv.estimate(**SYSTEM, tilt=20, azimuth=180, lat=39.7, lon=-105.2)
    assert "no API key" not in str(refused.value)


def test_error_urls_do_not_show_the_email(loopback: LoopbackServer) -> None:
    loopback.handler = lambda request: reply(request, 500, b'{"errors":["Data processing failure"]}', {"content-type": "application/json"})
    client = sf.Client(api_key=KEY, base_url=loopback.url, retries=0, throttle=False)
    with pytest.raises(sf.ApiError) as caught:
        client.climate.download_csv(SLUG, lat=39.74, lon=-105.18, year=2010, email=EMAIL)
    assert "email" in str(loopback.seen[0]["path"])
    shown = " ".join([str(caught.value), repr(caught.value), caught.value.url, caught.value.body])
    assert "email=***" in caught.value.url
    assert "analyst" not in shown and "example.org" not in shown


def test_a_tou_tariff_of_the_wrong_length_is_refused_at_once() -> None:
    with pytest.raises(sf.ParameterError, match=r"24 hourly prices of a day or 8760 prices .*got 23"):
        ElectricTariff.tou([0.1] * 23)
    with pytest.raises(sf.ParameterError, match=r"or 17520 prices of the year \(8760 x time_steps_per_hour=2\); got 8760"):
        ElectricTariff.tou([0.1] * 8760, time_steps_per_hour=2)
    assert len(ElectricTariff.tou([0.1] * 17520, time_steps_per_hour=2).tou_energy_rates_per_kwh or []) == 17520


# ---------------------------------------------------------------------------------------------
# Synthetic data


@pytest.fixture(scope="module")
def climate_csv() -> bytes:
    """Denver 2010 (ghi and the air temperature) as the embedded service streams it."""
    with sf.LocalService() as service:
        query = {"wkt": "POINT(-105.18 39.74)", "names": 2010, "interval": 60, "email": EMAIL, "attributes": "ghi,temperature_2m"}
        return service.client().request("GET", "climate_download", args={"dataset": SLUG, "format": "csv"}, params=query).content


def test_synthetic_weather_is_labelled_in_arrow_pandas_and_reprs(climate_csv: bytes) -> None:
    table = sf.climate.parse_csv(climate_csv)
    assert table.metadata.synthetic and repr(table).endswith(" attributes, synthetic)")
    assert repr(table.metadata).endswith(", synthetic)")
    assert pa.table(table).schema.metadata[b"synthetic"] == b"true"
    assert table.to_pandas().attrs == {"synthetic": True}
    measured = sf.climate.parse_csv(climate_csv.replace(b"sunflux synthetic weather", b"NSRDB", 1))
    assert not measured.metadata.synthetic and "synthetic" not in repr(measured)
    assert b"synthetic" not in (pa.table(measured).schema.metadata or {}) and measured.to_pandas().attrs == {}


def test_a_download_zip_and_an_estimate_from_the_embedded_service_are_labelled(service: sf.LocalService) -> None:
    client = service.client()
    request = client.climate.request(SLUG, wkt="POINT(-105.18 39.74)", years=[2010], email=EMAIL, attributes="ghi")
    download = client.climate.fetch(request.download_url)
    assert download.synthetic and repr(download).endswith(" rows, synthetic)")
    assert download.to_pandas().attrs == {"synthetic": True}
    estimate = client.pv.estimate(**SYSTEM, tilt=20, azimuth=180, lat=39.74, lon=-105.18)
    assert estimate.synthetic and repr(estimate).endswith(", monthly, synthetic)")


# ---------------------------------------------------------------------------------------------
# pandas with a DatetimeIndex


def test_to_pandas_index_gives_a_datetime_index(climate_csv: bytes, service: sf.LocalService) -> None:
    table = sf.climate.parse_csv(climate_csv)
    plain, indexed = table.to_pandas(), table.to_pandas(index=True)
    assert isinstance(plain.index, pd.RangeIndex) and "timestamp" in plain.columns
    assert isinstance(indexed.index, pd.DatetimeIndex) and indexed.index.tz is not None and indexed.index.name == "timestamp"
    assert "timestamp" not in indexed.columns and len(indexed) == 8760
    assert list(indexed.index) == list(plain["timestamp"]) and indexed["ghi"].tolist() == table.data["ghi"].to_list()
    hourly = service.client().pv.estimate(**SYSTEM, tilt=20, azimuth=180, lat=39.74, lon=-105.18, timeframe="hourly")
    assert isinstance(hourly.to_pandas(index=True).index, pd.DatetimeIndex)
    monthly = simulate(TMY3, **SYSTEM, tilt=20, azimuth=180, timeframe="monthly")
    with pytest.raises(sf.ParameterError, match="index=True needs a timestamp column"):
        monthly.to_pandas(index=True)
    download_frame = sf.climate.parse_zip(zip_of(climate_csv)).to_pandas(index=True)
    assert isinstance(download_frame.index, pd.DatetimeIndex) and list(download_frame.columns[:2]) == ["site", "year"]


def zip_of(csv: bytes) -> bytes:
    """A download zip holding one CSV."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("0_39.74_-105.18_2010.csv", csv)
    return buffer.getvalue()


# ---------------------------------------------------------------------------------------------
# pytest plugin

PLUGIN_USER_TESTS = '''
import asyncio

import sunflux as sf

SEEN = []


def status(client):
    return client.request("GET", "local_status", args={"format": "json"})


def test_first(sunflux_service_session, sunflux_client_session):
    SEEN.append(sunflux_service_session.base_url)
    assert status(sunflux_client_session).status == 200


def test_second(sunflux_service_session, sunflux_service, sunflux_async_client, sunflux_async_client_session):
    SEEN.append(sunflux_service_session.base_url)
    assert SEEN[0] == SEEN[1] and sunflux_service.base_url != SEEN[0]
    assert isinstance(sunflux_async_client, sf.AsyncClient) and isinstance(sunflux_async_client_session, sf.AsyncClient)

    async def both():
        return (await status(sunflux_async_client)).status, (await status(sunflux_async_client_session)).status

    assert asyncio.run(both()) == (200, 200)
'''


def test_the_plugin_gives_async_and_session_fixtures(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plugin_user=PLUGIN_USER_TESTS)
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
