"""`simulate`: the PVWatts engine over a Dask cluster, one lazy dask DataFrame of every site ×
system, the same rows and values as `sunflux.pvwatts.simulate_many`.

The graph has one task per weather year (read on a worker, kept there) and one task per
partition of ``partition_size`` site-years; a partition runs `simulate_many` on one core over
the weathers it depends on, so each weather is read once and its sun path (cached on the
`Weather`) serves every system of the partitions that share it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Union

from dask import delayed

from sunflux._errors import ParameterError
from sunflux._units import check_pvwatts_system
from sunflux.pvwatts import EngineVersion, Weather, _engine_version, _system_rows, _system_tuple, read_weather, simulate_many

if TYPE_CHECKING:
    import dask.dataframe as dd
    import distributed
    import pyarrow.dataset

    from sunflux.pvwatts import SystemFrame

    #: What `simulate` reads weather from: weather files and `Weather` objects, or a dataset.
    WeatherSources = Union[Sequence[Union[str, os.PathLike[str], Weather]], str, os.PathLike[str], pyarrow.dataset.Dataset]

__all__ = ["simulate", "write_weather_dataset"]

#: Site-years per partition by default: about 0.5 s of engine time for monthly results (so the
#: scheduler's few milliseconds per task are noise) and about 12 MB of rows for hourly ones.
DEFAULT_PARTITION_SIZE = {"monthly": 256, "hourly": 16}
_DATASET_SUFFIXES = (".parquet", ".pq", ".arrow", ".feather", ".ipc")
_SITE_FIELDS = ("lat", "lon", "tz", "elevation")


def simulate(
    weathers: WeatherSources,
    systems: Sequence[Mapping[str, object]] | SystemFrame,
    *,
    client: distributed.Client | None = None,
    timeframe: Literal["monthly", "hourly"] = "monthly",
    partition_size: int | None = None,
    version: EngineVersion = "v5",
    site_column: str = "site",
) -> dd.DataFrame:
    """Simulate every system on every weather year on a Dask cluster, as a lazy dask DataFrame.

    Compute the result with ``.compute()`` or ``client.compute(...)``, or write it with
    ``.to_parquet(...)``. Without a distributed client, Dask's local scheduler runs it.

    Parameters
    ----------
    weathers : sequence of weather sources, or a weather dataset
        Paths to weather files (TMY2, TMY3, EPW, SAM CSV, NSRDB or climate CSV; each worker
        reads the file itself, so the path must be reachable from the workers) or `Weather`
        objects (scattered to the workers as Arrow IPC before the graph is sent; with no
        distributed client they go in the graph); or a Parquet/Arrow dataset of weather
        (`write_weather_dataset` writes one: a path, an fsspec-style URL pyarrow understands,
        or a ``pyarrow.dataset.Dataset``) with a ``site_column`` and ``lat``, ``lon``, ``tz``,
        ``elevation`` columns beside the weather columns `read_weather` accepts.
    systems : sequence of System or mapping, or a polars or pandas frame
        `sunflux.System` objects or mappings of `sunflux.pvwatts.simulate`'s parameters (kW,
        percent, degrees), or a frame whose rows are such systems (a sweep).
    client : distributed.Client, optional
        The client whose workers get the systems up front (default: the current one, if any).
    timeframe : {"monthly", "hourly"}, default "monthly"
        One row per site × system × month, or × hour.
    partition_size : int, optional
        Site-years per partition (default 256 monthly, 16 hourly).
    version : {"v5", "v8"}, default "v5"
        The engine, as in `sunflux.pvwatts.simulate`.
    site_column : str, default "site"
        The dataset's column that names each site.

    Returns
    -------
    dask.dataframe.DataFrame
        ``site`` (the weather's position in ``weathers``, or the dataset's site value),
        ``system`` (the system's row), then `simulate_many`'s columns (W, W/m², °C hourly; kWh
        monthly). Hourly timestamps are in UTC (the sites' zones differ). Rows come in site,
        system, time order.

    Raises
    ------
    ParameterError
        A system's parameter is out of range, or an argument is not one of its values; checked
        before the graph is built.
    """
    if timeframe not in DEFAULT_PARTITION_SIZE:
        raise ParameterError(f'timeframe must be "monthly" or "hourly" (got {timeframe!r})')
    size = DEFAULT_PARTITION_SIZE[timeframe] if partition_size is None else partition_size
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ParameterError(f"partition_size must be a whole number of site-years of at least 1 (got {partition_size!r:.40})")
    _engine_version(version, {})
    system_list = _systems(systems, version)
    client = _client(client)
    sites, loads = _weather_tasks(weathers, site_column, client)
    meta = _meta(system_list[0], timeframe, version, sites)
    # The systems travel once per worker (one piece of data every partition depends on, a copy on
    # every worker so that losing one loses nothing), not once per partition inside the graph.
    shared_systems = (
        client.scatter([system_list], hash=False, broadcast=True)[0] if client is not None else delayed(system_list, pure=False)
    )
    pairs = [(site_index, system) for site_index in range(len(sites)) for system in range(len(system_list))]
    parts = []
    for start in range(0, len(pairs), size):
        chunk = pairs[start : start + size]
        used = sorted({site_index for site_index, _ in chunk})
        position = {site_index: place for place, site_index in enumerate(used)}
        parts.append(
            delayed(_simulate_partition, pure=False)(
                [loads[i] for i in used],
                [sites[i] for i in used],
                [(position[site_index], system) for site_index, system in chunk],
                shared_systems,
                timeframe,
                version,
            )
        )
    import dask.dataframe as dd

    frame: dd.DataFrame = dd.from_delayed(parts, meta=meta, verify_meta=False)
    return frame


def write_weather_dataset(
    weathers: Sequence[Weather] | Mapping[int, Weather] | Mapping[str, Weather],
    path: str | os.PathLike[str],
    *,
    site_column: str = "site",
) -> None:
    """Write weather years as the Parquet dataset `simulate` reads.

    Workers then read only their site's rows, and nothing but the dataset's path travels in the
    graph.

    Parameters
    ----------
    weathers : sequence of Weather, or mapping of site labels to Weather
        Sites 0, 1, ... (the labels `simulate` gives a list of weathers, so both routes return
        the same frame), or labels that are all ints or all texts.
    path : str or path-like
        A directory, local or an fsspec-style URL pyarrow understands (``s3://bucket/weather``);
        made if missing, refused if it holds files. One file per site (``part-00000.parquet``,
        ...) holds the site's records, its ``site_column`` value and its ``lat``, ``lon``
        (degrees), ``tz`` (hours east of UTC of its standard time) and ``elevation`` (m).
    site_column : str, default "site"
        The column that names each site.

    Returns
    -------
    None
        The dataset is written under ``path``.

    Raises
    ------
    ParameterError
        ``weathers`` is empty or holds something other than `Weather`, its labels mix ints and
        texts, or ``path`` holds files.
    """
    import pyarrow as pa
    import pyarrow.fs
    import pyarrow.parquet as pq

    sites = dict(weathers) if isinstance(weathers, Mapping) else dict(enumerate(weathers)) if isinstance(weathers, Sequence) else None
    if sites is None or not sites:
        raise ParameterError(f"weathers must be a non-empty list of Weather or a mapping of sites to Weather (got {weathers!r:.60})")
    label_types = {int if isinstance(site, int) and not isinstance(site, bool) else str if isinstance(site, str) else None for site in sites}
    if None in label_types or len(label_types) > 1:
        raise ParameterError(f"site labels must be all ints or all texts (got {sorted({type(s).__name__ for s in sites})})")
    strays = [f"weathers[{site!r}]" for site, weather in sites.items() if not isinstance(weather, Weather)]
    if strays:
        raise ParameterError(f"{', '.join(strays)} must be a Weather (read one with sunflux.pvwatts.read_weather)")
    target = os.fspath(path)
    filesystem, root = pyarrow.fs.FileSystem.from_uri(target if "://" in target else os.path.abspath(target))
    if filesystem.get_file_info(pyarrow.fs.FileSelector(root, allow_not_found=True)):
        raise ParameterError(f"{target} already holds files: write a weather dataset into a new or empty directory")
    filesystem.create_dir(root, recursive=True)
    for position, (site, weather) in enumerate(sites.items()):
        table = weather.to_arrow().drop_columns(["timestamp"])
        labels = {site_column: site, "lat": weather.lat, "lon": weather.lon, "tz": weather.tz, "elevation": weather.elevation}
        for name, value in labels.items():
            table = table.append_column(name, pa.array([value] * table.num_rows))
        pq.write_table(table, f"{root}/part-{position:05d}.parquet", filesystem=filesystem)


def _systems(systems: Sequence[Mapping[str, Any]] | SystemFrame, version: str) -> list[dict[str, Any]]:
    """The systems as a list of dicts, every one checked before anything is sent."""
    rows = _system_rows(systems)
    if not rows:
        raise ParameterError("systems is empty: give at least one system")
    checked = []
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise ParameterError(f"systems[{index}] must be a dict of simulate's parameters (got {type(row).__name__})")
        system = dict(row)
        capacity, _module, losses, array_type, *_rest = _system_tuple(index, system, version)
        check_pvwatts_system(capacity, losses, array_type, where=f"systems[{index}]: ")
        checked.append(system)
    return checked


def _client(client: Any) -> Any:
    """The distributed client to use: the one given, else the current one, else None."""
    if client is not None:
        return client
    from distributed import default_client

    try:
        return default_client()
    except ValueError:  # no client in this process: Dask's local scheduler will run the graph
        return None


def _is_dataset(weathers: Any) -> bool:
    if isinstance(weathers, (str, os.PathLike)):
        path = os.fspath(weathers)
        return "://" in path or os.path.isdir(path) or path.lower().endswith(_DATASET_SUFFIXES)
    return type(weathers).__module__.startswith("pyarrow._dataset")


def _weather_tasks(weathers: Any, site_column: str, client: Any) -> tuple[list[Any], list[Any]]:
    """The site labels and one task (or scattered future) per weather year."""
    if _is_dataset(weathers):
        return _dataset_tasks(weathers, site_column)
    if isinstance(weathers, (str, bytes, os.PathLike, Weather)) or not isinstance(weathers, Sequence):
        raise ParameterError(
            "weathers must be a list of weather files or Weather objects, or a Parquet/Arrow dataset "
            f"(got {type(weathers).__name__})"
        )
    if not weathers:
        raise ParameterError("weathers is empty: give at least one weather year")
    loads: list[Any] = [None] * len(weathers)
    in_memory: list[tuple[int, Weather]] = []
    for index, source in enumerate(weathers):
        if isinstance(source, (str, os.PathLike)):
            loads[index] = delayed(_read_weather_file, pure=True)(os.fspath(source))
        elif isinstance(source, Weather):
            in_memory.append((index, source))
        else:
            raise ParameterError(f"weathers[{index}] must be a path to a weather file or a Weather (got {type(source).__name__})")
    if client is not None and in_memory:
        # Scattered, not in the graph: a year is about 1 MB, and a graph of tens of them is slow to
        # send and makes Dask warn. Each is kept on two workers (where there are two), so losing
        # one worker loses no weather.
        futures = client.scatter([weather for _, weather in in_memory], hash=False)
        copies = min(2, len(client.scheduler_info().get("workers", {})))
        if copies > 1:
            client.replicate(futures, n=copies)
        for (index, _), future in zip(in_memory, futures):
            loads[index] = future
    else:  # Dask's local scheduler: the graph never leaves this process
        for index, weather in in_memory:
            loads[index] = delayed(weather, pure=False)
    return list(range(len(weathers))), loads


def _dataset_tasks(source: Any, site_column: str) -> tuple[list[Any], list[Any]]:
    """One task per site of a Parquet/Arrow weather dataset; each reads only its site's rows."""
    import pyarrow.compute as pc

    dataset = _open_dataset(source)
    needed = (site_column, *_SITE_FIELDS)
    missing = [name for name in needed if name not in dataset.schema.names]
    if missing:
        raise ParameterError(f"the weather dataset lacks the columns {', '.join(missing)} (it has {', '.join(dataset.schema.names)})")
    firsts = dataset.to_table(columns=list(needed)).group_by(site_column, use_threads=False).aggregate(
        [(name, "first") for name in _SITE_FIELDS]
    )
    order = pc.sort_indices(firsts, [(site_column, "ascending")])
    firsts = firsts.take(order)
    sites = firsts.column(site_column).to_pylist()
    hints = [{name: firsts.column(f"{name}_first")[row].as_py() for name in _SITE_FIELDS} for row in range(len(sites))]
    loads = [delayed(_read_dataset_site, pure=False)(dataset, site_column, site, hint) for site, hint in zip(sites, hints)]
    return sites, loads


def _open_dataset(source: Any) -> Any:
    import pyarrow as pa
    import pyarrow.dataset as ds

    if not isinstance(source, (str, os.PathLike)):
        return source
    path = os.fspath(source)
    options: dict[str, Any] = dict(format="ipc" if path.lower().endswith((".arrow", ".feather", ".ipc")) else "parquet",
                                   partitioning="hive")
    found = ds.dataset(path, **options)
    # Sites may lack a column others have (albedo, pressure): the schema is the union of every
    # file's (not the first file's, pyarrow's default), every column nullable.
    union = pa.unify_schemas([found.schema, *(fragment.physical_schema for fragment in found.get_fragments())])
    return ds.dataset(path, schema=pa.schema([field.with_nullable(True) for field in union]), **options)


def _read_weather_file(path: str) -> Weather:
    return read_weather(path)


def _read_dataset_site(dataset: Any, site_column: str, site: Any, hints: Mapping[str, float]) -> Weather:
    import pyarrow.compute as pc

    table = dataset.to_table(filter=pc.field(site_column) == site).drop_columns([site_column, *_SITE_FIELDS])
    absent = [name for name in table.column_names if table.column(name).null_count == len(table)]
    return read_weather(table.drop_columns(absent), **hints)


def _simulate_partition(
    weathers: list[Weather], sites: list[Any], pairs: list[tuple[int, int]], systems: list[dict[str, Any]], timeframe: str, version: str
) -> Any:
    """One partition: `simulate_many` on one core over its site-years (pairs of a position in
    ``weathers`` and a row of ``systems``), as a pandas frame."""
    import polars as pl

    table = simulate_many(
        [weathers[position] for position, _ in pairs], [systems[system] for _, system in pairs], threads=1,
        timeframe=timeframe, version=version, progress=False,
    )
    return _labelled(table, [sites[position] for position, _ in pairs], [system for _, system in pairs], pl).to_pandas()


def _labelled(table: Any, sites: list[Any], systems: list[int], pl: Any) -> Any:
    """`simulate_many`'s table with the site and system of each of its rows first (it numbers
    systems by their place in its own call) and its timestamps in UTC."""
    rows = table.height // len(systems)
    labels = pl.DataFrame({"site": sites, "system": systems}).select(pl.all().repeat_by(rows).explode())
    if "timestamp" in table.columns:
        table = table.with_columns(pl.col("timestamp").dt.convert_time_zone("UTC"))
    return pl.concat([labels.with_columns(pl.col("system").cast(pl.Int64)), table.drop("system")], how="horizontal")


def _meta(system: dict[str, Any], timeframe: str, version: str, sites: list[Any]) -> Any:
    """The empty pandas frame with the result's columns and types: the engine run once on an
    in-memory year without sun (milliseconds), so the schema is always the engine's own."""
    import polars as pl

    hours = pl.datetime_range(pl.datetime(2019, 1, 1), pl.datetime(2019, 12, 31, 23), "1h", eager=True)
    year = pl.DataFrame(
        {"year": hours.dt.year(), "month": hours.dt.month(), "day": hours.dt.day(), "hour": hours.dt.hour()}
    ).with_columns(gh=pl.lit(0.0), dn=pl.lit(0.0), df=pl.lit(0.0), tdry=pl.lit(20.0), wspd=pl.lit(1.0))
    weather = read_weather(year, lat=40.0, lon=-105.0, tz=-7.0, elevation=1600.0)
    table = simulate_many(weather, [system], threads=1, timeframe=timeframe, version=version, progress=False)
    return _labelled(table.head(1), sites[:1], [0], pl).head(0).to_pandas()
