"""Typed views of an optimizer run's ``outputs``: ``result.outputs.PV.size_kw`` is a ``float`` to
mypy and IDEs, not ``Any``.

Every section is a `Record` (read-only attribute and item access to the results mapping). The
classes below declare the fields that both the embedded/in-process engine and the live service
report (checked by the tests against a solve and a live results body); any other field is still
read by attribute or item (``outputs.Site.renewable_electricity_fraction``, typed ``Any``). A section or
field the run has not got raises `AttributeError` naming what it has, as before: sections are
present only for the technologies in the scenario.

Several PV arrays: the service's ``outputs.PV`` is then a list of plain dicts (unchanged; typed as
one array for the common case); `Outputs.pv_arrays` gives every array as `PVOutputs` either way.
"""

# No ``from __future__ import annotations``: `Record.__init_subclass__` reads the section classes
# from the annotations themselves.

import inspect
import re
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

__all__ = [
    "Record",
    "Outputs",
    "FinancialOutputs",
    "ElectricTariffOutputs",
    "ElectricUtilityOutputs",
    "ElectricLoadOutputs",
    "PVOutputs",
    "WindOutputs",
    "ElectricStorageOutputs",
    "GeneratorOutputs",
    "SiteOutputs",
    "ExistingBoilerOutputs",
    "BoilerOutputs",
    "CHPOutputs",
    "SteamTurbineOutputs",
    "HeatingLoadOutputs",
    "HotThermalStorageOutputs",
    "HighTempThermalStorageOutputs",
    "ExistingChillerOutputs",
    "AbsorptionChillerOutputs",
    "ElectricHeaterOutputs",
    "ASHPSpaceHeaterOutputs",
    "ASHPWaterHeaterOutputs",
    "CSTOutputs",
    "ColdThermalStorageOutputs",
    "CoolingLoadOutputs",
    "GHPOutputs",
]


class Record(Mapping[str, Any]):
    """Read-only attribute access to a nested results mapping: ``outputs.PV.size_kw``. Users do
    not construct it: `OptimizerResult.outputs` builds one per section of the results."""

    __slots__ = ("_data", "_path")
    #: The typed class of each child mapping, read from the subclass's annotations.
    _sections: ClassVar[dict[str, type["Record"]]] = {}
    #: Declared fields the results hold only for some inputs (as the service's do).
    _optional: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = {
            name: kind
            for name, kind in cls.__dict__.get("__annotations__", {}).items()
            if isinstance(kind, type) and issubclass(kind, Record)
        }
        cls._sections = {**cls._sections, **own}
        if cls.__doc__ is not None and not cls.__name__.startswith("_"):
            cls.__doc__ = _documented(cls)

    def __init__(self, data: Mapping[str, Any], path: str = "") -> None:
        self._data = data
        self._path = path

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            where = self._path or "the results"
            raise AttributeError(f"{where} has no {name!r} (it has: {', '.join(sorted(self._data))})") from None

    def __getitem__(self, key: str) -> Any:
        value = self._data[key]
        if isinstance(value, Mapping):
            return self._sections.get(key, Record)(value, f"{self._path}.{key}" if self._path else key)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __dir__(self) -> list[str]:
        return sorted(self._data)

    def to_dict(self) -> dict[str, Any]:
        """A shallow copy of the section's results as a plain dict.

        Returns
        -------
        dict
            Field name to value in the service's units (kW, kWh, $ ...).
        """
        return dict(self._data)

    def __repr__(self) -> str:
        scalars = {k: v for k, v in self._data.items() if not isinstance(v, (list, Mapping))}
        nested = [k for k, v in self._data.items() if isinstance(v, Mapping)]
        series = [k for k, v in self._data.items() if isinstance(v, list)]
        parts = [f"{k}={v!r}" for k, v in list(scalars.items())[:8]]
        if nested:
            parts.append(f"sections={nested}")
        if series:
            parts.append(f"{len(series)} series")
        return f"Record({self._path or 'outputs'}: {', '.join(parts)})"


