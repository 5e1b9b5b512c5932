"""`sunflux.distributed.simulate` on a real two-process `LocalCluster`: the same rows and values
as `simulate_many` (every column, bit for bit) for weather files, `Weather` objects and a
Parquet weather dataset (also one `write_weather_dataset` wrote), hourly and monthly, also when
a worker is killed mid-run; `Weather` objects scattered, not in the graph; the clear ImportError
without Dask; typed errors for bad input."""

from __future__ import annotations

import gzip
import importlib
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Iterator

import pandas as pd
import polars as pl
import pytest

import sunflux as sf
from support.paths import DATA
from support.dask_plugins import kill_once
from support.markers import requires_dask
from sunflux import ParameterError
from sunflux.pvwatts import Weather, read_weather, simulate_many

pytestmark = requires_dask

WEATHER_FILES = [DATA / "723170TYA.CSV.gz", DATA / "703165TY.csv.gz", DATA / "12839.tm2.gz"]
#: Ten systems over every mount, module type and a spread of the other parameters.
SYSTEMS = [
    dict(system_capacity=4, module_type=0, losses=14, array_type=0, tilt=20, azimuth=180),
    dict(system_capacity=4, module_type=1, losses=10, array_type=1, tilt=30, azimuth=160),
    dict(system_capacity=10, module_type=2, losses=14, array_type=2, tilt=0, azimuth=180, gcr=0.3),
    dict(system_capacity=10, module_type=0, losses=8, array_type=3, tilt=0, azimuth=180, gcr=0.45),
    dict(system_capacity=2.5, module_type=1, losses=14, array_type=4, tilt=0, azimuth=0),
    dict(system_capacity=100, module_type=0, losses=-2, array_type=0, tilt=35, azimuth=200, dc_ac_ratio=1.4),
    dict(system_capacity=0.5, module_type=2, losses=20, array_type=1, tilt=10, azimuth=90, inv_eff=98),
    dict(system_capacity=50, module_type=0, losses=14, array_type=0, tilt=60, azimuth=270),
    dict(system_capacity=7, module_type=1, losses=12, array_type=3, tilt=10, azimuth=170, gcr=0.6),
    dict(system_capacity=3, module_type=0, losses=14, array_type=0, tilt=90, azimuth=0, dc_ac_ratio=1.1),
]


