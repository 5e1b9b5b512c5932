"""Conformance on real weather files that other repositories published (pvlib's, SSC's, PySAM's and
bifacial_radiance's test and example files), read from the folders ``SUNFLUX_WEATHER_CORPUS`` lists
(``.ci/run`` sets it when the material is present; see ``tests/python/support/markers.py``).

For every file, hourly or sub-hourly, CSV or EPW, sunflux agrees with PySAM's ``Pvwattsv5`` on the
same records for 72 systems (array types 0–4 × module types 0–2 × flat, south 20°, east 20° and
west 40°, plus DC/AC ratio, GCR and inverter efficiency variations): cell temperature within
1e-6 K, hourly AC within 1e-6 W, annual AC within 1e-12 relative. Files without a site (raw NSRDB
downloads, which SSC refuses) are read with a site given and handed to SSC as data
(``ssc_resource``); only an extract shorter than a year is refused, by both.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sunflux as sf
from support.markers import requires_weather_corpus, weather_corpus_files
from support.ssc_resource import read_year_for_ssc
from sunflux.pvwatts import Weather, simulate

pytestmark = [requires_weather_corpus, pytest.mark.slow]

#: Every array and module type on a flat, a south, an east and a west plane (the orientations
#: reach every branch of the sun-angle and incidence code), plus ratio, GCR and inverter
#: variations: 72 systems, half of the full grid, so that CI stays within its time on 14 files.
ORIENTATIONS = ((0, 180), (20, 90), (20, 180), (40, 270))
SYSTEMS: list[dict[str, Any]] = [
    {"array_type": a, "module_type": m, "tilt": t, "azimuth": z}
    for a, m, (t, z) in itertools.product(range(5), range(3), ORIENTATIONS)
] + [
    {"array_type": a, "module_type": 0, "tilt": 20, "azimuth": 180, "dc_ac_ratio": d, "gcr": g, "inv_eff": e}
    for a in (0, 1, 2, 3)
    for d, g, e in ((1.5, 0.4, 96.0), (1.1, 0.8, 98.0), (1.3, 0.2, 92.0))
]
COMMON = {"system_capacity": 4.0, "losses": 14.0, "dc_ac_ratio": 1.2, "gcr": 0.4, "inv_eff": 96.0}


def pysam_run(resource: dict[str, Any], system: dict[str, Any]) -> dict[str, Any]:
    """SSC's results on the weather ``resource`` gives it (see ``ssc_resource``)."""
    import PySAM.Pvwattsv5 as pvwattsv5

    model = pvwattsv5.new()
    for key, value in resource.items():
        setattr(model.SolarResource, key, value)
    for key, value in {**COMMON, **system}.items():
        setattr(model.SystemDesign, key, value)
    model.execute(0)
    out = model.Outputs
    return {"ac": np.array(out.ac), "tcell": np.array(out.tcell), "ac_annual": out.ac_annual}


def run(weather: Weather, system: dict[str, Any]) -> sf.PvEstimate:
    p = {**COMMON, **system}
    return simulate(weather, p.pop("system_capacity"), p.pop("module_type"), p.pop("losses"), p.pop("array_type"),
                    p.pop("tilt"), p.pop("azimuth"), **p)


@pytest.mark.parametrize("path", weather_corpus_files())
def test_every_real_file_reads_and_agrees_with_pysam(path: Path) -> None:
    year = read_year_for_ssc(path)
    if year is None:
        return
    weather, resource = year
    if weather.has_leap_day:
        weather = weather.without_leap_day()  # SSC drops 29 February when it reads a file
    worst = {"ac": 0.0, "tcell": 0.0, "annual": 0.0}
    for system in SYSTEMS:
        reference = pysam_run(resource, system)
        result = run(weather, system)
        assert result.hourly is not None and result.hourly.height == len(reference["ac"])
        worst["ac"] = max(worst["ac"], float(np.max(np.abs(result.hourly["ac"].to_numpy() - reference["ac"]))))
        worst["tcell"] = max(worst["tcell"], float(np.max(np.abs(result.hourly["tcell"].to_numpy() - reference["tcell"]))))
        worst["annual"] = max(worst["annual"], abs(result.ac_annual - reference["ac_annual"]) / reference["ac_annual"])
    assert worst["tcell"] <= 1e-6 and worst["ac"] <= 1e-6 and worst["annual"] <= 1e-12, worst
