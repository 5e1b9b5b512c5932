"""pytest plugin (entry point ``pytest11``): fixtures for testing code that uses sunflux.

``sunflux_service`` is a running `LocalService` (fresh per test, no request limits, no faults) and
``sunflux_client`` a `Client` wired to it. Starting a service takes about a millisecond.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from sunflux._client import Client
from sunflux._local import LocalService


@pytest.fixture
def sunflux_service() -> Iterator[LocalService]:
    """A running embedded service on 127.0.0.1, closed after the test."""
    with LocalService() as service:
        yield service


@pytest.fixture
def sunflux_client(sunflux_service: LocalService) -> Client:
    """A `Client` wired to ``sunflux_service`` with the spec's routes."""
    return sunflux_service.client()
