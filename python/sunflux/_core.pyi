# Stubs for the Rust extension module sunflux._core. Kept exact: tests/python/client/test_stubs.py compares
# these names and signatures with the compiled module.
import os
from collections.abc import Generator
from typing import Any, Callable, Final, Generic, Literal, Protocol, TypeVar

_T = TypeVar("_T")
# A technical-potential region as plain values: (id, region_id, label, resources), each resource
# (id, key, label, default_power_density, input_fields), each field (id, name, data type, values, default).
_InputFieldValues = tuple[int, str, str, Any, Any]
_ResourceValues = tuple[int, str, str, float | None, list[_InputFieldValues]]
_RegionValues = tuple[int, int, str, list[_ResourceValues]]

__version__: Final[str]
DEFAULT_BASE_URL: Final[str]
API_KEY_LENGTH: Final[int]
DEFAULT_DEADLINE: Final[float]
# The spec's rules (src/python/spec.rs reads each from its one Rust home).
KEY_REQUESTS_PER_HOUR: Final[int]
CLIMATE_CSV_INTERVAL: Final[float]
CLIMATE_CSV_PER_DAY: Final[int]
CLIMATE_JSON_INTERVAL: Final[float]
CLIMATE_JSON_PER_DAY: Final[int]
CLIMATE_IN_FLIGHT: Final[int]
CLIMATE_DATASETS: Final[tuple[str, ...]]
SOLAR_DATASETS: Final[tuple[Literal["tmy2", "tmy3", "intl", "satdb"], ...]]
CLIMATE_ATTRIBUTES: Final[tuple[str, ...]]
SYNTHETIC_METADATA_KEY: Final[str]
FAULT_KINDS: Final[tuple[str, ...]]
WEATHER_METADATA_KEYS: Final[dict[str, tuple[str, ...]]]

def v2_file_id_problem(id: str) -> str:
    """The message saying why `id`, from dataset query v2, cannot be the v6 estimator's `file_id`."""
def v1_file_id_problem(id: str) -> str:
    """The message saying why `id`, from dataset query v1, cannot be the v8 estimator's `file_id`."""
def is_synthetic_source(source: str) -> bool:
    """True for a source text of the embedded service's generated data."""

def default_limits() -> list[tuple[str, float]]:
    """Every limit of `crate::limits` by name, with its default value (bytes, levels, rows, columns or
    seconds); `sunflux.limits()` shows them."""
def quiesce() -> None:
    """Called when the interpreter exits (`atexit`): waits for threads of sunflux's that are in Python
    to leave it, and keeps every one out from then on."""

class PendingCall(Generic[_T]):
    """A checked request not yet sent: `wait()` runs it blocking, `await` runs it on asyncio; a call
    runs once."""
    def wait(self) -> _T:
        """Sends the request and waits for its value with the GIL released (Ctrl-C aborts it)."""
    def __await__(self) -> Generator[Any, None, _T]:
        """Sends the request on the shared runtime; cancelling the await aborts it."""

class PreparedRequest:
    """A request checked by `Transport.prepare`; each `send()` is one call (retries and throttles
    included), waited for or awaited."""
    def send(self) -> PendingCall[RawResponse]:
        """The send of the request, pending."""

class RawResponse:
    """A finished HTTP exchange handed to Python."""
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

class CancelToken:
    """A way for Python to stop core calls running on other threads (`climate.bulk` on Ctrl-C): calls
    given the token end with `KeyboardInterrupt` as soon as it is cancelled."""
    def __new__(cls) -> CancelToken: ...
    def cancel(self) -> None: ...
    @property
    def cancelled(self) -> bool: ...

class Backoff:
    """The one polling schedule's pauses, for the tests: a deadline and a pause that grows by half
    after every poll up to a cap (every wait polls in Rust)."""
    def __new__(cls, poll_interval: object, max_interval: object, timeout: object) -> Backoff: ...
    def next_pause(self) -> float | None:
        """Seconds to pause before the next poll, or None once the deadline has passed."""

