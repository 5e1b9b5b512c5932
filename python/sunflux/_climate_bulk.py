"""The bulk climate download behind ``client.climate.bulk``: the checked plan of site-years
(cache keys, request arguments, cache, progress bar, stop token) and its two runners, a thread
pool for the blocking client and asyncio tasks for the awaitable one. Kept apart from
``sunflux.climate``, which holds the public classes and the service faces."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux._frames import with_local_time
from sunflux._progress import Progress, progress_flag

if TYPE_CHECKING:
    from concurrent.futures import Future

    import polars as pl

    from sunflux.climate import ClimateTable, _ClimateBase, _CsvArgs

#: One site-year of a bulk download: (index of the point, lat, lon, year).
_SiteYear = tuple[int, float, float, int]


class BulkPlan:
    """A checked bulk download: the site-years in order, each one's cache key and request
    arguments, the cache, the progress bar and the stop token; `frame` joins the results.
    ``sunflux.climate`` passes in its table class and the attributes as the core's text, so this
    module imports nothing from it (the import graph points one way)."""

    def __init__(
        self,
        base: _ClimateBase,
        dataset: str,
        points: Sequence[tuple[float, float]],
        years: Iterable[int],
        email: str,
        attribute_text: Any,
        utc: bool,
        leap_day: bool,
        full_name: str | None,
        affiliation: str | None,
        reason: str | None,
        mailing_list: bool,
        cache_dir: str | os.PathLike[str] | None,
        progress: bool,
        workers: int,
        make_table: Callable[[Any], ClimateTable],
    ) -> None:
        from sunflux._cache import SiteYearCache

        progress_flag(progress)
        year_list, point_list = _bulk_arguments(points, years, workers)
        self.jobs: list[_SiteYear] = [(site, lat, lon, year) for site, (lat, lon) in enumerate(point_list) for year in year_list]
        self.make_table = make_table
        self.keys = {job: base._cache_key(dataset, job[1], job[2], job[3], attribute_text, utc, leap_day, email) for job in self.jobs}
        self.workers = min(workers, _core.CLIMATE_IN_FLIGHT)
        self.cache = None if cache_dir is None else SiteYearCache(os.fspath(cache_dir))
        self.bar = Progress(len(self.jobs), progress, f"climate {dataset}", "site-year")
        self.stop = _core.CancelToken()
        self._transport = base._handle.transport
        self._request = (dataset, attribute_text, utc, leap_day, email, full_name, affiliation, reason, mailing_list)
        self.frames: dict[_SiteYear, pl.DataFrame] = {}

    def cached(self, job: _SiteYear) -> pl.DataFrame | None:
        return None if self.cache is None else self.cache.read(self.keys[job])

    def csv_args(self, job: _SiteYear) -> _CsvArgs:
        """The core's download arguments for one site-year."""
        dataset, attribute_text, utc, leap_day, email, full_name, affiliation, reason, mailing_list = self._request
        _site, lat, lon, year = job
        return (self._transport, dataset, lat, lon, year, attribute_text, utc, leap_day, email, full_name, affiliation, reason, mailing_list)

    def keep(self, job: _SiteYear, table: ClimateTable) -> pl.DataFrame:
        """Stores a downloaded site-year in the cache (unless the run was stopped)."""
        if self.cache is not None and not self.stop.cancelled:
            self.cache.write(self.keys[job], table)
        return table.data

    def done(self, job: _SiteYear, frame: pl.DataFrame, cached: bool) -> None:
        self.frames[job] = frame
        self.bar.advance(1, " (cached)" if cached else "")

    def frame(self) -> pl.DataFrame:
        """One long frame: ``site``, ``year`` and the data columns, in the order of the jobs. A
        download in the sites' standard time (``utc=False``) also has ``local_time`` (the clock
        of each site), and its timestamps are in UTC when the sites' zones differ (a column has
        one zone), as `sunflux.pvwatts.simulate_many` does."""
        import polars as pl

        frames = [
            self.frames[job].with_columns(pl.lit(job[0], dtype=pl.Int64).alias("site"), pl.lit(job[3], dtype=pl.Int32).alias("year"))
            for job in self.jobs
        ]
        in_local_time = not self._request[2]
        if in_local_time:
            frames = [with_local_time(frame) for frame in frames]
            if len({frame.schema["timestamp"] for frame in frames}) > 1:
                frames = [frame.with_columns(pl.col("timestamp").dt.convert_time_zone("UTC")) for frame in frames]
        long = pl.concat(frames, how="vertical_relaxed")
        return long.select(["site", "year", *[c for c in long.columns if c not in ("site", "year")]])


