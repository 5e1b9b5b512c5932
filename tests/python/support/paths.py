"""Where the tests find the repository and its test data, wherever the test module sits."""

from __future__ import annotations

from pathlib import Path

#: The repository's root folder.
ROOT = Path(__file__).resolve().parents[3]
#: Every file the suite reads (``tests/data``), shared with the Rust integration tests.
DATA = ROOT / "tests" / "data"
#: The project's own optimizer scenario and result documents.
SCENARIOS = DATA / "scenarios"
#: The notebooks of the gallery.
NOTEBOOKS = ROOT / "notebooks"