#: The unit of a declared output field by the end of its name (its ``_bau`` suffix removed), first
#: match first, with the name's unit word that the description leaves out: the service's units
#: (kW, kWh, $, ...), which the fields' names state.
_UNITS = (
    ("fuel_consumption_series_mmbtu_per_hour", "_mmbtu_per_hour", "[MMBtu] burned in each time step"),
    ("_series_mmbtu_per_hour", "_mmbtu_per_hour", "[MMBtu/h] per time step"),
    ("_mmbtu_per_hour", "_mmbtu_per_hour", "[MMBtu/h]"),
    ("_mmbtu", "_mmbtu", "[MMBtu]"),
    ("_tonnes_CO2", "_tonnes_CO2", "[t CO2]"),
    ("_series_kw", "_kw", "[kW] per time step"),
    ("_series_ton", "_ton", "[ton] per time step"),
    ("_tonhour", "_tonhour", "[ton-hours]"),
    ("_ton", "_ton", "[ton]"),
    ("_series_fraction", "_fraction", "[fraction] per time step"),
    ("production_factor_series", "", "[kW/kW-DC] per time step"),
    ("lcoe_per_kwh", "_per_kwh", "[$/kWh]"),
    ("_kwh", "_kwh", "[kWh]"),
    ("_kw", "_kw", "[kW]"),
    ("_gal", "_gal", "[gal]"),
    ("_years", "_years", "[years]"),
    ("internal_rate_of_return", "", "[fraction]"),
    ("_cashflows", "", "[$] per year, from year 0 to the analysis period"),
    ("_tonnes_CO2", "", "[t]"),
    ("_tonnes_NOx", "", "[t]"),
    ("_tonnes_SO2", "", "[t]"),
    ("_tonnes_PM25", "", "[t]"),
    ("_CO2_fraction", "_fraction", "[fraction]"),
)
#: Fields whose names say money without a unit suffix (costs, bills, benefits, incentives): [$].
_MONEY = re.compile(r"cost|bill|lcc|npv|benefit|incentive|adder|capital|residual_value")
#: Abbreviations of the service's field names, in words.
_WORDS = {"om": "O&M", "lcoe": "levelized cost of energy", "lcc": "life cycle cost", "npv": "net present value",
          "elecbill": "electricity bill", "mg": "microgrid", "soc": "state of charge", "offgrid": "off-grid"}


def _field_description(name: str) -> str:
    """What a declared field holds: its name in words, its unit, and what ``_bau`` means."""
    base = name.removesuffix("_bau")
    suffix, unit_word, unit = next(
        ((suffix, word, unit) for suffix, word, unit in _UNITS if base.endswith(suffix)), ("", "", "[$]" if _MONEY.search(base) else "")
    )
    words = " ".join(_WORDS.get(word.lower(), word) for word in base.removesuffix(unit_word).split("_"))
    text = f"{words[:1].upper()}{words[1:]}{f' {unit}' if unit else ''}."
    if base != name:
        text += " The business-as-usual case's value."
    return text


def _type_name(kind: Any) -> str:
    return kind.__name__ if isinstance(kind, type) and not getattr(kind, "__args__", None) else repr(kind).replace("typing.", "")


def _documented(cls: type["Record"]) -> str:
    """The class's docstring with the sentence that sunflux builds it and an Attributes section
    listing every declared field (its own and its bases'), from the annotations."""
    fields: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        fields.update((name, kind) for name, kind in vars(base).get("__annotations__", {}).items() if not name.startswith("_"))
    lines = [inspect.cleandoc(cls.__doc__ or ""), "", "Users do not construct it: `OptimizerResult.outputs` builds it from the results."]
    if fields:
        lines += ["", "Attributes", "----------"]
        for name, kind in fields.items():
            section = isinstance(kind, type) and issubclass(kind, Record)
            lines += [f"{name} : {_type_name(kind)}", f"    {f'The ``{name}`` section.' if section else _field_description(name)}"]
    return "\n".join(lines)


