"""Executes notebooks/optimizer_scenario.ipynb top to bottom with the installed package only."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "optimizer_scenario.ipynb"
NEEDED = ("nbformat", "nbclient", "ipykernel", "matplotlib")
MISSING = [name for name in NEEDED if importlib.util.find_spec(name) is None]

pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"notebook execution needs {', '.join(MISSING)} (pip install sunflux[test])"
)


def test_optimizer_scenario_notebook_runs(tmp_path: Path) -> None:
    import nbclient
    import nbformat

    notebook = nbformat.read(NOTEBOOK, as_version=4)  # type: ignore[no-untyped-call]
    client = nbclient.NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()
    outputs = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    ]
    assert not [output for output in outputs if output.get("output_type") == "error"]
    text = "\n".join(output.get("text", "") for output in outputs)
    assert "Site.latitude" in text and "series_length" in text
    assert any("image/png" in output.get("data", {}) for output in outputs)