class Transport:
    """The shared transport of one `Client`."""
    def __new__(
        cls,
        base_url: object,
        api_key: object,
        auth: object,
        routes: object,
        timeout: object,
        retries: object,
        backoff: object,
        retry_rate_limited: object,
        throttle: object,
        limits: object = None,
        deadline: object = None,
        max_bytes: object = None,
    ) -> Transport: ...
    def prepare(
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
    ) -> PreparedRequest:
        """Checks a request once; the returned `PreparedRequest` sends it blocking or as an awaitable."""
    def url(self, endpoint: str, args: dict[str, str] | None = None) -> str: ...
    @property
    def rate_limit(self) -> tuple[int | None, int | None]: ...
    @property
    def base_url(self) -> str: ...
    @property
    def routes(self) -> str: ...
    @property
    def cache_origin(self) -> str: ...
    @property
    def has_key(self) -> bool: ...
    def close(self, reason: str) -> None: ...
    @property
    def closed(self) -> bool: ...
    def redact(self, text: str) -> str: ...

class LocalService:
    """The embedded service on loopback; `sunflux.LocalService` wraps it."""
    def __new__(
        cls,
        port: object,
        api_key: object,
        extra_keys: object,
        requests_per_window: object,
        window_seconds: object,
        fault_rate: object,
        fault_seed: object,
        fault_kinds: object,
        fault_delay: object,
        fault_retry_after: object,
        explorers: object,
        technical_potential_start_delay: object,
        technical_potential_run_time: object,
        technical_potential_failure_status: object,
        technical_potential_failure_message: object,
        technical_potential_failure_region: object,
        climate_csv_interval: object,
        climate_json_interval: object,
        climate_csv_per_day: object,
        climate_json_per_day: object,
        climate_in_flight: object,
        climate_queue: object,
        climate_build_delay: object,
        climate_anywhere: object,
        optimizer_grace: object,
        optimizer_hang: object,
        urdb_any_label: object,
        problems: list[str] = ...,
    ) -> LocalService: ...
    @property
    def base_url(self) -> str: ...
    @property
    def api_key(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def running(self) -> bool: ...
    def hits(self) -> dict[str, int]: ...
    def station_weather(self, file_id: str) -> Weather: ...
    def outbox(self) -> list[tuple[str, str, str]]: ...
    def close(self) -> None: ...

class StationQuery:
    """A parsed dataset query answer; the Python `StationQuery` wraps it."""
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
    client: Transport,
    lat: object,
    lon: object,
    radius: object,
    all: object,
    version: object,
    format: object,
    trace: bool = False,
) -> PendingCall[StationQuery]:
    """Validates (every problem at once), queries and parses."""
def parse_solar_data_query(
    body: bytes, lat: object, lon: object, radius: object, all: object, version: object, format: object
) -> StationQuery:
    """Parses a dataset query body (the benchmark and tests call this without HTTP)."""

class PvEstimate:
    """A PV estimate with its tables already in Arrow form; the Python `PvEstimate` wraps it."""
    @property
    def ac_annual(self) -> float: ...
    @property
    def solrad_annual(self) -> float: ...
    @property
    def capacity_factor(self) -> float: ...
    @property
    def version(self) -> str | None: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def errors(self) -> list[str]: ...
    @property
    def raw(self) -> str: ...
    def inputs(self) -> dict[str, Any]: ...
    def station_info(self) -> dict[str, Any] | None: ...
    def ssc_info(self) -> dict[str, Any] | None: ...
    def monthly(self) -> _ArrowStream: ...
    def hourly(self) -> _ArrowStream | None: ...

