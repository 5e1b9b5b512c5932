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
from support.paths import NOTEBOOKS
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


#: The notebooks are checked with all of ``--strict``: what sunflux knows is set has a type without
#: None (an hourly estimate's ``hourly``), and what may be None for the call (a scenario's
#: sections, a dataset without a station) is checked in the notebook. Calls into dask and
#: matplotlib, which are untyped, are allowed (`UNTYPED_LIBRARIES`).
UNTYPED_LIBRARIES = "dask,distributed,matplotlib"
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
    assert_type(stats.classes, pl.DataFrame)
    assert_type(weather.to_polars(), pl.DataFrame)
    assert_type(sf.LocalService().station_weather("1-741202"), sf.pvwatts.Weather)
    assert_type(sf.pvwatts.simulate_many(weather, []), pl.DataFrame)
    assert_type(sf.pvwatts.simulate_many(weather, [], output="results"), list[sf.pv.HourlyPvEstimate])
    assert_type(sf.pvwatts.simulate(weather, 4, 0, 14, 1, 20, 180).hourly, pl.DataFrame)
    assert_type(sf.pvwatts.simulate(weather, 4, 0, 14, 1, 20, 180, timeframe="monthly").hourly, None)
    assert_type(client.pv.estimate(4, 0, 14, 1, 20, 180, lat=1.0, lon=2.0, timeframe="hourly").hourly, pl.DataFrame)
    assert_type(client.climate.bulk("slug", points=[(1.0, 2.0)], years=[2010], email="a@b.c"), pl.DataFrame)
    assert_type(client.solar.data_query(1.0, 2.0).to_polars(), pl.DataFrame)
    assert_type(client.optimizer.simulated_load(1.0, 2.0, "Hospital"), pl.DataFrame)
    assert_type(client.technical_potential.job("rede", "id").result, JobResult)


