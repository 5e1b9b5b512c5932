"""Weather readers: `sunflux.pvwatts.read_weather` against `polars.read_csv` on the same file and
pvlib's reader for the format, in one run with interleaved rounds.

The files are the repository's own: pvlib's TMY2/TMY3 package data and the format fixtures made
from them (``tests/data/weather_formats``: EPW hourly and 30-minute, SAM CSV 15-minute, an NSRDB
PSM3 download at 10 minutes). ``polars.read_csv`` reads the data rows into a frame (every column,
types inferred; TMY2, which is fixed-width, as one string column per line), which is less than a
weather reader does; pvlib's readers are what a pvlib user calls.
"""

from __future__ import annotations

import gzip
import pathlib
import tempfile
from typing import Any, Callable

from timing import median, per_call_samples

import sunflux as sf

TITLE = "Weather readers: read_weather vs polars.read_csv and pvlib"
DATA = pathlib.Path(__file__).resolve().parents[1] / "tests" / "data"

#: (file, format, rows of metadata before the column names or data, pvlib reader name)
FILES = [
    ("723170TYA.CSV.gz", "TMY3", 1, "read_tmy3"),
    ("12839.tm2.gz", "TMY2", None, "read_tmy2"),
    ("weather_formats/greensboro.epw.gz", "EPW hourly", 8, "read_epw"),
    ("weather_formats/greensboro_30min.epw.gz", "EPW 30-minute", 8, "read_epw"),
    ("weather_formats/greensboro_15min.csv.gz", "SAM CSV 15-minute", 2, None),
    ("weather_formats/greensboro_10min_psm3.csv.gz", "NSRDB PSM3 10-minute", 2, "read_nsrdb_psm4"),
]


def _polars_reader(path: pathlib.Path, skip: int | None) -> Callable[[], object]:
    import polars as pl

    if skip is None:
        return lambda: pl.read_csv(path, has_header=False, new_columns=["line"], separator="\x1f", quote_char=None)
    has_header = not path.name.endswith(".epw")
    return lambda: pl.read_csv(path, skip_rows=skip, has_header=has_header, infer_schema_length=10_000)


def _pvlib_reader(path: pathlib.Path, name: str | None) -> Callable[[], object] | None:
    if name is None:
        return None
    try:
        import pvlib
    except ImportError:
        return None
    return lambda: getattr(pvlib.iotools, name)(path)


def run() -> str:
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, kind, skip, pvlib_name in FILES:
            path = pathlib.Path(folder) / pathlib.Path(name).name.removesuffix(".gz")
            path.write_bytes(gzip.decompress((DATA / name).read_bytes()))
            contenders: dict[str, Callable[[], Any]] = {
                "sunflux": lambda path=path: sf.pvwatts.read_weather(path),
                "polars": _polars_reader(path, skip),
            }
            pvlib_reader = _pvlib_reader(path, pvlib_name)
            if pvlib_reader is not None:
                contenders["pvlib"] = pvlib_reader
            for contender in contenders.values():
                contender()
            samples = per_call_samples(contenders, calls=5, rounds=6)
            times = {who: median(values) * 1e3 for who, values in samples.items()}
            records = len(sf.pvwatts.read_weather(path))
            pvlib_text = f"{times['pvlib']:.2f}" if "pvlib" in times else "—"
            pvlib_ratio = f"{times['pvlib'] / times['sunflux']:.1f}x" if "pvlib" in times else "—"
            rows.append(
                f"| {kind} | {path.stat().st_size / 1e6:.2f} MB, {records} records | {times['sunflux']:.2f} | "
                f"{times['polars']:.2f} | {pvlib_text} | **{times['polars'] / times['sunflux']:.1f}x** | {pvlib_ratio} |"
            )
    table = "\n".join(rows)
    return (
        "Median milliseconds per read of a whole file (30 calls per contender in 6 interleaved rounds). "
        "The ratio columns are how many times faster sunflux is than the contender. "
        "sunflux's reader parses the columns PVWatts uses, checks the calendar and every value, and "
        "builds the weather year (as SSC stores values, in float32); polars parses every column of the "
        "data rows; pvlib builds a pandas frame with its index.\n\n"
        "| format | file | sunflux ms | polars.read_csv ms | pvlib ms | vs polars | vs pvlib |\n"
        "|---|---|---|---|---|---|---|\n" + table
    )
