#!/usr/bin/env python3
"""Regenerate the weather-format fixtures of this folder and their SSC reference results.

Every file is made from the Greensboro TMY3 year in ``tests/data`` (pvlib's package data) as
sunflux reads it, written in another format, time step or calendar form; ``references.json``
``references.json.gz`` holds NREL SSC ``pvwattsv5`` results (PySAM) on each file as SSC reads it:
annual and monthly AC, and hourly AC and cell temperature of every 11th record and all of 1 July.

Usage: ``pip install nrel-pysam && python make_weather_formats.py`` (with sunflux installed).
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import numpy as np
import PySAM
import PySAM.Pvwattsv5 as pvwattsv5

import sunflux as sf

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "723170TYA.CSV.gz"
#: Records kept in the hourly references: every STRIDE-th (a prime, so that no hour of the day is
#: favoured) plus the whole of 1 July (sunrise to sunset at every step).
STRIDE = 11
SYSTEMS = {
    "fixed_roof": dict(array_type=1, module_type=0, tilt=20, azimuth=180),
    "one_axis_horizontal": dict(array_type=2, module_type=1, tilt=0, azimuth=180),
    "backtracking": dict(array_type=3, module_type=2, tilt=10, azimuth=200),
    "two_axis": dict(array_type=4, module_type=0, tilt=0, azimuth=180),
}
COMMON = dict(system_capacity=4.0, losses=14.0, dc_ac_ratio=1.2, gcr=0.4, inv_eff=96.0)


def greensboro() -> dict[str, np.ndarray]:
    """The source year's columns (float32 values, as SSC reads the TMY3 file)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "723170TYA.CSV"
        path.write_bytes(gzip.decompress(SOURCE.read_bytes()))
        frame = sf.pvwatts.read_weather(path).to_polars()
    return {name: frame[name].to_numpy() for name in ("month", "day", "hour", "gh", "dn", "df", "tdry", "wspd", "pressure", "albedo")}


def resampled(year: dict[str, np.ndarray], per_hour: int) -> dict[str, np.ndarray]:
    """``per_hour`` steps per hour, values interpolated linearly between the hour averages
    (taken at mid-hour), stamped at step starts."""
    hours = np.arange(8760) + 0.5
    steps = np.arange(8760 * per_hour) / per_hour
    out = {name: np.repeat(year[name], per_hour) for name in ("month", "day", "hour")}
    out["minute"] = np.tile(np.arange(per_hour) * (60 / per_hour), 8760)
    for name in ("gh", "dn", "df", "tdry", "wspd", "pressure", "albedo"):
        out[name] = np.round(np.interp(steps, hours, year[name], period=8760), 1)
    return out


def number(value: float) -> str:
    return f"{value:g}"


def write_epw(year: dict[str, np.ndarray], per_hour: int, path: Path) -> None:
    """EPW with hour-ending hours 1-24, minutes 60/per_hour...60, pressure in Pa; a few DNI values
    and a run of temperatures marked missing (9999, 99.9) so that SSC's filling is exercised."""
    data = resampled(year, per_hour) if per_hour > 1 else {**year, "minute": np.zeros(8760)}
    lines = ["LOCATION,Greensboro,NC,USA,sunflux test,723170,36.1,-79.95,-5.0,273.0"]
    lines += ["DESIGN CONDITIONS,0", "TYPICAL/EXTREME PERIODS,0", "GROUND TEMPERATURES,0",
              "HOLIDAYS/DAYLIGHT SAVINGS,No,0,0,0", "COMMENTS 1,made from pvlib's Greensboro TMY3 data",
              f"COMMENTS 2,{60 // per_hour}-minute", f"DATA PERIODS,1,{per_hour},Data,Sunday, 1/ 1,12/31"]
    missing_dni = {4000 * per_hour + 12 * per_hour, 5000 * per_hour + 13 * per_hour}
    missing_tdry = set(range(6000 * per_hour, 6000 * per_hour + 3 * per_hour))
    for i in range(len(data["month"])):
        minute = 60 if per_hour == 1 else int(data["minute"][i] + 60 / per_hour)
        hour = int(data["hour"][i]) + 1 if per_hour == 1 or minute < 60 else int(data["hour"][i]) + 1
        dni = "9999" if i in missing_dni else number(data["dn"][i])
        tdry = "99.9" if i in missing_tdry else number(data["tdry"][i])
        fields = [1988, int(data["month"][i]), int(data["day"][i]), hour, minute, "?9?9?9?9E0?9?9?9", tdry, "5.0", "60",
                  number(data["pressure"][i] * 100), 0, 0, 300, number(data["gh"][i]), dni, number(data["df"][i]),
                  0, 0, 0, 0, 180, number(data["wspd"][i]), 5, 5, 20000, 9999, 9, 999999999, 0, 0.2, 0, 88, 0.2, 0, 1]
        lines.append(",".join(str(f) for f in fields))
    path.write_text("\n".join(lines) + "\n")


