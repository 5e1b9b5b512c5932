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
    NotFoundError,
    ParameterError,
    QueueFullError,
    RateLimitError,
    ServerError,
    ServiceWarning,
    SunfluxError,
    TransportError,
    ValidationError,
)
from sunflux._client import AsyncClient, Client, RateLimit, Response, ServiceLimits
from sunflux._local import FAULT_KINDS, ClimateSettings, Faults, JobSettings, LocalService, OptimizerSettings, RateLimits
from sunflux import climate, pv, pvwatts, solar, technical_potential
from sunflux.pv import ArrayType, ModuleType, PvEstimate

__all__ = [
    "__version__",
    "Client",
    "AsyncClient",
    "Response",
    "RateLimit",
    "ServiceLimits",
    "LocalService",
    "RateLimits",
    "Faults",
    "JobSettings",
    "ClimateSettings",
    "OptimizerSettings",
    "FAULT_KINDS",
    "SunfluxError",
    "ParameterError",
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
    "solar",
    "climate",
    "pv",
    "pvwatts",
    "technical_potential",
    "ArrayType",
    "ModuleType",
    "PvEstimate",
]