class FinancialOutputs(Record):
    """``outputs.Financial``: lifecycle costs ($, present value after tax unless named otherwise).
    ``npv`` and the ``_bau`` fields are None without a business-as-usual case (off grid). The pro
    forma (payback in years, IRR as a fraction, the offtaker's free cash flows in $ for years 0 to
    ``analysis_years``) is computed only beside a business-as-usual case: without one the engine
    leaves those fields out. Under third-party ownership the payback and IRR are the developer's,
    ``net_present_cost`` is what the developer must recover (present value at the owner's rates),
    ``annualized_payment_to_third_party`` the offtaker's yearly payment that recovers it, and the
    offtaker's flows are before tax (the discounted ones empty, as the service); with direct
    ownership the two are 0 and ``developer_annual_free_cashflows`` is empty."""

    __slots__ = ()
    lcc: float
    lcc_bau: float | None
    npv: float | None
    initial_capital_costs: float
    initial_capital_costs_after_incentives: float
    lifecycle_capital_costs: float
    lifecycle_capital_costs_plus_om_after_tax: float
    lifecycle_generation_tech_capital_costs: float
    lifecycle_storage_capital_costs: float
    lifecycle_om_costs_before_tax: float
    lifecycle_om_costs_after_tax: float
    lifecycle_om_costs_before_tax_bau: float | None
    lifecycle_om_costs_after_tax_bau: float | None
    year_one_om_costs_before_tax: float
    year_one_om_costs_after_tax: float
    year_one_om_costs_before_tax_bau: float | None
    lifecycle_elecbill_after_tax: float
    lifecycle_fuel_costs_after_tax: float
    lifecycle_production_incentive_after_tax: float
    lifecycle_chp_standby_cost_after_tax: float
    lifecycle_outage_cost: float
    lifecycle_MG_upgrade_and_fuel_cost: float
    lifecycle_offgrid_other_annual_costs_after_tax: float
    lifecycle_offgrid_other_capital_costs: float
    replacements_present_cost_after_tax: float
    replacements_future_cost_after_tax: float
    om_and_replacement_present_cost_after_tax: float
    developer_om_and_replacement_present_cost_after_tax: float
    simple_payback_years: float
    internal_rate_of_return: float
    offtaker_annual_free_cashflows: list[float]
    offtaker_annual_free_cashflows_bau: list[float]
    offtaker_discounted_annual_free_cashflows: list[float]
    offtaker_discounted_annual_free_cashflows_bau: list[float]
    net_present_cost: float
    annualized_payment_to_third_party: float
    developer_annual_free_cashflows: list[float]
    lifecycle_emissions_cost_climate: float | None
    lifecycle_emissions_cost_climate_bau: float | None
    lifecycle_emissions_cost_health: float | None
    lifecycle_emissions_cost_health_bau: float | None


class ElectricTariffOutputs(Record):
    """``outputs.ElectricTariff``: the bill's parts in year one ($, before tax) and over the
    analysis period ($, present value after tax), each with its business-as-usual twin."""

    __slots__ = ()
    year_one_bill_before_tax: float
    year_one_bill_before_tax_bau: float | None
    year_one_energy_cost_before_tax: float
    year_one_energy_cost_before_tax_bau: float | None
    year_one_demand_cost_before_tax: float
    year_one_demand_cost_before_tax_bau: float | None
    year_one_fixed_cost_before_tax: float
    year_one_fixed_cost_before_tax_bau: float | None
    year_one_min_charge_adder_before_tax: float
    year_one_min_charge_adder_before_tax_bau: float | None
    year_one_coincident_peak_cost_before_tax: float
    year_one_coincident_peak_cost_before_tax_bau: float | None
    year_one_export_benefit_before_tax: float
    year_one_export_benefit_before_tax_bau: float | None
    lifecycle_energy_cost_after_tax: float
    lifecycle_energy_cost_after_tax_bau: float | None
    lifecycle_demand_cost_after_tax: float
    lifecycle_demand_cost_after_tax_bau: float | None
    lifecycle_fixed_cost_after_tax: float
    lifecycle_fixed_cost_after_tax_bau: float | None
    lifecycle_min_charge_adder_after_tax: float
    lifecycle_min_charge_adder_after_tax_bau: float | None
    lifecycle_coincident_peak_cost_after_tax: float
    lifecycle_coincident_peak_cost_after_tax_bau: float | None
    lifecycle_export_benefit_after_tax: float
    lifecycle_export_benefit_after_tax_bau: float | None


class _EmissionsOutputs(Record):
    """The emissions totals the grid and the whole site both report (tonnes of CO2, NOx, SO2 and
    PM2.5; ``lifecycle_`` over the analysis years, ``annual_`` its average per year), each with its
    business-as-usual twin."""

    __slots__ = ()
    annual_emissions_tonnes_CO2: float | None
    annual_emissions_tonnes_CO2_bau: float | None
    annual_emissions_tonnes_NOx: float | None
    annual_emissions_tonnes_NOx_bau: float | None
    annual_emissions_tonnes_SO2: float | None
    annual_emissions_tonnes_SO2_bau: float | None
    annual_emissions_tonnes_PM25: float | None
    annual_emissions_tonnes_PM25_bau: float | None
    lifecycle_emissions_tonnes_CO2: float | None
    lifecycle_emissions_tonnes_CO2_bau: float | None
    lifecycle_emissions_tonnes_NOx: float | None
    lifecycle_emissions_tonnes_NOx_bau: float | None
    lifecycle_emissions_tonnes_SO2: float | None
    lifecycle_emissions_tonnes_SO2_bau: float | None
    lifecycle_emissions_tonnes_PM25: float | None
    lifecycle_emissions_tonnes_PM25_bau: float | None


