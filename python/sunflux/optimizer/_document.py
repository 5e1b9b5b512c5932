"""`ResultDocument`: an optimizer results document as the core keeps it parsed, with its head
(run_uuid, status, messages). `OptimizerResult` extends it; the summary and the outage simulation
read any `ResultDocument`, so they sit below the job client that makes results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sunflux import _core
from sunflux._errors import ParameterError


class ResultDocument:
    """A results document (a dict, or the core's parsed document) and its head."""

    def __init__(self, raw: Mapping[str, Any] | _core.ResultDocument, http_status: int = 200) -> None:
        if isinstance(raw, _core.ResultDocument):
            self._document = raw
        elif isinstance(raw, Mapping):
            self._document = _core.ResultDocument.from_mapping(raw)
        else:
            raise ParameterError(f"an OptimizerResult is made of a results dict (got {type(raw).__name__})")
        self.http_status = http_status
        run_uuid, status, messages = self._document.head()
        self.run_uuid: str = run_uuid
        self.status: str = status
        self.messages: dict[str, Any] = messages
