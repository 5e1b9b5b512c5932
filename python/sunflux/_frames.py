"""Turning Arrow streams from the core into polars, pandas or pyarrow objects without copying
where the library allows it (polars and pyarrow import the buffers as they are)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

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


def to_pandas(stream: ArrowStream) -> pd.DataFrame:
    """A ``pandas.DataFrame`` (float columns without nulls are not copied)."""
    return to_pyarrow(stream).to_pandas(split_blocks=True, self_destruct=True)