class ElectricUtilityOutputs(_EmissionsOutputs):
    """``outputs.ElectricUtility``: what the grid supplies (kW per time step, kWh a year) and the
    emissions of what is bought (net of exports when ``Site.include_exported_elec_emissions_in_total``).
    The local engine leaves a pollutant's emissions None when its
    ``emissions_factor_series_lb_*_per_kwh`` is not given (the service takes it from Cambium or
    AVERT)."""

    __slots__ = ()
    electric_to_load_series_kw: list[float]
    electric_to_load_series_kw_bau: list[float] | None
    electric_to_storage_series_kw: list[float]
    annual_energy_supplied_kwh: float
    annual_energy_supplied_kwh_bau: float | None


class ElectricLoadOutputs(Record):
    """``outputs.ElectricLoad``: the load modelled (kW per time step) and its annual energy."""

    __slots__ = ()
    load_series_kw: list[float]
    critical_load_series_kw: list[float]
    annual_calculated_kwh: float


class _RenewableOutputs(Record):
    """The fields PV arrays and Wind share."""

    __slots__ = ()
    size_kw: float
    electric_to_load_series_kw: list[float]
    electric_to_storage_series_kw: list[float]
    electric_to_grid_series_kw: list[float]
    electric_curtailed_series_kw: list[float]
    annual_energy_produced_kwh: float
    annual_energy_produced_kwh_bau: float | None
    year_one_energy_produced_kwh: float
    year_one_energy_produced_kwh_bau: float | None
    annual_energy_exported_kwh: float
    lifecycle_om_cost_after_tax: float
    lifecycle_om_cost_after_tax_bau: float | None
    lcoe_per_kwh: float
    production_factor_series: list[float]


class PVOutputs(_RenewableOutputs):
    """One PV array's results (``outputs.PV``, or one item of `Outputs.pv_arrays`): size (kW DC),
    its flows (kW per time step) and energy (kWh). The ``_bau`` fields are None without existing PV."""

    __slots__ = ()
    name: str


class WindOutputs(_RenewableOutputs):
    """``outputs.Wind``: size (kW), flows and energy as a PV array's."""

    __slots__ = ()


class ElectricStorageOutputs(Record):
    """``outputs.ElectricStorage``: power (kW) and energy (kWh) sizes, state of charge and discharge
    per time step (empty lists when nothing is built). With ``model_degradation`` and storage
    built, also the state of health at the start of each day of the analysis period (fraction of
    the size), the maintenance cost and the residual value ($ present value); with the
    ``replacement`` strategy also the month of the first replacement (0 for none) and the healthy
    kWh left at the end. Without them those fields are absent (`AttributeError`), as in the
    service's results."""

    __slots__ = ()
    _optional = frozenset({"state_of_health", "maintenance_cost", "residual_value", "replacement_month", "total_residual_kwh"})
    size_kw: float
    size_kwh: float
    soc_series_fraction: list[float]
    storage_to_load_series_kw: list[float]
    initial_capital_cost: float
    state_of_health: list[float]
    maintenance_cost: float
    residual_value: float
    replacement_month: float
    total_residual_kwh: float


class GeneratorOutputs(Record):
    """``outputs.Generator``: size (kW), fuel (gal a year) and costs ($), flows (kW per time step)."""

    __slots__ = ()
    size_kw: float
    annual_fuel_consumption_gal: float
    annual_fuel_consumption_gal_bau: float | None
    annual_energy_produced_kwh: float
    lifecycle_fuel_cost_after_tax: float
    lifecycle_fuel_cost_after_tax_bau: float | None
    year_one_fuel_cost_before_tax: float
    year_one_fuel_cost_after_tax: float
    lifecycle_fixed_om_cost_after_tax: float
    year_one_fixed_om_cost_before_tax: float
    lifecycle_variable_om_cost_after_tax: float
    year_one_variable_om_cost_before_tax: float
    electric_to_load_series_kw: list[float]
    electric_to_storage_series_kw: list[float]
    electric_to_grid_series_kw: list[float]
    electric_curtailed_series_kw: list[float]


