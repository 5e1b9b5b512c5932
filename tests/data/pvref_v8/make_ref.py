#!/usr/bin/env python3
"""Regenerate the PVWatts v8 reference outputs with NREL SSC (module ``pvwattsv8``) via PySAM.

Usage:  python make_ref.py [--out DIR]          (default: this folder)

Requires: nrel-pysam, pvlib  (pip install nrel-pysam pvlib)

Weather inputs, all read by SSC from files (its file route):
    723170TYA.CSV, 703165TY.csv  TMY3 files shipped inside the pvlib wheel (pvlib/data)
    12839.tm2                    TMY2 file shipped inside the pvlib wheel
    snow_723170TYA.csv.gz,       SAM CSV files derived here from the two TMY3 files, with a
    snow_703165TY.csv.gz         synthetic "Snow Depth" column (see with_synthetic_snow) for the
                                 snow model; written to --out and committed (SSC reads them
                                 unzipped from a temporary folder)

Outputs (under --out):
    cases.json          every case: its weather, the SSC inputs set (SystemDesign and
                        SolarResource), and SSC's annual and monthly outputs; PySAM and SSC versions
    hourly_ac.csv.gz    hourly AC (W) of every case, one column per case, 8760 rows (row i = hour i
                        of the 365-day year, local standard time)
    hourly_detail.csv.gz  hourly poa (W/m2), tcell (C) and dc (W) of the
                        DETAIL cases, columns "<case>:<output>"
Floats are written with repr() (17 significant digits), so comparisons can be exact.
"""
import argparse
import gzip
import json
import os
import tempfile

import pvlib
import PySAM
import PySAM.PySSC
import PySAM.Pvwattsv8 as pv8

DATA = os.path.join(os.path.dirname(pvlib.__file__), "data")
TMY3 = {"723170TYA": "723170TYA.CSV", "703165TY": "703165TY.csv"}
BASE = dict(system_capacity=4.0, losses=14.0, array_type=1, module_type=0, tilt=20.0, azimuth=180.0,
            dc_ac_ratio=1.2, gcr=0.4, inv_eff=96.0)
MONTHLY_ALBEDO = [0.6, 0.55, 0.4, 0.25, 0.2, 0.18, 0.18, 0.2, 0.22, 0.25, 0.35, 0.5]
MONTHLY_SOILING = [4.0, 3.5, 2.0, 1.0, 0.5, 0.5, 1.5, 2.5, 3.0, 2.0, 1.0, 6.0]
DETAIL_OUTPUTS = ("poa", "tcell", "dc")


def with_synthetic_snow(tmy3_path):
    """A SAM CSV of a TMY3 file (hour averages, no Minute column) with a made-up snow depth (cm):
    snowfall between 06:00 and 10:00 on cold days picked by (day * 37) % 11 < 4, melting above
    1 C, and a missing value (-999) on days with (day * 13) % 97 == 5."""
    lines = open(tmy3_path).read().splitlines()
    head = lines[0].split(",")
    rows = ["Source,Location ID,City,State,Country,Latitude,Longitude,Time Zone,Elevation",
            f"TMY3,{head[0]},-,-,-,{head[4]},{head[5]},{head[3]},{head[6]}",
            "Year,Month,Day,Hour,GHI,DNI,DHI,Temperature,Wind Speed,Pressure,Albedo,Snow Depth"]
    depth = 0.0
    for i, line in enumerate(lines[2:]):
        c = line.split(",")
        month, day_of_month, year = c[0].split("/")
        hour = int(c[1].split(":")[0]) - 1
        temperature, day = float(c[31]), i // 24
        if temperature < 0.5 and (day * 37) % 11 < 4 and 6 <= hour <= 10:
            depth += 1.5 + (day % 5)
        elif temperature > 1.0:
            depth = max(0.0, depth - 0.15 * (temperature - 1.0))
        snow = "-999" if (day * 13) % 97 == 5 else f"{depth:.1f}"
        rows.append(",".join([year, str(int(month)), str(int(day_of_month)), str(hour),
                              c[4], c[7], c[10], c[31], c[46], c[40], c[61], snow]))
    return "\n".join(rows) + "\n"


def case(name, weather, resource=None, **system):
    return dict(name=name, weather=weather, system=dict(BASE, **system), resource=resource or {})


