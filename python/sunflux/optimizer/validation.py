"""Validation of optimizer scenarios as plain dicts, with every rule in one place.

``validate_scenario_dict(d)`` works on the JSON-like dict a user would POST (no classes built),
so the embedded optimizer endpoint and ``Scenario.validate()`` apply exactly the same rules. It
returns every problem at once; each ``Problem`` names its section, field, path, rule and the
offending value. Rules come from the spec first and from the live service where the spec is
silent; the field facts (types, ranges, choices, shapes) come from the generated ``_fields``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping, Sequence, TypeGuard

from sunflux.optimizer._fields import RULES, SECTIONS, TOP_LEVEL_STRINGS

__all__ = [
    "Problem",
    "validate_scenario_dict",
    "validate_section_dict",
    "input_errors",
    "SERIES_LENGTHS",
    "OFF_GRID_SECTIONS",
]

TIME_STEPS_PER_HOUR = tuple(SECTIONS["Settings"]["fields"]["time_steps_per_hour"]["choices"])
HOURS_PER_YEAR = 8760
SERIES_LENGTHS = tuple(HOURS_PER_YEAR * steps for steps in TIME_STEPS_PER_HOUR)
MONTHS = 12

# The cross-field rule tables, from schema.json (tools/optimizer_schema/rules.json says what
# each one is and where it comes from).
OFF_GRID_SECTIONS = frozenset(RULES["off_grid_sections"])
ON_GRID_FIXED = {(section, name): fixed for section, name, fixed in RULES["on_grid_fixed"]}
BOUND_PAIRS = tuple(tuple(pair) for pair in RULES["bound_pairs"])

SUM_TOLERANCE = 1e-9
PROBABILITY_TOLERANCE = 1e-8

@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scenario.

    ``section`` is the section key (``"ElectricLoad"``, or ``""`` for the scenario as a whole),
    ``field`` the field name (``""`` for a rule about the section), ``path`` where it is
    (``"ElectricLoad.loads_kw"``, ``"PV[1].max_kw"``), ``rule`` a short rule id (``"min"``,
    ``"choices"``, ``"series_length"``, ...), ``value`` the offending value and ``message`` the
    explanation, in the live service's wording where it has one.
    """

    section: str
    field: str
    path: str
    rule: str
    value: Any
    message: str

    def __str__(self) -> str:
        shown = "" if self.value is None else f" (got {_short(self.value)})"
        where = self.path or "scenario"
        return f"{where}: {self.message}{shown}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (the value shortened when it is a long list or an object)."""
        long = isinstance(self.value, (list, dict)) and len(self.value) > MONTHS
        return {**asdict(self), "value": _short(self.value) if long else self.value}


def _short(value: Any) -> str:
    if isinstance(value, list) and len(value) > MONTHS:
        return f"a list of {len(value)} values"
    if isinstance(value, dict) and len(value) > 3:
        return f"an object with {len(value)} keys"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _given(value: Any) -> bool:
    """The service's notion of "provided": not None, "" or an empty list."""
    if value is None:
        return False
    if isinstance(value, (str, list, dict)) and len(value) == 0:
        return False
    return True


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return repr(value) if abs(value) < 1e16 else f"{value:g}"
    return repr(value) if isinstance(value, str) else str(value)


class _Context:
    """What cross-field rules need to know about the scenario as a whole."""

    def __init__(self, scenario: Mapping[str, Any]) -> None:
        settings = scenario.get("Settings")
        settings = settings if isinstance(settings, Mapping) else {}
        steps = settings.get("time_steps_per_hour")
        self.time_steps_per_hour = (
            int(steps) if _is_number(steps) and steps in TIME_STEPS_PER_HOUR else 1
        )
        self.off_grid = settings.get("off_grid_flag") is True
        self.series_length = self.max_time_step = HOURS_PER_YEAR * self.time_steps_per_hour