class SiteOutputs(_EmissionsOutputs):
    """``outputs.Site``: emissions of the grid purchases and the fuel burned on site (tonnes) and
    the CO2 reduction from the business-as-usual case (a fraction; only beside one). Fuel burned
    on site is the generator's, the boilers' and the CHP's. The local engine leaves the totals
    None when a grid factor series is not given. Other fields (renewable electricity and energy)
    are read as before, typed ``Any``."""

    __slots__ = ()
    annual_emissions_from_fuelburn_tonnes_CO2: float | None
    annual_emissions_from_fuelburn_tonnes_CO2_bau: float | None
    annual_emissions_from_fuelburn_tonnes_NOx: float | None
    annual_emissions_from_fuelburn_tonnes_NOx_bau: float | None
    annual_emissions_from_fuelburn_tonnes_SO2: float | None
    annual_emissions_from_fuelburn_tonnes_SO2_bau: float | None
    annual_emissions_from_fuelburn_tonnes_PM25: float | None
    annual_emissions_from_fuelburn_tonnes_PM25_bau: float | None
    lifecycle_emissions_from_fuelburn_tonnes_CO2: float | None
    lifecycle_emissions_from_fuelburn_tonnes_CO2_bau: float | None
    lifecycle_emissions_from_fuelburn_tonnes_NOx: float | None
    lifecycle_emissions_from_fuelburn_tonnes_NOx_bau: float | None
    lifecycle_emissions_from_fuelburn_tonnes_SO2: float | None
    lifecycle_emissions_from_fuelburn_tonnes_SO2_bau: float | None
    lifecycle_emissions_from_fuelburn_tonnes_PM25: float | None
    lifecycle_emissions_from_fuelburn_tonnes_PM25_bau: float | None
    lifecycle_emissions_reduction_CO2_fraction: float | None


class _BoilerOutputs(Record):
    """What both boilers report: size, fuel burned and heat made, where the heat went (MMBtu/h per
    time step; the fuel series is MMBtu burned in each step, as the service writes it) and fuel
    costs ($)."""

    __slots__ = ()
    size_mmbtu_per_hour: float
    fuel_consumption_series_mmbtu_per_hour: list[float]
    annual_fuel_consumption_mmbtu: float
    thermal_production_series_mmbtu_per_hour: list[float]
    annual_thermal_production_mmbtu: float
    thermal_to_load_series_mmbtu_per_hour: list[float]
    thermal_to_storage_series_mmbtu_per_hour: list[float]
    thermal_to_steamturbine_series_mmbtu_per_hour: list[float]
    thermal_to_space_heating_load_series_mmbtu_per_hour: list[float]
    thermal_to_dhw_load_series_mmbtu_per_hour: list[float]
    thermal_to_process_heat_load_series_mmbtu_per_hour: list[float]
    lifecycle_fuel_cost_after_tax: float
    year_one_fuel_cost_before_tax: float
    year_one_fuel_cost_after_tax: float


class ExistingBoilerOutputs(_BoilerOutputs):
    """``outputs.ExistingBoiler``: the existing boiler in the optimal case; the business-as-usual
    values have the ``_bau`` suffix."""

    __slots__ = ()
    annual_fuel_consumption_mmbtu_bau: float | None
    annual_thermal_production_mmbtu_bau: float | None
    lifecycle_fuel_cost_after_tax_bau: float | None


class BoilerOutputs(_BoilerOutputs):
    """``outputs.Boiler``: the new boiler (optimal case only)."""

    __slots__ = ()
    lifecycle_per_unit_prod_om_costs: float


class CHPOutputs(Record):
    """``outputs.CHP``: the combined heat and power system's size (kW electric) and supplementary
    firing size, fuel burned (MMBtu a year), electricity (kW per time step, kWh a year) and heat
    (MMBtu/h per time step, MMBtu a year) and where they went, fuel and standby costs ($) and its
    initial capital cost. As the service writes them, ``thermal_production_series`` and
    ``thermal_to_load_series`` count the supplementary firing's heat twice; the curtailed series
    is heat wasted."""

    __slots__ = ()
    size_kw: float
    size_supplemental_firing_kw: float
    annual_fuel_consumption_mmbtu: float
    annual_electric_production_kwh: float
    annual_thermal_production_mmbtu: float
    thermal_production_series_mmbtu_per_hour: list[float]
    electric_production_series_kw: list[float]
    electric_to_grid_series_kw: list[float]
    electric_to_storage_series_kw: list[float]
    electric_to_load_series_kw: list[float]
    thermal_to_storage_series_mmbtu_per_hour: list[float]
    thermal_curtailed_series_mmbtu_per_hour: list[float]
    thermal_to_steamturbine_series_mmbtu_per_hour: list[float]
    thermal_to_load_series_mmbtu_per_hour: list[float]
    thermal_to_dhw_load_series_mmbtu_per_hour: list[float]
    thermal_to_space_heating_load_series_mmbtu_per_hour: list[float]
    thermal_to_process_heat_load_series_mmbtu_per_hour: list[float]
    year_one_fuel_cost_before_tax: float
    year_one_fuel_cost_after_tax: float
    lifecycle_fuel_cost_after_tax: float
    year_one_standby_cost_before_tax: float
    year_one_standby_cost_after_tax: float
    lifecycle_standby_cost_after_tax: float
    initial_capital_costs: float


