# Stubs for the Rust extension module sunflux._core. Kept exact: tests/test_stubs.py compares
# these names and signatures with the compiled module.
from collections.abc import Awaitable
from typing import Any, Final, Protocol

__version__: Final[str]
DEFAULT_BASE_URL: Final[str]
API_KEY_LENGTH: Final[int]

class RawResponse:
    @property
    def status(self) -> int: ...
    @property
    def url(self) -> str: ...
    @property
    def content_type(self) -> str | None: ...
    @property
    def attempts(self) -> int: ...
    @property
    def rate_limit(self) -> tuple[int | None, int | None]: ...
    @property
    def content(self) -> bytes: ...
    @property
    def text(self) -> str: ...

class CoreClient:
    def __new__(
        cls,
        base_url: str,
        api_key: str | None,
        auth: str,
        routes: str,
        timeout: float,
        retries: int,
        backoff: float,
        retry_rate_limited: bool,
        throttle: bool,
        limits: dict[str, dict[str, float]] | None = None,
    ) -> CoreClient: ...
    def request(
        self,
        method: str,
        endpoint: str,
        args: dict[str, str] | None = None,
        query: list[tuple[str, str]] = ...,
        form: list[tuple[str, str]] | None = None,
        json: bytes | None = None,
        idempotent: bool | None = None,
        check_errors: bool = True,
        trace: bool = False,
    ) -> RawResponse: ...
    def request_async(
        self,
        method: str,
        endpoint: str,
        args: dict[str, str] | None = None,
        query: list[tuple[str, str]] = ...,
        form: list[tuple[str, str]] | None = None,
        json: bytes | None = None,
        idempotent: bool | None = None,
        check_errors: bool = True,
        trace: bool = False,
    ) -> Awaitable[RawResponse]: ...
    def url(self, endpoint: str, args: dict[str, str] | None = None) -> str: ...
    @property
    def rate_limit(self) -> tuple[int | None, int | None]: ...
    @property
    def base_url(self) -> str: ...
    @property
    def routes(self) -> str: ...
    @property
    def has_key(self) -> bool: ...
    def redact(self, text: str) -> str: ...

class CoreLocalService:
    def __new__(
        cls,
        port: int = 0,
        api_key: str | None = None,
        extra_keys: list[str] = ...,
        requests_per_window: int = 1000,
        window_seconds: float = 3600.0,
        fault_rate: float | None = None,
        fault_seed: int = 0,
        fault_kinds: list[str] = ...,
        fault_delay: float = 0.05,
        fault_retry_after: float = 0.1,
    ) -> CoreLocalService: ...
    @property
    def base_url(self) -> str: ...
    @property
    def api_key(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def running(self) -> bool: ...
    def hits(self) -> dict[str, int]: ...
    def close(self) -> None: ...


class CoreStationQuery:
    def closest(self) -> list[tuple[str, dict[str, Any] | None]]: ...
    def all_stations(self) -> list[dict[str, Any]] | None: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def errors(self) -> list[str]: ...
    @property
    def version(self) -> str | None: ...
    @property
    def query_version(self) -> str: ...
    def inputs(self) -> dict[str, Any]: ...
    def metadata(self) -> dict[str, Any]: ...
    @property
    def raw(self) -> str: ...
    def to_arrow(self) -> _ArrowStream: ...

class _ArrowStream(Protocol):
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...

def solar_data_query(
    client: CoreClient, lat: object, lon: object, radius: object, all: object, version: object, format: object, trace: bool = False
) -> CoreStationQuery: ...
def solar_data_query_async(
    client: CoreClient, lat: object, lon: object, radius: object, all: object, version: object, format: object, trace: bool = False
) -> Awaitable[CoreStationQuery]: ...
def parse_solar_data_query(
    body: bytes, lat: object, lon: object, radius: object, all: object, version: object, format: object
) -> CoreStationQuery: ...
