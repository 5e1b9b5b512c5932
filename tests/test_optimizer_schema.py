"""Tests that the generated optimizer field table and section classes are complete and current.

The up-to-date checks regenerate from the generator's inputs in ``tools/optimizer_schema`` with
``tools/gen_optimizer_schema.py``; the package itself reads only what was generated.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType


import sunflux.optimizer as optimizer
from sunflux.optimizer import (
    SECTION_CLASSES,
    SECTIONS,
    ColdThermalStorage,
    ElectricStorage,
    ElectricUtility,
    HotThermalStorage,
    Scenario,
)

REPO = Path(__file__).resolve().parents[1]
GENERATOR = REPO / "tools" / "gen_optimizer_schema.py"
SERVICE_FIELDS = REPO / "tools" / "optimizer_schema" / "service_fields.json"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_optimizer_schema", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_generated_files_are_up_to_date() -> None:
    generator = load_generator()
    for path, text in generator.render().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(REPO)} is stale: run python tools/gen_optimizer_schema.py"
        )


def test_generator_check_mode_reports_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr


def test_every_live_service_field_is_in_the_table() -> None:
    service = json.loads(SERVICE_FIELDS.read_text(encoding="utf-8"))["sections"]
    assert set(service) == set(SECTIONS)
    for key, section in service.items():
        assert set(section["fields"]) <= set(SECTIONS[key]["fields"]), key
    assert sum(len(section["fields"]) for section in service.values()) == 591


def test_table_and_classes_agree() -> None:
    assert len(SECTIONS) == 29
    for key, section in SECTIONS.items():
        section_class = SECTION_CLASSES[key]
        assert set(section_class.fields()) == set(section["fields"])
        assert getattr(optimizer, key) is section_class
        assert key in Scenario._attr_keys.values()


def test_spec_wins_where_it_differs_from_the_service() -> None:
    cost = HotThermalStorage.field_info("installed_cost_per_gal")
    assert cost.default == 1.9 and cost.service_differences == {"default": 1.5}
    assert ColdThermalStorage.field_info("installed_cost_per_gal").default == 1.9
    assert ElectricUtility.field_info("cambium_grid_level").choices == ("enduse", "busbar")
    assert ElectricStorage.field_info("dispatch_strategy").default == "optimized"
    assert "field" in ElectricStorage.field_info("dispatch_strategy").service_differences


def test_generator_reads_only_its_inputs_folder() -> None:
    generator = load_generator()
    assert generator.INPUTS == REPO / "tools" / "optimizer_schema"
    facts = json.loads((generator.INPUTS / "spec_facts.json").read_text(encoding="utf-8"))
    assert len(facts["sections"]) == 23
    assert facts["sections"]["Settings"]["fields"]["time_steps_per_hour"]["choices"] == ["1", "2", "4"]
