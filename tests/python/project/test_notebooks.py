"""Every notebook in notebooks/, executed top to bottom with the installed package only (each one
starts its own embedded service): no error output, at least one plot, and the text each one is
expected to show.

The documentation build executes them once (the gallery, myst-nb); these tests read the executed
copies it keeps (the ``docs_site`` fixture builds the site once per run), so CI runs each notebook
once."""

from __future__ import annotations


import pytest

from support.paths import NOTEBOOKS
from support.docs_build import DocsBuild
from support.markers import requires_dask


EXPECTED_TEXT = {
    "optimizer_scenario.ipynb": ["Site.latitude", "series_length"],
    "dataset_query.ipynb": ["tmy3", "satdb"],
    "pv_estimator.ipynb": ["best tilt:", "identical annual energy: True"],
    "technical_potential.ipynb": ["map_data_deleted=True", "summary unchanged: True"],
    "pv_engine.ipynb": ["same within float32 rounding: True", "best fixed tilt:"],
    "climate_download.ipynb": ["rows: 8784", "downloads on the cached rerun: 0"],
    "optimizer.ipynb": ["status: optimal", "npv = lcc_bau - lcc: True"],
    "dask_pv_map.ipynb": ["50 site-years of synthetic weather", "not measured data", "rows written: 1200",
                          "same as simulate_many: True", "tracker gain over fixed"],
    "pv_v6_v8.ipynb": ["v6 service equals local v5: True", "v8 service equals local v8: True", "bifacial gain:"],
}

pytestmark = pytest.mark.slow


def _outputs(notebook: object) -> list[dict]:  # type: ignore[type-arg]
    return [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.get("outputs", [])]  # type: ignore[attr-defined]


#: Notebooks that need an optional extra, and the marker that skips them without it.
NEEDS = {"dask_pv_map.ipynb": requires_dask}


@pytest.mark.parametrize(
    "name", [pytest.param(p.name, marks=NEEDS.get(p.name, ())) for p in sorted(NOTEBOOKS.glob("*.ipynb"))]
)
def test_notebook_runs(name: str, docs_site: DocsBuild) -> None:
    import nbformat

    executed = docs_site.executed / name
    assert executed.is_file(), f"the documentation build did not execute {name} (exit code {docs_site.code}):\n{docs_site.warnings}"
    notebook = nbformat.read(executed, as_version=4)  # type: ignore[no-untyped-call]
    assert [cell.source for cell in notebook.cells] == [cell.source for cell in nbformat.read(NOTEBOOKS / name, as_version=4).cells]  # type: ignore[no-untyped-call]
    outputs = _outputs(notebook)
    errors = [output for output in outputs if output.get("output_type") == "error"]
    assert not errors, errors
    text = "\n".join(str(output.get("text", "")) + str(output.get("data", {}).get("text/plain", "")) for output in outputs)
    for expected in EXPECTED_TEXT.get(name, []):
        assert expected in text, expected
    assert any("image/png" in output.get("data", {}) for output in outputs), "no plot"


def test_every_notebook_has_expectations() -> None:
    assert set(EXPECTED_TEXT) == {p.name for p in NOTEBOOKS.glob("*.ipynb")}


def test_the_gallery_links_every_notebook() -> None:
    gallery = NOTEBOOKS.parent / "docs" / "gallery"
    links = {p.name: p for p in gallery.glob("*.ipynb")}
    assert set(links) == {p.name for p in NOTEBOOKS.glob("*.ipynb")}
    assert all(link.is_symlink() and link.resolve() == NOTEBOOKS / name for name, link in links.items())