class SteamTurbineOutputs(Record):
    """``outputs.SteamTurbine``: the steam turbine's size (kW electric), the boilers' steam it
    consumed (MMBtu/h per time step, MMBtu a year), its electricity (kW per time step, kWh a year)
    and its exhaust heat (MMBtu/h per time step, MMBtu a year), and where they went."""

    __slots__ = ()
    size_kw: float
    annual_thermal_consumption_mmbtu: float
    annual_electric_production_kwh: float
    annual_thermal_production_mmbtu: float
    thermal_consumption_series_mmbtu_per_hour: list[float]
    electric_production_series_kw: list[float]
    electric_to_grid_series_kw: list[float]
    electric_to_storage_series_kw: list[float]
    electric_to_load_series_kw: list[float]
    thermal_to_storage_series_mmbtu_per_hour: list[float]
    thermal_to_high_temp_thermal_storage_series_mmbtu_per_hour: list[float]
    thermal_to_load_series_mmbtu_per_hour: list[float]
    thermal_to_dhw_load_series_mmbtu_per_hour: list[float]
    thermal_to_space_heating_load_series_mmbtu_per_hour: list[float]
    thermal_to_process_heat_load_series_mmbtu_per_hour: list[float]


class HotThermalStorageOutputs(Record):
    """``outputs.HotThermalStorage``: the hot-water tank's size (kWh of heat and gallons), state of
    charge, heat to load and to the steam turbine per time step (empty lists when nothing is
    built)."""

    __slots__ = ()
    size_kwh: float
    size_gal: float
    soc_series_fraction: list[float]
    storage_to_load_series_mmbtu_per_hour: list[float]
    storage_to_turbine_series_mmbtu_per_hour: list[float]


class HighTempThermalStorageOutputs(Record):
    """``outputs.HighTempThermalStorage``: the high-temperature storage's size (kWh of heat), state
    of charge, heat to load and to the steam turbine per time step (empty lists when nothing is
    built)."""

    __slots__ = ()
    size_kwh: float
    soc_series_fraction: list[float]
    storage_to_load_series_mmbtu_per_hour: list[float]
    storage_to_turbine_series_mmbtu_per_hour: list[float]


class HeatingLoadOutputs(Record):
    """``outputs.HeatingLoad``: the heating loads as heat (thermal) and as the existing boiler's
    fuel (MMBtu/h per time step, MMBtu a year)."""

    __slots__ = ()
    space_heating_thermal_load_series_mmbtu_per_hour: list[float]
    dhw_thermal_load_series_mmbtu_per_hour: list[float]
    process_heat_thermal_load_series_mmbtu_per_hour: list[float]
    total_heating_thermal_load_series_mmbtu_per_hour: list[float]
    total_heating_boiler_fuel_load_series_mmbtu_per_hour: list[float]
    annual_calculated_total_heating_thermal_load_mmbtu: float
    annual_calculated_total_heating_boiler_fuel_load_mmbtu: float
    annual_total_unaddressable_heating_load_mmbtu: float


class ExistingChillerOutputs(Record):
    """``outputs.ExistingChiller``: the existing electric chiller in the optimal case, cooling in
    tons (1 ton = 3.51685 kW of cooling) per time step and ton-hours a year, its electricity in kW
    and kWh; the business-as-usual values have the ``_bau`` suffix (None without that case)."""

    __slots__ = ()
    size_ton: float
    thermal_to_load_series_ton: list[float]
    thermal_to_storage_series_ton: list[float]
    electric_consumption_series_kw: list[float]
    annual_electric_consumption_kwh: float
    annual_thermal_production_tonhour: float
    size_ton_bau: float | None
    annual_electric_consumption_kwh_bau: float | None
    annual_thermal_production_tonhour_bau: float | None


class AbsorptionChillerOutputs(Record):
    """``outputs.AbsorptionChiller``: the heat-driven chiller's size (kW of cooling and tons), its
    cooling to load and to the chilled-water tank (tons per time step, ton-hours a year), the heat
    it draws from its heating load (MMBtu/h, MMBtu a year) and its electricity (kW, kWh)."""

    __slots__ = ()
    size_kw: float
    size_ton: float
    thermal_to_load_series_ton: list[float]
    thermal_to_storage_series_ton: list[float]
    thermal_consumption_series_mmbtu_per_hour: list[float]
    annual_thermal_consumption_mmbtu: float
    annual_thermal_production_tonhour: float
    electric_consumption_series_kw: list[float]
    annual_electric_consumption_kwh: float


