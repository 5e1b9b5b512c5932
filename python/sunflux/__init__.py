"""sunflux: typed, fast access to the solar, climate, PV-estimator, optimizer and technical
potential services, local PVWatts v5 and v8 engines, and an embedded service for offline work.

    import sunflux as sf
    with sf.LocalService() as svc:
        client = svc.client()
"""

from sunflux._core import __version__
from sunflux._errors import (
    ApiError,
    AuthError,
    JobFailed,
    JobTimeout,
    MissingFileError,
    NotFoundError,
    ParameterError,
    QueueFullError,
    RateLimitError,
    ServerError,
    ServiceWarning,
    UnitWarning,
    SunfluxError,
    TransportError,
    ValidationError,
)
from sunflux._client import AsyncClient, Client, RateLimit, Response, ServiceLimits, limits
from sunflux._local import (
    FAULT_KINDS,
    ClimateSettings,
    Faults,
    JobSettings,
    LocalService,
    OptimizerSettings,
    RateDatabaseSettings,
    RateLimits,
)
from sunflux import climate, pv, pvwatts, solar, technical_potential
from sunflux.pv import ArrayType, ModuleType, PvEstimate

__all__ = [
    "__version__",
    "Client",
    "AsyncClient",
    "Response",
    "RateLimit",
    "ServiceLimits",
    "limits",
    "LocalService",
    "RateLimits",
    "Faults",
    "JobSettings",
    "ClimateSettings",
    "OptimizerSettings",
    "RateDatabaseSettings",
    "FAULT_KINDS",
    "SunfluxError",
    "ParameterError",
    "MissingFileError",
    "TransportError",
    "ApiError",
    "ValidationError",
    "AuthError",
    "RateLimitError",
    "QueueFullError",
    "NotFoundError",
    "ServerError",
    "JobFailed",
    "JobTimeout",
    "ServiceWarning",
    "UnitWarning",
    "solar",
    "climate",
    "pv",
    "pvwatts",
    "technical_potential",
    "ArrayType",
    "ModuleType",
    "PvEstimate",
]