class SimulatedLoad:
    """A load profile with its summary; the Python side turns `table()` into a polars frame."""
    @property
    def load_type(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def annual(self) -> float: ...
    @property
    def max(self) -> float: ...
    @property
    def year(self) -> int: ...
    @property
    def time_steps_per_hour(self) -> int: ...
    def table(self) -> _ArrowStream: ...

class AvertEmissionsProfile:
    """AVERT's hourly grid emissions factors (lb/kWh) of the site's region, aligned to the weekdays
    of the load year."""
    @property
    def avert_region_abbr(self) -> str: ...
    @property
    def avert_region(self) -> str: ...
    @property
    def avert_meters_to_region(self) -> float: ...
    @property
    def units(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def emissions_factor_series_lb_CO2_per_kwh(self) -> list[float]: ...
    @property
    def emissions_factor_series_lb_NOx_per_kwh(self) -> list[float]: ...
    @property
    def emissions_factor_series_lb_SO2_per_kwh(self) -> list[float]: ...
    @property
    def emissions_factor_series_lb_PM25_per_kwh(self) -> list[float]: ...
    @property
    def data_source(self) -> str | None: ...

class CambiumProfile:
    """Cambium's levelized hourly CO2 factor (lb/kWh) or clean-energy fraction of the site's region."""
    @property
    def location(self) -> str: ...
    @property
    def metric_col(self) -> str: ...
    @property
    def units(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def data_series(self) -> list[float]: ...
    @property
    def data_source(self) -> str | None: ...

class EasiurCosts:
    """EASIUR's health costs of emissions at the site ($/metric ton) and their nominal escalation."""
    @property
    def NOx_grid_cost_per_tonne(self) -> float: ...
    @property
    def SO2_grid_cost_per_tonne(self) -> float: ...
    @property
    def PM25_grid_cost_per_tonne(self) -> float: ...
    @property
    def NOx_onsite_fuelburn_cost_per_tonne(self) -> float: ...
    @property
    def SO2_onsite_fuelburn_cost_per_tonne(self) -> float: ...
    @property
    def PM25_onsite_fuelburn_cost_per_tonne(self) -> float: ...
    @property
    def NOx_cost_escalation_rate_fraction(self) -> float: ...
    @property
    def SO2_cost_escalation_rate_fraction(self) -> float: ...
    @property
    def PM25_cost_escalation_rate_fraction(self) -> float: ...
    @property
    def units_costs(self) -> str: ...
    @property
    def units_escalation(self) -> str: ...
    @property
    def data_source(self) -> str | None: ...

def optimizer_avert_emissions_profile(
    client: Transport,
    latitude: object,
    longitude: object,
    load_year: object,
    trace: bool = False,
) -> PendingCall[AvertEmissionsProfile]:
    """Validates every parameter at once and asks the service for the site's AVERT profile."""

def optimizer_cambium_profile(
    client: Transport,
    latitude: object,
    longitude: object,
    scenario: object,
    location_type: object,
    start_year: object,
    lifetime: object,
    metric_col: object,
    grid_level: object,
    load_year: object,
    trace: bool = False,
) -> PendingCall[CambiumProfile]:
    """Validates every parameter at once and asks the service for a Cambium profile."""

def optimizer_easiur_costs(
    client: Transport,
    latitude: object,
    longitude: object,
    inflation: object,
    trace: bool = False,
) -> PendingCall[EasiurCosts]:
    """Validates every parameter at once and asks the service for the site's EASIUR health costs."""

def optimizer_simulated_load(
    client: Transport,
    latitude: object,
    longitude: object,
    doe_reference_names: list[object],
    percent_shares: list[object],
    annual_kwh: object = None,
    monthly_totals_kwh: list[object] = ...,
    year: object = None,
    time_steps_per_hour: object = None,
    trace: bool = False,
    load_type: object = None,
    annual_mmbtu: object = None,
    monthly_mmbtu: list[object] = ...,
    annual_tonhour: object = None,
    monthly_tonhour: list[object] = ...,
    annual_fraction: object = None,
    monthly_fraction: list[object] = ...,
    addressable_load_fraction: list[object] = ...,
    boiler_efficiency: object = None,
    chiller_cop: object = None,
    cooling_doe_ref_names: list[object] = ...,
    cooling_pct_shares: list[object] = ...,
) -> PendingCall[SimulatedLoad]:
    """Validates every parameter at once, asks the service for the load and parses it."""

class WindResource:
    """A site-year of wind resource; the Python side turns `table()` into a polars frame."""
    @property
    def location_id(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def year(self) -> int | None: ...
    @property
    def latitude(self) -> float | None: ...
    @property
    def longitude(self) -> float | None: ...
    @property
    def heights_m(self) -> list[float]: ...
    def table(self) -> _ArrowStream: ...

def wind_toolkit_srw(
    client: Transport,
    lat: object,
    lon: object,
    hubheight: object = None,
    year: object = None,
    trace: bool = False,
) -> PendingCall[WindResource]:
    """Validates every parameter at once, asks the WIND Toolkit for the site-year and parses it."""

def simulate_outages(
    critical_load_kw: list[float],
    renewable_kw: list[float],
    battery_kwh: float,
    battery_kw: float,
    initial_soc_fraction: list[float],
    battery_roundtrip_efficiency: float,
    generator_kw: float,
    fuel_available_gal: float,
    generator_efficiency_full_load: float,
    generator_efficiency_half_load: float,
    fuel_kwh_per_gallon: float,
    generator_min_turndown_fraction: float,
) -> dict[str, Any]:
    """Hours survived by an outage starting at every time step, and their summary, as a dict with the
    service's `resilience_stats` keys. Runs without the GIL."""

def optimizer_trough_production_factor(weather: Weather, cst_json: str | None = None) -> list[float]:
    """The trough stand-in's hourly CST production factor on a weather year (`cst_json`: the CST
    section as JSON, None for the service's defaults). Runs without the GIL."""

def pv_estimate(
    client: Transport,
    system_capacity: object,
    module_type: object,
    losses: object,
    array_type: object,
    tilt: object,
    azimuth: object,
    lat: object = None,
    lon: object = None,
    file_id: object = None,
    dataset: object = None,
    radius: object = None,
    timeframe: object = None,
    dc_ac_ratio: object = None,
    gcr: object = None,
    inv_eff: object = None,
    format: object = None,
    callback: object = None,
    trace: bool = False,
) -> PendingCall[PvEstimate]:
    """Validates (every problem at once), estimates and parses."""
def parse_pv_estimate(body: bytes, format: str) -> PvEstimate:
    """Parses an estimator body (json, JSONP or xml) that came from elsewhere."""
def pv_estimate_v8(
    client: Transport,
    system_capacity: object,
    module_type: object,
    losses: object,
    array_type: object,
    tilt: object,
    azimuth: object,
    lat: object = None,
    lon: object = None,
    file_id: object = None,
    dataset: object = None,
    radius: object = None,
    timeframe: object = None,
    dc_ac_ratio: object = None,
    gcr: object = None,
    inv_eff: object = None,
    bifaciality: object = None,
    albedo: object = None,
    use_wf_albedo: object = None,
    soiling: object = None,
    en_snowloss: object = None,
    format: object = None,
    callback: object = None,
    trace: bool = False,
) -> PendingCall[PvEstimate]:
    """Validates (every problem at once), estimates with v8 and parses."""

class Weather:
    """A weather year for the engine; the Python `Weather` wraps it."""
    def meta(self) -> tuple[float, float, float, float, str, str, str, str, str]: ...
    def __len__(self) -> int: ...
    @property
    def has_leap_day(self) -> bool: ...
    @property
    def instantaneous(self) -> bool: ...
    @property
    def steps_per_hour(self) -> int: ...
    def with_place(self, city: str, state: str, country: str, location_id: str, source: str) -> Weather: ...
    def without_leap_day(self) -> Weather: ...
    def to_arrow(self) -> _ArrowStream: ...

def read_weather_path(
    path: str, lat: float | None = None, lon: float | None = None, tz: float | None = None, elevation: float | None = None
) -> Weather:
    """Reads a TMY2, TMY3, EPW, SAM CSV, NSRDB or climate-download CSV file (GIL released); the site
    facts given fill what the file lacks and must agree with what it has."""
def read_weather_bytes(
    data: bytes, name: str, lat: float | None = None, lon: float | None = None, tz: float | None = None, elevation: float | None = None
) -> Weather:
    """Reads weather from the bytes of one of those files; `name` is used in error messages."""
def weather_from_table(
    table: object,
    lat: float | None = None,
    lon: float | None = None,
    tz: float | None = None,
    elevation: float | None = None,
    name: str = "table",
    fill_gaps: bool = False,
) -> Weather:
    """Builds a weather year from an Arrow table (polars, pyarrow or pandas): its numeric columns under
    any of the names the file readers accept, the site from the arguments."""
def weather_column_field(name: str) -> str | None:
    """The weather quantity a column name stands for ("gh", "dn", "tdry", "month", ...), or None."""
def pvwatts_simulate(
    weather: Weather,
    system_capacity: object,
    module_type: object,
    losses: object,
    array_type: object,
    tilt: object,
    azimuth: object,
    dc_ac_ratio: object = None,
    gcr: object = None,
    inv_eff: object = None,
    timeframe: object = None,
) -> PvEstimate:
    """Simulates one system on one weather year (GIL released)."""
def pvwatts_simulate_many(
    weathers: list[Weather],
    systems: list[tuple[object, ...]],
    threads: int = 0,
    timeframe: object = None,
    progress: Callable[[int], object] | None = None,
) -> list[PvEstimate]:
    """Simulates every (weather, system) pair on `threads` threads with the GIL released; results in
    input order. `systems[i]` is a tuple of the nine system parameters. The calling thread waits for
    the batch and, every 100 ms, looks for Ctrl-C (which stops the workers before their next system
    and is raised) and calls `progress(done)` with the number of systems simulated."""
def pvwatts_simulate_v8(
    weather: Weather,
    system_capacity: object,
    module_type: object,
    losses: object,
    array_type: object,
    tilt: object,
    azimuth: object,
    dc_ac_ratio: object = None,
    gcr: object = None,
    inv_eff: object = None,
    bifaciality: object = None,
    albedo: object = None,
    use_wf_albedo: object = None,
    soiling: object = None,
    en_snowloss: object = None,
    timeframe: object = None,
    threads: int = 0,
) -> PvEstimate:
    """Simulates one system on one weather year with PVWatts v8 (GIL released)."""
def pvwatts_simulate_many_v8(
    weathers: list[Weather],
    systems: list[tuple[object, ...]],
    threads: int = 0,
    timeframe: object = None,
    progress: Callable[[int], object] | None = None,
) -> list[PvEstimate]:
    """Simulates every (weather, system) pair with PVWatts v8 on `threads` threads (one job per thread
    at a time) with the GIL released; results in input order. `systems[i]` holds the 14 parameters
    of `pvwatts_simulate_v8` in its order. Ctrl-C and `progress(done)` as for
    `pvwatts_simulate_many`."""

class TechnicalPotentialConfiguration:
    """A parsed configuration; the Python `Configuration` wraps it."""
    def regions(self) -> list[_RegionValues]:
        """Every region with its resources and their input fields, as plain values."""
    @property
    def version(self) -> str | None: ...
    def inputs(self) -> dict[str, Any]: ...
    def to_arrow(self) -> _ArrowStream: ...

class TechnicalPotentialJobResult:
    """A job's state (and results once finished); the Python job objects wrap it."""
    @property
    def status(self) -> str: ...
    @property
    def runtime_seconds(self) -> float | None: ...
    @property
    def map_data_deleted(self) -> bool | None: ...
    @property
    def disposition(self) -> str | None: ...
    @property
    def errors(self) -> list[str]: ...
    def outputs(self) -> dict[str, Any]: ...
    def regions(self) -> list[str]: ...
    def classes(self, region: str | None = None) -> _ArrowStream: ...

def technical_potential_config(
    client: Transport,
    explorer: object,
    countries: object = None,
    wkt: object = None,
    trace: bool = False,
) -> PendingCall[TechnicalPotentialConfiguration]:
    """Fetches the configuration (regions, resources, input fields)."""
def technical_potential_submit(
    client: Transport,
    explorer: object,
    config: TechnicalPotentialConfiguration,
    region: object,
    resource: object,
    fields_json: object,
    trace: bool = False,
) -> PendingCall[tuple[str, str]]:
    """Submits a job validated against `config` (every problem at once); returns `(job_id, status)`."""
def technical_potential_job(
    client: Transport, explorer: object, job_id: object, delete: bool = False, trace: bool = False
) -> PendingCall[TechnicalPotentialJobResult]:
    """Polls (`delete=False`) or deletes a job; a job in a failure status raises `JobFailed`."""
def technical_potential_wait(
    client: Transport,
    explorer: object,
    job_id: object,
    timeout: object,
    poll_interval: object,
    max_interval: object,
    trace: bool = False,
) -> PendingCall[TechnicalPotentialJobResult]:
    """Polls a job until it finishes, on the one polling schedule: the first pause `poll_interval` s,
    growing by half up to `max_interval` s; `JobTimeout` after `timeout` s, `JobFailed` on a
    failure status. Every argument is checked at once."""
def parse_technical_potential_configuration(body: bytes) -> TechnicalPotentialConfiguration:
    """Parses a configuration body from elsewhere."""
def parse_technical_potential_job(body: bytes) -> TechnicalPotentialJobResult:
    """Parses a job body from elsewhere (no failure check)."""

class ClimateTable:
    """One site-year as Arrow; the typed metadata is the JSON in the schema metadata
    (`climate_metadata`), read when asked for."""
    def metadata(self) -> dict[str, Any]: ...
    def to_arrow(self) -> _ArrowStream: ...

class ClimateZip:
    """Every CSV of a download zip: one long table (`site`, `year`, then the data) and one metadata row
    per site."""
    def data(self) -> _ArrowStream: ...
    def sites(self) -> _ArrowStream: ...
    @property
    def files(self) -> list[str]: ...

def climate_download_csv(
    client: Transport,
    dataset: object,
    lat: object,
    lon: object,
    year: object,
    attributes: object,
    utc: object,
    leap_day: object,
    email: object,
    full_name: object,
    affiliation: object,
    reason: object,
    mailing_list: object,
    trace: bool = False,
    cancel: CancelToken | None = None,
) -> PendingCall[ClimateTable]:
    """Streams the CSV of one site and one year (validated first, every problem at once)."""
def climate_request(
    client: Transport,
    dataset: object,
    wkt: object,
    years: object,
    attributes: object,
    utc: object,
    leap_day: object,
    email: object,
    full_name: object,
    affiliation: object,
    reason: object,
    mailing_list: object,
    method: object,
    trace: bool = False,
) -> PendingCall[tuple[str, str, str]]:
    """Requests a download file for any WKT and years: `(message, download_url, raw body)`."""
def climate_fetch(
    client: Transport, url: object, wait: object, timeout: object, trace: bool = False
) -> PendingCall[ClimateZip]:
    """Downloads (polling while not ready) and parses the zip behind a download URL; the API key
    is never sent with it. Every argument is checked at once."""
def climate_cache_key(
    dataset: object, lat: object, lon: object, year: object, attributes: object, utc: object, leap_day: object, email: object
) -> str:
    """The on-disk cache key of a csv request (everything that changes the data; no key, no e-mail)."""
def climate_weather(table: _ArrowStream, local_time: bool = True) -> Weather:
    """The weather year of a climate table (a `ClimateTable`'s Arrow, or a copy keeping its
    schema metadata), in the site's standard time with `local_time`, else in the table's zone."""
def parse_climate_csv_bytes(body: bytes, whole_year: bool = True) -> ClimateTable:
    """Parses a climate CSV body from elsewhere (a file, another client); the parser threads read the
    `bytes` in place. With `whole_year`, the rows must be one whole year."""
def parse_climate_zip_bytes(body: bytes, max_unzipped: object = None) -> ClimateZip:
    """Parses the bytes of a download zip from elsewhere; its CSVs may inflate to `max_unzipped` bytes
    (default: the limit of `crate::limits`)."""
def standard_time_zone_name(tz_hours: float) -> str:
    """The zone a frame in standard time `tz_hours` (hours east of UTC) is labelled with: `Etc/GMT∓N`
    for whole hours, a zone that keeps a fractional offset without daylight saving (`Asia/Kolkata`
    for +5.5), or `UTC` when no zone has that offset."""
def site_standard_offset(lat: float, lon: float) -> float:
    """The standard-time offset (hours east of UTC) of the nearest place sunflux knows within 400 km of
    (`lat`, `lon`), or the nautical zone."""
# The optimizer's job client and results (src/python/optimizer_jobs.rs over services/optimizer/).
from collections.abc import Mapping as _Mapping

OPTIMIZER_OPTIMAL: Final[str]
OPTIMIZER_RUNNING_STATUSES: Final[tuple[str, ...]]
URDB_API_VERSION: Final[int]
def optimizer_submit(client: Transport, scenario: bytes, trace: bool = False) -> PendingCall[str]:
    """POSTs a scenario (its JSON) and returns the run's run_uuid; a refusal raises
    `ValidationError` with `input_errors`."""
def optimizer_results(client: Transport, run_uuid: object, trace: bool = False) -> PendingCall[tuple[ResultDocument, int]]:
    """One read of a run's results: `(document, http_status)` in whatever state the run is."""
def optimizer_run(
    client: Transport, scenario: bytes, timeout: object, poll_interval: object, max_interval: object, not_found_grace: object, trace: bool = False
) -> PendingCall[tuple[ResultDocument, int]]:
    """Submits and polls until the run is optimal: `(document, http_status)`; `JobFailed`,
    `JobTimeout` or `NotFoundError` (after `not_found_grace` s) otherwise."""
def optimizer_urdb_rate(client: Transport, label: object, trace: bool = False) -> PendingCall[dict[str, Any]]:
    """The full rate object of a Utility Rate Database label (`client` is the rate database's)."""
def optimizer_urdb_rate_by_name(client: Transport, utility: str | None, rate_name: str | None, trace: bool = False) -> PendingCall[dict[str, Any]]:
    """The newest rate of `utility` whose name is part of `rate_name` (`client` is the rate
    database's)."""
class ResultDocument:
    """An optimizer results document kept as parsed JSON on the Rust side."""
    @staticmethod
    def from_mapping(mapping: _Mapping[str, Any]) -> ResultDocument:
        """The document of a mapping (a results dict a user kept, for example from the live service)."""
    @staticmethod
    def from_json(text: bytes) -> ResultDocument:
        """The document of its JSON text (how a result is pickled)."""
    def to_json(self) -> bytes:
        """The document's JSON text."""
    def __reduce__(self) -> tuple[Any, tuple[bytes]]: ...
    def head(self) -> tuple[str, str, dict[str, Any]]:
        """`(run_uuid, status, messages)`: the two texts ("" when absent) and the messages (an empty
        dict when absent or not an object)."""
    def part_dict(self, name: str) -> dict[str, Any]:
        """A top-level part (`inputs`, `outputs`, …) as Python objects; an empty dict when absent."""
    def number_at(self, path: list[str]) -> float | None:
        """The number at `path` (keys from the top), or None where there is none."""
    def to_dict(self) -> dict[str, Any]:
        """The whole document as Python objects."""
    def without_series(self) -> dict[str, Any]:
        """The document with every list of numbers left out of `outputs` (what a summary row reads:
        sizes, costs, bills, emissions), as Python objects."""
    def series(self, tz: float | None = None) -> _ArrowStream:
        """The results frame as an Arrow table: `timestamp` in the standard time `tz` hours east of
        UTC (when None, the nearest known place's within 400 km of `inputs.Site`, or its nautical
        zone; UTC without a site), then every year-long output series."""
    def simulate_outages(self, microgrid_only: bool = False) -> dict[str, Any]:
        """`simulate_outages` of the result: its inputs gathered in Rust (`optimizer::outage_inputs`),
        with the schema's defaults for what the document leaves out."""

def optimizer_solve(scenario_json: bytes, token: CancelToken | None = None) -> ResultDocument:
    """Solves a scenario (JSON text) in process and returns its results document; `ParameterError`
    for refused scenarios, `JobFailed` / `JobTimeout` when there is no optimum in time, and
    `KeyboardInterrupt` when `token` is cancelled or Ctrl-C arrives."""
def set_highs_location(path: str | os.PathLike[str]) -> None:
    """Tells the engine where `highsbox`'s HiGHS distribution folder is."""
from os import PathLike as _PathLike

OPTIMIZER_REFERENCE_YEAR: Final[int]

def optimizer_resolve(
    client: Transport, urdb_client: Transport, scenario: _Mapping[str, Any], cache_dir: str | _PathLike[str] | None = None, trace: bool = False
) -> PendingCall[dict[str, Any]]:
    """The scenario document with its reference load and URDB rate replaced by their data, and a
    Wind section's production factor computed on the WIND Toolkit resource, fetched once and kept
    under `cache_dir` (None keeps nothing). `client` is the developer network's (optimizer load,
    WIND Toolkit), `urdb_client` the rate database's."""
def optimizer_validate_scenario(scenario: object) -> list[tuple[str, str, str, str, object, str]]:
    """Every problem of an optimizer scenario given as plain Python data (as JSON would decode it),
    as `(section, field, path, rule, value, message)` rows in the validator's order; `value` is the
    offending object itself when it comes from the input. Raises what Python's `math.fsum` would for
    sums it cannot take (`ValueError` for `inf` and `-inf`, `OverflowError` past the float range)."""
def optimizer_validate_section(
    key: str, values: object, time_steps_per_hour: object
) -> list[tuple[str, str, str, str, object, str]]:
    """The problems of one section (a schema key) on its own: its fields and its in-section rules,
    as `optimizer_validate_scenario`'s rows; `AttributeError` when `values` is not a mapping."""
def optimizer_not_a_scenario_message(document: object) -> str:
    """Why a mapping (given by its keys) is not an optimizer scenario, with a hint of what it may be
    instead (a results response, a URDB rate)."""
def optimizer_sections_json() -> str:
    """The optimizer schema's text embedded at build time (``data/optimizer/sections.json``): field
    table, cross-field rules and the sections' and fields' descriptions. The module does not import
    when it is broken."""