class ElectricHeaterOutputs(Record):
    """``outputs.ElectricHeater``: the electric heater's size (MMBtu/h of heat), its electricity
    (kW per time step, kWh a year) and its heat (MMBtu/h per time step, MMBtu a year) to storage,
    to load and to each heating load."""

    __slots__ = ()
    size_mmbtu_per_hour: float
    electric_consumption_series_kw: list[float]
    annual_electric_consumption_kwh: float
    thermal_production_series_mmbtu_per_hour: list[float]
    annual_thermal_production_mmbtu: float
    thermal_to_storage_series_mmbtu_per_hour: list[float]
    thermal_to_load_series_mmbtu_per_hour: list[float]
    thermal_to_dhw_load_series_mmbtu_per_hour: list[float]
    thermal_to_space_heating_load_series_mmbtu_per_hour: list[float]
    thermal_to_process_heat_load_series_mmbtu_per_hour: list[float]


class ASHPSpaceHeaterOutputs(Record):
    """``outputs.ASHPSpaceHeater``: the air-source heat pump's size (tons, the sizing factor
    applied), its electricity (kW per time step, kWh a year; in all, for heating and for
    cooling), its heat to storage and to the space heating load (MMBtu/h per time step, MMBtu a
    year), its cooling to the chilled-water tank and to the cooling load (tons per time step,
    ton-hours a year; zeros when it does not cool), and the heating and cooling COP and capacity
    factor of each time step at the outdoor temperature."""

    __slots__ = ()
    size_ton: float
    electric_consumption_series_kw: list[float]
    annual_electric_consumption_kwh: float
    electric_consumption_for_heating_series_kw: list[float]
    electric_consumption_for_cooling_series_kw: list[float]
    annual_electric_consumption_for_heating_kwh: float
    annual_electric_consumption_for_cooling_kwh: float
    thermal_production_series_mmbtu_per_hour: list[float]
    annual_thermal_production_mmbtu: float
    thermal_to_storage_series_mmbtu_per_hour: list[float]
    thermal_to_load_series_mmbtu_per_hour: list[float]
    thermal_to_space_heating_load_series_mmbtu_per_hour: list[float]
    thermal_to_storage_series_ton: list[float]
    thermal_to_load_series_ton: list[float]
    annual_thermal_production_tonhour: float
    heating_cop: list[float]
    heating_cf: list[float]
    cooling_cop: list[float]
    cooling_cf: list[float]


class ASHPWaterHeaterOutputs(Record):
    """``outputs.ASHPWaterHeater``: the air-source water heater's size (tons, the sizing factor
    applied), its electricity (kW per time step, kWh a year), its heat to storage and to the hot
    water load (MMBtu/h per time step, MMBtu a year), and the COP and capacity factor of each time
    step at the outdoor temperature."""

    __slots__ = ()
    size_ton: float
    electric_consumption_series_kw: list[float]
    annual_electric_consumption_kwh: float
    thermal_production_series_mmbtu_per_hour: list[float]
    annual_thermal_production_mmbtu: float
    thermal_to_storage_series_mmbtu_per_hour: list[float]
    thermal_to_load_series_mmbtu_per_hour: list[float]
    thermal_to_dhw_load_series_mmbtu_per_hour: list[float]
    heating_cop: list[float]
    heating_cf: list[float]


class CSTOutputs(Record):
    """``outputs.CST``: the concentrating solar thermal system's size (kW and MMBtu/h of heat),
    its electricity (kW per time step, kWh a year), and its heat (MMBtu/h per time step, MMBtu a
    year) to storage (and of that to the high-temperature storage), to a steam turbine, wasted,
    to load and to each heating load."""

    __slots__ = ()
    size_kw: float
    size_mmbtu_per_hour: float
    electric_consumption_series_kw: list[float]
    annual_electric_consumption_kwh: float
    thermal_production_series_mmbtu_per_hour: list[float]
    annual_thermal_production_mmbtu: float
    thermal_to_storage_series_mmbtu_per_hour: list[float]
    thermal_to_high_temp_thermal_storage_series_mmbtu_per_hour: list[float]
    thermal_to_steamturbine_series_mmbtu_per_hour: list[float]
    thermal_curtailed_series_mmbtu_per_hour: list[float]
    thermal_to_load_series_mmbtu_per_hour: list[float]
    thermal_to_dhw_load_series_mmbtu_per_hour: list[float]
    thermal_to_space_heating_load_series_mmbtu_per_hour: list[float]
    thermal_to_process_heat_load_series_mmbtu_per_hour: list[float]


