"""`stack_sites`: per-site frames in different time zones stacked into one frame in UTC that
keeps each site's own wall-clock time, so that many sites can be grouped by local month."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Union

from sunflux._errors import ParameterError
from sunflux._frames import with_local_time

if TYPE_CHECKING:
    import polars as pl

    from sunflux.climate import ClimateTable
    from sunflux.pv import PvEstimate

    #: One site's frame: a polars frame, a `ClimateTable` or a `PvEstimate`.
    SiteFrame = Union[pl.DataFrame, ClimateTable, PvEstimate]

__all__ = ["stack_sites"]


def stack_sites(frames: Sequence[SiteFrame] | Mapping[Hashable, SiteFrame]) -> pl.DataFrame:
    """Stack the frames of several sites into one polars frame whose ``timestamp`` is in UTC.

    Sites whose zones differ cannot share a zone-aware column, so ``pl.concat`` of their frames
    fails, and converting them to UTC alone moves hours across month ends; the ``local_time``
    column keeps each site's own clock.

    Parameters
    ----------
    frames : sequence or mapping of per-site frames
        A list (sites 0, 1, ...) or a mapping of site labels to one site's frame each: a polars
        frame with a time-zone-aware ``timestamp``, a `PvEstimate` (its hourly frame, or its
        monthly one) or a `ClimateTable` (its data).

    Returns
    -------
    polars.DataFrame
        Every site's rows, with ``timestamp`` in UTC and, where the frame has none, ``site``
        (its label; first) and ``local_time`` (the stamp on the site's standard-time clock, with
        no zone; after ``timestamp``). A `ClimateTable`'s local time is its metadata's
        ``local_time_zone`` (also for a ``utc=True`` download), a frame's is its own timestamp's
        zone. Columns one site lacks are null for it; a column's type is widened to fit every
        site. Group by ``pl.col("local_time").dt.month()`` for each site's own months.

    Raises
    ------
    ParameterError
        ``frames`` is empty, not a list or mapping, or a frame has no zone-aware ``timestamp``.
    """
    import polars as pl

    if isinstance(frames, Mapping):
        labelled = list(frames.items())
    elif isinstance(frames, Sequence) and not isinstance(frames, (str, bytes)):
        labelled = list(enumerate(frames))
    else:
        raise ParameterError(f"frames must be a list or a mapping of per-site frames (got {type(frames).__name__})")
    if not labelled:
        raise ParameterError("frames is empty: give at least one site's frame")
    stacked = [_in_utc(site, frame) for site, frame in labelled]
    return pl.concat(stacked, how="diagonal_relaxed")


def _in_utc(site: Hashable, source: SiteFrame) -> pl.DataFrame:
    """One site's frame with ``site`` and ``local_time`` added (where missing) and ``timestamp`` in UTC."""
    import polars as pl

    from sunflux.climate import ClimateTable
    from sunflux.pv import PvEstimate

    local_offset: float | None = None
    if isinstance(source, ClimateTable):
        frame, local_offset = source.data, source.metadata.local_time_zone
    elif isinstance(source, PvEstimate):
        frame = source.hourly if source.hourly is not None else source.monthly
    elif isinstance(source, pl.DataFrame):
        frame = source
    else:
        raise ParameterError(
            f"site {site!r}: expected a polars DataFrame, a PvEstimate or a ClimateTable (got {type(source).__name__})"
        )
    if "site" not in frame.columns:
        frame = frame.select(pl.lit(site).alias("site"), pl.all())
    if "timestamp" not in frame.columns:
        return frame
    zone = frame.schema["timestamp"]
    if not isinstance(zone, pl.Datetime) or zone.time_zone is None:
        raise ParameterError(f"site {site!r}: the timestamp column must be time-zone-aware to be put in UTC (it is {zone})")
    if "local_time" not in frame.columns:
        frame = with_local_time(frame, local_offset)
    return frame.with_columns(pl.col("timestamp").dt.convert_time_zone("UTC"))

