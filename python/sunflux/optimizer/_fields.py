"""The optimizer scenario field table, cross-field rules and the sections' and fields' descriptions
and Python types, from the schema the Rust core embeds (``data/optimizer/sections.json``, handed
over by ``sunflux._core.optimizer_sections_json``; the package holds no copy).

One source of truth for the section classes, ``validate_scenario_dict`` and the embedded Rust
optimizer. ``tools/gen_optimizer_schema.py`` writes it; ``sunflux._core`` refuses to import when
the embedded text is not a schema.
"""

import json
from typing import Any

from sunflux import _core

_SCHEMA: dict[str, Any] = json.loads(_core.optimizer_sections_json())

TOP_LEVEL_STRINGS: tuple[str, ...] = tuple(_SCHEMA["top_level_strings"])
SECTIONS: dict[str, dict[str, Any]] = _SCHEMA["sections"]
RULES: dict[str, Any] = _SCHEMA["rules"]
#: ``{section: {"text": docstring, "fields": {name: {"read": type, "write": type,
#: "parameter": numpydoc type and default, "text": docstring}}}}``
DOCS: dict[str, dict[str, Any]] = _SCHEMA["docs"]
