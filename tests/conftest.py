"""Shared fixtures and the one place where tests are skipped.

Fixtures: a quiet embedded service, a client wired to it, a small loopback HTTP server for
transport tests, and the documentation site built once per run (which executes the notebooks). Skip rules: every test that needs something optional says so with one of the
markers below (the way pvlib keeps its ``requires_*`` markers); no test skips because data is
missing, since everything the suite reads lives in ``tests/data``. The corpora of real files that
other repositories published are read only through environment variables (``.ci/run`` sets them
when the material is present) and their tests say plainly why they skipped otherwise.
"""

from __future__ import annotations

import http.server
import importlib.util
import os
import sys
from dataclasses import dataclass
import signal
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import sunflux as sf


def _has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


requires_pysam = pytest.mark.skipif(not _has_module("PySAM"), reason="needs nrel-pysam (pip install 'sunflux[bench]')")
requires_pvlib = pytest.mark.skipif(not _has_module("pvlib"), reason="needs pvlib (pip install 'sunflux[bench]')")
requires_dask = pytest.mark.skipif(
    not (_has_module("dask") and _has_module("distributed")), reason="needs Dask (pip install 'sunflux[dask]')"
)
requires_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork (POSIX)")
requires_clippy = pytest.mark.skipif(
    subprocess.run(["cargo", "clippy", "--version"], capture_output=True).returncode != 0 if shutil.which("cargo") else True,
    reason="needs cargo clippy (rustup component add clippy)",
)

#: The browser check of the documentation site needs Debian's chromium and chromium-driver.
#: ``.ci/run`` installs them and sets SUNFLUX_REQUIRE_BROWSER=1, so CI fails instead of skipping.
requires_chromium = pytest.mark.skipif(
    not (shutil.which("chromium") and shutil.which("chromedriver")) and os.environ.get("SUNFLUX_REQUIRE_BROWSER") != "1",
    reason="needs chromium and chromedriver (apt-get install chromium chromium-driver)",
)


def _corpus(variable: str, what: str) -> tuple[Path | None, pytest.MarkDecorator]:
    """The folder an environment variable names, and a marker that skips when it is unset."""
    value = os.environ.get(variable)
    folder = Path(value) if value else None
    if folder is not None and not folder.is_dir():
        raise pytest.UsageError(f"{variable}={value} is not a directory")
    reason = f"optional conformance run on {what}: set {variable} to the folder that holds them"
    return folder, pytest.mark.skipif(folder is None, reason=reason)


def _corpus_folders(variable: str, what: str) -> tuple[list[Path], pytest.MarkDecorator]:
    """The folders an environment variable lists (separated like PATH), and a marker that skips
    when it is unset."""
    value = os.environ.get(variable)
    folders = [Path(part) for part in value.split(os.pathsep) if part] if value else []
    for folder in folders:
        if not folder.is_dir():
            raise pytest.UsageError(f"{variable} lists {folder}, which is not a directory")
    reason = f"optional conformance run on {what}: set {variable} to the folders that hold them"
    return folders, pytest.mark.skipif(not folders, reason=reason)


#: Real optimizer scenarios from the service owner's public repositories (with a MANIFEST.json).
SCENARIO_CORPUS, requires_scenario_corpus = _corpus("SUNFLUX_SCENARIO_CORPUS", "real optimizer scenarios")
#: Folders of real weather files from pvlib's, SSC's, PySAM's and bifacial_radiance's repositories.
WEATHER_CORPORA, requires_weather_corpus = _corpus_folders("SUNFLUX_WEATHER_CORPUS", "real weather files")


def weather_corpus_files() -> list[Any]:
    """Every weather file (CSV, EPW, TMY2) of the weather corpus folders as test parameters named
    by file, sorted by name (one parameter, None, when the corpus is not given: its tests skip)."""
    if not WEATHER_CORPORA:
        return [pytest.param(None, id="no-corpus")]
    files = (path for folder in WEATHER_CORPORA for path in folder.iterdir())
    chosen = sorted((path for path in files if path.suffix.lower() in (".csv", ".epw", ".tm2")), key=lambda path: path.name)
    return [pytest.param(path, id=path.name) for path in chosen]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: notebooks, the demo subprocess, optimizer solves, soak runs; "
                            "the quick inner loop is `pytest -m 'not slow'`")

Handler = Callable[[http.server.BaseHTTPRequestHandler], None]

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class DocsBuild:
    """One build of the documentation site: Sphinx's exit code, its warnings, the HTML folder and
    the folder of the executed notebooks."""

    code: int
    warnings: str
    html: Path
    executed: Path


@pytest.fixture(scope="session")
def docs_tool() -> Any:
    """``tools/docs.py`` as a module (build, link check, browser check)."""
    spec = importlib.util.spec_from_file_location("sunflux_docs_tool", ROOT / "tools" / "docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def docs_site(docs_tool: Any) -> DocsBuild:
    """The documentation site, built once per test run with warnings as errors; the build executes
    every notebook once, and tests/test_notebooks.py checks the executed copies."""
    code = docs_tool.build()
    warnings = docs_tool.WARNINGS.read_text("utf-8") if docs_tool.WARNINGS.exists() else ""
    return DocsBuild(code, warnings, docs_tool.HTML, docs_tool.BUILD / "jupyter_execute" / "gallery")


class LoopbackServer:
    """A threaded HTTP server on a loopback address whose answers a test scripts."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.seen: list[dict[str, object]] = []
        self.handler: Handler = lambda request: _reply(request, 200, b"{}")
        owner = self

        class _Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                owner.seen.append({"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body})
                self.body = body
                owner.handler(self)

            do_GET = do_POST = do_DELETE = _any

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer((host, 0), _Handler)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _reply(request: http.server.BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    request.send_response(status)
    for name, value in (headers or {"content-type": "application/json"}).items():
        request.send_header(name, value)
    request.send_header("content-length", str(len(body)))
    request.end_headers()
    request.wfile.write(body)


reply = _reply


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    server = LoopbackServer()
    yield server
    server.close()


@pytest.fixture
def service() -> Iterator[sf.LocalService]:
    with sf.LocalService() as svc:
        yield svc


@pytest.fixture
def client(service: sf.LocalService) -> sf.Client:
    return service.client(backoff=0.01)


def kill_once(marker: str, key_part: str, name: str) -> Any:
    """A Dask worker plugin that SIGKILLs its worker the first time a task whose key holds
    `key_part` finishes, anywhere in the cluster (the file `marker` says it happened). The class
    is made inside this function so that it pickles by value to the workers."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class KillOnce(WorkerPlugin):
        def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
            if finish == "memory" and key_part in str(key):
                try:
                    os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                except FileExistsError:
                    return
                os.kill(os.getpid(), signal.SIGKILL)

    KillOnce.name = name
    return KillOnce()