class _Report:
    """Collects problems, building paths the same way everywhere."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def add(self, section: str, where: str, field: str, rule: str, value: Any,
            message: str) -> None:
        path = f"{where}.{field}" if field else where
        self.problems.append(Problem(section, field, path, rule, value, message))


# --------------------------------------------------------------------------------------------
# Public entry points


def validate_scenario_dict(scenario: Any) -> list[Problem]:
    """Every problem of a scenario given as a plain dict (as JSON would decode it).

    Unknown sections and fields are not problems (the service ignores them); ``Scenario``
    warns about them instead. The dict is not modified.
    """
    report = _Report()
    if not isinstance(scenario, Mapping):
        report.add("", "", "", "type", type(scenario).__name__,
                   "A scenario must be a JSON object whose keys are section names.")
        return report.problems
    if not any(key in SECTIONS for key in scenario):
        report.add("", "", "", "not_a_scenario", None, not_a_scenario_message(scenario))
        return report.problems
    context = _Context(scenario)
    _check_presence(report, scenario, context)
    for key in scenario:
        if key not in SECTIONS:
            continue
        for where, values in _instances(report, key, scenario[key]):
            _check_section(report, key, where, values, context)
    for name in TOP_LEVEL_STRINGS:
        value = scenario.get(name)
        if value is not None and not isinstance(value, str):
            report.add("", name, "", "type", value, "Must be a string.")
    _check_cross_section(report, scenario, context)
    return report.problems


def validate_section_dict(
    key: str, values: Mapping[str, Any], *, time_steps_per_hour: int = 1
) -> list[Problem]:
    """Problems of one section on its own: its fields and its in-section rules."""
    if key not in SECTIONS:
        raise KeyError(f"unknown section {key!r}")
    report = _Report()
    context = _Context({"Settings": {"time_steps_per_hour": time_steps_per_hour}})
    _check_section(report, key, key, values, context)
    return report.problems


def input_errors(problems: Iterable[Problem]) -> dict[str, Any]:
    """Problems in the live service's ``messages.input_errors`` shape.

    ``{Section: {field_or_rule: [message, ...]}}``; problems about a whole section are keyed by
    their rule, problems about the whole scenario by ``"Scenario"``.
    """
    errors: dict[str, dict[str, list[str]]] = {}
    for problem in problems:
        section = problem.section or "Scenario"
        label = problem.field or problem.rule
        errors.setdefault(section, {}).setdefault(label, []).append(problem.message)
    return errors


def not_a_scenario_message(document: Mapping[str, Any]) -> str:
    """Why a JSON object is not an optimizer scenario, with a hint of what it may be instead."""
    keys = list(document)
    shown = ", ".join(repr(key) for key in keys[:8]) + (", ..." if len(keys) > 8 else "")
    text = (
        "This is not an optimizer scenario: it has none of the section keys "
        f"(Site, ElectricLoad, ElectricTariff, PV, ...); its top-level keys are {shown or 'none'}."
    )
    if "inputs" in document and "outputs" in document:
        text += (
            " It looks like an optimizer results response; the scenario it ran is under "
            "'inputs' (Scenario.from_dict(response['inputs']))."
        )
    elif any(key in document for key in ("energyratestructure", "energyweekdayschedule")):
        text += (
            " It looks like a URDB rate; give it as ElectricTariff(urdb_response=...) "
            "in a scenario."
        )
    return text


# --------------------------------------------------------------------------------------------
# Sections


def _instances(
    report: _Report, key: str, value: Any
) -> list[tuple[str, Mapping[str, Any]]]:
    """The section objects under a key with their paths (``PV`` may be a list of objects)."""
    if SECTIONS[key]["many"] and isinstance(value, list):
        found = []
        for index, item in enumerate(value):
            where = f"{key}[{index}]"
            if isinstance(item, Mapping):
                found.append((where, item))
            else:
                report.add(key, where, "", "type", item, f"Each {key} array must be an object.")
        if not value:
            report.add(key, key, "", "type", value, f"{key} must be an object or a non-empty list.")
        _check_unique_names(report, key, found)
        return found
    if isinstance(value, Mapping):
        return [(key, value)]
    expected = "an object or a list of objects" if SECTIONS[key]["many"] else "an object"
    report.add(key, key, "", "type", value, f"Section {key} must be {expected}.")
    return []


def _check_unique_names(
    report: _Report, key: str, found: list[tuple[str, Mapping[str, Any]]]
) -> None:
    """Several arrays of one section are told apart by ``name``, so names must differ."""
    default = SECTIONS[key]["fields"]["name"].get("default")
    seen: set[Any] = set()
    for where, values in found:
        name = values.get("name", default)
        if not isinstance(name, str):
            continue  # a name of the wrong type is reported by the field's type check
        if name in seen:
            report.add(key, where, "name", "unique", name,
                       f"Each {key} array needs its own name; {name!r} is used twice.")
        seen.add(name)


def _check_presence(report: _Report, scenario: Mapping[str, Any], context: _Context) -> None:
    required = RULES["required_sections"] + (
        [] if context.off_grid else RULES["required_on_grid_sections"])
    for key in required:
        if key not in scenario:
            report.add(key, key, "", "required", None, "Missing required inputs.")
    if context.off_grid:
        for key in scenario:
            if key in SECTIONS and key not in OFF_GRID_SECTIONS:
                report.add(
                    key, key, "", "off_grid", None,
                    f"Currently, off-grid functionality doesn't allow modeling for {key} "
                    "(Settings.off_grid_flag is true).",
                )


def _check_section(
    report: _Report, key: str, where: str, values: Mapping[str, Any], context: _Context
) -> None:
    table = SECTIONS[key]["fields"]
    for name, record in table.items():
        if record.get("required") and name not in values:
            report.add(key, where, name, "required", None, "This field is required.")
    for name, value in values.items():
        if name in table:
            _check_field(report, key, where, name, table[name], value, context)
    _check_possible_sets(report, key, where, values)
    _check_bounds(report, key, where, values)
    _check_blend(report, key, where, values)
    _check_needs(report, key, where, values)
    _check_same_length(report, key, where, values)
    rule = SECTION_RULES.get(key)
    if rule is not None:
        rule(report, where, values, context)
    _check_grid_mode(report, key, where, values, context)


def _check_possible_sets(
    report: _Report, key: str, where: str, values: Mapping[str, Any]
) -> None:
    sets = SECTIONS[key]["possible_sets"]
    if not sets or any(all(_given(values.get(name)) for name in names) for names in sets):
        return
    listing = "[" + ", ".join("[" + ", ".join(repr(n) for n in names) + "]" for names in sets) + "]"
    note = RULES["input_set_notes"].get(key)
    message = f"Must provide at least one set of valid inputs from {listing}."
    report.add(key, where, "", "input_set", None, f"{message} {note}" if note else message)


def _check_needs(report: _Report, key: str, where: str, values: Mapping[str, Any]) -> None:
    """The ``needs`` and ``exclusive`` rules of the section: a field given (or equal to a value)
    needs another field given; fields of one group exclude those of the other."""
    for rule in RULES["exclusive"]:
        if rule["section"] == key and any(_given(values.get(name)) for name in rule["either"]) \
                and any(_given(values.get(name)) for name in rule["or"]):
            report.add(key, where, rule["report"], "exclusive", values.get(rule["report"]),
                       rule["message"])
    for need in RULES["needs"]:
        if need["section"] != key or _given(values.get(need["need"])):
            continue
        when = values.get(need["when"])
        if when == need["equals"] if "equals" in need else _given(when):
            report.add(key, where, need["need"], need["rule"], values.get(need["need"]),
                       need["message"])


def _check_same_length(report: _Report, key: str, where: str, values: Mapping[str, Any]) -> None:
    for group in RULES["same_length"].get(key, ()):
        lengths = {len(values[name]) for name in group
                   if isinstance(values.get(name), list) and values[name]}
        if len(lengths) > 1:
            report.add(key, where, group[0], "matching_length", values.get(group[0]),
                       f"{', '.join(group[:-1])}, and {group[-1]} must all have the same length.")


def _check_bounds(report: _Report, key: str, where: str, values: Mapping[str, Any]) -> None:
    for low_name, high_name in BOUND_PAIRS:
        low, high = values.get(low_name), values.get(high_name)
        if _is_number(low) and _is_number(high) and low > high:
            report.add(key, where, low_name, "min_max", low,
                       f"{low_name} ({_fmt(low)}) must not exceed {high_name} ({_fmt(high)}).")


def _check_blend(report: _Report, key: str, where: str, values: Mapping[str, Any]) -> None:
    if key not in RULES["blends"]:
        return
    names_field, percents_field = RULES["blends"][key]
    names, percents = values.get(names_field), values.get(percents_field)
    if not (_given(names) or _given(percents)):
        return
    if not (isinstance(names, list) and isinstance(percents, list)):
        return
    if len(names) != len(percents):
        report.add(key, where, names_field, "matching_length", names,
                   f"The number of {names_field} must equal the number of {percents_field}.")
    if percents and all(_is_number(p) for p in percents):
        total = math.fsum(percents)
        if not math.isclose(total, 1.0, rel_tol=SUM_TOLERANCE, abs_tol=SUM_TOLERANCE):
            report.add(key, where, percents_field, "sum", percents,
                       f"Sum must = 1.0 (the percents add up to {total:g}).")


def _check_grid_mode(
    report: _Report, key: str, where: str, values: Mapping[str, Any], context: _Context
) -> None:
    if context.off_grid:
        if key in RULES["off_grid_false_flags"]["sections"]:
            for flag in RULES["off_grid_false_flags"]["flags"]:
                if values.get(flag) is True:
                    report.add(key, where, flag, "off_grid", True,
                               f"{flag} is always false when Settings.off_grid_flag is true.")
        return
    for (section, name), fixed in ON_GRID_FIXED.items():
        value = values.get(name)
        if section == key and _is_number(value) and value != fixed:
            report.add(key, where, name, "off_grid", value,
                       f"{name} applies to off-grid scenarios only (Settings.off_grid_flag); "
                       f"on the grid it is fixed at {_fmt(fixed)}.")


# --------------------------------------------------------------------------------------------
# Fields


def _check_field(
    report: _Report, key: str, where: str, name: str, record: Mapping[str, Any], value: Any,
    context: _Context,
) -> None:
    def add(rule: str, bad: Any, message: str) -> None:
        report.add(key, where, name, rule, bad, message)

    if not _given(value):
        if record.get("required"):
            add("required", value, "This field is required.")
        elif value is None and not record["nullable"]:
            add("null", None, "This field cannot be null.")
        elif value is not None and not record["blank"]:
            add("blank", value, "This field cannot be blank.")
        return
    kind = record["type"]
    if kind.startswith("list"):
        _check_list(add, record, value, context)
    else:
        _check_scalar(add, kind, record, value)


def _scalar_problem(kind: str, record: Mapping[str, Any], value: Any) -> tuple[str, str] | None:
    """The (rule, message) for one scalar value of type ``kind``, or None when it is fine."""
    if kind == "float":
        if not _is_number(value):
            return "type", f"“{value}” value must be a float."
        if not math.isfinite(value):
            return "finite", "Value must be a finite number."
    elif kind == "int":
        if not _is_number(value) or not (isinstance(value, int) or value.is_integer()):
            return ("integer" if _is_number(value) else "type"), f"“{value}” value must be an integer."
    elif kind == "bool":
        if not isinstance(value, bool):
            return "type", f"“{value}” value must be either True or False."
    elif kind == "str":
        if not isinstance(value, str):
            return "type", f"“{value}” value must be a string."
    elif kind == "object":
        if not isinstance(value, Mapping):
            return "type", "Value must be a JSON object."
    return None


def _range_problem(
    value: Any, minimum: Any, maximum: Any, choices: Sequence[Any] | None
) -> tuple[str, str] | None:
    if choices is not None and value not in choices:
        listing = ", ".join(_fmt(choice) for choice in choices)
        return "choices", f"Value {value!r} is not a valid choice (choices: {listing})."
    if _is_number(value):
        if minimum is not None and value < minimum:
            return "min", f"Ensure this value is greater than or equal to {_fmt(minimum)}."
        if maximum is not None and value > maximum:
            return "max", f"Ensure this value is less than or equal to {_fmt(maximum)}."
    return None


def _check_scalar(add: Any, kind: str, record: Mapping[str, Any], value: Any) -> None:
    problem = _scalar_problem(kind, record, value)
    if problem is None:
        problem = _range_problem(value, record.get("min"), record.get("max"), record.get("choices"))
    if problem is not None:
        add(problem[0], value, problem[1])


def _check_list(add: Any, record: Mapping[str, Any], value: Any, context: _Context) -> None:
    shape = record.get("shape")
    kind = record["type"]
    item_kind = kind[len("list["):-1]
    if not isinstance(value, list):
        if shape is not None and shape.startswith("scalar"):
            value = [value]
        else:
            add("type", value, "Expected a list.")
            return
    _check_items(add, item_kind, record, value, context)
    _check_shape(add, shape, value, context)


def _check_items(
    add: Any, item_kind: str, record: Mapping[str, Any], items: list[Any], context: _Context
) -> None:
    """Per-item checks; one problem per field and rule, naming the first bad item and the count."""
    first: dict[str, tuple[int, Any, str]] = {}
    counts: dict[str, int] = {}
    minimum, maximum = record.get("item_min"), record.get("item_max")
    choices = record.get("item_choices")
    for index, item in enumerate(items):
        if item_kind == "list[int]":
            problem = _time_step_set_problem(item, context)
        elif item_kind == "object":
            problem = None if isinstance(item, Mapping) else ("type", "Item must be a JSON object.")
        else:
            problem = _scalar_problem(item_kind, record, item)
            if problem is None:
                problem = _range_problem(item, minimum, maximum, choices)
        if problem is not None:
            rule, message = problem
            counts[rule] = counts.get(rule, 0) + 1
            first.setdefault(rule, (index, item, message))
    for rule, (index, item, message) in first.items():
        more = counts[rule] - 1
        suffix = f" ({more} more item{'s' if more > 1 else ''} like it)" if more else ""
        add(rule, item, f"Item {index + 1} in the array did not validate: {message}{suffix}")


def _time_step_set_problem(item: Any, context: _Context) -> tuple[str, str] | None:
    if not isinstance(item, list) or not all(
        isinstance(step, int) and not isinstance(step, bool) for step in item
    ):
        return "type", "Each entry must be a list of integer time steps."
    for step in item:
        if step < 1:
            return "min", "Time steps are 1-based: ensure each is greater than or equal to 1."
        if step > context.max_time_step:
            return ("time_step_bound",
                    f"At least one time step is greater than the max allowable "
                    f"({context.max_time_step}).")
    return None


def _check_shape(add: Any, shape: str | None, items: list[Any], context: _Context) -> None:
    count = len(items)
    if shape == "monthly" and count != MONTHS:
        add("length", items, f"Must have 12 values, one per month (got {count}).")
    elif shape == "up_to_12" and count > MONTHS:
        add("length", items, f"List contains {count} items, it should contain no more than 12.")
    elif shape == "series":
        _check_series_length(add, items, context)
    elif shape == "scalar_or_series" and count != 1:
        _check_series_length(add, items, context)
    elif shape == "scalar_monthly_or_series" and count not in (1, MONTHS):
        _check_series_length(add, items, context, also="1 or 12 values, or ")


def _check_series_length(add: Any, items: list[Any], context: _Context, also: str = "") -> None:
    count = len(items)
    if count == context.series_length:
        return
    if count not in SERIES_LENGTHS:
        add("series_length", items,
            f"Invalid length ({count}). Needs {also}one value per time step: samples must be "
            "hourly (8,760 samples), 30 minute (17,520 samples), or 15 minute (35,040 samples).")
        return
    add("series_length", items,
        f"Has {count} samples but Settings.time_steps_per_hour is "
        f"{context.time_steps_per_hour}, which needs {context.series_length} (one per time step).")


# --------------------------------------------------------------------------------------------
# In-section rules


def _electric_tariff_rules(
    report: _Report, where: str, values: Mapping[str, Any], context: _Context
) -> None:
    steps = values.get("coincident_peak_load_active_time_steps")
    charges = values.get("coincident_peak_load_charge_per_kw")
    # [[]] is how the service's own example says "no coincident peak periods".
    step_sets = [s for s in steps if s] if isinstance(steps, list) else []
    charge_list = charges if isinstance(charges, list) else []
    if step_sets or charge_list:
        if len(step_sets) != len(charge_list):
            report.add("ElectricTariff", where, "coincident_peak_load_charge_per_kw",
                       "matching_length", charges,
                       "The number of rates in coincident_peak_load_charge_per_kw must match the "
                       "number of timestep sets in coincident_peak_load_active_time_steps.")
    rate = values.get("urdb_response")
    if isinstance(rate, Mapping) and rate:
        for message, bad in _urdb_problems(rate, context):
            report.add("ElectricTariff", where, "urdb_response", "urdb", bad, message)


def _urdb_problems(rate: Mapping[str, Any], context: _Context) -> list[tuple[str, Any]]:
    """Structure checks of a URDB rate (schedules, periods, tiers)."""
    problems: list[tuple[str, Any]] = []
    for name in RULES["urdb"]["required"]:
        value = rate.get(name)
        if value is None:
            problems.append((f"Missing valid entry for {name}.", None))
        elif not isinstance(value, list):
            problems.append((f"Expecting a list for {name}.", value))
        elif not value:
            problems.append((f"List is empty for {name}.", value))
    for schedule_name, structure_name in RULES["urdb"]["schedules"]:
        schedule = rate.get(schedule_name)
        if not isinstance(schedule, list) or not schedule:
            continue
        structure = rate.get(structure_name)
        if not isinstance(structure, list) or not structure:
            problems.append((f"Missing {structure_name} a dependency of {schedule_name}.", None))
            continue
        problems += _urdb_schedule_problems(schedule_name, schedule, structure_name,
                                            len(structure), context)
    for structure_name in RULES["urdb"]["tiered_structures"]:
        structure = rate.get(structure_name)
        if isinstance(structure, list):
            problems += _urdb_tier_problems(structure_name, structure)
    ratchet = rate.get("demandratchetpercentage")
    if isinstance(ratchet, list) and len(ratchet) != MONTHS:
        problems.append(("demandratchetpercentage must contain 12 values.", ratchet))
    return problems


def _urdb_schedule_problems(
    schedule_name: str, schedule: list[Any], structure_name: str, periods: int,
    context: _Context,
) -> list[tuple[str, Any]]:
    if len(schedule) != MONTHS or not all(isinstance(row, list) and row for row in schedule):
        return [(f"{schedule_name} must hold 12 months of entries.", schedule)]
    problems: list[tuple[str, Any]] = []
    for month, row in enumerate(schedule, start=1):
        if len(row) % 24:
            problems.append(
                (f"Entry {month} of {schedule_name} does not contain a number of entries "
                 "divisible by 24.", row))
            continue
        if len(row) // 24 > context.time_steps_per_hour:
            problems.append(
                (f"The time steps per hour in the {schedule_name} must be no greater than the "
                 "Settings.time_steps_per_hour.", row))
            break
        bad = [p for p in row if not (isinstance(p, int) and not isinstance(p, bool))
               or not 0 <= p < periods]
        if bad:
            problems.append(
                (f"{schedule_name} contains value {bad[0]!r} which has no associated rate in "
                 f"{structure_name}.", bad[0]))
            break
    return problems


def _urdb_tier_problems(structure_name: str, structure: list[Any]) -> list[tuple[str, Any]]:
    for number, period in enumerate(structure):
        if not isinstance(period, list) or not all(isinstance(t, Mapping) for t in period):
            return [(f"Period {number} of {structure_name} must be a list of tier objects.",
                     period)]
        for tier_index, tier in enumerate(period):
            for key in RULES["urdb"]["tier_numbers"]:
                if key in tier and tier[key] is not None and not _is_number(tier[key]):
                    return [(f"Tier {tier_index} of period {number} in {structure_name} has a "
                             f"non-numeric {key}.", tier[key])]
            if tier_index < len(period) - 1 and not _is_number(tier.get("max")):
                return [(f"Tier {tier_index} of period {number} in {structure_name} needs a "
                         "max (every tier but the last).", tier)]
    return []


def _electric_utility_rules(
    report: _Report, where: str, values: Mapping[str, Any], context: _Context
) -> None:
    def add(field: str, rule: str, value: Any, message: str) -> None:
        report.add("ElectricUtility", where, field, rule, value, message)

    start, end = values.get("outage_start_time_step"), values.get("outage_end_time_step")
    if _is_number(start) and _is_number(end) and end < start:
        add("outage_end_time_step", "order", end,
            "outage_end_time_step must be larger than or equal to outage_start_time_step.")
    for name, value in (("outage_start_time_step", start), ("outage_end_time_step", end)):
        if _is_number(value) and value > context.max_time_step:
            add(name, "time_step_bound", value,
                f"Value is greater than the max allowable ({context.max_time_step}).")

    starts = values.get("outage_start_time_steps")
    durations = values.get("outage_durations")
    probabilities = values.get("outage_probabilities")
    if isinstance(probabilities, list) and isinstance(durations, list) and _given(probabilities):
        if len(probabilities) != len(durations):
            add("outage_probabilities", "matching_length", probabilities,
                "outage_probabilities and outage_durations must have the same length.")
    if isinstance(probabilities, list) and probabilities and all(
        _is_number(p) for p in probabilities
    ):
        total = math.fsum(probabilities)
        if abs(total - 1.0) > PROBABILITY_TOLERANCE:
            add("outage_probabilities", "sum", probabilities,
                f"outage_probabilities must have a sum of 1.0 (they add up to {total:g}).")
    start_steps = _integers(starts)
    duration_steps = _integers(durations)
    if start_steps:
        latest = max(start_steps)
        if latest > context.max_time_step:
            add("outage_start_time_steps", "time_step_bound", latest,
                f"Value is greater than the max allowable ({context.max_time_step}).")
        elif duration_steps and latest + max(duration_steps) - 1 > context.max_time_step:
            add("outage_durations", "time_step_bound", max(duration_steps),
                f"Value is greater than the max allowable ({context.max_time_step} - {latest}): "
                "the longest outage starting at the last start step runs past the end of the year.")


def _integers(value: Any) -> list[int]:
    """The list when it is a non-empty list of integers, else an empty list."""
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return value
    return []


def _chp_rules(report: _Report, where: str, values: Mapping[str, Any], context: _Context) -> None:
    periods = values.get("unavailability_periods")
    if not isinstance(periods, list):
        return
    for index, period in enumerate(periods):
        if not isinstance(period, Mapping):
            continue
        for name, (low, high) in RULES["chp_unavailability_keys"].items():
            value = period.get(name)
            if not (isinstance(value, int) and not isinstance(value, bool)):
                message = f"Item {index + 1} needs an integer {name}."
            elif value < low or (high is not None and value > high):
                limit = f"{low}..{high}" if high is not None else f">= {low}"
                message = f"Item {index + 1} has {name} {value}, outside {limit}."
            else:
                continue
            report.add("CHP", where, "unavailability_periods", "unavailability_period", period,
                       message)
            break


SECTION_RULES = {
    "ElectricTariff": _electric_tariff_rules,
    "ElectricUtility": _electric_utility_rules,
    "CHP": _chp_rules,
}


# --------------------------------------------------------------------------------------------
# Cross-section rules


def _section(scenario: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    value = scenario.get(key)
    return value if isinstance(value, Mapping) else None


def _check_cross_section(report: _Report, scenario: Mapping[str, Any], context: _Context) -> None:
    electric_load = _section(scenario, "ElectricLoad") or {}
    has_reference = _given(electric_load.get("doe_reference_name")) or _given(
        electric_load.get("blended_doe_reference_names")
    )
    for key, own_profile in RULES["inheriting_loads"].items():
        load = _section(scenario, key)
        if load is None or any(_given(load.get(name)) for name in own_profile):
            continue
        if not has_reference:
            report.add(key, key, "doe_reference_name", "cross_section", None,
                       f"Must provide DOE commercial reference building profiles either under "
                       f"{key} or ElectricLoad.")

    for need in RULES["section_needs"]:
        needing = need["section"]
        if _section(scenario, need["when"]) is not None and not _given(
            (_section(scenario, needing) or {}).get(need["need"])
        ):
            report.add(needing, needing, need["need"], need["rule"], None, need["message"])

    heating = [key for key in RULES["heating_loads"] if key in scenario]
    if heating and "ExistingBoiler" not in scenario:
        report.add("ExistingBoiler", "ExistingBoiler", "", "cross_section", None,
                   f"A heating load ({', '.join(heating)}) needs an ExistingBoiler section "
                   "(with fuel_cost_per_mmbtu) to serve it in the business-as-usual case.")

    site = _section(scenario, "Site") or {}
    utility = _section(scenario, "ElectricUtility") or {}
    resilience = site.get("min_resil_time_steps")
    durations = utility.get("outage_durations")
    if _is_number(resilience) and isinstance(durations, list) and durations and all(
        _is_number(d) for d in durations
    ) and resilience > max(durations):
        report.add("Site", "Site", "min_resil_time_steps", "cross_section", resilience,
                   f"min_resil_time_steps must be at most the longest of "
                   f"ElectricUtility.outage_durations ({_fmt(max(durations))}).")
