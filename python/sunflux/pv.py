"""PV estimator v6: ``client.pv.estimate(...)``, the `PvEstimate` result it shares with the local
engine (`sunflux.pvwatts.simulate`), and the `ModuleType` / `ArrayType` enumerations.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sunflux import _core
from sunflux._errors import ParameterError, warn_service
from sunflux._units import check_pvwatts_system
from sunflux._frames import to_pandas, to_polars

if TYPE_CHECKING:
    from sunflux._client import AsyncClient, Client
    from sunflux.solar import Station

__all__ = ["ModuleType", "ArrayType", "PvEstimate", "StationInfo", "SscInfo", "PvService", "AsyncPvService", "parse_estimate"]


class ModuleType(enum.IntEnum):
    """``module_type``: 0 standard (γ −0.47 %/°C), 1 premium (AR glass, −0.35 %/°C), 2 thin film (−0.20 %/°C)."""

    STANDARD = 0
    PREMIUM = 1
    THIN_FILM = 2


class ArrayType(enum.IntEnum):
    """``array_type``: 0 fixed open rack, 1 fixed roof mount, 2 one-axis, 3 one-axis backtracking, 4 two-axis."""

    FIXED_OPEN_RACK = 0
    FIXED_ROOF_MOUNT = 1
    ONE_AXIS = 2
    ONE_AXIS_BACKTRACKING = 3
    TWO_AXIS = 4


@dataclass(frozen=True)
class StationInfo:
    """The weather file an estimate used: ``elev`` and ``distance`` in metres, ``tz`` hours from GMT.
    A number the answer does not give is None."""

    lat: float | None
    lon: float | None
    elev: float | None
    tz: float | None
    location: str
    city: str
    state: str
    solar_resource_file: str
    distance: int | None = None
    weather_data_source: str | None = None


@dataclass(frozen=True)
class SscInfo:
    """The simulation core that computed the estimate."""

    version: int
    build: str


class PvEstimate:
    """A PV estimate (from the web estimator or the local engine).

    ``ac_annual`` kWhac, ``solrad_annual`` kWh/m²/day, ``capacity_factor`` percent; ``monthly`` is a
    12-row polars frame (month, poa kWh/m², dc kWhdc, ac kWhac, solrad kWh/m²/day); ``hourly`` is
    None for monthly estimates, else a polars frame with ``timestamp`` (start of the hour, station
    standard time) and ac, dc (W), poa, dn, df (W/m²), tamb, tcell (°C), wspd (m/s), whose value
    buffers are the ones the Rust parser filled.
    """

    def __init__(self, core: _core.CorePvEstimate) -> None:
        self._core = core
        self.ac_annual: float = core.ac_annual
        self.solrad_annual: float = core.solrad_annual
        self.capacity_factor: float = core.capacity_factor
        self.version: str | None = core.version
        self.warnings: list[str] = core.warnings
        self.errors: list[str] = core.errors
        self.raw: str = core.raw
        self.inputs: dict[str, Any] = core.inputs()
        station = core.station_info()
        self.station_info: StationInfo | None = None if station is None else StationInfo(**station)
        ssc = core.ssc_info()
        self.ssc_info: SscInfo | None = None if ssc is None else SscInfo(**ssc)
        self.monthly = to_polars(core.monthly())
        hourly = core.hourly()
        self.hourly = None if hourly is None else to_polars(hourly)

    def to_pandas(self) -> Any:
        """The hourly table (or the monthly one for a monthly estimate) as pandas."""
        table = self._core.hourly() or self._core.monthly()
        return to_pandas(table)

    def __repr__(self) -> str:
        kind = "hourly" if self.hourly is not None else "monthly"
        return f"PvEstimate(ac_annual={self.ac_annual:.1f} kWh, capacity_factor={self.capacity_factor:.2f} %, {kind})"


def _finish(core: _core.CorePvEstimate) -> PvEstimate:
    result = PvEstimate(core)
    for message in result.warnings:
        warn_service(message, stacklevel=3)
    return result


def _file_id(file_id: "str | Station | None") -> str | None:
    if file_id is None or isinstance(file_id, str):
        return file_id
    return file_id.file_id


def parse_estimate(body: bytes | str, format: str = "json") -> PvEstimate:
    """Parses an estimator answer (json, JSONP or xml) that came from elsewhere."""
    data = body.encode() if isinstance(body, str) else body
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ParameterError(f"body must be bytes or str (got {type(body).__name__})")
    if not isinstance(format, str):
        raise ParameterError(f'format must be "json" or "xml" (got {type(format).__name__})')
    return PvEstimate(_core.parse_pv_estimate(bytes(data), format))


_ESTIMATE_DOC = """Estimates the energy of a PV system (PVWatts v5 algorithms).

        Give the location as ``lat`` and ``lon`` (the nearest station of ``dataset``, default
        ``"satdb"``, within ``radius`` miles, default 100; 0 = nearest regardless), or as ``file_id``
        (a dataset query v1 id or `Station`). Every parameter is checked before sending and all
        problems are reported at once (`ParameterError`): system_capacity 0.05–500000 kW,
        module_type 0–2 (`ModuleType`), losses −5–99 %, array_type 0–4 (`ArrayType`), tilt 0–90°,
        azimuth 0 ≤ a < 360°, dc_ac_ratio > 0, gcr 0–3, inv_eff 90–99.5 %, timeframe
        ``monthly``/``hourly``, format ``json``/``xml``, callback (JSONP, json only).
        """


class PvService:
    """``client.pv``: the PV estimator v6."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def estimate(
        self,
        system_capacity: float,
        module_type: int,
        losses: float,
        array_type: int,
        tilt: float,
        azimuth: float,
        *,
        lat: float | None = None,
        lon: float | None = None,
        file_id: "str | Station | None" = None,
        dataset: str | None = None,
        radius: int | None = None,
        timeframe: str = "monthly",
        dc_ac_ratio: float = 1.2,
        gcr: float = 0.4,
        inv_eff: float = 96,
        format: str = "json",
        callback: str | None = None,
    ) -> PvEstimate:
        check_pvwatts_system(system_capacity, losses, array_type)
        core = _core.pv_estimate(
            self._client._core, system_capacity, module_type, losses, array_type, tilt, azimuth,
            lat, lon, _file_id(file_id), dataset, radius, timeframe, dc_ac_ratio, gcr, inv_eff, format, callback,
            asynchronous=False, trace=self._client._trace(),
        )
        return _finish(core)

    estimate.__doc__ = _ESTIMATE_DOC


class AsyncPvService:
    """``async_client.pv``: the PV estimator v6, awaitable."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def estimate(
        self,
        system_capacity: float,
        module_type: int,
        losses: float,
        array_type: int,
        tilt: float,
        azimuth: float,
        *,
        lat: float | None = None,
        lon: float | None = None,
        file_id: "str | Station | None" = None,
        dataset: str | None = None,
        radius: int | None = None,
        timeframe: str = "monthly",
        dc_ac_ratio: float = 1.2,
        gcr: float = 0.4,
        inv_eff: float = 96,
        format: str = "json",
        callback: str | None = None,
    ) -> PvEstimate:
        check_pvwatts_system(system_capacity, losses, array_type)
        core = await _core.pv_estimate(
            self._client._core, system_capacity, module_type, losses, array_type, tilt, azimuth,
            lat, lon, _file_id(file_id), dataset, radius, timeframe, dc_ac_ratio, gcr, inv_eff, format, callback,
            asynchronous=True, trace=self._client._trace(),
        )
        return _finish(core)

    estimate.__doc__ = _ESTIMATE_DOC
