"""Conformance on real weather files that other repositories published (pvlib's, SSC's and PySAM's
test and example files), read from the folder ``SUNFLUX_WEATHER_CORPUS`` names (``.ci/run`` sets
it when the material is present; see ``tests/conftest.py``).

For every file PySAM's ``Pvwattsv5`` reads, sunflux reads it too and agrees for 147 systems (array
types 0–4 × module types 0–2 × tilts 0/20/40 × azimuths 90/180/270, plus DC/AC ratio, GCR and
inverter efficiency variations): cell temperature within 1e-6 K, hourly AC within 1e-6 W, annual
AC within 1e-12 relative. Files PySAM cannot read (no site in them) are read with a site given.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sunflux as sf
from conftest import WEATHER_CORPUS, requires_weather_corpus
from sunflux.pvwatts import Weather, read_weather, simulate

pytestmark = [requires_weather_corpus, pytest.mark.slow]

SYSTEMS: list[dict[str, Any]] = [
    {"array_type": a, "module_type": m, "tilt": t, "azimuth": z}
    for a, m, t, z in itertools.product(range(5), range(3), (0, 20, 40), (90, 180, 270))
] + [
    {"array_type": a, "module_type": 0, "tilt": 20, "azimuth": 180, "dc_ac_ratio": d, "gcr": g, "inv_eff": e}
    for a in (0, 1, 2, 3)
    for d, g, e in ((1.5, 0.4, 96.0), (1.1, 0.8, 98.0), (1.3, 0.2, 92.0))
]
COMMON = {"system_capacity": 4.0, "losses": 14.0, "dc_ac_ratio": 1.2, "gcr": 0.4, "inv_eff": 96.0}


def corpus_files() -> list[Any]:
    if WEATHER_CORPUS is None:
        return [pytest.param(None, id="no-corpus")]
    files = sorted(p for p in WEATHER_CORPUS.iterdir() if p.suffix.lower() in (".csv", ".epw"))
    return [pytest.param(path, id=path.name) for path in files]


def pysam_run(path: Path, system: dict[str, Any]) -> dict[str, Any] | None:
    """SSC's results on the file, or None when SSC cannot read it."""
    import PySAM.Pvwattsv5 as pvwattsv5

    model = pvwattsv5.new()
    model.SolarResource.solar_resource_file = str(path)
    for key, value in {**COMMON, **system}.items():
        setattr(model.SystemDesign, key, value)
    try:
        model.execute()
    except Exception:  # noqa: BLE001 - PySAM raises a bare Exception for every refusal
        return None
    out = model.Outputs
    return {"ac": np.array(out.ac), "tcell": np.array(out.tcell), "ac_annual": out.ac_annual}


def run(weather: Weather, system: dict[str, Any]) -> sf.PvEstimate:
    p = {**COMMON, **system}
    return simulate(weather, p.pop("system_capacity"), p.pop("module_type"), p.pop("losses"), p.pop("array_type"),
                    p.pop("tilt"), p.pop("azimuth"), **p)


@pytest.mark.parametrize("path", corpus_files())
def test_every_real_file_reads_and_agrees_with_pysam(path: Path) -> None:
    first = pysam_run(path, SYSTEMS[0])
    if first is None:
        assert_read_with_a_site_given(path)
        return
    weather = read_weather(path)
    if weather.has_leap_day:
        weather = weather.without_leap_day()  # SSC drops 29 February when it reads a file
    worst = {"ac": 0.0, "tcell": 0.0, "annual": 0.0}
    for system in SYSTEMS:
        reference = first if system is SYSTEMS[0] else pysam_run(path, system)
        assert reference is not None
        result = run(weather, system)
        assert result.hourly is not None and result.hourly.height == len(reference["ac"])
        worst["ac"] = max(worst["ac"], float(np.max(np.abs(result.hourly["ac"].to_numpy() - reference["ac"]))))
        worst["tcell"] = max(worst["tcell"], float(np.max(np.abs(result.hourly["tcell"].to_numpy() - reference["tcell"]))))
        worst["annual"] = max(worst["annual"], abs(result.ac_annual - reference["ac_annual"]) / reference["ac_annual"])
    assert worst["tcell"] <= 1e-6 and worst["ac"] <= 1e-6 and worst["annual"] <= 1e-12, worst


def assert_read_with_a_site_given(path: Path) -> None:
    """A file PySAM cannot read (it carries no site) reads with a site given; only an extract
    shorter than a year may be refused, and the message says so."""
    site = {"lat": 39.74, "lon": -105.18, "tz": -7.0, "elevation": 1829.0}
    try:
        weather = read_weather(path, **site)
    except sf.ParameterError as error:
        assert "expected one year of records" in str(error), error
        return
    assert len(weather) % 8760 == 0 or len(weather) % 8784 == 0
    assert run(weather, SYSTEMS[0]).ac_annual > 0
