"""pytest plugin (entry point ``pytest11``): fixtures for testing code that uses sunflux.

Per test (a fresh service, nothing shared between tests):

- ``sunflux_service``: a running `LocalService` (no request limits, no faults);
- ``sunflux_client``: a `Client` wired to it;
- ``sunflux_async_client``: an `AsyncClient` wired to it, for ``async def`` tests under
  pytest-asyncio (``@pytest.mark.asyncio``) or anyio (``@pytest.mark.anyio``). The fixture itself
  is not async (making a client needs no event loop), so it works with either plugin and with
  ``asyncio.run`` in a plain test.

Per session (one service for the whole run, for suites that make many calls; state such as
optimizer jobs and rate counters carries over from test to test):

- ``sunflux_service_session``: a running `LocalService`, closed at the end of the session;
- ``sunflux_client_session`` and ``sunflux_async_client_session``: clients wired to it. Do not
  close them: later tests share them.

Every client is closed with its service. Starting a service takes about a millisecond.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from sunflux._client import AsyncClient, Client
from sunflux._local import LocalService


@pytest.fixture
def sunflux_service() -> Iterator[LocalService]:
    """A running embedded service on 127.0.0.1, closed after the test.

    Yields
    ------
    LocalService
        The service (default settings, ``limits="none"``).
    """
    with LocalService() as service:
        yield service


@pytest.fixture
def sunflux_client(sunflux_service: LocalService) -> Client:
    """A `Client` wired to ``sunflux_service`` with the spec's routes.

    Parameters
    ----------
    sunflux_service : LocalService
        The fixture of that name (pytest passes it).

    Returns
    -------
    Client
        ``sunflux_service.client()``.
    """
    return sunflux_service.client()


@pytest.fixture
def sunflux_async_client(sunflux_service: LocalService) -> AsyncClient:
    """An `AsyncClient` wired to ``sunflux_service`` with the spec's routes.

    Parameters
    ----------
    sunflux_service : LocalService
        The fixture of that name (pytest passes it).

    Returns
    -------
    AsyncClient
        ``sunflux_service.async_client()``.
    """
    return sunflux_service.async_client()


@pytest.fixture(scope="session")
def sunflux_service_session() -> Iterator[LocalService]:
    """A running embedded service on 127.0.0.1 shared by every test of the session.

    Yields
    ------
    LocalService
        The service (default settings, ``limits="none"``), closed at the end of the session.
    """
    with LocalService() as service:
        yield service


@pytest.fixture(scope="session")
def sunflux_client_session(sunflux_service_session: LocalService) -> Client:
    """A `Client` wired to ``sunflux_service_session``, shared by every test of the session.

    Parameters
    ----------
    sunflux_service_session : LocalService
        The fixture of that name (pytest passes it).

    Returns
    -------
    Client
        ``sunflux_service_session.client()``.
    """
    return sunflux_service_session.client()


@pytest.fixture(scope="session")
def sunflux_async_client_session(sunflux_service_session: LocalService) -> AsyncClient:
    """An `AsyncClient` wired to ``sunflux_service_session``, shared by every test of the session.

    Parameters
    ----------
    sunflux_service_session : LocalService
        The fixture of that name (pytest passes it).

    Returns
    -------
    AsyncClient
        ``sunflux_service_session.async_client()``.
    """
    return sunflux_service_session.async_client()
