"""The optimizer scenario field table and cross-field rules, read from ``schema.json`` (shipped with the package).

One source of truth for the section classes, ``validate_scenario_dict`` and the embedded Rust
optimizer (which embeds the same file). ``tools/gen_optimizer_schema.py`` writes it.
"""

import json
from pathlib import Path
from typing import Any

_SCHEMA: dict[str, Any] = json.loads((Path(__file__).parent / "schema.json").read_text("utf-8"))

TOP_LEVEL_STRINGS: tuple[str, ...] = tuple(_SCHEMA["top_level_strings"])
SECTIONS: dict[str, dict[str, Any]] = _SCHEMA["sections"]
RULES: dict[str, Any] = _SCHEMA["rules"]
