"""Validation of optimizer scenarios as plain dicts, with every rule in one place.

``validate_scenario_dict(d)`` works on the JSON-like dict a user would POST (no classes built),
so the embedded optimizer endpoint and ``Scenario.validate()`` apply exactly the same rules: both
run the Rust validator (``sunflux._core.optimizer_validate_scenario``), which reads the field
table and the rule tables from the schema (``data/optimizer/sections.json``). It returns every problem at once; each
``Problem`` names its section, field, path, rule and the offending value.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping

from sunflux import _core
from sunflux.optimizer._fields import RULES, SECTIONS

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

# The cross-field rule tables, from the schema (tools/optimizer_schema/rules.json says what
# each one is and where it comes from).
OFF_GRID_SECTIONS = frozenset(RULES["off_grid_sections"])
ON_GRID_FIXED = {(section, name): fixed for section, name, fixed in RULES["on_grid_fixed"]}
BOUND_PAIRS = tuple(tuple(pair) for pair in RULES["bound_pairs"])


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scenario.

    ``section`` is the section key (``"ElectricLoad"``, or ``""`` for the scenario as a whole),
    ``field`` the field name (``""`` for a rule about the section), ``path`` where it is
    (``"ElectricLoad.loads_kw"``, ``"PV[1].max_kw"``), ``rule`` a short rule id (``"min"``,
    ``"choices"``, ``"series_length"``, ...), ``value`` the offending value and ``message`` the
    explanation, in the live service's wording where it has one.

    Parameters
    ----------
    section : str
        The section key, ``""`` for the scenario as a whole.
    field : str
        The field name, ``""`` for a rule about the section.
    path : str
        Where the problem is (``"PV[1].max_kw"``).
    rule : str
        The rule's short id (``"min"``, ``"choices"``, ``"series_length"`` ...).
    value : object
        The offending value.
    message : str
        The explanation.
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
        """A JSON-ready form (the value shortened when it is a long list or an object).

        Returns
        -------
        dict
            ``section``, ``field``, ``path``, ``rule``, ``value`` and ``message``.
        """
        long = isinstance(self.value, (list, dict)) and len(self.value) > MONTHS
        return {**asdict(self), "value": _short(self.value) if long else self.value}


def _short(value: Any) -> str:
    if isinstance(value, list) and len(value) > MONTHS:
        return f"a list of {len(value)} values"
    if isinstance(value, dict) and len(value) > 3:
        return f"an object with {len(value)} keys"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def validate_scenario_dict(scenario: Any) -> list[Problem]:
    """Every problem of a scenario given as a plain dict (as JSON would decode it).

    Unknown sections and fields are not problems (the service ignores them); ``Scenario``
    warns about them instead. The dict is not modified.

    Parameters
    ----------
    scenario : dict
        The scenario as the service's JSON reads (section keys to objects).

    Returns
    -------
    list of Problem
        Every problem (field types, ranges such as degrees within -90 to 90 for a latitude,
        series lengths, cross-section rules); empty when the scenario is valid.
    """
    return [Problem(*row) for row in _core.optimizer_validate_scenario(scenario)]


def validate_section_dict(
    key: str, values: Mapping[str, Any], *, time_steps_per_hour: int = 1
) -> list[Problem]:
    """Problems of one section on its own: its fields and its in-section rules.

    Parameters
    ----------
    key : str
        The section's key (``"PV"``, ``"ElectricLoad"`` ...).
    values : mapping
        The section's fields.
    time_steps_per_hour : int, default 1
        The scenario's time steps per hour (1, 2 or 4), which sets the length of series.

    Returns
    -------
    list of Problem
        Empty when the section is valid on its own.

    Raises
    ------
    KeyError
        ``key`` is not a known section.
    """
    if key not in SECTIONS:
        raise KeyError(f"unknown section {key!r}")
    rows = _core.optimizer_validate_section(key, values, time_steps_per_hour)
    return [Problem(*row) for row in rows]


def input_errors(problems: Iterable[Problem]) -> dict[str, Any]:
    """Problems in the live service's ``messages.input_errors`` shape.

    ``{Section: {field_or_rule: [message, ...]}}``; problems about a whole section are keyed by
    their rule, problems about the whole scenario by ``"Scenario"``.

    Parameters
    ----------
    problems : iterable of Problem
        Problems as `validate_scenario_dict` returns them.

    Returns
    -------
    dict
        ``{Section: {field_or_rule: [message, ...]}}``.
    """
    errors: dict[str, dict[str, list[str]]] = {}
    for problem in problems:
        section = problem.section or "Scenario"
        label = problem.field or problem.rule
        errors.setdefault(section, {}).setdefault(label, []).append(problem.message)
    return errors


def not_a_scenario_message(document: Mapping[str, Any]) -> str:
    """Why a JSON object is not an optimizer scenario, with a hint of what it may be instead."""
    return _core.optimizer_not_a_scenario_message(document)

