"""Sphinx configuration of the sunflux documentation site (``docs/``).

Build: ``python -m sphinx -W -n --keep-going -b html docs docs/_build/html`` (or
``python tools/docs.py serve``). The API reference is generated from the code by autodoc and
numpydoc; the gallery executes the notebooks in ``notebooks/`` against the embedded service (myst-nb);
the executed copies land in ``docs/_build/jupyter_execute``, where tests/python/project/test_notebooks.py reads them.
"""

from __future__ import annotations

import sunflux

project = "sunflux"
author = "the sunflux authors"
copyright = "the sunflux authors"
version = release = sunflux.__version__

extensions = [
    "sphinx.ext.autodoc",
    "numpydoc",
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
root_doc = "index"
nitpicky = True

# autodoc: signatures as the code has them, members in source order; typing stays in signatures.
# Members inherited from sunflux's own bases are shown (the sync and async clients share theirs);
# those of Python's and other libraries' classes are not.
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
autodoc_default_options = {
    "members": True,
    "inherited-members": "object,BaseException,Warning,int,str,float,tuple,dict,Enum,IntEnum,StrEnum,Generic,ABC,Protocol,"
                         "Mapping,Collection,Sized,Iterable,Container",
}
add_module_names = False

# numpydoc: parameter tables; no per-class autosummary tables (the members follow the class).
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
# Every documented object has a docstring (GL08); type aliases of generics carry ``#:`` comments instead.
numpydoc_validation_checks = {"GL08"}
numpydoc_validation_exclude = {r"\.(Hourly|Monthly)PvEstimate$"}

# Nitpicky mode: every reference to a sunflux object must resolve. The build runs offline (no
# intersphinx), so types of Python and of other libraries in signatures stay plain text, as do the
# typing aliases the signatures use (they are spelled out in the stubs).
nitpick_ignore_regex = [
    ("py:class", r"(collections\.abc|os|enum|typing|datetime|pathlib|concurrent\.futures|asyncio)\..*"),
    ("py:class", r"(pl|pd|pa|np|dd|polars|pandas|pyarrow|numpy|dask|distributed)\..*"),
    ("py:class", r"(sunflux\.pv\.)?(Timeframe|WeatherSources|FloatSeries|IntSeries|ArrayLike|ServiceHandle|MonthlyByDefault|HourlyByDefault|SystemFrame|SiteFrame"
                 r"|EngineVersion|ModuleTypeCode|ArrayTypeCode|EstimatorVersion|EstimatorDataset|EstimateFormat)"),
    ("py:(class|obj)", r"sunflux\.(.*\.)?_\w+(\..*)?"),
]

# myst-nb: the notebooks run at build time (each starts its own embedded service), once per build.
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "force"
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_in_temp = True
nb_merge_streams = True

html_theme = "pydata_sphinx_theme"
html_title = f"sunflux {release}"
html_favicon = "_static/favicon.svg"
html_static_path = ["_static"]
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "icon_links": [],
}
html_sidebars = {"changelog": [], "benchmarks": []}
# A definite colour mode: without one the theme logs "invalid theme mode" to the console.
html_context = {"default_mode": "light"}
