"""The documentation site: it builds with zero warnings, its internal links resolve, every public
name has a docstring and a reference entry, and headless Chromium shows its pages, runs its search
and logs no console error. The site is built once per run (the ``docs_site`` fixture)."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from support.docs_build import DocsBuild
from support.markers import requires_chromium
from support.paths import ROOT

#: The public modules; each one's ``__all__`` is its public API.
MODULES = (
    "sunflux",
    "sunflux.solar",
    "sunflux.pv",
    "sunflux.pvwatts",
    "sunflux.climate",
    "sunflux.technical_potential",
    "sunflux.optimizer",
    "sunflux.optimizer.outputs",
    "sunflux.distributed",
)
#: The plugin has no ``__all__``: its public names are its fixtures.
PLUGIN_FIXTURES = ("sunflux_service", "sunflux_client", "sunflux_async_client", "sunflux_service_session",
                   "sunflux_client_session", "sunflux_async_client_session")
#: The stubs of the generated section classes.
SECTION_STUBS = ROOT / "python" / "sunflux" / "optimizer" / "sections.pyi"


def _public_names() -> Iterator[tuple[str, str, Any]]:
    """(module, name, object) for every name of the public modules' ``__all__``, and the plugin's fixtures."""
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            yield module_name, name, getattr(module, name)
    plugin = importlib.import_module("sunflux.pytest_plugin")
    for name in PLUGIN_FIXTURES:
        yield "sunflux.pytest_plugin", name, getattr(plugin, name)


def _members(cls: type) -> Iterator[tuple[str, Any]]:
    """The public methods and properties a class defines or takes from sunflux's own bases."""
    seen = set()
    for base in cls.__mro__:
        if not base.__module__.startswith("sunflux"):
            continue
        for name, value in vars(base).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if inspect.isfunction(value) or isinstance(value, (property, classmethod, staticmethod)):
                yield name, value


def _documented_kind(value: Any) -> bool:
    """Classes, functions and modules carry docstrings; constants and typing aliases (``#:``
    comments) are documented on their page."""
    if type(value).__module__ == "typing":
        return False
    return inspect.isclass(value) or inspect.isroutine(value) or inspect.ismodule(value) or callable(value)


def test_every_public_name_has_a_docstring() -> None:
    missing = []
    for module_name, name, value in _public_names():
        if _documented_kind(value) and not (inspect.getdoc(value) or "").strip():
            missing.append(f"{module_name}.{name}")
        if inspect.isclass(value):
            for member, attribute in _members(value):
                # The member's own docstring: autodoc skips a member without one.
                function = attribute.__func__ if isinstance(attribute, (classmethod, staticmethod)) else attribute
                if not (function.__doc__ or "").strip():
                    missing.append(f"{module_name}.{name}.{member}")
    assert missing == [], f"public names without a docstring: {sorted(set(missing))}"


def _inventory(site: Path) -> dict[str, dict[str, Any]]:
    from sphinx.util.inventory import InventoryFile

    with open(site / "objects.inv", "rb") as stream:
        inventory = InventoryFile.load(stream, "", lambda base, path: path)
    return {kind: dict(entries) for kind, entries in inventory.items() if kind.startswith("py:")}


def _resolve(dotted: str) -> Any:
    """The object a reference entry names, or None."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for part in parts[cut:]:
                value = inspect.getattr_static(value, part) if inspect.isclass(value) else getattr(value, part)
        except AttributeError:
            return None
        return value
    return None


@pytest.mark.slow
def test_site_builds_with_zero_warnings(docs_site: DocsBuild) -> None:
    assert docs_site.warnings.strip() == "", docs_site.warnings
    assert docs_site.code == 0
    for page in ("index.html", "api/index.html", "gallery/index.html", "guide/index.html", "benchmarks.html",
                 "changelog.html", "design.html", "search.html"):
        assert (docs_site.html / page).is_file(), page


@pytest.mark.slow
def test_every_internal_link_and_anchor_resolves(docs_site: DocsBuild, docs_tool: Any) -> None:
    assert docs_site.code == 0
    assert docs_tool.broken_links(docs_site.html) == []


@pytest.mark.slow
def test_every_public_name_and_section_field_has_a_reference_entry(docs_site: DocsBuild) -> None:
    """The reference's index (objects.inv) against ``__all__`` of every public module, the plugin's
    fixtures, the members of every public class, and the section stubs: a name re-exported in
    several modules counts as documented where its object is documented once."""
    inventory = _inventory(docs_site.html)
    names = {name for entries in inventory.values() for name in entries}
    documented = {id(value) for name in names if (value := _resolve(name)) is not None and _documented_kind(value)}
    missing = []
    for module_name, name, value in _public_names():
        here = f"{module_name}.{name}"
        if here in names or (_documented_kind(value) and id(value) in documented):
            continue
        missing.append(here)
    classes = {name: value for name in names if inspect.isclass(value := _resolve(name))}
    for module_name, name, value in _public_names():
        if not inspect.isclass(value):
            continue
        # A member counts where its class or one of sunflux's bases of it is documented.
        homes = [home for home, cls in classes.items() if cls in value.__mro__]
        for member, _ in _members(value):
            if not any(f"{home}.{member}" in names for home in homes):
                missing.append(f"{module_name}.{name}.{member}")
    sections = importlib.import_module("sunflux.optimizer.sections")
    stubs = ast.parse(SECTION_STUBS.read_text("utf-8"))
    for node in stubs.body:
        if isinstance(node, ast.ClassDef):
            stub_class = getattr(sections, node.name)
            homes = [home for home, cls in classes.items() if stub_class in cls.__mro__]
            fields = [item.target.id for item in node.body if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)]
            for field in fields:
                if not any(f"{home}.{field}" in names for home in homes):
                    missing.append(f"sunflux.optimizer.{node.name}.{field} (stub)")
    assert missing == [], f"public names without a reference entry: {sorted(set(missing))}"


@pytest.mark.slow
def test_section_fields_show_unit_default_and_range_from_the_schema(docs_site: DocsBuild) -> None:
    from sunflux.optimizer import SECTIONS

    page = (docs_site.html / "api" / "optimizer_sections.html").read_text("utf-8")
    timeout = SECTIONS["Settings"]["fields"]["timeout_seconds"]
    assert f"unit: {timeout['unit']}; default: {timeout['default']}; range: {timeout['min']}..{timeout['max']}" in page
    assert "UNSET" not in re.sub(r"<[^>]+>", "", page.split('id="sunflux.optimizer.sections.Settings"', 1)[1].split("</dt>", 1)[0])


@pytest.mark.slow
@requires_chromium
def test_headless_chromium_shows_the_pages_runs_the_search_and_logs_no_console_error(docs_site: DocsBuild, docs_tool: Any) -> None:
    assert docs_site.code == 0
    assert docs_tool.browser_check(docs_site.html) == []
    for name in ("home", "api", "gallery", "search"):
        shot = docs_tool.SCREENSHOTS / f"{name}.png"
        assert shot.is_file() and shot.stat().st_size > 10_000, shot


def test_readme_gives_one_command_that_builds_and_serves_the_site() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = re.search(r"## Documentation\n(.*?)(\n## |\Z)", readme, re.S)
    assert section, "README has no Documentation section"
    commands = re.findall(r"```bash\n(.*?)```", section.group(1), re.S)
    assert len(commands) == 1 and "tools/docs.py serve" in commands[0]
