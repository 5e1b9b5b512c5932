#!/usr/bin/env python3
"""Extra PVWatts v5 reference results (SSC via PySAM) for tests/rust/pvwatts/pvwatts_reference.rs.

Covers what shared/pvref does not: other tilts/azimuths/losses/DC-AC ratios/GCRs/inverter
efficiencies, the TMY2 site, and SAM CSV input with and without a Minute column (the latter is
SSC's instantaneous mode). Usage: python make_extra_cases.py DATA_DIR OUT.json
DATA_DIR holds 723170TYA.CSV, 703165TY.csv and 12839.tm2 (pvlib's data files). The two SAM CSV
inputs and the three relocated TMY3 inputs are written next to OUT.json; they are derived from
723170TYA.CSV exactly as sam_csv_from_tmy3() and relocated_tmy3() in tests/rust/pvwatts/pvwatts_reference.rs
derive them, so they are not committed.
"""
import json, os, random, sys
import PySAM
import PySAM.Pvwattsv5 as pv5

def sam_csv_from_tmy3(tmy3_path, with_minute):
    lines = open(tmy3_path).read().splitlines()
    head = lines[0].split(',')
    meta_names = "Source,Location ID,City,State,Country,Latitude,Longitude,Time Zone,Elevation"
    meta_values = f"TMY3,{head[0]},-,-,-,{head[4]},{head[5]},{head[3]},{head[6]}"
    names = "Year,Month,Day,Hour," + ("Minute," if with_minute else "") + "GHI,DNI,DHI,Temperature,Wind Speed,Pressure,Albedo"
    rows = [meta_names, meta_values, names]
    for line in lines[2:]:
        c = line.split(',')
        mm, dd, yyyy = c[0].split('/')
        hour = int(c[1].split(':')[0]) - 1
        cells = [yyyy, str(int(mm)), str(int(dd)), str(hour)] + (["30"] if with_minute else []) + [c[4], c[7], c[10], c[31], c[46], c[40], c[61]]
        rows.append(",".join(cells))
    return "\n".join(rows) + "\n"

# Greensboro's TMY3 data moved to other sites (header time zone, latitude and longitude replaced):
# sunsets after local midnight (Nome), the southern hemisphere (Cape Town) and UTC+12 (Auckland).
RELOCATED = {"nome": ("-9.0", "64.5", "-165.4"), "capetown": ("2.0", "-33.9", "18.4"), "auckland": ("12.0", "-36.8", "174.8")}

def relocated_tmy3(tmy3_path, tz, lat, lon):
    lines = open(tmy3_path).read().split("\n")
    head = lines[0].split(",")
    head[3], head[4], head[5] = tz, lat, lon
    return "\n".join([",".join(head)] + lines[1:])

def run(path, params):
    m = pv5.new()
    m.SolarResource.solar_resource_file = path
    for k, v in params.items():
        setattr(m.SystemDesign, k, v)
    m.execute(0)
    o = m.Outputs
    return dict(params=params, ac_annual=o.ac_annual, solrad_annual=o.solrad_annual, capacity_factor=o.capacity_factor,
                ac_monthly=list(o.ac_monthly), poa_monthly=list(o.poa_monthly), dc_monthly=list(o.dc_monthly),
                ac_hourly_sum=sum(o.ac), poa_max=max(o.poa), tcell_max=max(o.tcell), sunup_hours=sum(1 for s in o.sunup if s > 0))

def main():
    data, out = sys.argv[1], sys.argv[2]
    rng = random.Random(20261121)
    files = {"723170TYA.CSV": os.path.join(data, "723170TYA.CSV"), "703165TY.csv": os.path.join(data, "703165TY.csv"),
             "12839.tm2": os.path.join(data, "12839.tm2")}
    for with_minute in (False, True):
        name = f"723170TYA_sam{'_minute' if with_minute else ''}.csv"
        path = os.path.join(os.path.dirname(out) or ".", name)
        open(path, "w").write(sam_csv_from_tmy3(files["723170TYA.CSV"], with_minute))
        files[name] = path
    for site, (tz, lat, lon) in RELOCATED.items():
        name = f"723170TYA_at_{site}.CSV"
        path = os.path.join(os.path.dirname(out) or ".", name)
        open(path, "w").write(relocated_tmy3(files["723170TYA.CSV"], tz, lat, lon))
        files[name] = path
    cases = []
    for name, path in files.items():
        for i in range(8):
            params = dict(system_capacity=round(rng.uniform(0.5, 50.0), 3), module_type=rng.randrange(3),
                          losses=round(rng.uniform(-5, 40), 2), array_type=rng.randrange(5),
                          tilt=round(rng.uniform(0, 90), 1), azimuth=round(rng.uniform(0, 359.9), 1),
                          dc_ac_ratio=round(rng.uniform(0.8, 2.0), 2), gcr=round(rng.uniform(0.1, 0.9), 2),
                          inv_eff=round(rng.uniform(90, 99.5), 1))
            r = run(path, params)
            r["file"] = name
            cases.append(r)
            print(name, params["array_type"], r["ac_annual"], flush=True)
    json.dump(dict(generator="make_extra_cases.py", pysam_version=PySAM.__version__, cases=cases), open(out, "w"), separators=(",", ":"))

main()
