"""The .pyi stubs of the extension stay exact: every public name of sunflux._core is stubbed with
the same parameters, and mypy accepts the package's typed surface."""

from __future__ import annotations

import ast
import inspect
import pathlib
import subprocess
import sys


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
