"""The one place where tests are skipped: every test that needs something optional says so with
one of these markers (the way pvlib keeps its ``requires_*`` markers). No test skips because data
is missing, since everything the suite reads lives in ``tests/data``. The corpora of real files
that other repositories published are read only through environment variables (``.ci/run`` sets
them when the material is present), and their tests say plainly why they skipped otherwise."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest


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
