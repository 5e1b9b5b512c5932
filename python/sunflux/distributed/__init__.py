"""sunflux on a Dask cluster (the optional extra ``sunflux[dask]``). ::

    import sunflux.distributed as sd
    frame = sd.simulate(["a.tm2", "b.csv"], systems, client=client)   # a lazy dask DataFrame
    sd.write_weather_dataset(weathers, "weather/")                 # Weather objects, once, as Parquet
    frame = sd.simulate("weather/", systems, client=client)        # each worker reads its sites
    frame.to_parquet("yields/", partition_on=["site"])
    climate = sd.bulk_download(sd.ClientConfig(), requests, cache="s3://bucket/climate/")
    results = sd.solve(scenarios, client=client)       # = sunflux.optimizer.solve_many, on the cluster

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
from sunflux.distributed._simulate import simulate, write_weather_dataset
from sunflux.distributed._solve import solve

__all__ = ["ClientConfig", "CsvRequest", "bulk_download", "simulate", "solve", "write_weather_dataset"]
