"""The optimizer scenario builder: typed sections, validation and lossless JSON round trips.

::

    from sunflux.optimizer import Scenario, Site, PV, ElectricLoad, ElectricTariff

    scenario = (
        Scenario(site=Site(latitude=39.74, longitude=-105.17))
        .with_load(ElectricLoad.flat(annual_kwh=1_000_000))
        .with_tariff(ElectricTariff.blended(energy_rate=0.12, demand_rate=15.0))
        .with_pv(max_kw=500)
        .with_storage(max_kwh=2_000)
    )
    scenario.check()            # raises ParameterError listing every problem
    text = scenario.to_json()

``validate_scenario_dict(d)`` applies the same rules to a plain dict without building classes;
``solve(scenario)`` and ``solve_many(scenarios)`` optimize in this process (no service);
``trough_production_factor(weather)`` computes a CST production factor from a weather year (the
service computes it with SAM; ``solve`` needs it given); ``result.summary()`` and
``summaries(results)`` give one row per run (sizes, costs, bills) as a polars frame, and
`sunflux.optimizer.outputs` types ``result.outputs``.
"""

from sunflux._errors import ParameterError
from sunflux.optimizer._base import UNSET, FieldInfo, Section, UnknownFieldWarning, Unset
from sunflux.optimizer._fields import SECTIONS
from sunflux.optimizer.cst import trough_production_factor
from sunflux.optimizer.jobs import OptimizerResult
from sunflux.optimizer.outages import simulate_outages
from sunflux.optimizer.scenario import Difference, Scenario
from sunflux.optimizer.solving import solve, solve_many
from sunflux.optimizer import outputs, sections
from sunflux.optimizer._summary import summaries
from sunflux.optimizer.sections import *  # noqa: F403 (one class per schema section)
from sunflux.optimizer.validation import (
    Problem,
    input_errors,
    validate_scenario_dict,
    validate_section_dict,
)

__all__ = [
    "Scenario",
    "solve",
    "solve_many",
    "OptimizerResult",
    "summaries",
    "simulate_outages",
    "trough_production_factor",
    "Difference",
    "Problem",
    "ParameterError",
    "UnknownFieldWarning",
    "validate_scenario_dict",
    "validate_section_dict",
    "input_errors",
    "Section",
    "FieldInfo",
    "SECTIONS",
    "UNSET",
    "Unset",
]
__all__ += sections.__all__
