"""Fixtures of the climate tests: an embedded service whose limits never make a test wait, its
client, one that serves the whole world, and the bodies fetched once per run."""

from __future__ import annotations

import urllib.request
from typing import Iterator

import pytest

import sunflux as sf
from support.climate import csv_params, DENVER, EMAIL, point_wkt, QUICK, quick_limits, Samples, SLUG, TWO_POINTS, WORLD


@pytest.fixture
def climate_service() -> Iterator[sf.LocalService]:
    """An embedded service whose climate limits never make a test wait."""
    with sf.LocalService(climate=QUICK) as service:
        yield service


@pytest.fixture
def climate_client(climate_service: sf.LocalService) -> sf.Client:
    return climate_service.client(limits=quick_limits(), backoff=0.01)


@pytest.fixture(scope="module")
def world_client() -> Iterator[sf.Client]:
    """A client of an embedded service whose data sets serve every point (`WORLD`)."""
    with sf.LocalService(climate=WORLD) as service:
        yield service.client(limits=quick_limits(), backoff=0.01)


@pytest.fixture(scope="session")
def samples() -> Samples:
    with sf.LocalService(climate=QUICK) as service:
        client = service.client(limits=quick_limits())
        csv_body = client.request(
            "GET", "climate_download", args={"dataset": SLUG, "format": "csv"}, params=csv_params(*DENVER, 2010)
        ).content
        table = client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL)
        attributes = ["ghi", "temperature_2m"]
        answer = client.climate.request(SLUG, wkt=point_wkt(TWO_POINTS), years=[2011, 2010], email=EMAIL, attributes=attributes)
        download = client.climate.fetch(answer.download_url, timeout=30)
        with urllib.request.urlopen(answer.download_url) as response:
            zip_body = response.read()
        point_tables = {
            (lat, lon, year): client.climate.download_csv(SLUG, lat=lat, lon=lon, year=year, email=EMAIL, attributes=attributes)
            for lat, lon in TWO_POINTS
            for year in (2010, 2011)
        }
    return Samples(csv_body, table, zip_body, download, point_tables)
