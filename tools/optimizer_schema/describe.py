"""Plain-text descriptions and Python types of the schema's sections and fields.

The generator renders them once, into ``sections.pyi`` (docstrings and annotations, for IDEs and
type checkers) and into the ``docs`` of ``data/optimizer/sections.json`` (read by the package at
import for ``help()``, ``inspect.signature`` and the classes' numpydoc ``Parameters``), so both
read alike and the package renders nothing at run time.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = ["describe_field", "describe_section", "annotation", "parameter_type", "format_number", "SHAPE_TEXT"]

SHAPE_TEXT = {
    "series": "a series: one value per time step (8760 x Settings.time_steps_per_hour)",
    "monthly": "12 values, one per month",
    "up_to_12": "at most 12 values, one per month",
    "scalar_or_series": "a scalar, or a series (8760 x Settings.time_steps_per_hour values)",
    "scalar_monthly_or_series": "a scalar, 12 monthly values, or a series "
    "(8760 x Settings.time_steps_per_hour values)",
    "scalar_or_list": "a scalar or a list",
}

# Parenthesised spec remarks already given as facts (type, shape, unit).
FACT_NOTES = {"integer", "string", "boolean", "12 values", "list", "series", "miles"}


def format_number(value: Any) -> str:
    """Numbers as the spec writes them: ``1e9``, ``10000``, ``0.14``."""
    if isinstance(value, float) and value.is_integer():
        if abs(value) >= 1e5:
            return f"{value:.0e}".replace("e+0", "e").replace("e+", "e")
        return str(int(value))
    return repr(value)


def _bounds(low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return f"{format_number(low)}..{format_number(high)}"
    if low is not None:
        return f">= {format_number(low)}"
    return f"<= {format_number(high)}"


def _shown(value: Any) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return format_number(value)
    return repr(value)


def describe_field(record: Mapping[str, Any]) -> str:
    """The description of a field record of ``_fields.SECTIONS`` (lines separated by newlines)."""
    help_text = record.get("doc") or "Named by the spec only; the live service has no help text."
    lines = [help_text if help_text.endswith((".", "?", ")")) else help_text + ".", ""]
    facts = [f"Type: {record['type']}"]
    if "unit" in record:
        facts.append(f"unit: {record['unit']}")
    if "default" in record:
        facts.append(f"default: {_shown(record['default'])}")
    elif record.get("required"):
        facts.append("required")
    if "min" in record or "max" in record:
        facts.append(f"range: {_bounds(record.get('min'), record.get('max'))}")
    if "item_min" in record or "item_max" in record:
        facts.append(f"each value: {_bounds(record.get('item_min'), record.get('item_max'))}")
    lines.append("; ".join(facts) + ".")
    if "choices" in record:
        lines.append("Choices: " + ", ".join(repr(choice) for choice in record["choices"]) + ".")
    if "shape" in record:
        lines.append(f"Shape: {SHAPE_TEXT[record['shape']]}.")
    spec_notes = [note for note in re.findall(r"\(([^()]*)\)", record.get("spec", ""))
                  if note not in FACT_NOTES]
    if spec_notes:
        lines.append("Spec: " + "; ".join(spec_notes) + ".")
    if "service" in record:
        service_notes = [
            value if key == "field" else f"no {key}" if value is None else f"{key} {value!r}"
            for key, value in record["service"].items()
        ]
        lines.append(f"Live service: {'; '.join(service_notes)} (this client follows the spec).")
    return "\n".join(lines)


def describe_section(key: str, section: Mapping[str, Any]) -> str:
    """The docstring of a section class: what it is, its size, origin and valid input sets."""
    origin = ("Listed in the spec." if section["in_spec"]
              else "Not listed in the spec; fields and rules follow the live service.")
    text = f"{section['doc']}\n\nSection key ``{key}``; {len(section['fields'])} fields. {origin}"
    if section["possible_sets"]:
        sets = "; ".join("[" + ", ".join(names) + "]" for names in section["possible_sets"])
        text += f"\nValid input sets (one of): {sets}."
    return text


_SCALARS = {"float": "float", "int": "int", "bool": "bool", "str": "str", "object": "dict[str, Any]"}
_ITEMS = {"list[float]": ("float", "FloatSeries"), "list[int]": ("int", "IntSeries"),
          "list[str]": ("str", "Sequence[str]"),
          "list[object]": ("dict[str, Any]", "Sequence[dict[str, Any]]"),
          "list[list[int]]": ("list[int]", "Sequence[Sequence[int]]")}


def annotation(record: Mapping[str, Any]) -> tuple[str, str]:
    """The (read, write) Python types of a field record, as annotation texts."""
    kind, shape = record["type"], record.get("shape")
    if kind in _SCALARS:
        return f"{_SCALARS[kind]} | None", f"{_SCALARS[kind]} | None"
    item, write = _ITEMS[kind]
    if shape is not None and shape.startswith("scalar"):
        return f"{item} | list[{item}] | None", f"{item} | {write} | None"
    return f"list[{item}] | None", f"{write} | None"


def parameter_type(record: Mapping[str, Any]) -> str:
    """The type part of a field's numpydoc ``Parameters`` entry: its write type and its default
    (``float | None, default 0.14``), ``optional`` when it has none and is not required."""
    _, write = annotation(record)
    if "default" in record:
        return f"{write}, default {_shown(record['default'])}"
    return write if record.get("required") else f"{write}, optional"
