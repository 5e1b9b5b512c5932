"""What the climate tests share: the data set, sites and e-mail they ask for, service settings
that never make a test wait, the paths and hit counts of the embedded service, what a loopback
server captured, and the bodies fetched once (``Samples``)."""

from __future__ import annotations

import calendar
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import polars as pl

import sunflux as sf
from sunflux.climate import ClimateDownload, ClimateTable
from support.loopback import LoopbackServer, reply


SLUG = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"
EMAIL = "analyst@example.org"
KEY = "0123456789abcdefghijKLMNOPQRSTuvwxyz0123"
OTHER_KEY = "ZYXWVUTSRQponmlkjihg9876543210abcdefGHIJ"
DENVER = (39.74, -105.18)
SYDNEY = (-33.87, 151.21)
NEW_DELHI = (28.6, 77.2)
MIAMI = (25.77, -80.19)
TWO_POINTS = [(39.7, -105.0), (39.8, -104.9)]
#: The service's cap on sites × attributes × years × hours (peers-and-service-facts §0.3).
WEIGHT_CAP = 175_000_100
#: Half the 0.04° grid spacing: a site is never further than this from the point asked, per axis.
HALF_GRID_STEP = 0.02
TIME_COLUMNS = ("Year", "Month", "Day", "Hour", "Minute", "timestamp")
#: A service without request spacing, so that tests never wait and are never refused (the clients
#: keep their own short spacing from `quick_limits`).
QUICK = sf.ClimateSettings(csv_interval=0, json_interval=0)
#: Sites no data set covers (Sydney, New Delhi) try the time-zone rules of the whole world.
WORLD = sf.ClimateSettings(csv_interval=0, json_interval=0, anywhere=True)


def quick_limits(csv_in_flight: int | None = None) -> dict[str, sf.ServiceLimits]:
    """Client limits a thousand times shorter than the spec's spacing (and no daily quota)."""
    return {
        "climate_csv": sf.ServiceLimits(min_interval=0.001, in_flight=csv_in_flight),
        "climate_other": sf.ServiceLimits(min_interval=0.001),
    }


def hours_in(year: int, leap_day: bool) -> int:
    return (366 if leap_day and calendar.isleap(year) else 365) * 24


def download_path(fmt: str, slug: str = SLUG) -> str:
    root = "/api/nsrdb/v2/solar" if slug.startswith("nsrdb-") else "/api/climate/ncdb/v2/climate"
    return f"{root}/{slug}-download.{fmt}"


def hits(service: sf.LocalService, fmt: str, slug: str = SLUG) -> int:
    return service.hits().get(download_path(fmt, slug), 0)


def file_hits(service: sf.LocalService) -> int:
    return sum(count for path, count in service.hits().items() if path.startswith("/files/climate/"))


def point_wkt(points: list[tuple[float, float]]) -> str:
    """A MULTIPOINT of ``(lat, lon)`` points (WKT puts longitude first)."""
    return "MULTIPOINT(" + ", ".join(f"({lon} {lat})" for lat, lon in points) + ")"


def csv_params(lat: float, lon: float, year: int) -> dict[str, Any]:
    """The query of a hand-sent csv request for one site-year with every attribute."""
    return {"wkt": f"POINT({lon} {lat})", "names": year, "interval": 60, "email": EMAIL}


@dataclass(frozen=True)
class Captured:
    """One request a loopback server saw: ``target`` is the path with its query, header names are
    lower case."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.target).query)

    def form(self) -> dict[str, list[str]]:
        return parse_qs(self.body.decode(), strict_parsing=True)


def captured(server: LoopbackServer) -> list[Captured]:
    requests = []
    for seen in server.seen:
        method, target, headers, body = seen["method"], seen["path"], seen["headers"], seen["body"]
        assert isinstance(method, str) and isinstance(target, str) and isinstance(headers, dict) and isinstance(body, bytes)
        requests.append(Captured(method, target, {str(name).lower(): str(value) for name, value in headers.items()}, body))
    return requests


def assert_no_key_sent(request: Captured) -> None:
    assert "x-api-key" not in request.headers and "authorization" not in request.headers, request.headers
    assert "api_key" not in request.query and KEY not in request.target
    assert KEY not in " ".join(request.headers.values()) and KEY.encode() not in request.body


def serve(server: LoopbackServer, status: int, body: bytes, content_type: str) -> None:
    server.handler = lambda request: reply(request, status, body, {"content-type": content_type})


def download_answer(download_url: str) -> bytes:
    """The spec's json answer to a download request."""
    return json.dumps(
        {
            "inputs": {"body": {}, "params": {}, "query": {}},
            "metadata": {"version": "2.0.0", "resultset": {"count": 2}},
            "status": 200,
            "outputs": {"message": f"File generation in progress. An email will be sent to {EMAIL} when the download is ready.", "downloadUrl": download_url},
            "errors": [],
        }
    ).encode()


@dataclass(frozen=True)
class Samples:
    """Bodies and results fetched once from an embedded service."""

    csv_body: bytes  # Denver 2010, every attribute, UTC, as the service streams it
    table: ClimateTable  # the same site-year through download_csv
    zip_body: bytes  # TWO_POINTS × 2010, 2011 with ghi and temperature_2m
    download: ClimateDownload  # the same zip through request + fetch
    point_tables: dict[tuple[float, float, int], ClimateTable]  # each point-year of the zip as csv


def instants(data: pl.DataFrame) -> pl.Series:
    """A download's ``timestamp`` column as naive UTC instants."""
    return data["timestamp"].dt.convert_time_zone("UTC").dt.replace_time_zone(None)


#: The service's 400 body for a bad WKT without an e-mail.
SERVICE_BAD_WKT = {"inputs": {}, "metadata": {"version": "2.0.0"}, "status": 400, "errors": ["wkt could not be parsed", "email is required"]}
