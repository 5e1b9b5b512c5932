"""What the reliability tests share: code run in a fresh interpreter with bounded memory (a crash
or a read without bound is a reported failure, not the end of the run or of the machine), a raw
socket server, bodies built to break parsers, and the climate data set they ask for."""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
import textwrap
import threading
from typing import Callable


#: The API key of the reliability tests' clients (never a real one).
KEY = "r" * 40


#: Address space of a child process: a regression that reads without bound fails there, not the
#: machine.
CHILD_MEMORY = 8 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


def isolated(code: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Runs `code` in a fresh interpreter with bounded memory; the test fails on a crash (a
    signal), an error or a timeout, with the child's output."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout, preexec_fn=_limit_memory
    )
    assert done.returncode >= 0, f"killed by signal {-done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def deep_xml(levels: int) -> bytes:
    return b'<?xml version="1.0"?>' + b"<a>" * levels + b"</a>" * levels


def raw_server(respond: Callable[[socket.socket], None]) -> str:
    """A one-connection-at-a-time server that answers each request with `respond` (raw bytes)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.recv(65536)
                respond(connection)

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}"


def year_csv(rows: int, year: int = 2010) -> bytes:
    header = "Source,Location ID\nx,1\nYear,Month,Day,Hour,Minute,GHI\n"
    lines = []
    hour = 0
    import datetime as dt

    start = dt.datetime(year, 1, 1)
    for index in range(rows):
        stamp = start + dt.timedelta(hours=index)
        lines.append(f"{stamp.year},{stamp.month},{stamp.day},{stamp.hour},0,{hour}")
    return (header + "\n".join(lines) + ("\n" if lines else "")).encode()


SLUG = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"
EMAIL = "analyst@example.org"