def write_sam_csv(columns: dict[str, np.ndarray], header: list[tuple[str, str]], names: dict[str, str], path: Path) -> None:
    """A CSV with a metadata row pair, a column-name row and the data."""
    lines = [",".join(k for k, _ in header), ",".join(v for _, v in header)]
    lines.append(",".join(names.values()))
    for i in range(len(columns["month"])):
        lines.append(",".join(number(columns[name][i]) for name in names))
    path.write_text("\n".join(lines) + "\n")


SAM_HEADER = [("Source", "sunflux test"), ("Location ID", "723170"), ("City", "Greensboro"), ("State", "NC"),
              ("Country", "USA"), ("Latitude", "36.1"), ("Longitude", "-79.95"), ("Time Zone", "-5"), ("Elevation", "273")]


def fixtures(year: dict[str, np.ndarray], folder: Path) -> dict[str, dict]:
    """Write every fixture into ``folder``; return what each is and how to read it."""
    made: dict[str, dict] = {}
    write_epw(year, 1, folder / "greensboro.epw")
    made["greensboro.epw"] = {"what": "EPW, hourly, minute 60, pressure in Pa, 2 DNI gaps and a 3-hour temperature gap"}
    write_epw(year, 2, folder / "greensboro_30min.epw")
    made["greensboro_30min.epw"] = {"what": "EPW, 30-minute (minutes 30 and 60, hour ending), interpolated values"}

    quarter = resampled(year, 4)
    quarter["minute"] = quarter["minute"] + 7.5
    quarter["year"] = np.full(len(quarter["month"]), 2019)
    names = {"year": "Year", "month": "Month", "day": "Day", "hour": "Hour", "minute": "Minute", "gh": "GHI", "dn": "DNI",
             "df": "DHI", "tdry": "Tdry", "wspd": "Wspd", "pressure": "Pres", "albedo": "Alb"}
    write_sam_csv(quarter, SAM_HEADER, names, folder / "greensboro_15min.csv")
    made["greensboro_15min.csv"] = {"what": "SAM CSV, 15-minute, stamps at minute 7.5 of each step"}

    tenth = resampled(year, 6)
    tenth["year"] = np.full(len(tenth["month"]), 2019)
    psm3_header = [("Source", "NSRDB"), ("Location ID", "723170"), ("City", "-"), ("State", "-"), ("Country", "-"),
                   ("Latitude", "36.1"), ("Longitude", "-79.95"), ("Time Zone", "-5"), ("Elevation", "273"),
                   ("Local Time Zone", "-5"), ("DHI Units", "w/m2"), ("DNI Units", "w/m2"), ("GHI Units", "w/m2"),
                   ("Temperature Units", "c"), ("Pressure Units", "mbar"), ("Wind Speed Units", "m/s"), ("Version", "3.2.2")]
    psm3_names = {"year": "Year", "month": "Month", "day": "Day", "hour": "Hour", "minute": "Minute", "df": "DHI",
                  "dn": "DNI", "gh": "GHI", "albedo": "Surface Albedo", "pressure": "Pressure", "tdry": "Temperature",
                  "wspd": "Wind Speed"}
    write_sam_csv(tenth, psm3_header, psm3_names, folder / "greensboro_10min_psm3.csv")
    made["greensboro_10min_psm3.csv"] = {"what": "NSRDB PSM3 download layout, 10-minute, with Local Time Zone"}

    hourly = {**year, "year": np.full(8760, 2020)}
    hourly_names = {"year": "Year", "month": "Month", "day": "Day", "hour": "Hour", "gh": "GHI", "dn": "DNI", "df": "DHI",
                    "tdry": "Tdry", "wspd": "Wspd", "pressure": "Pres", "albedo": "Alb"}
    write_sam_csv(hourly, SAM_HEADER, hourly_names, folder / "greensboro_2020_without_feb29.csv")
    made["greensboro_2020_without_feb29.csv"] = {"what": "SAM CSV, hour averages, leap year 2020 stored as 8760 records"}
    february_28 = np.flatnonzero((year["month"] == 2) & (year["day"] == 28))
    insert_at = february_28[-1] + 1
    leap = {name: np.insert(values, insert_at, values[february_28]) for name, values in hourly.items()}
    leap["day"][insert_at:insert_at + 24] = 29
    write_sam_csv(leap, SAM_HEADER, hourly_names, folder / "greensboro_2020_with_feb29.csv")
    made["greensboro_2020_with_feb29.csv"] = {"what": "SAM CSV, hour averages, 2020 with 29 February (8784 records; SSC drops it)",
                                              "ssc_drops_february_29": True}

    delhi = {**year, "minute": np.zeros(8760), "year": np.full(8760, 2019)}
    delhi_header = [("Source", "sunflux test"), ("City", "Greensboro data moved to Delhi"), ("Latitude", "28.6"),
                    ("Longitude", "77.2"), ("Time Zone", "5.5"), ("Elevation", "216")]
    write_sam_csv(delhi, delhi_header, {"year": "Year", **{k: v for k, v in names.items() if k != "year"}}, folder / "delhi_half_hour_zone.csv")
    made["delhi_half_hour_zone.csv"] = {"what": "SAM CSV, hourly instants at minute 0 in a half-hour zone (UTC+5:30)"}
    return made


