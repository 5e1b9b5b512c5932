"""The on-disk cache of `climate.bulk`: one Arrow IPC file per site-year.

An entry is named ``<hash of the request>-<checksum>.arrow``: the first part is the SHA-256 of the
request's identity (the service's canonical origin — every spelling of loopback alike — and the
request's data parameters; never the key or the e-mail), the second the SHA-256 of the file's
own bytes. A file whose bytes do not match its checksum (a flipped byte, a cut copy) or whose
stored request differs is removed and downloaded again. Files are written to a temporary name
and renamed, so an interrupted run leaves complete entries only.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sunflux.climate import ClimateTable

#: The schema metadata key that holds the request an entry answers.
CACHE_KEY = b"sunflux_cache_key"
_SUFFIX = ".arrow"
_CHECKSUM_DIGITS = 16


def _request_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:32]


class SiteYearCache:
    """Entries in ``directory`` (created if missing); reading and writing are thread-safe."""

    def __init__(self, directory: str) -> None:
        os.makedirs(directory, exist_ok=True)
        self.directory = directory
        self._names: dict[str, list[str]] = {}
        for name in os.listdir(directory):
            stem, dot, suffix = name.partition(".")
            request, dash, checksum = stem.partition("-")
            if dot and "." + suffix == _SUFFIX and dash and len(checksum) == _CHECKSUM_DIGITS:
                self._names.setdefault(request, []).append(name)

    def read(self, key: str) -> Any:
        """The frame cached for ``key``, or None; damaged or foreign entries are removed."""
        import polars as pl
        import pyarrow as pa

        for name in self._names.pop(_request_hash(key), []):
            path = os.path.join(self.directory, name)
            try:
                with open(path, "rb") as source:
                    data = source.read()
            except OSError:
                continue
            checksum = name[:-len(_SUFFIX)].rpartition("-")[2]
            table = None
            if hashlib.sha256(data).hexdigest()[:_CHECKSUM_DIGITS] == checksum:
                try:
                    table = pa.ipc.open_file(pa.BufferReader(data)).read_all()
                except (pa.ArrowException, OSError, ValueError):
                    table = None
            if table is not None and (table.schema.metadata or {}).get(CACHE_KEY) == key.encode():
                return pl.DataFrame(table)
            _remove(path)
        return None

    def write(self, key: str, table: ClimateTable) -> None:
        """Writes the entry of ``key`` atomically."""
        import pyarrow as pa

        arrow = table.data.to_arrow()
        metadata = dict(arrow.schema.metadata or {})
        metadata[CACHE_KEY] = key.encode()
        metadata[b"climate_metadata"] = json.dumps(table.metadata.__dict__, default=str).encode()
        arrow = arrow.replace_schema_metadata(metadata)
        sink = pa.BufferOutputStream()
        with pa.ipc.new_file(sink, arrow.schema) as writer:
            writer.write_table(arrow)
        data = sink.getvalue().to_pybytes()
        name = f"{_request_hash(key)}-{hashlib.sha256(data).hexdigest()[:_CHECKSUM_DIGITS]}{_SUFFIX}"
        path = os.path.join(self.directory, name)
        temporary = f"{path}.{os.getpid()}.{id(data)}.part"
        try:
            with open(temporary, "wb") as target:
                target.write(data)
            os.replace(temporary, path)
        finally:
            _remove(temporary)


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