@pytest.fixture(scope="module")
def weather_paths(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("weather")
    paths = []
    for path in WEATHER_FILES:
        target = folder / path.name.removesuffix(".gz")
        target.write_bytes(gzip.decompress(path.read_bytes()))
        paths.append(str(target))
    return paths


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def reference(weathers: list[Weather], systems: list[dict[str, Any]], timeframe: str, sites: list[Any] | None = None) -> pd.DataFrame:
    """`simulate_many` site by site, labelled with the site, hourly stamps in UTC."""
    frames = []
    for index, weather in enumerate(weathers):
        table = simulate_many(weather, systems, timeframe=timeframe, progress=False)
        if "timestamp" in table.columns:
            table = table.with_columns(pl.col("timestamp").dt.convert_time_zone("UTC"))
        site = pl.Series("site", [index if sites is None else sites[index]] * table.height)
        frames.append(table.with_columns(site).select("site", pl.exclude("site")))
    return pl.concat(frames).to_pandas()


def assert_same(result: pd.DataFrame, expected: pd.DataFrame) -> None:
    result = result.reset_index(drop=True)
    assert list(result.columns) == list(expected.columns)
    pd.testing.assert_frame_equal(result, expected, check_exact=True)


@pytest.mark.slow
@pytest.mark.parametrize("timeframe, partition_size", [("monthly", 7), ("hourly", 4)])
def test_simulate_equals_simulate_many(dask_client: Any, weather_paths: list[str], timeframe: str, partition_size: int) -> None:
    import sunflux.distributed as sd

    frame = sd.simulate(weather_paths, SYSTEMS, timeframe=timeframe, partition_size=partition_size)
    assert frame.npartitions == -(-len(weather_paths) * len(SYSTEMS) // partition_size)
    expected = reference([read_weather(p) for p in weather_paths], SYSTEMS, timeframe)
    assert list(frame.columns) == list(expected.columns) and frame.dtypes.equals(expected.dtypes)
    result = dask_client.compute(frame).result()
    rows = 12 if timeframe == "monthly" else 8760
    assert len(result) == len(weather_paths) * len(SYSTEMS) * rows
    assert_same(result, expected)


@pytest.mark.slow
def test_weather_objects_and_a_frame_of_systems(dask_client: Any, weather_paths: list[str], tmp_path: Path) -> None:
    """`Weather` objects are scattered (pickled as Arrow IPC); a polars frame is a sweep; the
    result goes straight to partitioned Parquet."""
    import sunflux.distributed as sd

    half_hourly = DATA / "weather_formats" / "greensboro_30min.epw.gz"
    (tmp_path / "g.epw").write_bytes(gzip.decompress(half_hourly.read_bytes()))
    weathers = [read_weather(p) for p in weather_paths[:2]] + [read_weather(tmp_path / "g.epw")]
    sweep = pl.DataFrame(SYSTEMS[:4]).with_columns(pl.col("gcr").fill_null(0.4))
    frame = sd.simulate(weathers, sweep, client=dask_client, partition_size=5)
    expected = reference(weathers, sweep.to_dicts(), "monthly")
    assert_same(dask_client.compute(frame).result(), expected)
    frame.to_parquet(tmp_path / "yields", partition_on=["site"], compute=True)
    written = pd.read_parquet(tmp_path / "yields").sort_values(["site", "system", "month"], kind="stable")
    assert sorted(os.listdir(tmp_path / "yields")) == ["site=0", "site=1", "site=2"]
    assert_same(written[list(expected.columns)].astype({"site": "int64"}), expected)


@pytest.mark.slow
def test_a_parquet_weather_dataset(dask_client: Any, weather_paths: list[str], tmp_path: Path) -> None:
    """A dataset of weather with a site column: each task reads only its site's rows. The
    files are written last site first, so the first file pyarrow opens lacks the albedo
    column the others have."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    import sunflux.distributed as sd

    weathers = {f"site-{i}": read_weather(p) for i, p in enumerate(weather_paths)}
    for name, weather in weathers.items():
        table = weather.to_arrow().drop_columns(["timestamp"])
        site = {"site": name, "lat": weather.lat, "lon": weather.lon, "tz": weather.tz, "elevation": weather.elevation}
        for column, value in site.items():
            table = table.append_column(column, pa.array([value] * len(weather)))
        pq.write_table(table, tmp_path / f"part-{len(weathers) - len(list(tmp_path.iterdir()))}.parquet")
    frame = sd.simulate(str(tmp_path), SYSTEMS[:3], partition_size=4)
    expected = reference(list(weathers.values()), SYSTEMS[:3], "monthly", sites=list(weathers))
    assert_same(dask_client.compute(frame).result(), expected)


@pytest.mark.slow
def test_a_worker_killed_mid_run(dask_client: Any, weather_paths: list[str], tmp_path: Path) -> None:
    """A worker dies (SIGKILL) as soon as it has finished its first partition, with the rest
    of the run still to do: Dask recomputes what it held, and the result is still complete
    and identical."""
    import sunflux.distributed as sd

    marker = str(tmp_path / "killed")

    frame = sd.simulate(weather_paths, SYSTEMS, partition_size=2)
    plugin = kill_once(marker, "_simulate_partition", "sunflux-kill-once")
    dask_client.register_plugin(plugin)
    try:
        result = dask_client.compute(frame).result(timeout=120)
    finally:
        dask_client.unregister_worker_plugin(plugin.name)
        dask_client.wait_for_workers(2, timeout=60)
    assert os.path.exists(marker), "a worker was killed during the run"
    assert_same(result, reference([read_weather(p) for p in weather_paths], SYSTEMS, "monthly"))


@pytest.fixture(scope="module")
def thread_client() -> Iterator[Any]:
    """A cluster in this process (its graph is still serialized and sized as a remote one is)."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


def test_weather_objects_are_scattered_not_sent_in_the_graph(thread_client: Any, weather_paths: list[str]) -> None:
    """Six weather years (about 1 MB each) against a 2 MB threshold: in the graph, Dask warned
    "Sending large graph"; scattered, the graph holds only references."""
    import dask
    import sunflux.distributed as sd

    weathers = [read_weather(path) for path in weather_paths] * 2
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "2MB"}), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = thread_client.compute(sd.simulate(weathers, SYSTEMS[:2], client=thread_client)).result()
    assert [str(w.message) for w in caught if "large graph" in str(w.message)] == []
    assert_same(result, reference(weathers, SYSTEMS[:2], "monthly"))