class ColdThermalStorageOutputs(Record):
    """``outputs.ColdThermalStorage``: the chilled-water tank's size (gallons), state of charge and
    cooling to load (tons) per time step (empty lists when nothing is built)."""

    __slots__ = ()
    size_gal: float
    soc_series_fraction: list[float]
    storage_to_load_series_ton: list[float]


class CoolingLoadOutputs(Record):
    """``outputs.CoolingLoad``: the cooling load in tons per time step and ton-hours a year, and the
    existing chiller's electricity to serve it all (kW, kWh), which is part of ``ElectricLoad``."""

    __slots__ = ()
    load_series_ton: list[float]
    electric_chiller_base_load_series_kw: list[float]
    annual_calculated_tonhour: float
    annual_electric_chiller_base_load_kwh: float


class GHPOutputs(Record):
    """``outputs.GHP``: the geothermal heat pump design chosen among the given GhpGhx responses
    (``ghp_option_chosen``, 1-based; 0 for none) and that response's outputs, the load reductions of
    the retrofit and the heating (MMBtu/h) and cooling (tons) it serves per time step, with its
    heat pump size (tons) and the GHX's residual value when a design is chosen."""

    __slots__ = ()
    _optional = frozenset({"size_heat_pump_ton", "size_wwhp_heating_pump_ton", "size_wwhp_cooling_pump_ton",
                           "avoided_capex_by_ghp_present_value"})
    ghp_option_chosen: int
    ghpghx_chosen_outputs: dict[str, Any]
    size_heat_pump_ton: float
    size_wwhp_heating_pump_ton: float
    size_wwhp_cooling_pump_ton: float
    avoided_capex_by_ghp_present_value: float
    ghx_residual_value_present_value: float
    space_heating_thermal_load_reduction_with_ghp_mmbtu_per_hour: list[float]
    cooling_thermal_load_reduction_with_ghp_ton: list[float]
    thermal_to_space_heating_load_series_mmbtu_per_hour: list[float]
    thermal_to_dhw_load_series_mmbtu_per_hour: list[float]
    thermal_to_load_series_ton: list[float]
    annual_thermal_production_mmbtu: float
    annual_thermal_production_tonhour: float


class Outputs(Record):
    """``result.outputs``: one typed record per section. ``Financial``, ``ElectricTariff``,
    ``ElectricUtility``, ``ElectricLoad`` and ``Site`` are there for every optimal run; a
    technology's section only when the scenario has it (else `AttributeError`)."""

    __slots__ = ()
    Financial: FinancialOutputs
    ElectricTariff: ElectricTariffOutputs
    ElectricUtility: ElectricUtilityOutputs
    ElectricLoad: ElectricLoadOutputs
    Site: SiteOutputs
    PV: PVOutputs
    Wind: WindOutputs
    ElectricStorage: ElectricStorageOutputs
    Generator: GeneratorOutputs
    ExistingBoiler: ExistingBoilerOutputs
    Boiler: BoilerOutputs
    HeatingLoad: HeatingLoadOutputs
    HotThermalStorage: HotThermalStorageOutputs
    HighTempThermalStorage: HighTempThermalStorageOutputs
    ExistingChiller: ExistingChillerOutputs
    AbsorptionChiller: AbsorptionChillerOutputs
    ColdThermalStorage: ColdThermalStorageOutputs
    CoolingLoad: CoolingLoadOutputs
    CHP: CHPOutputs
    SteamTurbine: SteamTurbineOutputs
    GHP: GHPOutputs
    ElectricHeater: ElectricHeaterOutputs
    ASHPSpaceHeater: ASHPSpaceHeaterOutputs
    ASHPWaterHeater: ASHPWaterHeaterOutputs
    CST: CSTOutputs

    def pv_arrays(self) -> list[PVOutputs]:
        """Every PV array's results, in order: one for a single array (``outputs.PV``), each item
        of the list the service gives for several, none without PV."""
        value = self._data.get("PV")
        if isinstance(value, Mapping):
            return [PVOutputs(value, "outputs.PV")]
        if isinstance(value, list):
            return [PVOutputs(item, f"outputs.PV[{index}]") for index, item in enumerate(value) if isinstance(item, Mapping)]
        return []
