"""The optimizer scenario field table and cross-field rules, read from ``schema.json`` (shipped with the package),
and the sections' and fields' descriptions and Python types, read from ``field_docs.json``.

One source of truth for the section classes, ``validate_scenario_dict`` and the embedded Rust
optimizer (which embeds ``schema.json``). ``tools/gen_optimizer_schema.py`` writes both.
"""

import json
from pathlib import Path
from typing import Any

_HERE = Path(__file__).parent
_SCHEMA: dict[str, Any] = json.loads((_HERE / "schema.json").read_text("utf-8"))

TOP_LEVEL_STRINGS: tuple[str, ...] = tuple(_SCHEMA["top_level_strings"])
SECTIONS: dict[str, dict[str, Any]] = _SCHEMA["sections"]
RULES: dict[str, Any] = _SCHEMA["rules"]
#: ``{section: {"text": docstring, "fields": {name: {"read": type, "write": type, "text": docstring}}}}``
DOCS: dict[str, dict[str, Any]] = json.loads((_HERE / "field_docs.json").read_text("utf-8"))["sections"]