def bulk_in_threads(plan: BulkPlan, trace: bool) -> pl.DataFrame:
    """Runs a bulk download on a thread pool (the blocking face)."""

    def one(job: _SiteYear) -> tuple[_SiteYear, pl.DataFrame, bool]:
        cached = plan.cached(job)
        if cached is not None:
            return job, cached, True
        table = plan.make_table(_core.climate_download_csv(*plan.csv_args(job), trace=trace, cancel=plan.stop).wait())
        return job, plan.keep(job, table), False

    import concurrent.futures  # here, not at the top: only bulk downloads use a thread pool

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=plan.workers)
    try:
        for future in [pool.submit(one, job) for job in plan.jobs]:
            plan.done(*_result_of(future))
    except BaseException:
        plan.stop.cancel()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        plan.bar.close()
    return plan.frame()


async def bulk_in_tasks(plan: BulkPlan, trace: bool) -> pl.DataFrame:
    """Runs a bulk download as asyncio tasks (the awaitable face)."""
    import asyncio  # here, not at the top: only async callers should pay for importing it

    slots = asyncio.Semaphore(plan.workers)

    async def one(job: _SiteYear) -> None:
        async with slots:
            # The cache may be a remote file system: read and write it off the event loop.
            cached = await asyncio.to_thread(plan.cached, job)
            if cached is not None:
                plan.done(job, cached, True)
                return
            core = await _core.climate_download_csv(*plan.csv_args(job), trace=trace, cancel=plan.stop)
            plan.done(job, await asyncio.to_thread(plan.keep, job, plan.make_table(core)), False)

    tasks = [asyncio.ensure_future(one(job)) for job in plan.jobs]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        plan.stop.cancel()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        plan.bar.close()
    return plan.frame()


#: How often the thread waiting for bulk downloads looks for Ctrl-C: a signal may be delivered
#: to another thread, and a wait without a timeout would only notice it when a download ends.
_SIGNAL_CHECK = 0.05


def _result_of(future: Future[Any]) -> Any:
    while True:
        try:
            return future.result(timeout=_SIGNAL_CHECK)
        except TimeoutError:  # concurrent.futures.TimeoutError is this builtin since Python 3.11
            continue


def _bulk_arguments(points: Any, years: Any, workers: Any) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """The years and (lat, lon) points of a bulk download; every problem at once (values are
    checked by the core per request, shapes here)."""
    problems: list[str] = []
    year_list: list[Any] = []
    point_list: list[tuple[Any, Any]] = []
    if isinstance(years, (str, bytes)) or not isinstance(years, Iterable):
        problems.append(f"years must be a list of years (got {type(years).__name__})")
    else:
        year_list = list(years)
    if isinstance(points, (str, bytes)) or not isinstance(points, Iterable):
        problems.append(f"points must be a list of (lat, lon) pairs (got {type(points).__name__})")
    else:
        for index, point in enumerate(points):
            if isinstance(point, (str, bytes)) or not isinstance(point, Sequence) or len(point) != 2:
                problems.append(f"points[{index}] must be a (lat, lon) pair (got {point!r:.60})")
            else:
                point_list.append((point[0], point[1]))
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        problems.append(f"workers must be a whole number >= 1 (got {workers!r:.60})")
    if not problems and not (year_list and point_list):
        problems.append("bulk needs at least one point and one year")
    if problems:
        raise ParameterError(problems)
    return year_list, point_list
