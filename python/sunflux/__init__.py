"""sunflux: typed, fast access to the solar, climate, PV-estimator, optimizer and technical
potential services, local PVWatts v5 and v8 engines, and an embedded service for offline work.

    import sunflux as sf
    with sf.LocalService() as svc:
        client = svc.client()
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sunflux._core import __version__
from sunflux._solver import register_highs as _register_highs
from sunflux._errors import (
    ApiError,
    AuthError,
    JobFailed,
    JobTimeout,
    MissingFileError,
    ArgumentError,
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

if TYPE_CHECKING:
    from sunflux import climate, pv, pvwatts, solar, technical_potential
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
    from sunflux._sites import stack_sites
    from sunflux.pv import ArrayType, ModuleType, PvEstimate, System

_register_highs()

# `import sunflux` loads the extension, the errors and the client. The embedded service, the
# service modules and what they import (asyncio, thread pools, hashing) load on first use of one
# of these names, so a script or notebook that only needs a client does not pay for them.
_LAZY_NAMES = {
    "LocalService": "sunflux._local",
    "RateLimits": "sunflux._local",
    "Faults": "sunflux._local",
    "JobSettings": "sunflux._local",
    "ClimateSettings": "sunflux._local",
    "OptimizerSettings": "sunflux._local",
    "RateDatabaseSettings": "sunflux._local",
    "FAULT_KINDS": "sunflux._local",
    "ArrayType": "sunflux.pv",
    "ModuleType": "sunflux.pv",
    "PvEstimate": "sunflux.pv",
    "System": "sunflux.pv",
    "stack_sites": "sunflux._sites",
}
_LAZY_MODULES = ("climate", "pv", "pvwatts", "solar", "technical_potential")


def __getattr__(name: str) -> Any:
    if name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    elif name in _LAZY_MODULES:
        value = importlib.import_module(f"sunflux.{name}")
    else:
        raise AttributeError(f"module 'sunflux' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
    "ArgumentError",
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
    "System",
    "stack_sites",
]
