"""One row per optimizer run: `OptimizerResult.summary` and `summaries` (docs/design.md,
"Optimizer jobs", for the columns).

Columns, in this order (every number Float64, null where the run does not report it):

- ``run_uuid`` and ``status`` (String; ``run_uuid`` is null for in-process runs, which have no job);
- sizes: ``Section.size_*`` for every numeric field named ``size_…`` of every section present
  (``PV.size_kw``, ``Wind.size_kw``, ``ElectricStorage.size_kw``, ``ElectricStorage.size_kwh``,
  ``Generator.size_kw``, ``CHP.size_kw``, ``HotThermalStorage.size_gal``, …). With several PV
  arrays, ``PV.size_kw`` is their total and each array has ``PV[<name>].size_kw`` (its index
  instead of the name when names are missing or repeated);
- always: ``Financial.lcc``, ``lcc_bau``, ``npv``, ``initial_capital_costs``,
  ``initial_capital_costs_after_incentives``, ``simple_payback_years``,
  ``internal_rate_of_return``, ``ElectricTariff.year_one_bill_before_tax`` and ``…_bau``;
- as present: every other numeric ``ElectricTariff.year_one_*`` field (energy, demand, fixed,
  minimum-charge, coincident-peak, export parts and their ``_bau`` twins), then every numeric
  ``Site`` field about emissions (``Site.lifecycle_emissions_tonnes_CO2``,
  ``Site.annual_emissions_from_fuelburn_tonnes_CO2_bau``, …).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import polars as pl

from sunflux._errors import ParameterError
from sunflux.optimizer._document import ResultDocument

if TYPE_CHECKING:
    from sunflux.optimizer.jobs import OptimizerResult

__all__ = ["summaries", "summary_row", "FIXED_COLUMNS"]

#: The columns every summary has, in order (after the sizes come the Financial ones).
_IDS = ("run_uuid", "status")
_FINANCIAL = (
    "lcc",
    "lcc_bau",
    "npv",
    "initial_capital_costs",
    "initial_capital_costs_after_incentives",
    "simple_payback_years",
    "internal_rate_of_return",
)
_BILL = ("year_one_bill_before_tax", "year_one_bill_before_tax_bau")
FIXED_COLUMNS = (*_IDS, *(f"Financial.{f}" for f in _FINANCIAL), *(f"ElectricTariff.{f}" for f in _BILL))

# Column groups, in frame order: ids, sizes, Financial, ElectricTariff, Site emissions.
_GROUP_IDS, _GROUP_SIZES, _GROUP_FINANCIAL, _GROUP_TARIFF, _GROUP_SITE = range(5)


def _number(value: Any) -> float | None:
    """A JSON number as a float; anything else (null, text, a flag, a list) as None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _is_number_or_null(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _array_labels(arrays: list[Mapping[str, Any]]) -> list[str]:
    """Each array's name, or its index when names are missing or repeated."""
    names = [array.get("name") for array in arrays]
    if all(isinstance(name, str) and name for name in names) and len(set(names)) == len(names):
        return [str(name) for name in names]
    return [str(index) for index in range(len(arrays))]


def _sizes(outputs: Mapping[str, Any]) -> list[tuple[str, float | None]]:
    sizes: list[tuple[str, float | None]] = []
    for section, value in outputs.items():
        if isinstance(value, Mapping):
            sizes += [(f"{section}.{k}", _number(v)) for k, v in value.items() if k.startswith("size_") and _is_number_or_null(v)]
        elif isinstance(value, list) and value and all(isinstance(item, Mapping) for item in value):
            # Several arrays (the service's PV list): the totals first, then each array's own.
            fields = list(dict.fromkeys(k for item in value for k, v in item.items() if k.startswith("size_") and _is_number_or_null(v)))
            for field in fields:
                parts = [_number(item.get(field)) for item in value]
                known = [p for p in parts if p is not None]
                sizes.append((f"{section}.{field}", sum(known) if known else None))
            for label, item in zip(_array_labels(value), value):
                sizes += [(f"{section}[{label}].{field}", _number(item.get(field))) for field in fields]
    return sizes


def summary_row(raw: Mapping[str, Any]) -> dict[str, tuple[int, str | float | None]]:
    """A results document's summary: column -> (group, value), in column order within each group."""
    outputs = raw.get("outputs") or {}
    outputs = outputs if isinstance(outputs, Mapping) else {}

    def section(name: str) -> Mapping[str, Any]:
        value = outputs.get(name)
        return value if isinstance(value, Mapping) else {}

    row: dict[str, tuple[int, str | float | None]] = {
        "run_uuid": (_GROUP_IDS, str(raw.get("run_uuid") or "") or None),
        "status": (_GROUP_IDS, str(raw["status"]) if raw.get("status") is not None else None),
    }
    for column, value in _sizes(outputs):
        row[column] = (_GROUP_SIZES, value)
    financial = section("Financial")
    for field in _FINANCIAL:
        row[f"Financial.{field}"] = (_GROUP_FINANCIAL, _number(financial.get(field)))
    tariff = section("ElectricTariff")
    for field in _BILL:
        row[f"ElectricTariff.{field}"] = (_GROUP_TARIFF, _number(tariff.get(field)))
    for field, value in tariff.items():
        if field.startswith("year_one_") and field not in _BILL and _is_number_or_null(value):
            row[f"ElectricTariff.{field}"] = (_GROUP_TARIFF, _number(value))
    for field, value in section("Site").items():
        if "emissions" in field and _is_number_or_null(value):
            row[f"Site.{field}"] = (_GROUP_SITE, _number(value))
    return row


def _frame(rows: list[dict[str, tuple[int, str | float | None]]]) -> pl.DataFrame:
    """The rows stacked diagonally: every column any row has, null where a row lacks it, in group
    order and, within a group, in the order the columns first appear."""
    first_seen: dict[str, tuple[int, int]] = {}
    for row in rows or [summary_row({})]:
        for column, (group, _value) in row.items():
            first_seen.setdefault(column, (group, len(first_seen)))
    columns = sorted(first_seen, key=first_seen.__getitem__)
    schema = {column: (pl.String if column in _IDS else pl.Float64) for column in columns}
    data = {column: [row[column][1] if column in row else None for row in rows] for column in columns}
    return pl.DataFrame(data, schema=schema)


def summary(result: OptimizerResult) -> pl.DataFrame:
    return _frame([summary_row(result._document.without_series())])


def summaries(results: Iterable[OptimizerResult]) -> pl.DataFrame:
    """One row per run, in order (`OptimizerResult.summary` stacked): the union of their columns,
    null where a run lacks one (a sweep that adds storage to some scenarios has
    ``ElectricStorage.size_kw`` null in the others).

    Works on results of `solve`, `solve_many`, ``sunflux.distributed.solve`` and the live or
    embedded service's ``client.optimizer.run`` / ``results`` alike. Columns: ``run_uuid``,
    ``status``, every ``Section.size_*`` (``PV[<name>].size_kw`` per array when there are
    several, ``PV.size_kw`` their total), ``Financial.lcc``, ``lcc_bau``, ``npv``,
    ``initial_capital_costs``, ``initial_capital_costs_after_incentives``,
    ``simple_payback_years``, ``internal_rate_of_return``,
    ``ElectricTariff.year_one_bill_before_tax`` (and ``_bau``) always, then the other
    ``ElectricTariff.year_one_*`` parts and the ``Site`` emissions as present. Numbers are
    Float64 (null where a run does not report them: the local engine leaves grid emissions null
    without a given factor series, and computes no payback or IRR without a business-as-usual case), ``run_uuid`` and ``status`` String (``run_uuid`` null for in-process runs).

    Parameters
    ----------
    results : iterable of OptimizerResult
        The runs, in the order of the rows.

    Returns
    -------
    polars.DataFrame
        One row per run; sizes in kW or kWh, costs and bills in $, payback in years, the IRR as
        a fraction.

    Raises
    ------
    ParameterError
        An item is not an `OptimizerResult` (named by its index).
    """
    rows = []
    for index, result in enumerate(results):
        if not isinstance(result, ResultDocument):
            raise ParameterError(f"results[{index}] must be an OptimizerResult (got {type(result).__name__})")
        rows.append(summary_row(result._document.without_series()))
    return _frame(rows)
