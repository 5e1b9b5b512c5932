"""sunflux on a Dask cluster (the optional extra ``sunflux[dask]``).

Dask's own scheduler places the work (a ``distributed.LocalCluster``, dask-jobqueue on SLURM, a
Kubernetes cluster, ...): see docs/design.md, "Dask".
"""

from __future__ import annotations

try:
    import dask.dataframe  # noqa: F401
    import distributed  # noqa: F401
except ImportError as error:  # the extra is missing: say which one to install
    raise ImportError(
        "sunflux.distributed needs Dask (dask[dataframe] and distributed): pip install 'sunflux[dask]'"
    ) from error

from sunflux.distributed._download import ClientConfig, CsvRequest, bulk_download

__all__ = ["ClientConfig", "CsvRequest", "bulk_download"]
