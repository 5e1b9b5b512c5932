"""The .pyi stubs of the extension stay exact: every public name of sunflux._core is stubbed with
the same parameters, and mypy accepts the package's typed surface."""

from __future__ import annotations

import ast
import inspect
import pathlib
import subprocess
import sys

import pytest

import sunflux
from sunflux import _core

STUB = pathlib.Path(sunflux.__file__).with_name("_core.pyi")


def _stubbed() -> dict[str, ast.AST]:
    tree = ast.parse(STUB.read_text())
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and not node.name.startswith("_"):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return names


def test_every_public_name_is_stubbed_and_nothing_more() -> None:
    public = {name for name in dir(_core) if not name.startswith("_") or name == "__version__"}
    assert public == set(_stubbed())


def test_function_parameters_match() -> None:
    for name, node in _stubbed().items():
        if isinstance(node, ast.FunctionDef):
            runtime = [p for p in inspect.signature(getattr(_core, name)).parameters]
            stub = [a.arg for a in node.args.args]
            assert runtime == stub, name


def _members(node: ast.ClassDef) -> dict[str, ast.FunctionDef]:
    return {item.name: item for item in node.body if isinstance(item, ast.FunctionDef)}


def test_methods_and_parameters_match() -> None:
    for name, node in _stubbed().items():
        if not isinstance(node, ast.ClassDef):
            continue
        runtime_class = getattr(_core, name)
        stub_members = _members(node)
        runtime_members = {m for m in dir(runtime_class) if not m.startswith("_")}
        assert runtime_members == {m for m in stub_members if not m.startswith("_")}, name
        for member, definition in stub_members.items():
            target = runtime_class if member == "__new__" else getattr(runtime_class, member)
            signature_text = getattr(target, "__text_signature__", None)
            if not signature_text or isinstance(inspect.getattr_static(runtime_class, member, None), property):
                continue
            runtime_params = [p for p in inspect.signature(target).parameters if p not in ("self", "cls", "$self", "$cls")]
            stub_params = [a.arg for a in definition.args.args if a.arg not in ("self", "cls")]
            assert runtime_params == stub_params, f"{name}.{member}"


