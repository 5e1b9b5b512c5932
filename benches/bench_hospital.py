"""A hospital-like site solved in process (issue #30): one hourly year with electric, heating and
cooling loads, sized PV, battery, CHP, a new boiler beside the existing one, an absorption chiller
beside the existing electric chiller, and hot and cold water tanks; and the same site without its
thermal part (its electric load, PV and battery only), in the same run. The loads and the PV
production are made here: a hospital's flat-topped day, heating that peaks in January and cooling
that peaks in July. The table gives each solve's time and the size of its optimal-case program
(`messages["solver"]` of the result)."""

from __future__ import annotations

import math
from typing import Any

import sunflux as sf
from bench_optimizer_engine import HOURS, best_solve, daylight

TITLE = "Optimizer thermal model: a hospital-like site with CHP, absorption chiller and thermal storage"
REPEATS = 1
GOAL_S = 30.0
#: `Settings.timeout_seconds` of every solve here: the whole site's CHP runs past it.
LIMIT_S = 300


def season(hour: int, peak_day: int) -> float:
    """1 on ``peak_day``, 0 half a year away, a cosine between."""
    return 0.5 + 0.5 * math.cos(math.tau * (hour / 24 - peak_day) / 365)


def electric_kw() -> list[float]:
    """1,200 kW at night, 1,900 kW from 07:00 to 19:00."""
    return [1900.0 if 7 <= hour % 24 < 19 else 1200.0 for hour in range(HOURS)]


def space_heating_mmbtu_per_hour() -> list[float]:
    """Boiler fuel for space heating: 1 to 7 MMBtu/h by season, 30 % more at night."""
    return [(1.0 + 6.0 * season(hour, 15)) * (1.3 if not 7 <= hour % 24 < 19 else 1.0) for hour in range(HOURS)]


def hot_water_mmbtu_per_hour() -> list[float]:
    """Boiler fuel for hot water: 1.5 MMBtu/h by day, 0.8 at night, all year."""
    return [1.5 if 6 <= hour % 24 < 22 else 0.8 for hour in range(HOURS)]


def cooling_ton() -> list[float]:
    """Cooling: 80 to 700 tons by season, at its daily peak from 12:00 to 18:00."""
    return [(80.0 + 620.0 * season(hour, 196)) * (1.0 if 12 <= hour % 24 < 18 else 0.6) for hour in range(HOURS)]


def electric_part() -> dict[str, Any]:
    """The site without its thermal part: load, a TOU rate with a demand charge, PV and a battery."""
    peak = [[1 if 12 <= hour < 18 else 0 for hour in range(24)] for _ in range(12)]
    single = [[0] * 24 for _ in range(12)]
    return {
        "Site": {"latitude": 39.74, "longitude": -105.17},
        "Settings": {"time_steps_per_hour": 1, "timeout_seconds": LIMIT_S},
        "ElectricLoad": {"loads_kw": electric_kw(), "year": 2017},
        "ElectricTariff": {"urdb_response": {
            "energyweekdayschedule": peak, "energyweekendschedule": single,
            "energyratestructure": [[{"rate": 0.08, "unit": "kWh"}], [{"rate": 0.16, "unit": "kWh"}]],
            "demandweekdayschedule": single, "demandweekendschedule": single,
            "demandratestructure": [[{"rate": 18.0, "unit": "kW"}]],
        }},
        "PV": {"max_kw": 2000, "installed_cost_per_kw": 1400.0, "om_cost_per_kw": 18.0, "production_factor_series": daylight(1)},
        "ElectricStorage": {"max_kw": 1000, "max_kwh": 4000, "installed_cost_per_kw": 350.0, "installed_cost_per_kwh": 250.0,
                            "installed_cost_constant": 0.0},
    }


def hospital(chp: bool = True) -> dict[str, Any]:
    """The whole site: the electric part plus heating and cooling and their technologies (without
    the CHP when ``chp`` is false: the absorption chiller then draws the boilers' heat)."""
    document = {
        **electric_part(),
        "SpaceHeatingLoad": {"fuel_loads_mmbtu_per_hour": space_heating_mmbtu_per_hour()},
        "DomesticHotWaterLoad": {"fuel_loads_mmbtu_per_hour": hot_water_mmbtu_per_hour()},
        "CoolingLoad": {"thermal_loads_ton": cooling_ton()},
        "ExistingBoiler": {"efficiency": 0.8, "fuel_cost_per_mmbtu": 9.0},
        "Boiler": {"max_mmbtu_per_hour": 10.0, "efficiency": 0.9, "fuel_cost_per_mmbtu": 9.0, "installed_cost_per_mmbtu_per_hour": 30000.0},
        "ExistingChiller": {"cop": 4.5},
        "AbsorptionChiller": {"max_ton": 600},
        "HotThermalStorage": {"max_gal": 50000},
        "ColdThermalStorage": {"max_gal": 50000},
    }
    if chp:
        document["CHP"] = {"prime_mover": "recip_engine", "max_kw": 1500, "fuel_cost_per_mmbtu": 9.0, "cooling_thermal_factor": 0.8}
    return document


def run(repeats: int = REPEATS) -> str:
    rows = []
    sites = (("electric part only", electric_part()), ("whole site without the CHP", hospital(chp=False)),
             ("whole site", hospital()))
    for label, document in sites:
        try:
            best, result = best_solve(document, repeats)
        except sf.JobTimeout:
            rows.append(f"| {label} | > {LIMIT_S} | – | – | – | – | – | not finished within the time limit |")
            continue
        program = result.messages["solver"]["optimal"]
        outputs = result.raw["outputs"]
        sizes = ", ".join(
            f"{section} {outputs[section][field]:,.0f} {unit}"
            for section, field, unit in (
                ("PV", "size_kw", "kW"), ("ElectricStorage", "size_kwh", "kWh"), ("CHP", "size_kw", "kW"),
                ("Boiler", "size_mmbtu_per_hour", "MMBtu/h"), ("AbsorptionChiller", "size_ton", "ton"),
                ("HotThermalStorage", "size_gal", "gal"), ("ColdThermalStorage", "size_gal", "gal"),
            )
            if section in outputs and outputs[section].get(field) is not None
        )
        rows.append(
            f"| {label} | {best:.2f} | {program['variables']:,} | {program['binaries']:,} | {program['rows']:,} | "
            f"{program['nonzeros']:,} | {outputs['Financial']['lcc']:,.0f} | {sizes} |"
        )
    return "\n".join([
        f"`sunflux.optimizer.solve`, best of {repeats}, of one hourly year (8,760 steps), each solve limited to {LIMIT_S} s; "
        "the program is the optimal case's (the business-as-usual case is solved too). "
        f"Goal for the whole site: under {GOAL_S:.0f} s.",
        "",
        "| site | seconds | variables | binaries | rows | coefficients | lcc ($) | sizes |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
        *rows,
    ])


if __name__ == "__main__":
    print(run(repeats=1))
