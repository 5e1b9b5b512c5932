"""`import sunflux` stays light: the embedded service, the service modules and test-only code load on
first use, and every public name still resolves to the object its home module defines."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import sunflux

# What `import sunflux` must not load: the embedded service's Python face, the optional service
# modules, test-only code, and the heavy standard and third-party modules they pull in.
NOT_ON_THE_IMPORT_PATH = (
    "sunflux._local",
    "sunflux._demo",
    "sunflux.pytest_plugin",
    "sunflux.optimizer",
    "sunflux.technical_potential",
    "sunflux.climate",
    "asyncio",
    "concurrent.futures",
    "polars",
    "pyarrow",
    "pytest",
)


@pytest.mark.slow
def test_import_sunflux_loads_only_the_client_core() -> None:
    code = "import sys, sunflux; print(__import__('json').dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded = set(json.loads(result.stdout))
    assert {"sunflux", "sunflux._core", "sunflux._errors", "sunflux._client"} <= loaded
    assert sorted(loaded & set(NOT_ON_THE_IMPORT_PATH)) == []


@pytest.mark.parametrize("name", sunflux.__all__)
def test_every_public_name_resolves_to_its_home_object(name: str) -> None:
    value = getattr(sunflux, name)
    service = ("LocalService", "RateLimits", "Faults", "JobSettings", "ClimateSettings", "OptimizerSettings",
               "RateDatabaseSettings", "FAULT_KINDS")
    home = {**dict.fromkeys(service, "sunflux._local"), **dict.fromkeys(("ArrayType", "ModuleType", "PvEstimate"), "sunflux.pv")}
    if name in home:
        assert value is getattr(importlib.import_module(home[name]), name)
    elif isinstance(value, type(sunflux)):
        assert value is importlib.import_module(f"sunflux.{name}")
    assert name in dir(sunflux)


def test_star_import_gives_every_public_name() -> None:
    namespace: dict[str, object] = {}
    exec("from sunflux import *", namespace)
    assert set(sunflux.__all__) <= set(namespace)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'LocalServce'"):
        getattr(sunflux, "LocalServce")
