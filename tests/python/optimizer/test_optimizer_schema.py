"""Tests that the optimizer schema (``data/optimizer/sections.json``) and its stub (``sections.pyi``)
are complete and current, that the Rust core embeds the one data file and hands it to the package,
and that the section classes built from them read alike at run time, for mypy and in the reference
(every field a numpydoc ``Parameters`` entry).

The up-to-date checks regenerate from the generator's inputs in ``tools/optimizer_schema`` with
``tools/gen_optimizer_schema.py``; the package itself reads only what was generated.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from numpydoc.docscrape import NumpyDocString

import sunflux.optimizer as optimizer
from sunflux import _core
from support.paths import ROOT
from sunflux.optimizer import (
    SECTION_CLASSES,
    SECTIONS,
    ColdThermalStorage,
    ElectricStorage,
    ElectricUtility,
    PV,
    HotThermalStorage,
    Scenario,
)

GENERATOR = ROOT / "tools" / "gen_optimizer_schema.py"
SERVICE_FIELDS = ROOT / "tools" / "optimizer_schema" / "service_fields.json"
DATA = ROOT / "data" / "optimizer" / "sections.json"
STUB = ROOT / "python" / "sunflux" / "optimizer" / "sections.pyi"


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
            f"{path.relative_to(ROOT)} is stale: run python tools/gen_optimizer_schema.py"
        )


def test_generator_check_mode_reports_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr


def test_generator_writes_two_artifacts_and_check_mode_reports_each_stale_one(tmp_path: Path) -> None:
    generator = load_generator()
    assert set(generator.render()) == {DATA, STUB}
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for source in generator.INPUTS.glob("*.json"):
        (inputs / source.name).write_bytes(source.read_bytes())
    service = json.loads((inputs / "service_fields.json").read_text(encoding="utf-8"))
    service["sections"]["PV"]["fields"]["losses"]["help"] = "Changed help text."
    (inputs / "service_fields.json").write_text(json.dumps(service), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(GENERATOR), "--check", "--inputs", str(inputs)],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 1
    assert sorted(result.stderr.split("\n")) == ["", "out of date: data/optimizer/sections.json",
                                                  "out of date: python/sunflux/optimizer/sections.pyi"]


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
    assert generator.INPUTS == ROOT / "tools" / "optimizer_schema"
    facts = json.loads((generator.INPUTS / "spec_facts.json").read_text(encoding="utf-8"))
    assert len(facts["sections"]) == 23
    assert facts["sections"]["Settings"]["fields"]["time_steps_per_hour"]["choices"] == ["1", "2", "4"]


def test_the_schema_is_one_crate_data_file_the_core_embeds_and_hands_to_the_package() -> None:
    text = DATA.read_text(encoding="utf-8")
    assert _core.optimizer_sections_json() == text
    assert json.loads(text)["sections"] == SECTIONS
    rust = (ROOT / "src" / "optimizer" / "scenario" / "schema.rs").read_text(encoding="utf-8")
    assert 'include_str!("../../../data/optimizer/sections.json")' in rust
    assert sorted(path.name for path in (ROOT / "python" / "sunflux").rglob("*.json")) == []


def test_the_generated_files_are_marked_generated() -> None:
    marks = (ROOT / ".gitattributes").read_text(encoding="utf-8")
    for path in (DATA, STUB):
        assert f"/{path.relative_to(ROOT)} linguist-generated=true text eol=lf" in marks.splitlines()


def test_help_and_signatures_come_from_the_schema() -> None:
    assert PV.__doc__ is not None and "Section key ``PV``; 43 fields." in PV.__doc__
    assert inspect.getdoc(PV) == inspect.getdoc(PV()) == PV.__doc__
    assert "default: 0.14" in (PV.losses.__doc__ or "")
    parameters = inspect.signature(PV).parameters
    assert list(parameters) == list(SECTIONS["PV"]["fields"])
    assert parameters["losses"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["losses"].annotation == "float | None"
    # The real default (the value an unset field reads as), never the UNSET marker.
    assert parameters["losses"].default == 0.14 == PV().losses
    assert inspect.signature(optimizer.Site).parameters["latitude"].default is None
    assert all(parameter.default is not optimizer.UNSET for section in SECTIONS
               for parameter in inspect.signature(getattr(optimizer, section)).parameters.values())
    assert "pv" in inspect.signature(Scenario).parameters


def test_a_misspelt_keyword_names_the_closest_field() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'losess'; did you mean 'losses'"):
        PV(losess=0.1)  # type: ignore[call-arg]


@pytest.mark.slow
def test_mypy_strict_reads_the_typed_constructors(tmp_path: Path) -> None:
    good = tmp_path / "good.py"
    good.write_text(
        "from sunflux.optimizer import PV, ElectricLoad, ElectricTariff, Scenario, Settings, Site\n"
        "scenario = Scenario(\n"
        "    site=Site(latitude=39.74, longitude=-105.17),\n"
        "    settings=Settings(time_steps_per_hour=1),\n"
        "    pv=PV(max_kw=500.0, losses=0.14),\n"
        "    electric_load=ElectricLoad.flat(annual_kwh=1_000_000),\n"
        "    electric_tariff=ElectricTariff.blended(energy_rate=0.12),\n"
        ")\n"
        "losses: float | None = PV().losses\n"
    )
    bad = tmp_path / "bad.py"
    bad.write_text("from sunflux.optimizer import PV\narray = PV(max_kw=500.0, losess=0.14)\n")
    mypy = Path(sys.executable).parent / "mypy"
    command = [str(mypy) if mypy.exists() else "mypy", "--strict", "--no-incremental"]
    accepted = subprocess.run([*command, str(good)], capture_output=True, text=True, check=False)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    refused = subprocess.run([*command, str(bad)], capture_output=True, text=True, check=False)
    assert refused.returncode == 1
    assert 'Unexpected keyword argument "losess" for "PV"; did you mean "losses"?' in refused.stdout


def test_every_section_docstring_has_a_parameters_entry_per_field_from_the_schema() -> None:
    for key, section_class in SECTION_CLASSES.items():
        parameters = NumpyDocString(inspect.getdoc(section_class) or "")["Parameters"]
        assert [parameter.name for parameter in parameters] == list(SECTIONS[key]["fields"]), key
        signature = inspect.signature(section_class).parameters
        for parameter in parameters:
            record = SECTIONS[key]["fields"][parameter.name]
            assert parameter.type.startswith(str(signature[parameter.name].annotation)), (key, parameter.name)
            assert ("default" in record) == (", default " in parameter.type), (key, parameter.name)
            description = "\n".join(parameter.desc)
            assert f"Type: {record['type']}" in description, (key, parameter.name)
            assert "unit" not in record or f"unit: {record['unit']}" in description, (key, parameter.name)
            assert ("min" in record or "max" in record) == ("range: " in description), (key, parameter.name)
    losses = next(p for p in NumpyDocString(inspect.getdoc(PV) or "")["Parameters"] if p.name == "losses")
    assert losses.type == "float | None, default 0.14"
    assert "Type: float; unit: fraction; default: 0.14; range: 0..0.99." in losses.desc


def test_the_stub_classes_carry_the_same_docstrings_parameters_included() -> None:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    stubbed = {node.name: ast.get_docstring(node) or "" for node in tree.body if isinstance(node, ast.ClassDef)}
    for key, section_class in SECTION_CLASSES.items():
        # The stub fills the lines to its width; the words and their order are the same.
        assert stubbed[key].split() == (inspect.getdoc(section_class) or "").split(), key
