"""The options of the public calls as `Literal` types, so that a type checker and an IDE know
the accepted values. Each is spelled out (a type checker cannot read a runtime tuple);
tests/python/client/test_stubs.py checks that each equals the vocabulary the core checks against."""

from __future__ import annotations

from typing import Literal

#: Solar dataset query: the dataset codes of the answer.
SolarDataset = Literal["tmy2", "tmy3", "intl", "satdb"]
#: Dataset query versions: v1 ids work with the v6 estimator, v2 ids with v8.
QueryVersion = Literal["v1", "v2"]
#: Answer formats of the dataset query.
QueryFormat = Literal["json", "xml", "csv"]
#: Answer formats of the PV estimator.
EstimateFormat = Literal["json", "xml"]
#: PV estimator versions (v6: PVWatts v5 algorithms; v8: PVWatts v8).
EstimatorVersion = Literal["v6", "v8"]
#: Weather datasets of the PV estimator (``satdb`` for v6 only, ``nsrdb`` for v8 only).
EstimatorDataset = Literal["satdb", "nsrdb", "tmy2", "tmy3", "intl"]
#: Whether an estimate carries 12 monthly rows only or the hourly table too.
Timeframe = Literal["monthly", "hourly"]
#: ``module_type`` codes (see `sunflux.ModuleType`).
ModuleTypeCode = Literal[0, 1, 2]
#: ``array_type`` codes (see `sunflux.ArrayType`).
ArrayTypeCode = Literal[0, 1, 2, 3, 4]
#: HTTP methods of the climate download request.
RequestMethod = Literal["POST", "GET"]
#: How a client sends its key.
Auth = Literal["header", "query", "basic"]
#: Route profiles: paths exactly as the spec, or as the public host serves them.
Routes = Literal["spec", "nlr"]
