"""``Scenario.resolve(client)``: a self-contained copy of a scenario, its references to outside
data replaced by the data, fetched once and kept in a disk cache so that a sweep of hundreds of
local solves fetches each input once.

- ``ElectricLoad.doe_reference_name`` (or ``blended_doe_reference_names`` with
  ``blended_doe_reference_percents``), scaled by ``annual_kwh`` or ``monthly_totals_kwh``, becomes
  ``loads_kw`` from the optimizer service's load endpoint (``client.optimizer.simulated_load``)
  with ``year`` 2017, the year the service sets for reference profiles; hourly values are
  repeated to ``Settings.time_steps_per_hour``, as the service does with them.
- ``ElectricTariff.urdb_label`` (or ``urdb_utility_name`` with ``urdb_rate_name``) becomes
  ``urdb_response`` from the Utility Rate Database API (``client.optimizer.urdb_rate``); the
  label stays as a note of where the rate came from. A scenario that already holds a
  ``urdb_response`` keeps it, as the service uses it first.

Cache: one JSON file per input under ``cache_dir`` (default `default_cache_dir()`), named by the
SHA-256 of its key: the service's base URL and every input of the request, never the API key.
The key is stored in the file and compared on read, so a collision or a damaged file is a miss;
files are written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from sunflux._errors import ParameterError
from sunflux.optimizer._base import UnknownFieldWarning

if TYPE_CHECKING:
    from sunflux._client import Client
    from sunflux.optimizer.scenario import Scenario

__all__ = ["resolve", "default_cache_dir", "REFERENCE_PROFILE_YEAR", "CACHE_DIR_ENV_VAR"]

#: The year the service sets for every reference building profile (they start on a Sunday).
REFERENCE_PROFILE_YEAR = 2017
CACHE_DIR_ENV_VAR = "SUNFLUX_CACHE_DIR"


def _given(value: Any) -> bool:
    """The service's notion of "provided": not None, "" or an empty list."""
    return value is not None and not (isinstance(value, (str, list, dict)) and len(value) == 0)


#: Bumped when the layout of cached values changes (older files become misses).
CACHE_FORMAT = 1

#: ElectricLoad inputs that the resolved ``loads_kw`` replaces.
_LOAD_REFERENCE_FIELDS = (
    "doe_reference_name",
    "blended_doe_reference_names",
    "blended_doe_reference_percents",
    "annual_kwh",
    "monthly_totals_kwh",
)


def default_cache_dir() -> Path:
    """``$SUNFLUX_CACHE_DIR``, else ``$XDG_CACHE_HOME/sunflux/optimizer``, else
    ``~/.cache/sunflux/optimizer``."""
    if os.environ.get(CACHE_DIR_ENV_VAR):
        return Path(os.environ[CACHE_DIR_ENV_VAR])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "sunflux" / "optimizer"