async def awaitable(client: sf.AsyncClient) -> None:
    assert_type(await client.climate.bulk("slug", points=[(1.0, 2.0)], years=[2010], email="a@b.c"), pl.DataFrame)
    assert_type(await client.pv.estimate(4, 0, 14, 1, 20, 180, lat=1.0, lon=2.0), sf.pv.MonthlyPvEstimate)
    assert_type((await client.pv.estimate(4, 0, 14, 1, 20, 180, lat=1.0, lon=2.0, timeframe="hourly")).hourly, pl.DataFrame)
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
    config.write_text(f"[mypy]\nstrict = True\nuntyped_calls_exclude = {UNTYPED_LIBRARIES}\n")
    mypy = pathlib.Path(sys.executable).parent / "mypy"
    result = subprocess.run(
        [str(mypy) if mypy.exists() else "mypy", "--config-file", str(config), "--cache-dir", str(tmp_path / "cache"), "notebooks", "no_any.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _literal_default(node: ast.expr | None) -> object:
    """A stub default as a value; ``...`` (any default) as Ellipsis."""
    return ast.literal_eval(node) if node is not None else inspect.Parameter.empty


def _stub_defaults(node: ast.FunctionDef) -> dict[str, object]:
    positional = node.args.posonlyargs + node.args.args
    defaults: dict[str, object] = {a.arg: inspect.Parameter.empty for a in positional}
    for argument, default in zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults):
        defaults[argument.arg] = _literal_default(default)
    for argument, kw_default in zip(node.args.kwonlyargs, node.args.kw_defaults):
        defaults[argument.arg] = _literal_default(kw_default)
    return defaults


def test_function_defaults_match() -> None:
    """Each stubbed default is the runtime's (``...`` in an overload stands for it)."""
    checked = 0
    for name, node in _stubbed().items():
        if not isinstance(node, ast.FunctionDef):
            continue
        runtime = {p.name: p.default for p in inspect.signature(getattr(_core, name)).parameters.values()}
        for parameter, default in _stub_defaults(node).items():
            if default is Ellipsis:
                assert runtime[parameter] is not inspect.Parameter.empty, f"{name}({parameter}) has no default at run time"
                continue
            assert runtime[parameter] == default or (runtime[parameter] is None and default is None), f"{name}({parameter})"
            checked += 1
    assert checked > 100


def test_every_stubbed_function_and_class_is_documented() -> None:
    """IDEs show the stub's docstrings for a compiled module: each says what the call does."""
    undocumented = [
        node.name
        for node in ast.parse(STUB.read_text()).body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_") and not ast.get_docstring(node)
    ]
    assert undocumented == []


def _returns_any(node: ast.FunctionDef) -> bool:
    return isinstance(node.returns, ast.Name) and node.returns.id == "Any"


def test_no_stubbed_call_returns_bare_any() -> None:
    """The core's results are typed (a JSON record may hold ``Any`` values, the call itself not)."""
    offenders = []
    for name, node in _stubbed().items():
        members = [node] if isinstance(node, ast.FunctionDef) else list(_members(node).values()) if isinstance(node, ast.ClassDef) else []
        offenders += [f"{name}.{m.name}" for m in members if _returns_any(m)]
    for node in ast.parse(STUB.read_text()).body:  # every overload, not only the last one kept by _stubbed
        if isinstance(node, ast.FunctionDef) and _returns_any(node):
            offenders.append(node.name)
    assert offenders == []


def test_literal_options_equal_the_core_vocabularies() -> None:
    """The Literal types are spelled out for type checkers; they must list what the core accepts."""
    import typing

    from sunflux import _options
    from sunflux.pv import ArrayType, ModuleType

    assert list(typing.get_args(_options.SolarDataset)) == list(_core.SOLAR_DATASETS)
    assert list(typing.get_args(_options.ModuleTypeCode)) == [member.value for member in ModuleType]
    assert list(typing.get_args(_options.ArrayTypeCode)) == [member.value for member in ArrayType]
    stubbed = [n.value for n in ast.walk(_stubbed()["SOLAR_DATASETS"]) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert stubbed == list(_core.SOLAR_DATASETS)


def test_literal_options_are_what_the_core_accepts(client: sunflux.Client) -> None:
    """Each member of an option's Literal is accepted; a value outside it is refused."""
    import typing

    from sunflux import _options

    for version in typing.get_args(_options.QueryVersion):
        for format in typing.get_args(_options.QueryFormat):
            client.solar.data_query(40.0, -105.0, version=version, format=format)
    for timeframe in typing.get_args(_options.Timeframe):
        for estimate_format in typing.get_args(_options.EstimateFormat):
            client.pv.estimate(4, 0, 14, 1, 20, 180, lat=40.0, lon=-105.0, timeframe=timeframe, format=estimate_format)
    for refused in ({"version": "v3"}, {"format": "yaml"}):
        with pytest.raises(sunflux.ParameterError):
            client.solar.data_query(40.0, -105.0, **refused)  # type: ignore[arg-type]


_BUILTINS: dict[str, type | tuple[type, ...]] = {
    "int": int, "float": (float, int), "str": str, "bool": bool, "bytes": bytes, "object": object,
}


def _stubbed_class(name: str) -> type:
    """A class the stub names: the core's own (the stub imports nothing of sunflux's)."""
    if hasattr(_core, name):
        return getattr(_core, name)  # type: ignore[no-any-return]
    raise AssertionError(f"the stub names {name}, which the core does not define")


def _stubbed_alias(name: str) -> ast.expr | None:
    """The type a private alias of the stub stands for (``_RegionValues = tuple[...]``)."""
    for node in ast.parse(STUB.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and target.id == name for target in node.targets):
            return node.value
    return None


def _conforms(value: object, annotation: ast.expr) -> bool:
    """Whether ``value`` has the stubbed type (containers checked element by element)."""
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return value is None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _conforms(value, annotation.left) or _conforms(value, annotation.right)
    if isinstance(annotation, ast.Name):
        if annotation.id == "Any":
            return True
        if annotation.id == "_ArrowStream":
            return hasattr(value, "__arrow_c_stream__")
        alias = _stubbed_alias(annotation.id)
        if alias is not None:
            return _conforms(value, alias)
        expected = _BUILTINS.get(annotation.id) or _stubbed_class(annotation.id)
        return isinstance(value, expected) and not (annotation.id == "int" and isinstance(value, bool))
    assert isinstance(annotation, ast.Subscript), ast.unparse(annotation)
    container = ast.unparse(annotation.value)
    arguments = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    if container == "list":
        return isinstance(value, list) and all(_conforms(item, arguments[0]) for item in value)
    if container == "dict":
        return isinstance(value, dict) and all(_conforms(k, arguments[0]) and _conforms(v, arguments[1]) for k, v in value.items())
    if container == "tuple":
        if not isinstance(value, tuple):
            return False
        if len(arguments) == 2 and isinstance(arguments[1], ast.Constant) and arguments[1].value is Ellipsis:
            return all(_conforms(item, arguments[0]) for item in value)
        return len(value) == len(arguments) and all(_conforms(item, a) for item, a in zip(value, arguments))
    if container == "Literal":
        return value in [ast.literal_eval(a) for a in arguments]
    raise AssertionError(f"the test cannot check {ast.unparse(annotation)}")


def _core_objects(service: sunflux.LocalService) -> list[object]:
    """One object of each result class of the core, made by the embedded service."""
    import warnings

    client = service.client()
    core = client._transport
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = _core.technical_potential_config(core, "rede").wait()
        job_id, _status = _core.technical_potential_submit(core, "rede", config, "India", "fixlat", "{}").wait()
        pending = [
            _core.solar_data_query(core, 40.0, -105.0, 100, True, "v1", "json"),
            _core.pv_estimate(core, 4, 0, 14, 1, 20, 180, 40.0, -105.0, timeframe="hourly"),
            _core.technical_potential_job(core, "rede", job_id),
            _core.climate_download_csv(
                core, "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5", 40.0, -105.0, 2010, "ghi", True, False, "a@b.org", None, None, None, False
            ),
            _core.optimizer_simulated_load(core, 40.0, -105.0, ["Hospital"], []),
        ]
        return [
            core,
            core.prepare("GET", "local_status", {"format": "json"}),
            core.prepare("GET", "local_status", {"format": "json"}).send().wait(),
            service.station_weather("1-741202")._core,
            config,
            *(call.wait() for call in pending),
        ]


def test_core_results_have_the_stubbed_types(service: sunflux.LocalService) -> None:
    """Every property and argument-free method of the core's result objects returns what its
    stub says (checked on real objects from the embedded service)."""
    checked = 0
    classes = {node.name: node for node in _stubbed().values() if isinstance(node, ast.ClassDef)}
    for value in _core_objects(service):
        stub = classes[type(value).__name__]
        for member, definition in _members(stub).items():
            if member.startswith("_") or definition.returns is None:
                continue
            is_property = any(ast.unparse(d) == "property" for d in definition.decorator_list)
            required = [a for a in definition.args.args[1 : len(definition.args.args) - len(definition.args.defaults)]]
            if not is_property and required:
                continue
            if member == "close":
                continue
            returns = definition.returns
            if isinstance(returns, ast.Subscript) and ast.unparse(returns.value) == "PendingCall":
                result, returns = getattr(value, member)().wait(), returns.slice
            else:
                result = getattr(value, member) if is_property else getattr(value, member)()
            assert _conforms(result, returns), f"{type(value).__name__}.{member} -> {result!r:.200}"
            checked += 1
    assert checked >= 50


def test_the_stub_is_self_contained() -> None:
    """`_core.pyi` imports nothing of sunflux's: the core sits at the bottom of the package."""
    imports = [node for node in ast.walk(ast.parse(STUB.read_text())) if isinstance(node, (ast.Import, ast.ImportFrom))]
    modules = [node.module or "" for node in imports if isinstance(node, ast.ImportFrom)]
    modules += [alias.name for node in imports if isinstance(node, ast.Import) for alias in node.names]
    assert [module for module in modules if module.split(".")[0] == "sunflux"] == []
