"""The documentation site: it builds with zero warnings, its internal links resolve, every public
name has a docstring and a reference entry, and headless Chromium shows its pages, runs its search
and logs no console error. The site is built once per run (the ``docs_site`` fixture)."""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import importlib
import inspect
import re
import textwrap
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


# --- numpydoc sections on every public class (issue #31) ------------------------------------------

#: Classes the class-section rule leaves aside, each set for its own reason.
#: The generated optimizer section classes (PV, ElectricLoad, ...): their fields are documented
#: field by field from the schema (tools/gen_optimizer_schema.py), not by a class docstring.
SECTION_CLASS_MODULE = "sunflux.optimizer.sections"
#: The sentence a class without a Parameters section uses to say that sunflux builds it (a service
#: reached as ``client.solar``, a result a call returns), so its constructor is not user-facing.
NOT_CONSTRUCTED = re.compile(r"\b(?:[Uu]sers|[Yy]ou) (?:never|do not) construct\b")


def _section_names(doc: Any, section: str) -> dict[str, tuple[str, str]]:
    """name -> (type, description) of a numpydoc section (``a, b : int`` names two)."""
    entries = {}
    for entry in doc[section]:
        for name in entry.name.split(","):
            entries[name.strip().lstrip("*")] = (entry.type, " ".join(entry.desc))
    return entries


def _sunflux_bases(cls: type) -> list[type]:
    return [base for base in cls.__mro__ if base.__module__.startswith("sunflux")]


def _constructor_parameters(cls: type) -> dict[str, inspect.Parameter]:
    """The parameters of the class's own (sunflux) constructor; none for enums and for exceptions
    that keep Python's ``*args``."""
    if issubclass(cls, enum.Enum):
        return {}
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return {}
    return {name: parameter for name, parameter in signature.parameters.items() if not name.startswith("_")}


def _init_attributes(cls: type) -> set[str]:
    """Public instance attributes the ``__init__`` of the class or of its sunflux bases assigns
    (``self.name = ...``)."""
    names = set()
    for base in _sunflux_bases(cls):
        init = vars(base).get("__init__")
        if not inspect.isfunction(init):
            continue
        try:
            source = inspect.getsource(init)
        except OSError:  # a generated constructor (a dataclass's) sets only the fields
            continue
        tree = ast.parse(textwrap.dedent(source))
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
            # ``(self.lat, self.lon) = ...`` assigns each element.
            targets = [element for target in targets
                       for element in (target.elts if isinstance(target, ast.Tuple) else [target])]
            for target in targets:
                if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self" and not target.attr.startswith("_")):
                    names.add(target.attr)
    return names


def _data_attributes(cls: type) -> tuple[set[str], set[str]]:
    """(dataclass fields, other data attributes) a class exposes: its properties (cached ones too)
    and slots, the instance attributes its ``__init__`` sets, its enum members; those of Python's
    and other libraries' bases (``args`` of exceptions, ``real`` of ints) are not sunflux's to document."""
    own = {name for base in _sunflux_bases(cls) for name in vars(base)}
    other = {name for name, value in inspect.getmembers(cls)
             if name in own and not name.startswith("_")
             and (isinstance(value, (property, functools.cached_property))
                  or inspect.isdatadescriptor(value) and not inspect.isroutine(value))}
    other |= _init_attributes(cls)
    # Fields declared by annotation alone (the optimizer's typed output records).
    other |= {name for base in _sunflux_bases(cls) for name, kind in vars(base).get("__annotations__", {}).items()
              if not name.startswith("_") and "ClassVar" not in str(kind)}
    if issubclass(cls, enum.Enum):
        other |= {member.name for member in cls}
    fields = set()
    if dataclasses.is_dataclass(cls):
        fields = {field.name for field in dataclasses.fields(cls) if not field.name.startswith("_")}
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        fields |= {name for name in cls._fields if not name.startswith("_")}
    return fields, other - fields


def _class_section_problems(cls: type) -> list[str]:
    from numpydoc.docscrape import NumpyDocString

    doc = NumpyDocString(inspect.getdoc(cls) or "")
    documented_parameters = _section_names(doc, "Parameters")
    documented_attributes = _section_names(doc, "Attributes")
    problems = []
    parameters = _constructor_parameters(cls)
    if parameters and not documented_parameters and not NOT_CONSTRUCTED.search(" ".join(doc["Summary"] + doc["Extended Summary"])):
        problems.append("no Parameters section (nor a sentence saying users do not construct it)")
    elif documented_parameters:
        for name, parameter in parameters.items():
            if name not in documented_parameters:
                problems.append(f"parameter {name} not in Parameters")
                continue
            kind, description = documented_parameters[name]
            if not kind:
                problems.append(f"parameter {name} has no type")
            elif parameter.default is not inspect.Parameter.empty and not re.search(r"\b(optional|default)\b", f"{kind} {description}"):
                problems.append(f"parameter {name} does not give its default")
    fields, others = _data_attributes(cls)
    for name in sorted(fields):
        if name not in documented_attributes and name not in documented_parameters:
            problems.append(f"field {name} in neither Parameters nor Attributes")
    for name in sorted(others):
        if name not in documented_attributes:
            problems.append(f"attribute {name} not in Attributes")
    for name, (kind, _) in documented_attributes.items():
        if not kind and not issubclass(cls, enum.Enum):
            problems.append(f"attribute {name} has no type")
    return problems


def test_every_public_class_documents_its_parameters_and_attributes() -> None:
    """Issue #31: a class users construct names every constructor parameter (type, default) under
    Parameters; every data attribute, property, enum member and exception payload is under
    Attributes; a class sunflux builds for the user says so instead of listing Parameters."""
    jobs = importlib.import_module("sunflux.optimizer.jobs")  # the optimizer services' module
    named = [*_public_names(), *(("sunflux.optimizer.jobs", name, getattr(jobs, name)) for name in jobs.__all__)]
    classes = {}
    for module_name, name, value in named:
        if inspect.isclass(value) and value.__module__ != SECTION_CLASS_MODULE:
            classes.setdefault(id(value), (f"{module_name}.{name}", value))
    assert len(classes) > 50
    missing = [f"{label}: {problem}" for label, cls in sorted(classes.values()) for problem in _class_section_problems(cls)]
    assert missing == [], "public classes missing numpydoc entries:\n" + "\n".join(missing)