class _DiskCache:
    """JSON values by key; ``folder=None`` keeps nothing."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.hits = 0
        self.fetches = 0

    def get(self, kind: str, key: dict[str, Any], fetch: Callable[[], Any]) -> Any:
        stored_key = {"format": CACHE_FORMAT, "kind": kind, **key}
        text = json.dumps(stored_key, sort_keys=True, separators=(",", ":"))
        path = None
        if self.folder is not None:
            path = self.folder / kind / f"{hashlib.sha256(text.encode()).hexdigest()}.json"
            try:
                stored = json.loads(path.read_text(encoding="utf-8"))
                if stored.get("key") == stored_key:
                    self.hits += 1
                    return stored["value"]
            except (OSError, ValueError, AttributeError, KeyError):
                pass
        value = fetch()
        self.fetches += 1
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump({"key": stored_key, "value": value}, file)
            os.replace(temporary, path)
        return value


def _site(document: dict[str, Any]) -> tuple[float, float]:
    site = document.get("Site") or {}
    latitude, longitude = site.get("latitude"), site.get("longitude")
    if not isinstance(latitude, (int, float)) or not isinstance(longitude, (int, float)):
        raise ParameterError("Site.latitude and Site.longitude are needed to resolve the reference building load")
    return float(latitude), float(longitude)


def _resolve_load(document: dict[str, Any], client: Client, cache: _DiskCache) -> None:
    load = document.get("ElectricLoad")
    if not isinstance(load, dict) or _given(load.get("loads_kw")):
        return
    name = load.get("doe_reference_name")
    blend_names = load.get("blended_doe_reference_names")
    if _given(name):
        buildings: str | dict[str, float] = name
    elif _given(blend_names):
        shares = load.get("blended_doe_reference_percents") or []
        if not isinstance(blend_names, list) or not isinstance(shares, list) or len(shares) != len(blend_names):
            raise ParameterError("ElectricLoad.blended_doe_reference_names and blended_doe_reference_percents must be lists of one length")
        buildings = dict(zip(blend_names, shares))
    else:
        return
    latitude, longitude = _site(document)
    annual = load.get("annual_kwh") if _given(load.get("annual_kwh")) else None
    monthly = load.get("monthly_totals_kwh") if _given(load.get("monthly_totals_kwh")) else None
    key = {
        "service": client.base_url,
        "routes": client.routes,
        "latitude": latitude,
        "longitude": longitude,
        "buildings": buildings,
        "annual_kwh": annual,
        "monthly_totals_kwh": monthly,
        "year": REFERENCE_PROFILE_YEAR,
    }

    def fetch() -> list[float]:
        frame = client.optimizer.simulated_load(
            latitude, longitude, buildings, annual_kwh=annual, monthly_totals_kwh=monthly, year=REFERENCE_PROFILE_YEAR
        )
        values: list[float] = frame["load_kw"].to_list()
        return values

    hourly = cache.get("simulated_load", key, fetch)
    per_hour = int((document.get("Settings") or {}).get("time_steps_per_hour") or 1)
    steps = len(hourly) // 8760
    loads = hourly if steps == per_hour else [kw for kw in hourly for _ in range(per_hour // max(steps, 1))]
    resolved = {field: value for field, value in load.items() if field not in _LOAD_REFERENCE_FIELDS}
    resolved["loads_kw"] = loads
    resolved["year"] = REFERENCE_PROFILE_YEAR
    if _given(load.get("monthly_peaks_kw")):
        resolved["normalize_and_scale_load_profile_input"] = True
    document["ElectricLoad"] = resolved


def _resolve_tariff(document: dict[str, Any], client: Client, cache: _DiskCache) -> None:
    tariff = document.get("ElectricTariff")
    if not isinstance(tariff, dict) or _given(tariff.get("urdb_response")):
        return
    label = tariff.get("urdb_label")
    utility, rate_name = tariff.get("urdb_utility_name"), tariff.get("urdb_rate_name")
    if _given(label):
        key = {"service": client.urdb_base_url, "label": label}
        rate = cache.get("urdb_rate", key, lambda: client.optimizer.urdb_rate(label))
    elif _given(utility) and _given(rate_name):
        key = {"service": client.urdb_base_url, "utility": utility, "rate_name": rate_name}
        rate = cache.get("urdb_rate", key, lambda: client.optimizer.urdb_rate_by_name(utility, rate_name))
    else:
        return
    document["ElectricTariff"] = {**tariff, "urdb_response": rate}


def resolve(scenario: Scenario, client: Client, *, cache_dir: str | os.PathLike[str] | None | bool = True) -> Scenario:
    """A copy of ``scenario`` with reference loads and URDB rates replaced by their data (see
    the module's text). ``cache_dir``: a folder, True for `default_cache_dir()`, or None/False
    for no cache."""
    from sunflux.optimizer.scenario import Scenario

    if cache_dir is True:
        folder: Path | None = default_cache_dir()
    elif cache_dir is None or cache_dir is False:
        folder = None
    else:
        folder = Path(os.fspath(cache_dir))
    cache = _DiskCache(folder)
    document = scenario.to_dict()
    _resolve_load(document, client, cache)
    _resolve_tariff(document, client, cache)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownFieldWarning)
        return Scenario.from_dict(document)
