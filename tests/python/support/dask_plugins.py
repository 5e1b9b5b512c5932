"""Dask worker plugins the distributed tests use to break a cluster on purpose."""

from __future__ import annotations

import os
import signal
from typing import Any


def kill_once(marker: str, key_part: str, name: str) -> Any:
    """A Dask worker plugin that SIGKILLs its worker the first time a task whose key holds
    `key_part` finishes, anywhere in the cluster (the file `marker` says it happened). The class
    is made inside this function so that it pickles by value to the workers."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class KillOnce(WorkerPlugin):
        def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
            if finish == "memory" and key_part in str(key):
                try:
                    os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                except FileExistsError:
                    return
                os.kill(os.getpid(), signal.SIGKILL)

    KillOnce.name = name
    return KillOnce()
