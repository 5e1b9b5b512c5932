"""The outage survival simulation of a sized system (the service's ``resilience_stats``): for
an outage starting at every time step of the year, how many hours the system's PV, wind,
battery and generator carry the critical load. Computed in Rust (``sunflux._core``).

::

    result = client.optimizer.run(scenario)
    stats = simulate_outages(result)        # or result.simulate_outages()
    stats["resilience_hours_min"], stats["resilience_hours_avg"], stats["probs_of_surviving"]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux.optimizer._fields import SECTIONS

if TYPE_CHECKING:
    from sunflux.optimizer.jobs import OptimizerResult

STORAGE_EFFICIENCIES = ("internal_efficiency_fraction", "inverter_efficiency_fraction",
                        "rectifier_efficiency_fraction")
RENEWABLE_FLOWS = ("electric_to_storage_series_kw", "electric_curtailed_series_kw", "electric_to_load_series_kw",
                   "electric_to_grid_series_kw")


def _section(sections: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = sections.get(name) or {}
    return value if isinstance(value, Mapping) else {}


def _renewable_output(outputs: Mapping[str, Any], steps: int, microgrid_only: bool) -> list[float]:
    """AC output of every PV array and the wind turbine per step (all their flows); with
    ``microgrid_only``, only of those the outage microgrid includes."""
    total = [0.0] * steps
    outages = _section(outputs, "Outages")
    for name in ("PV", "Wind"):
        if microgrid_only and outages.get(f"{name}_upgraded") is not True:
            continue
        value = outputs.get(name)
        for section in value if isinstance(value, list) else [value] if isinstance(value, Mapping) else []:
            for flow in RENEWABLE_FLOWS:
                series = section.get(flow) or []
                if len(series) == steps:
                    total = [a + b for a, b in zip(total, series)]
    return total


def _number(section: Mapping[str, Any], field: str, default: float) -> float:
    value = section.get(field)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def _input(inputs: Mapping[str, Any], section: str, field: str) -> float:
    """An input of the results, or its default in the schema when the body leaves it out."""
    return _number(_section(inputs, section), field, SECTIONS[section]["fields"][field]["default"])


def simulate_outages(result: OptimizerResult | Mapping[str, Any], *, microgrid_only: bool = False) -> dict[str, Any]:
    """Hours survived by an outage starting at each time step of an optimal result (local or
    live): ``resilience_by_time_step``, ``resilience_hours_min``/``_max``/``_avg``,
    ``outage_durations`` (1 … ⌊max⌋ + 1 hours) and ``probs_of_surviving`` (the share of starts
    surviving each duration). ``microgrid_only`` simulates only what the outage microgrid of the
    multiple-outage form includes (``Outages.*_upgraded``, ``generator_microgrid_size_kw``), as
    the service's option of that name. Raises ``ParameterError`` when the result is not optimal,
    has no critical load series, or has no ``Outages`` section with ``microgrid_only``."""
    raw: Mapping[str, Any] = result if isinstance(result, Mapping) else result.raw
    if raw.get("status") != "optimal":
        raise ParameterError([f"simulate_outages needs an optimal result, got status {raw.get('status')!r}."])
    inputs: Mapping[str, Any] = raw.get("inputs") or {}
    outputs: Mapping[str, Any] = raw.get("outputs") or {}
    critical: Sequence[float] = _section(outputs, "ElectricLoad").get("critical_load_series_kw") or []
    if not critical:
        raise ParameterError(["the result has no ElectricLoad.critical_load_series_kw to simulate outages with."])
    steps = len(critical)
    outages = _section(outputs, "Outages")
    if microgrid_only and not outages:
        raise ParameterError(["microgrid_only needs a result with the Outages of the multiple-outage form."])
    storage_out = _section(outputs, "ElectricStorage")
    if microgrid_only and outages.get("electric_storage_microgrid_upgraded") is not True:
        storage_out = {}
    roundtrip = 1.0
    for field in STORAGE_EFFICIENCIES:
        roundtrip *= _input(inputs, "ElectricStorage", field)
    generator_out, generator_in = _section(outputs, "Generator"), _section(inputs, "Generator")
    full_load = _input(inputs, "Generator", "electric_efficiency_full_load")
    off_grid = _section(inputs, "Settings").get("off_grid_flag") is True
    generator_kw = _number(outages, "generator_microgrid_size_kw", 0.0) if microgrid_only else _number(generator_out, "size_kw", 0.0)
    return _core.simulate_outages(
        critical_load_kw=[float(v) for v in critical],
        renewable_kw=_renewable_output(outputs, steps, microgrid_only),
        battery_kwh=_number(storage_out, "size_kwh", 0.0),
        battery_kw=_number(storage_out, "size_kw", 0.0),
        initial_soc_fraction=[float(v) for v in storage_out.get("soc_series_fraction") or []],
        battery_roundtrip_efficiency=roundtrip,
        generator_kw=generator_kw,
        fuel_available_gal=_input(inputs, "Generator", "fuel_avail_gal"),
        generator_efficiency_full_load=full_load,
        generator_efficiency_half_load=_number(generator_in, "electric_efficiency_half_load", full_load),
        fuel_kwh_per_gallon=_input(inputs, "Generator", "fuel_higher_heating_value_kwh_per_gal"),
        generator_min_turndown_fraction=_number(generator_in, "min_turn_down_fraction", 0.15 if off_grid else 0.0),
    )
