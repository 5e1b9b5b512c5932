"""The suite's fixtures: a quiet embedded service, a client wired to it, a small loopback HTTP
server for transport tests, and the documentation site built once per run (which executes the
notebooks). What test modules import (paths, skip markers, servers, documents) is in ``support``."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any, Iterator

import pytest

import sunflux as sf
from support.docs_build import DocsBuild
from support.loopback import LoopbackServer
from support.paths import ROOT


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: notebooks, the demo subprocess, optimizer solves, soak runs; "
                            "the quick inner loop is `pytest -m 'not slow'`")


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
    every notebook once, and tests/python/project/test_notebooks.py checks the executed copies."""
    code = docs_tool.build()
    warnings = docs_tool.WARNINGS.read_text("utf-8") if docs_tool.WARNINGS.exists() else ""
    return DocsBuild(code, warnings, docs_tool.HTML, docs_tool.BUILD / "jupyter_execute" / "gallery")


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
