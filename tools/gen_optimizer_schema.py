"""Generate the optimizer scenario schema of sunflux from its inputs in ``tools/optimizer_schema``.

Reads the live service's field table (``service_fields.json``) and what the spec's "Optimizer
input scenario" section says of each field (``spec_facts.json``: section names, defaults, ranges,
choices, shapes and valid input sets, as data), merges them (the spec wins where the two differ;
the service's value is kept as a note), adds the cross-field rules (``rules.json``) and writes
the two generated artifacts of the section classes:

* ``data/optimizer/sections.json`` -- the field table, the cross-field rules and the description
  and Python types of every section and field (rendered by ``optimizer_schema/describe.py``), as
  one data file of the crate: the Rust core embeds it (``include_str!``), takes the optimizer's
  defaults and the validator's tables from it, and hands its text to the Python package
  (``sunflux._core.optimizer_sections_json``), which builds the section classes, their
  docstrings (numpydoc ``Parameters`` included) and ``__init__`` signatures, the field facts and
  the validation tables from it at import;
* ``python/sunflux/optimizer/sections.pyi`` -- the static types of the section classes and of the
  section slots of ``Scenario`` (typed attributes and keyword-only ``__init__`` signatures, with
  the same docstrings), for IDEs and type checkers.

Usage::

    python tools/gen_optimizer_schema.py            # rewrite the two files
    python tools/gen_optimizer_schema.py --check    # exit 1 when either checked-in file is stale
    python tools/gen_optimizer_schema.py --differences   # list spec vs live-service differences
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import keyword
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
INPUTS = REPO / "tools" / "optimizer_schema"
FIELDS_JSON = Path("service_fields.json")
SPEC_FACTS_JSON = Path("spec_facts.json")
RULES_JSON = Path("rules.json")
PACKAGE = REPO / "python" / "sunflux" / "optimizer"
OUTPUT_DATA = REPO / "data" / "optimizer" / "sections.json"
OUTPUT_STUB = PACKAGE / "sections.pyi"
DESCRIBE_MODULE = INPUTS / "describe.py"
HELPERS_MODULE = PACKAGE / "_helpers.py"

# Order of the sections in the generated module: the spec's sections first (in the order the
# issue lists them), then the live service's sections the spec does not list.
SPEC_SECTIONS = [
    "Meta", "Settings", "Financial", "ElectricLoad", "ElectricTariff", "ElectricUtility", "PV",
    "ElectricStorage", "ExistingChiller", "ExistingBoiler", "Boiler", "HotThermalStorage",
    "HighTempThermalStorage", "ColdThermalStorage", "SpaceHeatingLoad", "DomesticHotWaterLoad",
    "ProcessHeatLoad", "Site", "CHP", "ASHPSpaceHeater", "ASHPWaterHeater", "CST",
]
SERVICE_ONLY_SECTIONS = [
    "Generator", "Wind", "CoolingLoad", "AbsorptionChiller", "SteamTurbine", "GHP", "ElectricHeater",
]

SECTION_DOCS = {
    "Meta": "Free-text description of the scenario; the optimizer ignores it.",
    "Settings": "Run settings: time resolution, solver, timeout and off-grid mode.",
    "Financial": "Economic assumptions: analysis period, discount, tax and escalation rates, "
    "emissions costs.",
    "ElectricLoad": "The site's electric consumption: a measured profile, a DOE commercial "
    "reference building, or a blend of reference buildings.",
    "ElectricTariff": "The utility rate: a URDB rate, monthly or blended annual rates, or a "
    "time-of-use energy price series.",
    "ElectricUtility": "The grid connection: outages, interconnection and net-metering limits, "
    "grid emissions and renewable-energy factors.",
    "PV": "Photovoltaic system the optimizer may size. A scenario holds one array or a list of "
    "named arrays.",
    "ElectricStorage": "Battery storage the optimizer may size (power in kW, energy in kWh).",
    "ExistingChiller": "The site's existing electric chiller serving the cooling load.",
    "ExistingBoiler": "The site's existing fuel boiler serving the heating loads "
    "(business-as-usual heating).",
    "Boiler": "A new fuel boiler the optimizer may size.",
    "HotThermalStorage": "Hot-water thermal storage the optimizer may size (gallons).",
    "HighTempThermalStorage": "High-temperature thermal storage the optimizer may size (kWh).",
    "ColdThermalStorage": "Chilled-water thermal storage the optimizer may size (gallons).",
    "SpaceHeatingLoad": "Space-heating load of the site, as boiler fuel (MMBtu).",
    "DomesticHotWaterLoad": "Domestic hot water load of the site, as boiler fuel (MMBtu).",
    "ProcessHeatLoad": "Industrial process heat load of the site, as boiler fuel (MMBtu).",
    "Site": "Location and site-wide constraints: coordinates, land and roof area, emissions and "
    "renewable-electricity targets.",
    "CHP": "Combined heat and power system the optimizer may size.",
    "ASHPSpaceHeater": "Air-source heat pump for space heating (and optionally cooling) the "
    "optimizer may size (tons).",
    "ASHPWaterHeater": "Air-source heat pump water heater the optimizer may size (tons).",
    "CST": "Concentrating solar thermal system producing process heat.",
    "Generator": "Fuel-burning generator, typically diesel backup during grid outages.",
    "Wind": "Wind turbine the optimizer may size.",
    "CoolingLoad": "Cooling load of the site, served by the existing chiller (tons, or fractions "
    "of the electric load).",
    "AbsorptionChiller": "Absorption chiller driven by hot water or steam, the optimizer may size.",
    "SteamTurbine": "Steam turbine fed by boiler or CHP steam, the optimizer may size.",
    "GHP": "Geothermal heat pump system with its ground heat exchanger sizing.",
    "ElectricHeater": "Electric heater producing hot water or steam, the optimizer may size.",
}

# Sections a scenario may give as a list of objects (the service accepts several PV arrays).
MANY_SECTIONS = {"PV"}

# Hand-written mixins that add helper constructors to a section class: ``class <Section>Helpers``
# in ``_helpers.py`` (the runtime finds them by the same name).
SECTION_BASES = {
    name: f"{name}Helpers"
    for name in re.findall(r"^class (\w+)Helpers\(", HELPERS_MODULE.read_text(encoding="utf-8"), re.M)
}

# Top-level keys of a scenario that are not sections (the service reads them as plain strings).
TOP_LEVEL_STRINGS = ["user_uuid", "webtool_uuid", "portfolio_uuid"]

# Array shapes of fields the spec does not describe, from the service's validators and the
# optimizer's constructors (contract note, sections 2.3-2.5).
SHAPE_FACTS = {
    ("Site", "outdoor_air_temperature_degF"): "series",
    ("Boiler", "fuel_cost_per_mmbtu"): "scalar_monthly_or_series",
    ("CHP", "installed_cost_per_kw"): "scalar_or_list",
    ("CHP", "production_factor_series"): "series",
    ("CST", "production_factor"): "series",
    ("CST", "elec_consumption_factor_series"): "series",
    ("Wind", "production_factor_series"): "series",
    ("Wind", "wind_meters_per_sec"): "series",
    ("Wind", "wind_direction_degrees"): "series",
    ("Wind", "temperature_celsius"): "series",
    ("Wind", "pressure_atmospheres"): "series",
    ("CoolingLoad", "thermal_loads_ton"): "series",
    ("CoolingLoad", "per_time_step_fractions_of_electric_load"): "series",
    ("CoolingLoad", "monthly_tonhour"): "monthly",
    ("ProcessHeatLoad", "monthly_mmbtu"): "monthly",
    ("CoolingLoad", "monthly_fractions_of_electric_load"): "monthly",
}

# Types of fields only the spec names, where its text does not say (REopt.jl's keyword types).
TYPE_FACTS = {
    ("CHP", "months_serving_absorption_chiller_only"): ("list[int]", {"item_min": 1, "item_max": 12}),
}

TYPE_NAMES = {
    "float": "float",
    "int": "int",
    "bool": "bool",
    "str": "str",
    "json": "object",
    "array<float>": "list[float]",
    "array<int>": "list[int]",
    "array<str>": "list[str]",
    "array<json>": "list[object]",
    "array<PickledObject>": "list[object]",
    "array<array<int>>": "list[list[int]]",
}

NUMERIC_TYPES = {"float", "int", "list[float]", "list[int]", "list[list[int]]"}


def load_describe() -> ModuleType:
    """The field-description module beside the generator's inputs."""
    spec = importlib.util.spec_from_file_location("sunflux_optimizer_describe", DESCRIBE_MODULE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DESCRIBE = load_describe()


# --------------------------------------------------------------------------------------------
# What the spec says (read from spec_facts.json)


@dataclass
class SpecField:
    """What the spec says about one field."""

    text: str
    default: Any = None
    has_default: bool = False
    minimum: float | None = None
    maximum: float | None = None
    choices: list[str] | None = None
    item_min: float | None = None
    shape: str | None = None
    integer: bool = False
    boolean: bool = False
    string: bool = False
    unit: str | None = None


@dataclass
class SpecSection:
    """The fields of one spec section and its valid input sets."""

    fields: dict[str, SpecField] = field(default_factory=dict)
    possible_sets: list[list[str]] | None = None


NUMBER = r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?"


def parse_number(text: str) -> int | float:
    """A spec number keeps its kind: ``0`` is an int, ``0.0`` and ``1e9`` are floats."""
    return int(text) if re.fullmatch(r"-?\d+", text) else float(text)


def load_spec_facts(document: dict[str, Any]) -> dict[str, SpecSection]:
    """The spec's sections as ``spec_facts.json`` records them."""
    return {
        name: SpecSection(
            fields={key: SpecField(**facts) for key, facts in section["fields"].items()},
            possible_sets=section.get("possible_sets"),
        )
        for name, section in document["sections"].items()
    }


# --------------------------------------------------------------------------------------------
# Units (from the field names; the service encodes units in them)

EXACT_UNITS = {
    "latitude": "degrees", "longitude": "degrees", "azimuth": "degrees", "tilt": "degrees",
    "time_steps_per_hour": "1/h", "timeout_seconds": "s", "losses": "fraction", "gcr": "fraction",
    "inv_eff": "fraction", "dc_ac_ratio": "ratio", "efficiency": "fraction", "cop": "ratio",
    "kw_per_square_foot": "kW/ft²", "acres_per_kw": "acres/kW",
    "blended_annual_energy_rate": "$/kWh", "blended_annual_demand_rate": "$/kW",
    "monthly_energy_rates": "$/kWh", "monthly_demand_rates": "$/kW",
    "wholesale_rate": "$/kWh", "export_rate_beyond_net_metering_limit": "$/kWh",
    "coincident_peak_load_active_time_steps": "time step", "outage_start_time_step": "time step",
    "outage_end_time_step": "time step", "outage_start_time_steps": "time step",
    "outage_durations": "time steps", "min_resil_time_steps": "time steps",
    "production_factor": "kW/kW", "production_factor_series": "kW/kW",
    "elec_consumption_factor_series": "kW/kW", "cop_thermal": "ratio", "cop_electric": "ratio",
    "heating_cop_reference": "ratio", "cooling_cop_reference": "ratio",
    "heating_cf_reference": "ratio", "cooling_cf_reference": "ratio",
    "replacement_year": "year of analysis", "inverter_replacement_year": "year of analysis",
    "battery_replacement_year": "year of analysis",
    "cost_constant_replacement_year": "year of analysis",
    "ghx_useful_life_years": "years", "production_incentive_years": "years",
    "macrs_option_years": "years", "thermal_decay_rate_fraction": "fraction per hour",
    "ramp_rate_fraction_per_hour": "fraction per hour",
    "supplementary_firing_max_steam_ratio": "ratio", "net_to_gross_electric_ratio": "ratio",
    "electric_produced_to_thermal_consumed_ratio": "ratio",
    "thermal_produced_to_thermal_consumed_ratio": "ratio",
    "max_thermal_factor_on_peak_load": "ratio", "cooling_thermal_factor": "ratio",
    "sizing_factor": "ratio", "outage_probabilities": "fraction",
}
COST_WORDS = ("cost", "rebate", "incentive", "ibi_max", "capex", "value_of_lost_load", "charge",
              "_rate_per_", "rates_per_")
COST_SUFFIX_UNITS = [
    ("_per_kw_per_month", "$/kW/month"), ("_per_hr_per_kw_rated", "$/h per kW"),
    ("_per_mmbtu_per_hour", "$ per MMBtu/h"), ("_per_mmbtu_per_hr", "$ per MMBtu/h"),
    ("_per_sqft_year", "$/ft²/year"), ("_per_kwh", "$/kWh"), ("_per_kw", "$/kW"),
    ("_per_mmbtu", "$/MMBtu"), ("_per_ton", "$/ton"), ("_per_gal", "$/gal"),
    ("_per_gallon", "$/gal"), ("_per_ft", "$/ft"), ("_per_sqft", "$/ft²"),
    ("_per_tonne", "$/tonne"), ("_fraction", "fraction"),
    ("_escalation_rate_fraction", "fraction per year"),
]
SUFFIX_UNITS = [
    ("_escalation_rate_fraction", "fraction per year"), ("_fraction", "fraction"),
    ("_percents", "fraction"), ("_fractions_of_electric_load", "fraction"),
    ("_fraction_of_electric_load", "fraction"), ("_degF", "°F"), ("_celsius", "°C"),
    ("_degrees", "degrees"), ("_meters_per_sec", "m/s"), ("_atmospheres", "atm"),
    ("_psig", "psig"), ("_per_mmbtu", "lb/MMBtu"), ("_per_gal", "lb/gal"),
    ("_per_kwh", "lb/kWh"), ("_kwh_per_gal", "kWh/gal"), ("_mmbtu_per_hour", "MMBtu/h"),
    ("_mmbtu", "MMBtu"), ("_kw_thermal", "kW"), ("_kwh", "kWh"), ("_kw", "kW"),
    ("_tonhour", "ton-h"), ("_ton", "ton"), ("loads_ton", "ton"), ("_gal", "gal"),
    ("_years", "years"), ("_hours", "h"), ("_seconds", "s"), ("_acres", "acres"),
    ("_squarefeet", "ft²"), ("_sqft", "ft²"), ("_boreholes", "count"),
]


def infer_unit(name: str) -> str | None:
    if name in EXACT_UNITS:
        return EXACT_UNITS[name]
    if any(word in name for word in COST_WORDS):
        for suffix, unit in COST_SUFFIX_UNITS:
            if name.endswith(suffix):
                return unit
        return "$"
    if name.endswith(("_max", "_max_benefit")) and ("ibi" in name or "rebate" in name):
        return "$"
    for suffix, unit in SUFFIX_UNITS:
        if name.endswith(suffix):
            return unit
    return None


# --------------------------------------------------------------------------------------------
# Merging the service's table with the spec


def convert_spec_value(value: str, kind: str) -> Any:
    """Turn a spec default or choice into the field's kind."""
    if kind == "bool":
        return {"true": True, "false": False}[value]
    if kind in ("int", "float") or kind in ("list[float]", "list[int]"):
        return parse_number(value)
    if value == "empty string":
        return ""
    return value


def same_value(left: Any, right: Any) -> bool:
    """Equal as the service compares them: ``0`` and ``0.0`` agree, ``True`` and ``1`` do not."""
    return left == right and isinstance(left, bool) == isinstance(right, bool)


def spec_only_kind(spec: SpecField | None) -> str:
    """The type of a field only the spec names, from what the spec says about it."""
    if spec is None:
        return "float"
    default = spec.default if spec.has_default else None
    if spec.boolean or default in ("true", "false"):
        return "bool"
    if spec.integer:
        return "int"
    if spec.shape is not None:
        return "list[float]"
    numeric_default = default is not None and re.fullmatch(NUMBER, default) is not None
    if spec.choices or spec.string or (default is not None and not numeric_default):
        return "str"
    return "float"


def merge_field(
    section: str, name: str, service: dict[str, Any] | None, spec: SpecField | None
) -> dict[str, Any]:
    record: dict[str, Any] = {"type": ""}
    differences: dict[str, Any] = {}
    if service is not None:
        kind = TYPE_NAMES[service["type"]]
    elif (section, name) in TYPE_FACTS:
        kind, facts = TYPE_FACTS[(section, name)]
        record.update(facts)
    else:
        kind = spec_only_kind(spec)
    if spec is not None and spec.integer and kind == "float":
        differences["type"] = kind
        kind = "int"
    record["type"] = kind

    shape = spec.shape if spec is not None and spec.shape else SHAPE_FACTS.get((section, name))
    if shape is None and service is not None and service.get("size") == 12:
        shape = "up_to_12"
    if shape is not None:
        record["shape"] = shape

    def take(key: str, spec_value: Any, service_key: str | None = None) -> None:
        service_value = service.get(service_key or key) if service is not None else None
        has_service = service is not None and (service_key or key) in service
        if spec_value is not None:
            record[key] = spec_value
            if service is not None and not (has_service and same_value(spec_value, service_value)):
                differences[key] = service_value if has_service else None
        elif has_service:
            record[key] = service_value

    item_kind = kind.removeprefix("list[").removesuffix("]") if kind.startswith("list") else kind
    spec_default = None
    if spec is not None and spec.has_default:
        spec_default = convert_spec_value(spec.default, item_kind)
    service_default = service.get("default") if service is not None else None
    if spec_default is not None:
        record["default"] = spec_default
        if service is not None and not (
            "default" in service and same_value(spec_default, service_default)
        ):
            differences["default"] = service_default if "default" in service else None
    elif service is not None and "default" in service and service_default not in ("", []):
        record["default"] = service_default

    if kind.startswith("list"):
        take("item_min", spec.item_min if spec else None)
        take("item_max", None)
        if service is not None and "item_choices" in service:
            record["item_choices"] = service["item_choices"]
    else:
        take("min", spec.minimum if spec else None)
        take("max", spec.maximum if spec else None)
        spec_choices = None
        if spec is not None and spec.choices:
            spec_choices = [convert_spec_value(choice, kind) for choice in spec.choices]
        take("choices", spec_choices)

    if service is not None:
        record["nullable"] = bool(service["null"])
        record["blank"] = bool(service["blank"])
        if service.get("required"):
            record["required"] = True
        record["doc"] = " ".join(service.get("help", "").split())
    else:
        record["nullable"] = True
        record["blank"] = True
        record["doc"] = ""
        differences["field"] = "not a field, the key is dropped silently"
    unit = (spec.unit if spec is not None else None) or infer_unit(name)
    if unit is not None and kind in NUMERIC_TYPES:
        record["unit"] = unit
    if spec is not None:
        record["spec"] = spec.text
    if differences:
        record["service"] = differences
    return record


def build_table(service: dict[str, Any], spec: dict[str, SpecSection]) -> dict[str, Any]:
    sections: dict[str, Any] = {}
    for key in SPEC_SECTIONS + SERVICE_ONLY_SECTIONS:
        service_section = service["sections"][key]
        spec_section = spec.get(key)
        names = list(service_section["fields"])
        if spec_section is not None:
            names += [name for name in spec_section.fields if name not in names]
        fields = {}
        for name in names:
            if not name.isidentifier() or keyword.iskeyword(name):
                raise SystemExit(f"{key}.{name} is not usable as a Python attribute name")
            spec_field = spec_section.fields.get(name) if spec_section else None
            fields[name] = merge_field(key, name, service_section["fields"].get(name), spec_field)
        possible_sets = service_section["possible_sets"]
        if spec_section is not None and spec_section.possible_sets is not None:
            possible_sets = spec_section.possible_sets
        sections[key] = {
            "attr": snake_case(key),
            "in_spec": key in SPEC_SECTIONS,
            "many": key in MANY_SECTIONS,
            "doc": SECTION_DOCS[key],
            "possible_sets": possible_sets,
            "service_only_kwargs": service_section["julia_only_kwargs"],
            "fields": fields,
        }
    return sections


def snake_case(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


# --------------------------------------------------------------------------------------------
# Rendering

GENERATED_NOTE = (
    "Generated by tools/gen_optimizer_schema.py from tools/optimizer_schema (the service's field "
    "table and the spec's facts); do not edit by hand (tests/python/optimizer/test_optimizer_schema.py checks it is "
    "up to date)."
)

LINE_WIDTH = 99


def render_data(table: dict[str, Any], source: dict[str, Any], rules: dict[str, Any]) -> str:
    """The data file: every section and field (read by Python at import and by Rust at build),
    the cross-field rules (``rules.json`` without its note, read by both validations) and the
    texts and Python types of every section and field (``docs``, read by the package at import
    for ``help()``, ``inspect.signature`` and the numpydoc ``Parameters``; the same texts the
    stub's docstrings hold)."""
    docs = {
        key: {"text": DESCRIBE.describe_section(key, section),
              "fields": {name: dict(zip(("read", "write"), DESCRIBE.annotation(record)),
                                    parameter=DESCRIBE.parameter_type(record),
                                    text=DESCRIBE.describe_field(record))
                         for name, record in section["fields"].items()}}
        for key, section in table.items()
    }
    document = {"note": GENERATED_NOTE, "source": source,
                "top_level_strings": TOP_LEVEL_STRINGS, "sections": table,
                "rules": {key: value for key, value in rules.items() if key != "note"},
                "docs": docs}
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def docstring(text: str, indent: str, tail: list[str] | None = None) -> list[str]:
    """A docstring's lines: each line of ``text`` filled to the line width, then the ``tail``
    lines as they are (already laid out)."""
    width = LINE_WIDTH - len(indent) - 3  # room for the opening quotes on the first line
    paragraphs = [
        textwrap.fill(paragraph, width, break_long_words=False, break_on_hyphens=False)
        for paragraph in text.split("\n")
    ]
    wrapped = "\n".join(paragraphs + (tail or [])).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = wrapped.split("\n")
    if len(lines) == 1 and len(lines[0]) + 3 <= width:
        return [f'{indent}"""{lines[0]}"""']
    body = [f"{indent}{line}" if line else "" for line in lines[1:]]
    return [f'{indent}"""{lines[0]}', *body, f'{indent}"""']


def parameters_section(entries: list[tuple[str, str, str]], indent: str) -> list[str]:
    """The numpydoc ``Parameters`` section of a section class's docstring, as lines after a blank
    one: per ``(attr, parameter type, text)`` a ``name : type`` line and the field's description
    filled beneath it (the runtime joins the same entries, unfilled, in ``sections._SectionDoc``)."""
    width = LINE_WIDTH - len(indent)
    lines = ["", "Parameters", "----------"]
    for attr, parameter, text in entries:
        lines.append(f"{attr} : {parameter}")
        for paragraph in text.split("\n"):
            lines += textwrap.wrap(paragraph, width, initial_indent="    ", subsequent_indent="    ",
                                   break_long_words=False, break_on_hyphens=False) or [""]
    return lines


def stub_class(name: str, base: str, doc: str, fields: list[tuple[str, str, str, str]],
               parameters: list[tuple[str, str, str]] | None = None) -> list[str]:
    """A stub class: typed ``Field`` attributes (read, write types) with their docstrings and a
    keyword-only ``__init__`` taking each field's write type; the class docstring ends with a
    numpydoc ``Parameters`` section when ``parameters`` are given."""
    tail = parameters_section(parameters, "    ") if parameters is not None else None
    lines = [f"class {name}({base}):", *docstring(doc, "    ", tail), ""]
    for attr, read, write, text in fields:
        lines += [f"    {attr}: Field[{read}, {write}] = ...", *docstring(text, "    "), ""]
    lines += ["    def __init__(", "        self,", "        *,"]
    lines += [f"        {attr}: {write} | Unset = ...," for attr, _, write, _ in fields]
    return lines + ["    ) -> None: ..."]


def render_stub(table: dict[str, Any]) -> str:
    names = list(table)
    lines = [
        '"""Static types of the section classes that ``sections.py`` builds from the schema',
        "(``data/optimizer/sections.json``).",
        "",
        *textwrap.wrap(GENERATED_NOTE, LINE_WIDTH),
        '"""',
        "",
        "from typing import Any, Sequence",
        "",
        "from sunflux.optimizer._base import Field, FloatSeries, IntSeries, Record, Section, Unset",
        "from sunflux.optimizer._helpers import " + ", ".join(sorted(SECTION_BASES.values())),
        "",
        "__all__ = [",
        *[f'    "{name}",' for name in names + ["SECTION_CLASSES"]],
        "]",
    ]
    for key, section in table.items():
        fields = [(name, *DESCRIBE.annotation(record), DESCRIBE.describe_field(record))
                  for name, record in section["fields"].items()]
        parameters = [(name, DESCRIBE.parameter_type(record), text)
                      for (name, _, _, text), record in zip(fields, section["fields"].values())]
        lines += ["", ""] + stub_class(key, SECTION_BASES.get(key, "Section"),
                                       DESCRIBE.describe_section(key, section), fields, parameters)
    slots = []
    for key, section in table.items():
        read = write = f"{key} | None"
        if section["many"]:
            read, write = f"{key} | list[{key}] | None", f"{key} | Sequence[{key}] | None"
        slots.append((section["attr"], read, write, f"Section ``{key}``: {section['doc']}"))
    slots += [(name, "str | None", "str | None",
               f"Top-level ``{name}`` string the service stores with the run.")
              for name in TOP_LEVEL_STRINGS]
    doc = ("The typed section slots of a scenario (base class of ``Scenario``).\n\nEach attribute "
           "holds a section object, or None when the section is not set; ``pv`` may also hold a "
           "list of arrays.")
    lines += ["", ""] + stub_class("ScenarioSections", "Record", doc, slots)
    lines += ["", "SECTION_CLASSES: dict[str, type[Section]]", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Entry points


def load_inputs(inputs: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The service's field table and the spec's facts under ``inputs``."""
    service = json.loads((inputs / FIELDS_JSON).read_text(encoding="utf-8"))
    spec_facts = json.loads((inputs / SPEC_FACTS_JSON).read_text(encoding="utf-8"))
    return service, spec_facts


def render(inputs: Path = INPUTS) -> dict[Path, str]:
    """The generated files (path -> text) for the inputs under ``inputs``."""
    service, spec_facts = load_inputs(inputs)
    table = build_table(service, load_spec_facts(spec_facts))
    source = {
        "service_fields": f"tools/optimizer_schema/{FIELDS_JSON}",
        "service_version": service["source"]["version"],
        "service_commit": service["source"]["commit"],
        "spec": spec_facts["source"]["document"],
    }
    rules = json.loads((inputs / RULES_JSON).read_text(encoding="utf-8"))
    return {OUTPUT_DATA: render_data(table, source, rules), OUTPUT_STUB: render_stub(table)}


def differences(inputs: Path = INPUTS) -> list[str]:
    """Human-readable list of every field where the spec and the live service differ."""
    service, spec_facts = load_inputs(inputs)
    table = build_table(service, load_spec_facts(spec_facts))
    rows = []
    for key, section in table.items():
        for name, record in section["fields"].items():
            for what, service_value in record.get("service", {}).items():
                ours = record.get(what, record["type"] if what == "type" else "")
                rows.append(f"{key}.{name}: {what}: spec {ours!r}, service {service_value!r}")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=Path, default=INPUTS,
                        help="the folder with service_fields.json and spec_facts.json "
                        "(default: tools/optimizer_schema)")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 when a generated file is out of date")
    parser.add_argument("--differences", action="store_true",
                        help="print the fields where the spec and the live service differ")
    args = parser.parse_args(argv)
    if args.differences:
        print("\n".join(differences(args.inputs)))
        return 0
    outputs = render(args.inputs)
    stale = [path for path, text in outputs.items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"out of date: {path.relative_to(REPO)}", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(outputs[path], encoding="utf-8")
        print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
