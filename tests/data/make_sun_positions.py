#!/usr/bin/env python3
"""Regenerate ``pysam_sun_positions.json``: SSC's sun zenith and azimuth (PySAM ``Irradproc``,
which calls ``solarpos_spa`` at the stamped minute) for 500 random instants of 2010 at each of four
sites, one of them in a half-hour zone. ``tests/rust/pvwatts/pvwatts_reference.rs`` checks that the engine's
exact-precision positions equal them bit for bit.

Usage: ``pip install nrel-pysam numpy && python make_sun_positions.py``
"""

import datetime as dt
import json
from pathlib import Path

import numpy as np
import PySAM
import PySAM.Irradproc as irradproc

SITES = [(36.1, -79.95, -5.0), (55.317, -160.517, -9.0), (-33.9, 18.4, 2.0), (28.6, 77.2, 5.5)]
PER_SITE = 500


def main() -> None:
    rng = np.random.default_rng(2010)
    rows = []
    for lat, lon, tz in SITES:
        hours = np.sort(rng.choice(8760, PER_SITE, replace=False))
        stamps = [dt.datetime(2010, 1, 1) + dt.timedelta(hours=int(h)) for h in hours]
        minutes = rng.integers(0, 60, PER_SITE)
        model = irradproc.new()
        inputs = model.IrradianceProcessor
        inputs.irrad_mode = 0
        inputs.beam = [500.0] * PER_SITE
        inputs.diff = [100.0] * PER_SITE
        inputs.year = [s.year for s in stamps]
        inputs.month = [s.month for s in stamps]
        inputs.day = [s.day for s in stamps]
        inputs.hour = [s.hour for s in stamps]
        inputs.minute = [float(m) for m in minutes]
        inputs.lat, inputs.lon, inputs.tz = lat, lon, tz
        inputs.track_mode, inputs.azimuth, inputs.tilt = 0, 180, 20
        model.execute()
        for i, stamp in enumerate(stamps):
            rows.append([stamp.month, stamp.day, stamp.hour, int(minutes[i]),
                         model.Outputs.sun_zen[i], model.Outputs.sun_azm[i]])
    document = {
        "made_by": f"tests/data/make_sun_positions.py with PySAM {PySAM.__version__}",
        "year": 2010,
        "refraction": {"pressure_mbar": 1013.25, "temperature_c": 15.0, "elevation_m": 0.0},
        "sites": [{"lat": lat, "lon": lon, "tz": tz} for lat, lon, tz in SITES],
        "per_site": PER_SITE,
        "columns": ["month", "day", "hour", "minute", "zenith_deg", "azimuth_deg"],
        "rows": rows,
    }
    Path(__file__).with_name("pysam_sun_positions.json").write_text(json.dumps(document) + "\n")


if __name__ == "__main__":
    main()
