"""The on-disk cache of `climate.bulk` and `distributed.bulk_download`: one Arrow IPC file per site-year.

An entry is named ``<hash of the request>-<checksum>.arrow``: the first part is the SHA-256 of the
request's identity (the service's canonical origin — every spelling of loopback alike — and the
request's data parameters; never the key or the e-mail), the second the SHA-256 of the file's
own bytes. A file whose bytes do not match its checksum (a flipped byte, a cut copy, an object
store's half-written upload) or whose stored request differs is removed and downloaded again.
Files are written to a temporary name and renamed, so an interrupted run leaves complete entries
only, and whatever a writer leaves behind is never read as an entry. An entry is read only if it
is a regular file (not a link, a named pipe or a device), and never beyond its recorded size;
anything else under an entry's name is skipped and downloaded again.

The directory is a local path or an fsspec URL (``s3://bucket/climate``, ``file:///shared/c``):
a Dask cluster's workers share one cache through it.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from typing import TYPE_CHECKING, Any

from sunflux import _core

if TYPE_CHECKING:
    from sunflux.climate import ClimateTable

#: The largest entry read (``sunflux.limits()["cache_entry_bytes"]``); larger files are skipped.
MAX_ENTRY_BYTES = int(dict(_core.default_limits())["cache_entry_bytes"])
#: The schema metadata key that holds the request an entry answers.
CACHE_KEY = b"sunflux_cache_key"
_SUFFIX = ".arrow"
_CHECKSUM_DIGITS = 16


def _request_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:32]


class _LocalFiles:
    """A directory of the local file system (or one mounted on every worker)."""

    def __init__(self, directory: str) -> None:
        os.makedirs(directory, exist_ok=True)
        self.directory = directory

    def names(self) -> list[str]:
        return os.listdir(self.directory)

    def read(self, name: str) -> bytes:
        """The entry's bytes, read through a link-free, non-blocking open of a regular file and
        never beyond the size the file system records for it (a FIFO would block, a link to a
        device would be read without end)."""
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        descriptor = os.open(os.path.join(self.directory, name), flags)
        try:
            size = _entry_size(os.fstat(descriptor), name)
            chunks: list[bytes] = []
            remaining = size
            while remaining > 0:
                chunk = os.read(descriptor, remaining)
                if not chunk:
                    break
                chunks.append(chunk)
                remaining -= len(chunk)
            return b"".join(chunks)
        finally:
            os.close(descriptor)

    def write(self, name: str, data: bytes) -> None:
        path = os.path.join(self.directory, name)
        temporary = f"{path}.{os.getpid()}.{id(data)}.part"
        try:
            with open(temporary, "wb") as target:
                target.write(data)
            os.replace(temporary, path)
        finally:
            _remove(temporary)

    def remove(self, name: str) -> None:
        _remove(os.path.join(self.directory, name))


class _FsspecFiles:
    """A folder behind an fsspec URL. On object stores a rename is a copy, not atomic: the
    checksum in the name is what keeps a half-written object from being read."""

    def __init__(self, url: str) -> None:
        import fsspec

        self.fs, self.root = fsspec.core.url_to_fs(url)
        self.fs.makedirs(self.root, exist_ok=True)

    def names(self) -> list[str]:
        return [path.rstrip("/").rpartition("/")[2] for path in self.fs.ls(self.root, detail=False)]

    def read(self, name: str) -> bytes:
        """The object's bytes if it is a file (not a link) no larger than an entry can be, read
        up to its listed size."""
        path = f"{self.root}/{name}"
        info = self.fs.info(path)
        if info.get("type") != "file" or info.get("islink"):
            raise OSError(f"cache entry {name} is not a regular file")
        size = info.get("size")
        if not isinstance(size, int) or not 0 <= size <= MAX_ENTRY_BYTES:
            raise OSError(f"cache entry {name} is larger than {MAX_ENTRY_BYTES} bytes or has no size")
        data: bytes = self.fs.cat_file(path, start=0, end=size)
        return data

    def write(self, name: str, data: bytes) -> None:
        temporary = f"{self.root}/{name}.{os.getpid()}.{id(data)}.part"
        try:
            self.fs.pipe_file(temporary, data)
            self.fs.mv(temporary, f"{self.root}/{name}")
        finally:
            self._remove_path(temporary)

    def remove(self, name: str) -> None:
        self._remove_path(f"{self.root}/{name}")

    def _remove_path(self, path: str) -> None:
        try:
            self.fs.rm_file(path)
        except OSError:
            pass


class SiteYearCache:
    """Entries in ``directory`` (a local path or an fsspec URL; created if missing); reading and
    writing are thread-safe, and processes may share one directory."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._files: _LocalFiles | _FsspecFiles = _FsspecFiles(directory) if "://" in directory else _LocalFiles(directory)
        self._names: dict[str, list[str]] = {}
        for name in self._files.names():
            stem, dot, suffix = name.partition(".")
            request, dash, checksum = stem.partition("-")
            if dot and "." + suffix == _SUFFIX and dash and len(checksum) == _CHECKSUM_DIGITS:
                self._names.setdefault(request, []).append(name)

    def read(self, key: str) -> Any:
        """The frame cached for ``key``, or None; damaged or foreign entries are removed."""
        import polars as pl
        import pyarrow as pa

        for name in self._names.pop(_request_hash(key), []):
            try:
                data = self._files.read(name)
            except OSError:
                continue
            checksum = name[:-len(_SUFFIX)].rpartition("-")[2]
            table = None
            if hashlib.sha256(data).hexdigest()[:_CHECKSUM_DIGITS] == checksum:
                try:
                    table = pa.ipc.open_file(pa.BufferReader(data)).read_all()
                    # A file whose checksum matches may still hold text that is not UTF-8 (in
                    # its values or its metadata), on which polars panics: refused here first.
                    table.validate(full=True)
                    for metadata in (table.schema.metadata, *(field.metadata for field in table.schema)):
                        for metadata_key, metadata_value in (metadata or {}).items():
                            metadata_key.decode(), metadata_value.decode()
                except (pa.ArrowException, OSError, ValueError):
                    table = None
            if table is not None and (table.schema.metadata or {}).get(CACHE_KEY) == key.encode():
                return pl.DataFrame(table)
            self._files.remove(name)
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
        self._files.write(f"{_request_hash(key)}-{hashlib.sha256(data).hexdigest()[:_CHECKSUM_DIGITS]}{_SUFFIX}", data)


def _entry_size(status: os.stat_result, name: str) -> int:
    """The size of an open entry, which must be a regular file no larger than an entry can be."""
    if not stat.S_ISREG(status.st_mode):
        raise OSError(f"cache entry {name} is not a regular file")
    if status.st_size > MAX_ENTRY_BYTES:
        raise OSError(f"cache entry {name} is larger than {MAX_ENTRY_BYTES} bytes")
    return status.st_size


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass
