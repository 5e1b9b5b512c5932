"""Turning Arrow streams from the core into polars, pandas or pyarrow objects without copying
where the library allows it (polars and pyarrow import the buffers as they are), and reading the
embedded service's "synthetic" label from a stream's Arrow schema metadata, and the wall-clock
``local_time`` column beside a frame's timestamps."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from sunflux import _core
from sunflux._errors import ParameterError

if TYPE_CHECKING:
    import pandas as pd
    import polars as pl
    import pyarrow as pa


class ArrowStream(Protocol):
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...


def to_polars(stream: ArrowStream) -> pl.DataFrame:
    """A ``polars.DataFrame`` over the stream's buffers."""
    import polars as pl

    return pl.DataFrame(stream)


def to_pyarrow(stream: ArrowStream) -> pa.Table:
    """A ``pyarrow.Table`` over the stream's buffers."""
    import pyarrow as pa

    return pa.table(stream)


#: The column a pandas frame is indexed by with ``to_pandas(index=True)``.
TIME_COLUMN = "timestamp"


def is_synthetic(stream: ArrowStream) -> bool:
    """True when the stream's schema carries the label of the embedded service's generated
    weather (polars frames keep no schema metadata, so the label lives in Arrow and pandas)."""
    metadata = to_pyarrow(stream).schema.metadata or {}
    return metadata.get(_core.SYNTHETIC_METADATA_KEY.encode()) == b"true"


def to_pandas(stream: ArrowStream, *, index: bool = False) -> pd.DataFrame:
    """A ``pandas.DataFrame`` (float columns without nulls are not copied). With ``index`` the
    ``timestamp`` column becomes a tz-aware `DatetimeIndex`. ``attrs["synthetic"]`` is True for
    the embedded service's generated weather."""
    table = to_pyarrow(stream)
    if index and TIME_COLUMN not in table.column_names:
        raise ParameterError(f"index=True needs a {TIME_COLUMN} column; this table has none ({', '.join(table.column_names[:8])})")
    synthetic = is_synthetic(table)
    frame = table.to_pandas(split_blocks=True, self_destruct=True)
    if index:
        frame = frame.set_index(TIME_COLUMN)
    if synthetic:
        frame.attrs["synthetic"] = True
    return frame


def with_local_time(frame: pl.DataFrame, local_offset: float | None = None) -> pl.DataFrame:
    """``frame`` with ``local_time`` after its tz-aware ``timestamp``: the wall clock of the
    stamps' own zone, or of the standard time ``local_offset`` hours east of UTC when given."""
    import polars as pl

    stamps = pl.col("timestamp")
    if local_offset is None:
        wall = stamps.dt.replace_time_zone(None)
    else:  # by the offset itself: polars names no zone for some offsets (+5:45 has only a city's)
        wall = stamps.dt.convert_time_zone("UTC").dt.replace_time_zone(None) + pl.duration(minutes=round(local_offset * 60))
    order = list(frame.columns)
    order.insert(order.index("timestamp") + 1, "local_time")
    return frame.with_columns(wall.alias("local_time")).select(order)
