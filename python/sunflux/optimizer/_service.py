"""The scenario builder's rules as the embedded optimizer endpoint uses them (called from the
Rust service): validate a posted scenario and fill its defaults, one source of truth."""

from __future__ import annotations

import json
import warnings

from sunflux.optimizer.scenario import Scenario
from sunflux.optimizer.validation import input_errors, validate_scenario_dict


def check_for_service(text: str) -> tuple[str, str]:
    """``(input_errors JSON, resolved scenario JSON)`` for a posted scenario's JSON text."""
    document = json.loads(text)
    problems = validate_scenario_dict(document)
    if problems:
        return json.dumps(input_errors(problems)), text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resolved = Scenario.from_dict(document).to_dict(include_defaults=True)
    return "{}", json.dumps(resolved)