def cases():
    out = []
    for site in TMY3:
        for at in range(5):
            for mt in range(3):
                out.append(case(f"{site}_at{at}_mt{mt}", site, array_type=at, module_type=mt))
        for at in (2, 3):
            for mt in range(3):
                out.append(case(f"{site}_at{at}_mt{mt}_tilt0", site, array_type=at, module_type=mt, tilt=0.0))
        for at, tilt in ((0, 20.0), (1, 20.0), (2, 0.0), (3, 0.0), (4, 20.0)):
            out.append(case(f"{site}_bifacial_at{at}", site, array_type=at, tilt=tilt, bifaciality=0.7))
        out += [
            case(f"{site}_albedo_constant_at0", site, dict(albedo=[0.3], use_wf_albedo=0), array_type=0, module_type=1),
            case(f"{site}_albedo_monthly_bifacial_at3", site, dict(albedo=MONTHLY_ALBEDO, use_wf_albedo=0),
                 array_type=3, tilt=0.0, bifaciality=0.65),
            case(f"{site}_albedo_weather_first_at1", site, dict(albedo=[0.5], use_wf_albedo=1), array_type=1),
            case(f"{site}_albedo_default_at2", site, dict(use_wf_albedo=0), array_type=2, module_type=2),
            case(f"{site}_soiling_at0", site, array_type=0, module_type=1, soiling=MONTHLY_SOILING),
            case(f"{site}_soiling_bifacial_at2", site, array_type=2, tilt=0.0, bifaciality=0.8, soiling=MONTHLY_SOILING),
            case(f"{site}_geometry_at0", site, array_type=0, module_type=2, tilt=35.0, azimuth=225.0, gcr=0.3,
                 dc_ac_ratio=1.4, losses=10.0, inv_eff=97.5),
            case(f"{site}_dense_at3", site, array_type=3, tilt=10.0, azimuth=170.0, gcr=0.9),
            case(f"{site}_plant_at2", site, array_type=2, tilt=0.0, module_type=1, system_capacity=1000.0, gcr=0.35),
            case(f"{site}_small_at0", site, array_type=0, system_capacity=0.5, dc_ac_ratio=1.1),
        ]
    for site in TMY3:
        snowy = f"snow_{site}"
        out += [
            case(f"{snowy}_at0", snowy, array_type=0, en_snowloss=1),
            case(f"{snowy}_bifacial_at1", snowy, array_type=1, bifaciality=0.5, en_snowloss=1),
            case(f"{snowy}_at2", snowy, array_type=2, tilt=0.0, en_snowloss=1),
            case(f"{snowy}_at4", snowy, array_type=4, module_type=1, en_snowloss=1),
            case(f"{snowy}_albedo_default_at0", snowy, dict(use_wf_albedo=0), array_type=0, tilt=35.0, en_snowloss=1),
        ]
    out += [
        case("12839_at1", "12839", array_type=1),
        case("12839_bifacial_at2", "12839", array_type=2, tilt=0.0, bifaciality=0.7),
    ]
    return out


DETAIL = [f"{site}_at{at}_mt0" for site in TMY3 for at in range(5)] + [
    f"{site}_at2_mt0_tilt0" for site in TMY3] + [f"{site}_bifacial_at0" for site in TMY3] + [
    f"snow_{site}_at0" for site in TMY3]


def run(path, c):
    model = pv8.new()
    model.SolarResource.solar_resource_file = path
    for key, value in c["resource"].items():
        setattr(model.SolarResource, key, value)
    for key, value in c["system"].items():
        setattr(model.SystemDesign, key, value)
    model.execute(0)
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    tmp = tempfile.mkdtemp()
    paths = {site: os.path.join(DATA, name) for site, name in TMY3.items()}
    paths["12839"] = os.path.join(DATA, "12839.tm2")
    for site, name in TMY3.items():
        text = with_synthetic_snow(os.path.join(DATA, name))
        with gzip.GzipFile(os.path.join(args.out, f"snow_{site}.csv.gz"), "wb", mtime=0) as f:
            f.write(text.encode())
        paths[f"snow_{site}"] = os.path.join(tmp, f"snow_{site}.csv")
        open(paths[f"snow_{site}"], "w").write(text)

    results = dict(generator="make_ref.py", pysam_version=PySAM.__version__, ssc_version=PySAM.PySSC.PySSC().version(),
                   pvlib_version=pvlib.__version__, base_system=BASE, cases=[])
    hourly_ac, detail = {}, {}
    for c in cases():
        model = run(paths[c["weather"]], c)
        o = model.Outputs
        results["cases"].append(dict(c, ac_annual=o.ac_annual, annual_energy=o.annual_energy,
                                     capacity_factor=o.capacity_factor, kwh_per_kw=o.kwh_per_kw,
                                     solrad_annual=o.solrad_annual, ac_monthly=list(o.ac_monthly),
                                     dc_monthly=list(o.dc_monthly), poa_monthly=list(o.poa_monthly),
                                     solrad_monthly=list(o.solrad_monthly),
                                     snow_loss_hours=sum(1 for v in o.dcsnowderate if v > 0)))
        hourly_ac[c["name"]] = list(o.ac)
        if c["name"] in DETAIL:
            for output in DETAIL_OUTPUTS:
                detail[f"{c['name']}:{output}"] = list(getattr(o, output))
        print(c["name"], o.ac_annual, flush=True)
    for name, columns in (("hourly_ac.csv.gz", hourly_ac), ("hourly_detail.csv.gz", detail)):
        names = list(columns)
        rows = [",".join(names)] + [",".join(repr(float(columns[n][i])) for n in names) for i in range(8760)]
        with gzip.GzipFile(os.path.join(args.out, name), "wb", mtime=0) as f:
            f.write(("\n".join(rows) + "\n").encode())
    with open(os.path.join(args.out, "cases.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