def test_a_written_weather_dataset_gives_the_weathers_result(thread_client: Any, weather_paths: list[str], tmp_path: Path) -> None:
    """`write_weather_dataset` writes what `simulate` reads back: the same rows as the `Weather`
    objects themselves, with their site labels; `System` objects are systems."""
    import sunflux.distributed as sd

    weathers = [read_weather(path) for path in weather_paths]
    systems = [sf.System(**system) for system in SYSTEMS[:3]]
    sd.write_weather_dataset(weathers, tmp_path / "listed")
    from_dataset = thread_client.compute(sd.simulate(str(tmp_path / "listed"), systems, client=thread_client)).result()
    from_objects = thread_client.compute(sd.simulate(weathers, systems, client=thread_client)).result()
    assert_same(from_dataset, reference(weathers, SYSTEMS[:3], "monthly"))
    assert_same(from_objects, reference(weathers, SYSTEMS[:3], "monthly"))
    named = {"gso": weathers[0], "sand point": weathers[1]}
    sd.write_weather_dataset(named, tmp_path / "named")
    hourly = thread_client.compute(sd.simulate(tmp_path / "named", systems[:1], client=thread_client, timeframe="hourly")).result()
    assert_same(hourly, reference(list(named.values()), SYSTEMS[:1], "hourly", sites=list(named)))
    with pytest.raises(ParameterError, match="already holds files"):
        sd.write_weather_dataset(weathers, tmp_path / "named")
    with pytest.raises(ParameterError, match="all ints or all texts"):
        sd.write_weather_dataset({1: weathers[0], "b": weathers[1]}, tmp_path / "mixed")


def test_import_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "sunflux.distributed" or m.startswith("sunflux.distributed.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"pip install 'sunflux\[dask\]'"):
        importlib.import_module("sunflux.distributed")


@pytest.mark.parametrize(
    "weathers, systems, options, message",
    [
        (["a.tm2"], [], {}, "systems is empty"),
        (["a.tm2"], "tilt=20", {}, "systems must be a list of System or dicts"),
        (["a.tm2"], [dict(SYSTEMS[0], tilt=20, size=3)], {}, r"systems\[0\] has unknown fields \['size'\]"),
        (["a.tm2"], [dict(SYSTEMS[0], losses=140)], {}, r"systems\[0\]: losses"),
        ([], SYSTEMS, {}, "weathers is empty"),
        ([3.5], SYSTEMS, {}, r"weathers\[0\] must be a path to a weather file or a Weather"),
        (["a.tm2"], SYSTEMS, {"timeframe": "daily"}, 'timeframe must be "monthly" or "hourly"'),
        (["a.tm2"], SYSTEMS, {"partition_size": 0}, "partition_size must be a whole number"),
        (["a.tm2"], SYSTEMS, {"version": "v7"}, 'version must be "v5" or "v8"'),
    ],
)
def test_bad_input_raises_before_anything_runs(weathers: Any, systems: Any, options: dict[str, Any], message: str) -> None:
    import sunflux.distributed as sd

    with pytest.raises(ParameterError, match=message):
        sd.simulate(weathers, systems, **options)


def test_empty_cells_of_a_frame_of_systems_take_the_defaults() -> None:
    from sunflux.distributed._simulate import _systems

    sweep = pd.DataFrame([SYSTEMS[0], SYSTEMS[2]])
    assert _systems(sweep, "v5") == [SYSTEMS[0], SYSTEMS[2]], "pandas NaN"
    assert _systems(pl.DataFrame([SYSTEMS[0], SYSTEMS[2]]), "v5") == [SYSTEMS[0], SYSTEMS[2]], "polars null"


def test_a_dataset_without_site_columns(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    import sunflux.distributed as sd

    pq.write_table(pa.table({"site": [1], "ghi": [0.0]}), tmp_path / "w.parquet")
    with pytest.raises(ParameterError, match="lacks the columns lat, lon, tz, elevation"):
        sd.simulate(str(tmp_path), SYSTEMS)