def test_mypy_accepts_the_typed_surface(tmp_path: pathlib.Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import sunflux as sf\n"
        "svc = sf.LocalService()\n"
        "client: sf.Client = svc.client()\n"
        "response: sf.Response = client.request('GET', 'local_status', args={'format': 'json'})\n"
        "status: int = response.status\n"
        "limit: int | None = client.rate_limit.remaining\n"
        "query: sf.solar.StationQuery = client.solar.data_query(40.0, -105.0, version='v1')\n"
        "station: sf.solar.Station | None = query.closest['tmy3']\n"
        "estimate: sf.PvEstimate = client.pv.estimate(4, sf.ModuleType.STANDARD, 14, sf.ArrayType.FIXED_ROOF_MOUNT, 20, 180, lat=40, lon=-105)\n"
        "annual: float = estimate.ac_annual\n"
        "weather: sf.pvwatts.Weather = svc.station_weather('1-741202')\n"
        "local: sf.PvEstimate = sf.pvwatts.simulate(weather, 4, 0, 14, 1, 20, 180)\n"
        "config: sf.technical_potential.Configuration = client.technical_potential.config('rede')\n"
        "job: sf.technical_potential.TechnicalPotentialJob = client.technical_potential.submit('rede', 'India', 'fixlat')\n"
        "from sunflux.optimizer import Scenario, Site\n"
        "scenario = Scenario(site=Site(latitude=40.0, longitude=-105.0))\n"
        "svc.close()\n"
    )
    mypy = pathlib.Path(sys.executable).parent / "mypy"
    result = subprocess.run(
        [str(mypy) if mypy.exists() else "mypy", "--strict", "--no-incremental", str(sample)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


NOTEBOOKS = pathlib.Path(__file__).resolve().parents[1] / "notebooks"
#: Exploratory code is not annotated and knows which optional results are set (an hourly
#: estimate's ``hourly``, a scenario's sections), and dask and parts of matplotlib are untyped:
#: the notebooks are checked with ``--strict`` less these three rules. `NO_ANY` is checked with
#: all of ``--strict``.
NOTEBOOK_RELAXED = "allow_untyped_defs = True\nallow_untyped_calls = True\nstrict_optional = False\n"
#: What the notebooks read from sunflux is exactly typed: an ``Any`` here fails `assert_type`.
NO_ANY = """
from typing import assert_type

import polars as pl
import sunflux as sf
from sunflux.climate import ClimateDownload, ClimateTable
from sunflux.optimizer.jobs import OptimizerResult
from sunflux.technical_potential import Configuration, JobResult, Stats


def blocking(client: sf.Client, estimate: sf.PvEstimate, table: ClimateTable, zipped: ClimateDownload,
             result: OptimizerResult, weather: sf.pvwatts.Weather, config: Configuration, stats: Stats) -> None:
    assert_type(estimate.hourly, pl.DataFrame | None)
    assert_type(estimate.monthly, pl.DataFrame)
    assert_type(table.data, pl.DataFrame)
    assert_type(zipped.data, pl.DataFrame)
    assert_type(zipped.sites, pl.DataFrame)
    assert_type(result.series(), pl.DataFrame)
    assert_type(config.to_polars(), pl.DataFrame)
    assert_type(stats.classes, pl.DataFrame | None)
    assert_type(weather.to_polars(), pl.DataFrame)
    assert_type(sf.pvwatts.simulate_many(weather, []), pl.DataFrame)
    assert_type(sf.pvwatts.simulate_many(weather, [], output="results"), list[sf.PvEstimate])
    assert_type(client.climate.bulk("slug", points=[(1.0, 2.0)], years=[2010], email="a@b.c"), pl.DataFrame)
    assert_type(client.solar.data_query(1.0, 2.0).to_polars(), pl.DataFrame)
    assert_type(client.optimizer.simulated_load(1.0, 2.0, "Hospital"), pl.DataFrame)
    assert_type(client.technical_potential.job("rede", "id").result, JobResult)


async def awaitable(client: sf.AsyncClient) -> None:
    assert_type(await client.climate.bulk("slug", points=[(1.0, 2.0)], years=[2010], email="a@b.c"), pl.DataFrame)
    assert_type(await client.pv.estimate(4, 0, 14, 1, 20, 180, lat=1.0, lon=2.0), sf.PvEstimate)
    assert_type(await client.technical_potential.job("rede", "id").result, JobResult)
    assert_type(await client.optimizer.simulated_load(1.0, 2.0, "Hospital"), pl.DataFrame)
"""


def _notebook_code(path: pathlib.Path) -> str:
    """A notebook's code cells as one module (IPython magics and shell lines left out)."""
    import json

    lines: list[str] = []
    for cell in json.loads(path.read_text())["cells"]:
        if cell["cell_type"] == "code":
            lines += [line for line in "".join(cell["source"]).splitlines() if not line.lstrip().startswith(("%", "!"))]
            lines.append("")
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_mypy_strict_accepts_the_notebooks_code_and_nothing_they_read_is_any(tmp_path: pathlib.Path) -> None:
    notebooks = sorted(NOTEBOOKS.glob("*.ipynb"))
    assert notebooks
    package = tmp_path / "notebooks"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for notebook in notebooks:
        (package / f"{notebook.stem}.py").write_text(_notebook_code(notebook))
    (tmp_path / "no_any.py").write_text(NO_ANY)
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\nstrict = True\n\n[mypy-notebooks.*]\n{NOTEBOOK_RELAXED}")
    mypy = pathlib.Path(sys.executable).parent / "mypy"
    result = subprocess.run(
        [str(mypy) if mypy.exists() else "mypy", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"), "notebooks", "no_any.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
