"""Project hygiene that users rely on: the README's two commands, CI running the test command,
and the CLI entry points."""

from __future__ import annotations

import pathlib
import re
import subprocess
import urllib.request
import sys

import pytest
from support.paths import ROOT
from support.markers import requires_clippy



def _readme_commands() -> list[str]:
    block = re.search(r"## Set up.*?```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert block, "README has no set-up block"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def test_readme_has_exactly_two_setup_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2
    assert commands[0].endswith("python -m sunflux demo")
    assert "pytest" in commands[1] and "cargo test" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    assert _readme_commands()[1] in (ROOT / ".ci" / "run").read_text()


@pytest.mark.slow
def test_demo_runs_offline() -> None:
    result = subprocess.run([sys.executable, "-m", "sunflux", "demo"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "auth=basic  -> HTTP 200" in result.stdout
    assert "API_KEY_INVALID" in result.stdout
    assert "identical to the service: True" in result.stdout
    assert "deleted map data: True" in result.stdout
    assert "optimal: PV" in result.stdout and "mean temperature Jan" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(("options", "window"), [([], None), (["--limits", "spec"], "1000"), (["--requests-per-hour", "7"], "7")])
def test_serve_prints_url_and_key_then_serves_with_the_local_services_limits(options: list[str], window: str | None) -> None:
    """`serve` defaults to what `LocalService()` does (no request limits, so no window headers)."""
    import sunflux as sf

    process = subprocess.Popen(
        [sys.executable, "-m", "sunflux", "serve", "--port", "0", *options], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        url_line = process.stdout.readline()
        key_line = process.stdout.readline()
        base_url = url_line.strip().rsplit(" ", 1)[-1]
        key = key_line.strip().rsplit(" ", 1)[-1]
        assert base_url.startswith("http://127.0.0.1:") and len(key) == 40
        client = sf.Client(api_key=key, base_url=base_url)
        assert client.request("GET", "local_status", args={"format": "json"}).status == 200
        status = urllib.request.Request(f"{base_url}/api/local/v1/status.json", headers={"X-Api-Key": key})
        with urllib.request.urlopen(status, timeout=10) as answer:
            assert answer.headers.get("X-RateLimit-Limit") == window
    finally:
        process.terminate()
        process.wait(timeout=10)


def _tracked_files() -> list[pathlib.Path]:
    """The files of the checkout: git's list when there is one, else every file outside build output."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if listed.returncode == 0 and listed.stdout:
        return [ROOT / name for name in listed.stdout.decode().split("\0") if name]
    skipped = {".git", ".venv", "target", "__pycache__", ".pytest_cache", ".mypy_cache", ".hypothesis"}
    return [path for path in ROOT.rglob("*") if path.is_file() and not skipped & set(path.relative_to(ROOT).parts)]


def test_nothing_refers_to_a_folder_beside_the_repository() -> None:
    # Spelled in pieces so that this file does not match itself.
    outside = [".." + "/shared", "SUNFLUX_" + "SHARED", "parents" + "[2]"]
    offending = []
    for path in _tracked_files():
        if not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if any(pattern in line for pattern in outside):
                offending.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    ci_lines = [line for line in offending if line.startswith(".ci/run:")]
    assert len(ci_lines) == 1, f"the CI script names the corpora in exactly one line: {ci_lines}"
    assert [line for line in offending if not line.startswith(".ci/run:")] == []


def test_ci_proves_the_clone_stands_alone() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert "mktemp -d" in script and "git clone" in script
    assert "SUNFLUX_SCENARIO_CORPUS" in script and "SUNFLUX_WEATHER_CORPUS" in script


def _dependency_names(section: str) -> list[str]:
    import tomllib

    manifest = tomllib.loads((ROOT / "Cargo.toml").read_text())
    return list(manifest.get(section, {}))


def test_every_rust_dependency_is_used_by_the_crate() -> None:
    sources = "\n".join(path.read_text() for path in (ROOT / "src").rglob("*.rs"))
    unused = []
    for name in _dependency_names("dependencies"):
        crate = name.replace("-", "_")
        if not re.search(rf"\b{crate}::|\buse {crate}\b|#\[{crate}\(", sources):
            unused.append(name)
    assert unused == [], f"[dependencies] not used by src/: {unused} (test-only crates go to [dev-dependencies])"


@requires_clippy
@pytest.mark.slow
def test_clippy_finds_no_way_to_panic() -> None:
    """src/lib.rs and the input-reading modules deny unwrap, expect, panic!, unreachable!,
    durations from unchecked seconds (clippy.toml), lossy casts and indexing that may panic,
    outside tests; a change that brings one back fails here."""
    done = subprocess.run(
        ["cargo", "clippy", "--lib", "--quiet", "--message-format=short"], cwd=ROOT, capture_output=True, text=True, timeout=3600
    )
    errors = [line for line in done.stderr.splitlines() if ": error" in line]
    assert done.returncode == 0 and not errors, "\n".join(errors) or done.stderr[-3000:]


def _cli_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    from sunflux.__main__ import main

    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.err.splitlines()


def test_serve_with_a_short_key_prints_one_line_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = _cli_error(["serve", "--port", "0", "--api-key", "short"], capsys)
    assert code == 2
    assert lines == ["python -m sunflux serve: error: every service key must be 40 characters long (one has 5)"]


def test_serve_on_a_port_in_use_prints_one_line_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, lines = _cli_error(["serve", "--port", str(port)], capsys)
    assert code == 2
    assert len(lines) == 1 and lines[0].startswith(f"python -m sunflux serve: error: could not listen on 127.0.0.1:{port}")


@pytest.mark.parametrize("argv", [["--help"], ["serve", "--help"], ["demo", "--help"]])
def test_help_is_plain_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from sunflux.__main__ import main

    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: python -m sunflux") and "`" not in text


def test_the_rust_core_and_the_python_package_have_no_circle_and_no_upward_import() -> None:
    """Both import graphs point one way (tools/import_graph.py): the Rust layers, and the Python
    package's (`PY_LAYERS`, with every module in a layer)."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "import_graph.py"), "--list"], capture_output=True, text=True, check=True)
    counts = dict(re.findall(r"^([a-z ]+): (\d+)$", done.stdout, re.MULTILINE))
    measures = [
        "circles between parts", "circles inside parts", "upward imports",
        "python circles", "python upward imports", "python modules without a layer",
    ]
    assert {measure: counts.get(measure) for measure in measures} == dict.fromkeys(measures, "0"), done.stdout


def _without_test_modules(source: str) -> str:
    """A Rust file without its test modules. The rule (the crate's layout makes it exact): a line
    `#[cfg(test)]` followed by a line `mod <name> {` opens a test module, which ends at the next
    line that is exactly `}` (a module at the top level closes in column 0). Everything else,
    doc comments included, stays."""
    kept: list[str] = []
    lines = source.splitlines()
    index = 0
    while index < len(lines):
        opens = lines[index].strip() == "#[cfg(test)]" and index + 1 < len(lines)
        if opens and re.fullmatch(r"(pub(\(crate\))? )?mod \w+ \{", lines[index + 1].strip()):
            index += 2
            while index < len(lines) and lines[index] != "}":
                index += 1
        else:
            kept.append(lines[index])
        index += 1
    return "\n".join(kept)


def test_a_service_path_is_spelled_in_one_rust_file() -> None:
    """Issue #15, target shape 1: the client and the embedded service's router both build paths
    from `src/spec/routes.rs`, so no other non-test Rust file spells `/api/` (not even a doc
    comment: those refer to the route table's names instead)."""
    spelling = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "src").rglob("*.rs")
        if "/api/" in _without_test_modules(path.read_text(encoding="utf-8"))
    )
    assert spelling == ["src/spec/routes.rs"], spelling
    assert "/api/" not in _without_test_modules("#[cfg(test)]\nmod tests {\n    fn f() {\n        \"/api/x\";\n    }\n}\n")


def test_python_reads_the_spec_rules_from_rust_instead_of_restating_them() -> None:
    """Issue #15, target shape 1: the spec's limits and vocabularies have one home in Rust and the
    Python face holds the very objects `_core` exports (no copies that could drift), and the
    modules that apply the request limits write none of their numbers."""
    import ast
    import tokenize

    from sunflux import _core, _local, climate, pvwatts, solar

    assert climate.ATTRIBUTES is _core.CLIMATE_ATTRIBUTES
    assert solar.DATASETS is _core.SOLAR_DATASETS
    assert _local.FAULT_KINDS is _core.FAULT_KINDS
    assert pvwatts._METADATA_KEYS is _core.WEATHER_METADATA_KEYS
    assert _local.RateLimits().requests == _core.KEY_REQUESTS_PER_HOUR
    assert _local.ClimateSettings().in_flight == _core.CLIMATE_IN_FLIGHT
    limits = {_core.KEY_REQUESTS_PER_HOUR, _core.CLIMATE_CSV_PER_DAY, _core.CLIMATE_JSON_PER_DAY, _core.CLIMATE_IN_FLIGHT}
    package = ROOT / "python" / "sunflux"
    readers = [package / name for name in ("_local.py", "_client.py", "climate.py", "__main__.py")]
    readers.append(package / "distributed" / "_download.py")
    restated = []
    for path in readers:
        with path.open(encoding="utf-8") as source:
            for token in tokenize.generate_tokens(source.readline):
                if token.type == tokenize.NUMBER and ast.literal_eval(token.string) in limits:
                    restated.append(f"{path.relative_to(ROOT)}:{token.start[0]}: {token.line.strip()}")
    assert not restated, restated


def test_version_from_the_command_line_and_the_package(capsys: pytest.CaptureFixture[str]) -> None:
    import sunflux
    from sunflux.__main__ import main

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"sunflux {sunflux.__version__}"
    import tomllib

    assert sunflux.__version__ == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_package_metadata_links_the_site_and_names_both_engines() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert {"Documentation", "Source", "Changelog", "Issues"} <= set(project["urls"])
    assert "v5 and v8" in project["description"]
    assert any(c.startswith("Programming Language :: Python :: 3.11") for c in project["classifiers"])
    assert "sunflux[docs]" in project["optional-dependencies"]["test"]


#: Files allowed over `LONGEST_SOURCE_FILE` lines, each with its reason.
LONG_FILE_EXCEPTIONS = {
    "python/sunflux/optimizer/sections.pyi": "generated by tools/gen_optimizer_schema.py from the schema",
}
LONGEST_SOURCE_FILE = 800


def test_no_source_file_is_longer_than_a_reader_can_hold() -> None:
    """Every Rust and Python file of the repository has at most 800 lines, but the listed
    exceptions (a generated stub)."""
    tracked = subprocess.run(["git", "ls-files", "*.rs", "*.py", "*.pyi"], cwd=ROOT, capture_output=True, text=True, check=True)
    lengths = {name: len((ROOT / name).read_text(encoding="utf-8").splitlines()) for name in tracked.stdout.split()}
    too_long = {name: count for name, count in lengths.items() if count > LONGEST_SOURCE_FILE and name not in LONG_FILE_EXCEPTIONS}
    assert too_long == {}
    assert all(lengths.get(name, 0) > LONGEST_SOURCE_FILE for name in LONG_FILE_EXCEPTIONS), "an exception no longer needed"


def test_tests_are_arranged_by_area_as_the_package_is() -> None:
    """Python tests sit in `tests/python/<area>/`, Rust integration tests in `tests/rust/<area>/`,
    each declared in Cargo.toml with its path or a module (`mod name;`) of a declared test binary
    (cargo would otherwise run a stray `tests/x.rs` unnoticed, or never compile a module file),
    and no test module imports another: what they share lives in `support`."""
    import tomllib

    tracked = subprocess.run(["git", "ls-files", "tests"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    sources = [name for name in tracked if name.endswith((".py", ".rs")) and not name.startswith("tests/data/")]
    by_area = [name for name in sources if name.startswith(("tests/python/", "tests/rust/")) and name.count("/") == 3]
    misplaced = sorted(set(sources) - set(by_area) - {"tests/python/conftest.py"})
    assert misplaced == []
    binaries = {test["path"] for test in tomllib.loads((ROOT / "Cargo.toml").read_text())["test"]}
    modules = {str(pathlib.PurePosixPath(binary).parent / f"{module}.rs") for binary in binaries
               for module in re.findall(r"^mod (\w+);", (ROOT / binary).read_text(), re.M)}
    assert binaries | modules == {name for name in sources if name.startswith("tests/rust/")}
    python_tests = [name for name in sources if name.startswith("tests/python/")]
    importing_a_test = [name for name in python_tests if re.search(r"^\s*(from|import) test_", (ROOT / name).read_text(), re.M)]
    assert importing_a_test == []
