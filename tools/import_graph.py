"""The import graphs of the Rust core and of the Python package: which module uses which, their
circles and their upward imports.

    python tools/import_graph.py            # a summary
    python tools/import_graph.py --list     # every circle and upward import

A module is a file under ``src/`` (``a/mod.rs`` is ``a``). An edge ``a -> b`` is a ``use`` of
``crate::b::…`` or ``super::…`` resolving to ``b``, or a path such as ``crate::b::f(…)`` in code.
Two measures:

- circles: groups of top-level parts (``transport``, ``services``, ``formats``, ``pvwatts``,
  ``optimizer``, ``embedded``, ``python`` and the files beside them) that use each other round a loop, and groups
  of modules inside one part that do;
- upward imports: a part using one that ``LAYERS`` puts above it.

A module and its own children count as one (a private child using its parent's types is how a
Rust module splits, not a circle).

Comments and ``#[cfg(test)]`` modules are not read.

The Python package (``python/sunflux``, ``_core.pyi`` standing for the compiled core) is measured
the same way: an edge is an import run at import time or inside a function (both load the module;
a function-level import only postpones it), never one under ``if TYPE_CHECKING:``, which type
checkers alone read. ``from package import name`` is an edge to the module ``name`` when it is
one, else to the package. ``PY_LAYERS`` orders the package bottom to top; a module imports its
own layer or below, and circles are counted over all modules.

Exit status 0 always: it measures.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = Path(__file__).resolve().parents[1] / "python" / "sunflux"

# The Python package bottom to top (a name covers its submodules): the compiled core; errors and
# option vocabularies; helpers on frames, units and arguments; the sync/async adapter; the handle
# services are given; the services and engines; the clients; what builds on clients; the faces.
PY_LAYERS = [
    ["sunflux._core"],
    ["sunflux._errors", "sunflux._options"],
    ["sunflux._arguments", "sunflux._units", "sunflux._progress", "sunflux._frames", "sunflux._pvgis", "sunflux._solaranywhere", "sunflux._pvlib_frames",
     "sunflux._solver", "sunflux._cache"],
    ["sunflux._twins"],
    ["sunflux._handle"],
    ["sunflux.solar", "sunflux.pv", "sunflux.pvwatts", "sunflux.climate", "sunflux._climate_bulk", "sunflux.technical_potential",
     "sunflux.optimizer", "sunflux._sites"],
    ["sunflux._client"],
    ["sunflux._local", "sunflux.distributed"],
    ["sunflux", "sunflux.__main__", "sunflux._demo", "sunflux.pytest_plugin"],
]

# Bottom to top: a part may use the parts below it, never one above.
LAYERS = ["error", "calendar", "geodesy", "places", "redact", "limits", "spec", "files", "runtime", "formats", "pvwatts", "wind", "optimizer", "transport", "services", "embedded", "python", "lib"]

USE = re.compile(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def module_of(path: Path) -> tuple[str, ...]:
    parts = path.relative_to(SRC).with_suffix("").parts
    return parts[:-1] if parts[-1] == "mod" else parts


def code_of(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    return text[: cut.start()] if cut else text


def resolve(modules: set[tuple[str, ...]], start: tuple[str, ...], names: list[str]) -> tuple[str, ...] | None:
    """The longest module path that `start` + `names` begins with."""
    best = None
    for length in range(1, len(names) + 1):
        candidate = start + tuple(names[:length])
        if candidate in modules:
            best = candidate
    return best


def _related(first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    shorter = min(len(first), len(second))
    return first[:shorter] == second[:shorter]


def edges() -> dict[tuple[str, ...], set[tuple[str, ...]]]:
    files = sorted(SRC.rglob("*.rs"))
    modules = {module_of(f) for f in files}
    graph: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in modules}
    for file in files:
        here = module_of(file)
        is_dir_module = file.name == "mod.rs"
        for root, rest in USE.findall(code_of(file.read_text(encoding="utf-8"))):
            names = rest.strip(":").split("::")
            if root == "crate":
                start: tuple[str, ...] = ()
            else:
                start = here if is_dir_module else here[:-1]
                while names and names[0] == "super":
                    start, names = start[:-1], names[1:]
            target = resolve(modules, start, names) or (start if start in modules else None)
            # A module and its own children are one unit: a private child using its parent's types
            # is how a Rust module splits, not a circle.
            if target is not None and not _related(here, target):
                graph[here].add(target)
    return graph


def strongly_connected(graph: dict) -> list[list]:
    index: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    groups: list[list] = []
    counter = [0]
    sys.setrecursionlimit(10_000)

    def visit(node) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                group.append(item)
                if item == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def python_module_of(path: Path) -> str:
    parts = ("sunflux",) + path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1]) if parts[-1] == "__init__" else ".".join(parts)


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement outside ``if TYPE_CHECKING:`` blocks (their ``else`` counts)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for branch in child.orelse:
                    visit(ast.Module(body=[branch], type_ignores=[]))
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            else:
                visit(child)

    visit(tree)
    return found


def python_edges() -> dict[str, set[str]]:
    files = {python_module_of(f): f for f in sorted(PACKAGE.rglob("*.py"))}
    files.setdefault("sunflux._core", PACKAGE / "_core.pyi")
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, file in files.items():
        package = name if file.name == "__init__.py" else name.rpartition(".")[0]
        for node in _runtime_imports(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = node.module or ""
                if node.level:
                    kept = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(kept + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names]
            graph[name] |= {target for target in targets if target in files and target != name}
    return graph


def python_layer(module: str) -> int | None:
    """The index in ``PY_LAYERS`` of the longest name covering ``module``."""
    best: tuple[int, int] | None = None
    for index, names in enumerate(PY_LAYERS):
        for covering in names:
            if (module == covering or module.startswith(covering + ".")) and (best is None or len(covering) > best[0]):
                best = (len(covering), index)
    return None if best is None else best[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print every circle and upward import")
    show = parser.parse_args().list
    graph = edges()
    parts: dict[str, set[str]] = {}
    for source, targets in graph.items():
        for target in targets:
            if source[0] != target[0]:
                parts.setdefault(source[0], set()).add(target[0])
    part_circles = strongly_connected(parts)
    inner_circles = []
    for part in sorted({m[0] for m in graph}):
        inside = {m: {t for t in ts if t[0] == part} for m, ts in graph.items() if m[0] == part}
        inner_circles += strongly_connected(inside)
    upward = [
        (source, target)
        for source, targets in sorted(graph.items())
        for target in sorted(targets)
        if source[0] in LAYERS and target[0] in LAYERS and LAYERS.index(target[0]) > LAYERS.index(source[0])
    ]
    name = "/".join
    print(f"modules: {len(graph)}, edges: {sum(len(t) for t in graph.values())}")
    print(f"circles between parts: {len(part_circles)}")
    print(f"circles inside parts: {len(inner_circles)}")
    print(f"upward imports: {len(upward)}")
    if show:
        for group in part_circles:
            print("  part circle:", " <-> ".join(group))
        for group in inner_circles:
            print("  circle:", " <-> ".join(name(m) for m in group))
        for source, target in upward:
            print(f"  upward: {name(source)} -> {name(target)}")
    python = python_edges()
    python_circles = strongly_connected(python)
    layers = {module: python_layer(module) for module in python}
    unlayered = sorted(module for module, layer in layers.items() if layer is None)
    python_upward = [
        (source, target)
        for source, targets in sorted(python.items())
        for target in sorted(targets)
        if layers[source] is not None and layers[target] is not None and layers[target] > layers[source]  # type: ignore[operator]
    ]
    print(f"python modules: {len(python)}, edges: {sum(len(t) for t in python.values())}")
    print(f"python circles: {len(python_circles)}")
    print(f"python upward imports: {len(python_upward)}")
    print(f"python modules without a layer: {len(unlayered)}")
    if show:
        for group in python_circles:
            print("  python circle:", " <-> ".join(group))
        for source, target in python_upward:
            print(f"  python upward: {source} -> {target}")
        for module in unlayered:
            print(f"  python without a layer: {module}")


if __name__ == "__main__":
    main()
