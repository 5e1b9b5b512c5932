"""The scenario builder's rules as the embedded optimizer endpoint uses them (called from the
Rust service): validate a posted scenario and fill its defaults, one source of truth."""

from __future__ import annotations

import json
import warnings
from typing import Any

from sunflux.optimizer.scenario import Scenario
from sunflux.optimizer.validation import input_errors, validate_scenario_dict

#: Sections the service creates with their defaults when a scenario leaves them out; the
#: utility only for grid-connected runs (so the results' ``inputs`` always show them).
ALWAYS_CREATED = ("Settings", "Financial")
CREATED_ON_GRID = ("ElectricUtility",)


def _with_created_sections(document: dict[str, Any]) -> dict[str, Any]:
    settings = document.get("Settings")
    off_grid = isinstance(settings, dict) and settings.get("off_grid_flag") is True
    created = ALWAYS_CREATED if off_grid else ALWAYS_CREATED + CREATED_ON_GRID
    return {**document, **{name: {} for name in created if name not in document}}


def check_for_service(text: str) -> tuple[str, str]:
    """``(input_errors JSON, resolved scenario JSON)`` for a posted scenario's JSON text."""
    document = json.loads(text)
    problems = validate_scenario_dict(document)
    if problems:
        return json.dumps(input_errors(problems)), text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resolved = Scenario.from_dict(_with_created_sections(document)).to_dict(include_defaults=True)
    return "{}", json.dumps(resolved)