def kept_records(records: int) -> list[int]:
    """The records whose hourly values are kept: every STRIDE-th and all of 1 July."""
    per_hour = records // 8760
    july_1 = 181 * 24 * per_hour
    return sorted(set(range(0, records, STRIDE)) | set(range(july_1, july_1 + 24 * per_hour)))


def ssc_results(path: Path) -> dict:
    results = {}
    for name, system in SYSTEMS.items():
        model = pvwattsv5.new()
        model.SolarResource.solar_resource_file = str(path)
        for key, value in {**COMMON, **system}.items():
            setattr(model.SystemDesign, key, value)
        model.execute()
        out = model.Outputs
        ac, tcell = np.array(out.ac), np.array(out.tcell)
        keep = kept_records(len(ac))
        results[name] = {"ac_annual": out.ac_annual, "ac_monthly": list(out.ac_monthly), "records": len(ac),
                         "ac": ac[keep].tolist(), "tcell": tcell[keep].tolist()}
    return results


def main() -> None:
    year = greensboro()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        made = fixtures(year, folder)
        references = {"made_by": f"make_weather_formats.py with PySAM {PySAM.__version__}", "systems": SYSTEMS,
                      "common": COMMON, "stride": STRIDE, "files": {}}
        for name, facts in made.items():
            references["files"][name] = {**facts, "ssc": ssc_results(folder / name)}
            (HERE / f"{name}.gz").write_bytes(gzip.compress((folder / name).read_bytes(), mtime=0))
    text = json.dumps(references, separators=(",", ":")) + "\n"
    (HERE / "references.json.gz").write_bytes(gzip.compress(text.encode(), mtime=0))


if __name__ == "__main__":
    main()
