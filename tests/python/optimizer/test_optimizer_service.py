"""Optimizer jobs end to end: the client against the embedded optimizer (validation, job states,
HTTP codes, timeouts, route profiles, the async client) and optimality checks read from the
results JSON that cannot pass by accident.

Optimality (each solve goes through POST, the background job and the results body):

- PV with zero cost and net metering is built to its maximum; PV priced 10 % below the present
  value of the energy one kW saves is built to its maximum too, and PV priced 10 % above it is
  not built. That present value is computed here from the production factor the service reports:
  ``V = pwf_e · (1 − τ) · Δ · Σ_t pf_t · r_t`` with ``pwf_e = Σ_{y=1..N} ((1+e)/(1+d))^y``. Below
  net zero every kWh is worth between 0.999 r_t (net-metered export) and r_t (used on site),
  so one kW is worth between 0.999 V and V, and the 10 % margins decide the size.
- The same storage, on the same peaky load, is not built under a flat energy rate and is built
  under a demand charge and under a time-of-use spread.
- Energy balance every time step: load = grid to load + PV to load + storage to load; PV
  production = PV to load + to storage + to grid + curtailed; the state of charge follows
  charge and discharge with the efficiencies.
- ``Financial.lcc`` equals a lifecycle cost recomputed here, year by year, from the returned
  sizes and series (`recomputed_lifecycle_cost`), and ``lcc_bau`` one recomputed from the load
  and the tariff; ``npv == lcc_bau − lcc``.

The loopback-stub tests of the same client states are in test_optimizer_jobs.py.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import polars as pl
import pytest

import sunflux as sf
from sunflux.optimizer import (
    ElectricLoad,
    ElectricStorage,
    ElectricTariff,
    ElectricUtility,
    Financial,
    Generator,
    Scenario,
    Site,
    Wind,
    input_errors,
    validate_scenario_dict,
)
from sunflux.optimizer.jobs import OptimizerResult

SITE = Site(latitude=39.74, longitude=-105.17)
HOURS = 8760
FAILED = "An error occurred. See messages for more."
#: A load of 40 kW with a 120 kW peak from 16:00 to 20:00 every day (kW, hourly).
PEAKY_LOAD = [120.0 if 16 <= hour % 24 < 20 else 40.0 for hour in range(HOURS)]
#: $/kWh by hour of day: cheap except 16:00-20:00.
TOU_DAY = [0.06] * 16 + [0.40] * 4 + [0.06] * 4
FLAT_RATE = 0.12
DEMAND_RATE = 15.0
#: Storage prices that the demand charge and the TOU spread of these tariffs repay.
STORAGE: dict[str, Any] = {
    "max_kw": 200,
    "max_kwh": 1000,
    "installed_cost_per_kw": 300.0,
    "installed_cost_per_kwh": 200.0,
    "installed_cost_constant": 0.0,
}
#: Financial inputs of the PV break-even scenarios: no tax incentive, so a kW costs its price.
PV_FINANCE = Financial(
    analysis_years=20,
    elec_cost_escalation_rate_fraction=0.02,
    om_cost_escalation_rate_fraction=0.025,
    offtaker_discount_rate_fraction=0.07,
    offtaker_tax_rate_fraction=0.25,
)
pytestmark = pytest.mark.slow  # optimizer solves

PV_MAX_KW = 150  # below the load's net-zero size (500 MWh a year), so every kW is worth V
PV_PRICE_MARGIN = 0.10
#: IRS MACRS half-year-convention schedules (fraction of the depreciable basis by year).
MACRS = {
    5: [0.2, 0.32, 0.192, 0.1152, 0.1152, 0.0576],
    7: [0.1429, 0.2449, 0.1749, 0.1249, 0.0893, 0.0892, 0.0893, 0.0446],
}
PV_CASH_INCENTIVES = ("state_ibi_fraction", "utility_ibi_fraction", "federal_rebate_per_kw", "state_rebate_per_kw", "utility_rebate_per_kw")
#: $: lcc is rounded to cents, sizes and series to 6 decimals (a size error of 0.5e-6 kW is worth
#: under a tenth of a cent at these prices) before they reach the recomputation.
LIFECYCLE_TOLERANCE = 0.10
#: Every series of the results is rounded to 6 decimals and flows below 1e-6 kW are reported as 0,
#: so a sum of four reported flows can be off by 4 · 0.5e-6 + 1e-6 kW.
BALANCE_TOLERANCE_KW = 3e-6


def solve(client: sf.Client, scenario: Scenario | Mapping[str, Any]) -> OptimizerResult:
    return client.optimizer.run(scenario, timeout=120, poll_interval=0.05, max_interval=0.2)


def tiny_scenario() -> Scenario:
    """No technology to size: a solve of a tenth of a second."""
    return (
        Scenario(site=SITE)
        .with_load(ElectricLoad.flat(annual_kwh=100_000))
        .with_tariff(ElectricTariff.blended(energy_rate=FLAT_RATE, demand_rate=DEMAND_RATE))
    )


def peaky_load(steps_per_hour: int) -> ElectricLoad:
    return ElectricLoad(loads_kw=[kw for kw in PEAKY_LOAD for _ in range(steps_per_hour)], year=2017)


def storage_scenario(tariff: ElectricTariff, steps_per_hour: int = 1) -> Scenario:
    return (
        Scenario(site=SITE)
        .with_settings(time_steps_per_hour=steps_per_hour)
        .with_load(peaky_load(steps_per_hour))
        .with_tariff(tariff)
        .with_storage(**STORAGE)
    )


def pv_scenario(installed_cost_per_kw: float) -> Scenario:
    """Flat load, flat rate, net metering up to 1 GW, PV without tax incentives or degradation."""
    return (
        Scenario(site=SITE, financial=PV_FINANCE)
        .with_load(ElectricLoad.flat(annual_kwh=500_000))
        .with_tariff(ElectricTariff.blended(energy_rate=FLAT_RATE))
        .with_section(ElectricUtility(net_metering_limit_kw=1e6))
        .with_pv(
            max_kw=PV_MAX_KW,
            installed_cost_per_kw=installed_cost_per_kw,
            om_cost_per_kw=0.0,
            degradation_fraction=0.0,
            federal_itc_fraction=0.0,
            macrs_option_years=0,
        )
    )


def reference_scenario(steps_per_hour: int = 1) -> Scenario:
    """PV + storage on the peaky load with TOU energy, demand charges, a wholesale export rate,
    explicit financials and both MACRS schedules."""
    tariff = ElectricTariff.tou(TOU_DAY, time_steps_per_hour=steps_per_hour)
    tariff.monthly_demand_rates = [DEMAND_RATE] * 12
    tariff.wholesale_rate = 0.03
    return (
        Scenario(
            site=SITE,
            financial=Financial(
                analysis_years=20,
                elec_cost_escalation_rate_fraction=0.02,
                om_cost_escalation_rate_fraction=0.025,
                offtaker_discount_rate_fraction=0.07,
                offtaker_tax_rate_fraction=0.25,
            ),
        )
        .with_settings(time_steps_per_hour=steps_per_hour)
        .with_load(peaky_load(steps_per_hour))
        .with_tariff(tariff)
        .with_pv(
            max_kw=300,
            installed_cost_per_kw=1200.0,
            om_cost_per_kw=15.0,
            degradation_fraction=0.0,
            federal_itc_fraction=0.3,
            macrs_option_years=5,
            macrs_bonus_fraction=0.4,
            macrs_itc_reduction=0.5,
        )
        .with_storage(
            ElectricStorage(
                **STORAGE,
                total_itc_fraction=0.3,
                macrs_option_years=7,
                macrs_bonus_fraction=0.0,
                om_cost_fraction_of_installed_cost=0.025,
            )
        )
    )


# ------------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def optimizer_service() -> Iterator[sf.LocalService]:
    with sf.LocalService() as svc:
        yield svc


@pytest.fixture(scope="module")
def optimizer_client(optimizer_service: sf.LocalService) -> sf.Client:
    return optimizer_service.client()


@pytest.fixture(scope="module")
def free_pv(optimizer_client: sf.Client) -> OptimizerResult:
    return solve(optimizer_client, pv_scenario(installed_cost_per_kw=0.0))


def value_of_one_pv_kw(result: OptimizerResult) -> float:
    """``V``: present value after tax of the retail energy one kW of PV produces (see above)."""
    finance = result.inputs.Financial
    factor = present_worth_factor(
        finance.analysis_years, finance.elec_cost_escalation_rate_fraction, finance.offtaker_discount_rate_fraction
    )
    steps_per_hour = result.inputs.Settings.time_steps_per_hour
    year_one = sum(result.outputs.PV.production_factor_series) * FLAT_RATE / steps_per_hour
    return factor * (1 - finance.offtaker_tax_rate_fraction) * year_one


@pytest.fixture(scope="module")
def pv_below_break_even(optimizer_client: sf.Client, free_pv: OptimizerResult) -> OptimizerResult:
    return solve(optimizer_client, pv_scenario((1 - PV_PRICE_MARGIN) * value_of_one_pv_kw(free_pv)))


@pytest.fixture(scope="module")
def pv_above_break_even(optimizer_client: sf.Client, free_pv: OptimizerResult) -> OptimizerResult:
    return solve(optimizer_client, pv_scenario((1 + PV_PRICE_MARGIN) * value_of_one_pv_kw(free_pv)))


@pytest.fixture(scope="module")
def flat_rate_storage(optimizer_client: sf.Client) -> OptimizerResult:
    return solve(optimizer_client, storage_scenario(ElectricTariff.blended(energy_rate=FLAT_RATE)))


@pytest.fixture(scope="module")
def demand_charge_storage(optimizer_client: sf.Client) -> OptimizerResult:
    return solve(optimizer_client, storage_scenario(ElectricTariff.blended(energy_rate=FLAT_RATE, demand_rate=DEMAND_RATE)))


@pytest.fixture(scope="module")
def tou_storage(optimizer_client: sf.Client) -> OptimizerResult:
    """Half-hour steps, so that Δ = 0.5 h is exercised end to end."""
    return solve(optimizer_client, storage_scenario(ElectricTariff.tou(TOU_DAY, time_steps_per_hour=2), steps_per_hour=2))


@pytest.fixture(scope="module")
def reference(optimizer_client: sf.Client) -> OptimizerResult:
    return solve(optimizer_client, reference_scenario())


OPTIMAL_RUNS = ["free_pv", "pv_below_break_even", "pv_above_break_even", "flat_rate_storage", "demand_charge_storage", "tou_storage", "reference"]


# ------------------------------------------------------------------------ the recomputations


def present_worth_factor(years: int, escalation: float, discount: float) -> float:
    """``Σ_{y=1..N} ((1+e)/(1+d))^y``: a year-one cost that escalates from year 0 and is paid at
    the end of each year."""
    return sum(((1 + escalation) / (1 + discount)) ** year for year in range(1, years + 1))


def column(frame: pl.DataFrame, name: str) -> pl.Series:
    """A series of the results, zeros when the run has none (no such technology, nothing built)."""
    return frame[name] if name in frame.columns else pl.Series(name, [0.0] * frame.height)


def rate_per_step(tariff: Mapping[str, Any], series_field: str, scalar_field: str, steps: int) -> list[float]:
    given = tariff.get(series_field)
    if isinstance(given, list) and len(given) == steps:
        return list(given)
    scalar = tariff.get(scalar_field)
    if isinstance(scalar, list):
        scalar = scalar[0] if scalar else 0.0
    return [float(scalar or 0.0)] * steps


def demand_rate_per_month(tariff: Mapping[str, Any]) -> list[float]:
    monthly = tariff.get("monthly_demand_rates")
    if isinstance(monthly, list) and len(monthly) == 12:
        return list(monthly)
    return [float(tariff.get("blended_annual_demand_rate") or 0.0)] * 12


def year_one_bill(frame: pl.DataFrame, purchases: pl.Series, exports: pl.Series, tariff: Mapping[str, Any], steps_per_hour: int) -> dict[str, float]:
    """Energy and demand charges of grid purchases and the wholesale credit of exports ($)."""
    steps = frame.height
    energy_rates = rate_per_step(tariff, "tou_energy_rates_per_kwh", "blended_annual_energy_rate", steps)
    export_rates = rate_per_step(tariff, "wholesale_rate", "wholesale_rate", steps)
    peaks = (
        pl.DataFrame({"month": frame["timestamp"].dt.month(), "kw": purchases})
        .group_by("month")
        .agg(pl.col("kw").max())
        .sort("month")
    )
    return {
        "energy": sum(r * kw for r, kw in zip(energy_rates, purchases)) / steps_per_hour,
        "demand": sum(rate * kw for rate, kw in zip(demand_rate_per_month(tariff), peaks["kw"])),
        "export": sum(r * kw for r, kw in zip(export_rates, exports)) / steps_per_hour,
    }


def recomputed_lifecycle_cost(result: OptimizerResult) -> dict[str, float]:
    """The lifecycle cost of a run rebuilt from its sizes and series as a table of yearly cash
    flows, discounted year by year (the service's conventions, owner = offtaker):

    - year 0: installed cost of PV (kW × $/kW) and storage (kW × $/kW + kWh × $/kWh);
    - year 1: the ITC (fraction × installed cost) comes back;
    - years 1..k: tax × MACRS depreciation, on a basis reduced by ``itc_reduction × ITC``;
      the bonus fraction of that basis is all depreciated in year 1;
    - years 1..N: O&M (PV $/kW, storage fraction of installed cost) and the utility bill
      (energy + demand − wholesale export credit of year one, from the series) escalated as
      ``cost · (1+e)^y`` and deducted from taxes: ``(1 − τ)``.

    ``lcc = Σ_y flow_y / (1+d)^y``. Covers runs without cash incentives, replacements, degradation
    or net metering (asserted), which is what the scenarios it is used on have.
    """
    inputs = result.inputs
    finance = inputs.Financial
    years = finance.analysis_years
    tax = finance.offtaker_tax_rate_fraction
    discount = finance.offtaker_discount_rate_fraction
    steps_per_hour = inputs.Settings.time_steps_per_hour
    frame = result.series()
    flows = [0.0] * (years + 1)

    def capital(installed: float, itc: float, macrs_years: int, bonus_fraction: float, itc_reduction: float) -> None:
        flows[0] += installed
        flows[1] -= itc * installed
        schedule = MACRS.get(macrs_years, [])
        depreciable = installed * (1 - itc_reduction * itc) if schedule else 0.0
        bonus = depreciable * bonus_fraction
        for year, fraction in enumerate(schedule, start=1):
            flows[year] -= tax * (fraction * (depreciable - bonus) + (bonus if year == 1 else 0.0))

    om_year_one = 0.0
    exports = column(frame, "PV.electric_to_grid_series_kw")
    if "PV" in inputs:
        pv = inputs.PV
        assert pv.degradation_fraction == 0 and not inputs.ElectricUtility.get("net_metering_limit_kw")
        assert not any(pv.get(incentive) for incentive in PV_CASH_INCENTIVES)
        size = result.outputs.PV.size_kw
        capital(size * pv.installed_cost_per_kw, pv.federal_itc_fraction, pv.macrs_option_years, pv.macrs_bonus_fraction, pv.macrs_itc_reduction)
        om_year_one += size * pv.om_cost_per_kw
    if "ElectricStorage" in inputs:
        storage = inputs.ElectricStorage
        assert storage.replace_cost_per_kw == storage.replace_cost_per_kwh == storage.installed_cost_constant == 0
        assert storage.total_rebate_per_kw == storage.total_rebate_per_kwh == 0
        sizes = result.outputs.ElectricStorage
        installed = sizes.size_kw * storage.installed_cost_per_kw + sizes.size_kwh * storage.installed_cost_per_kwh
        capital(installed, storage.total_itc_fraction, storage.macrs_option_years, storage.macrs_bonus_fraction, storage.macrs_itc_reduction)
        om_year_one += storage.om_cost_fraction_of_installed_cost * installed
    purchases = column(frame, "ElectricUtility.electric_to_load_series_kw") + column(frame, "ElectricUtility.electric_to_storage_series_kw")
    bill = year_one_bill(frame, purchases, exports, inputs.ElectricTariff, steps_per_hour)
    for year in range(1, years + 1):
        flows[year] += (1 - tax) * om_year_one * (1 + finance.om_cost_escalation_rate_fraction) ** year
        flows[year] += (1 - tax) * (bill["energy"] + bill["demand"] - bill["export"]) * (1 + finance.elec_cost_escalation_rate_fraction) ** year
    lcc = sum(flow / (1 + discount) ** year for year, flow in enumerate(flows))
    return {"lcc": lcc, **{f"year_one_{name}": value for name, value in bill.items()}}


def recomputed_bau_lifecycle_cost(result: OptimizerResult) -> float:
    """Business as usual: the whole load bought from the grid, ``(1 − τ) · pwf_e · bill``."""
    finance = result.inputs.Financial
    frame = result.series()
    load = frame["ElectricLoad.load_series_kw"]
    bill = year_one_bill(frame, load, load * 0, result.inputs.ElectricTariff, result.inputs.Settings.time_steps_per_hour)
    factor = present_worth_factor(finance.analysis_years, finance.elec_cost_escalation_rate_fraction, finance.offtaker_discount_rate_fraction)
    return (1 - finance.offtaker_tax_rate_fraction) * factor * (bill["energy"] + bill["demand"])


# ------------------------------------------------------------------------------- optimality


def test_free_pv_with_net_metering_is_built_to_its_maximum(free_pv: OptimizerResult) -> None:
    assert free_pv.optimal
    assert free_pv.outputs.PV.size_kw == pytest.approx(PV_MAX_KW, abs=1e-3)


def test_pv_below_break_even_is_built_to_its_maximum(pv_below_break_even: OptimizerResult) -> None:
    assert pv_below_break_even.outputs.PV.size_kw == pytest.approx(PV_MAX_KW, abs=1e-3)
    assert pv_below_break_even.outputs.Financial.npv > 0


def test_pv_above_break_even_is_not_built(pv_above_break_even: OptimizerResult) -> None:
    outputs = pv_above_break_even.outputs
    assert outputs.PV.size_kw == pytest.approx(0.0, abs=1e-3)
    assert outputs.Financial.lcc == pytest.approx(outputs.Financial.lcc_bau, abs=0.02)
    assert sum(outputs.PV.electric_to_load_series_kw) == 0


def test_storage_is_not_built_on_a_flat_energy_rate(flat_rate_storage: OptimizerResult) -> None:
    storage = flat_rate_storage.outputs.ElectricStorage
    assert storage.size_kw == pytest.approx(0.0, abs=1e-3) and storage.size_kwh == pytest.approx(0.0, abs=1e-3)


@pytest.mark.parametrize("run", ["demand_charge_storage", "tou_storage"])
def test_storage_is_built_when_demand_charges_or_a_tou_spread_repay_it(run: str, request: pytest.FixtureRequest) -> None:
    result: OptimizerResult = request.getfixturevalue(run)
    storage = result.outputs.ElectricStorage
    assert storage.size_kw > 1.0 and storage.size_kwh > 1.0
    frame = result.series()
    peak_hours = frame["timestamp"].dt.hour().is_between(16, 19)
    discharge = frame["ElectricStorage.storage_to_load_series_kw"]
    assert discharge.filter(peak_hours).sum() > 0.9 * discharge.sum()
    assert result.outputs.Financial.npv > 0
    if run == "demand_charge_storage":
        purchases = frame["ElectricUtility.electric_to_load_series_kw"] + frame["ElectricUtility.electric_to_storage_series_kw"]
        assert purchases.max() < frame["ElectricLoad.load_series_kw"].max() - 1.0  # type: ignore[operator]


def test_pv_and_storage_priced_to_pay_are_both_built_within_their_bounds(reference: OptimizerResult) -> None:
    outputs = reference.outputs
    assert 0 < outputs.PV.size_kw <= 300 + 1e-6
    assert 0 < outputs.ElectricStorage.size_kw <= STORAGE["max_kw"] + 1e-6
    assert 0 < outputs.ElectricStorage.size_kwh <= STORAGE["max_kwh"] + 1e-6


@pytest.mark.parametrize("run", OPTIMAL_RUNS)
def test_energy_balances_hold_every_time_step(run: str, request: pytest.FixtureRequest) -> None:
    result: OptimizerResult = request.getfixturevalue(run)
    frame = result.series()
    steps_per_hour = result.inputs.Settings.time_steps_per_hour
    assert frame.height == HOURS * steps_per_hour
    load = frame["ElectricLoad.load_series_kw"]
    supplied = (
        column(frame, "ElectricUtility.electric_to_load_series_kw")
        + column(frame, "PV.electric_to_load_series_kw")
        + column(frame, "ElectricStorage.storage_to_load_series_kw")
    )
    assert (load - supplied).abs().max() <= BALANCE_TOLERANCE_KW
    pv_to_storage = column(frame, "PV.electric_to_storage_series_kw")
    if "PV" in result.outputs:
        produced = frame["PV.production_factor_series"] * result.outputs.PV.size_kw
        used = column(frame, "PV.electric_to_load_series_kw") + pv_to_storage + column(frame, "PV.electric_to_grid_series_kw") + column(frame, "PV.electric_curtailed_series_kw")
        # the size is rounded to 6 decimals too: production can differ by pf · 0.5e-6 kW more
        assert (produced - used).abs().max() <= BALANCE_TOLERANCE_KW + 1e-6
    sizes = result.outputs.get("ElectricStorage")
    if sizes and sizes["size_kwh"] > 0:
        assert_state_of_charge_follows_the_flows(result, frame, pv_to_storage)


def assert_state_of_charge_follows_the_flows(result: OptimizerResult, frame: pl.DataFrame, pv_to_storage: pl.Series) -> None:
    """``soc_t = soc_{t−1} + Δ(η_c · charge − discharge / η_d)``, η_c = rectifier · √internal,
    η_d = inverter · √internal, soc_{−1} = soc_init · kWh, and soc_min · kWh ≤ soc ≤ kWh."""
    storage = result.inputs.ElectricStorage
    capacity = result.outputs.ElectricStorage.size_kwh
    step_hours = 1 / result.inputs.Settings.time_steps_per_hour
    internal = math.sqrt(storage.internal_efficiency_fraction)
    charge_efficiency = storage.rectifier_efficiency_fraction * internal
    discharge_efficiency = storage.inverter_efficiency_fraction * internal
    soc = pl.Series(result.outputs.ElectricStorage.soc_series_fraction) * capacity
    previous = soc.shift(1, fill_value=storage.soc_init_fraction * capacity)
    charge = pv_to_storage + frame["ElectricUtility.electric_to_storage_series_kw"]
    expected = previous + step_hours * (charge_efficiency * charge - frame["ElectricStorage.storage_to_load_series_kw"] / discharge_efficiency)
    # soc is reported as a fraction rounded to 6 decimals: ±0.5e-6 · kWh on each side
    assert (soc - expected).abs().max() <= 2e-6 * capacity + 1e-5
    assert soc.min() >= storage.soc_min_fraction * capacity - 1e-6 * capacity  # type: ignore[operator]
    assert soc.max() <= capacity * (1 + 1e-6)  # type: ignore[operator]


@pytest.mark.parametrize("run", ["reference", "tou_storage"])
def test_lifecycle_cost_equals_a_recomputation_from_sizes_and_series(run: str, request: pytest.FixtureRequest) -> None:
    result: OptimizerResult = request.getfixturevalue(run)
    recomputed = recomputed_lifecycle_cost(result)
    tariff = result.outputs.ElectricTariff
    assert tariff.year_one_energy_cost_before_tax == pytest.approx(recomputed["year_one_energy"], abs=0.02)
    assert tariff.year_one_demand_cost_before_tax == pytest.approx(recomputed["year_one_demand"], abs=0.02)
    assert tariff.year_one_export_benefit_before_tax == pytest.approx(recomputed["year_one_export"], abs=0.02)
    lcc = result.outputs.Financial.lcc
    assert lcc == pytest.approx(recomputed["lcc"], abs=LIFECYCLE_TOLERANCE)


@pytest.mark.parametrize("run", ["reference", "tou_storage", "free_pv"])
def test_npv_is_the_business_as_usual_cost_minus_the_optimal_cost(run: str, request: pytest.FixtureRequest) -> None:
    result: OptimizerResult = request.getfixturevalue(run)
    financial = result.outputs.Financial
    assert financial.lcc_bau == pytest.approx(recomputed_bau_lifecycle_cost(result), abs=LIFECYCLE_TOLERANCE)
    assert financial.npv == pytest.approx(financial.lcc_bau - financial.lcc, abs=0.011)  # each rounded to cents
    assert financial.lcc < financial.lcc_bau
    frame = result.series()
    assert (frame["ElectricUtility.electric_to_load_series_kw_bau"] - frame["ElectricLoad.load_series_kw"]).abs().max() <= 1e-6


def test_without_run_bau_there_is_no_comparison(optimizer_client: sf.Client) -> None:
    result = solve(optimizer_client, tiny_scenario().with_settings(run_bau=False))
    assert result.optimal and result.outputs.Financial.lcc > 0
    assert result.outputs.Financial.lcc_bau is None and result.outputs.Financial.npv is None


def test_half_hour_series_carry_half_hour_timestamps(tou_storage: OptimizerResult) -> None:
    frame = tou_storage.series()
    assert frame.height == 2 * HOURS
    assert (frame["timestamp"][1] - frame["timestamp"][0]).total_seconds() == 1800
    assert frame["timestamp"][-1].hour == 23 and frame["timestamp"][-1].minute == 30


# -------------------------------------------------------------------------- service contract


def test_post_answers_201_with_a_run_uuid_and_results_follow_the_contract(optimizer_client: sf.Client) -> None:
    response = optimizer_client.request("POST", "optimizer_job", json=tiny_scenario().to_dict())
    assert response.status == 201
    body = response.json()
    assert list(body) == ["run_uuid"] and uuid.UUID(body["run_uuid"]).version == 4
    deadline = time.monotonic() + 30
    while (result := optimizer_client.optimizer.results(body["run_uuid"])).running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert result.optimal and result.http_status == 200
    assert list(result.raw) == ["run_uuid", "api_version", "user_uuid", "webtool_uuid", "job_type", "status", "created", "reopt_version", "inputs", "outputs", "messages"]
    assert result.raw["api_version"] == 3 and result.run_uuid == body["run_uuid"]
    assert {"Financial", "ElectricTariff", "ElectricUtility", "ElectricLoad", "Site"} <= set(result.outputs)
    assert result.messages == {"errors": {}, "warnings": {}, "has_stacktrace": False}


def test_a_post_past_two_megabytes_is_taken(optimizer_client: sf.Client) -> None:
    """A 15-minute year with its load and four resolved emissions series is about 3 MB of JSON:
    past axum's default 2 MB extractor limit, within the service's own body limit."""
    steps = 8760 * 4
    document = tiny_scenario().to_dict()
    document["Settings"] = {"time_steps_per_hour": 4}
    document["ElectricLoad"] = {"loads_kw": [11.415525114155251 + (t % 96) / 1e4 for t in range(steps)], "year": 2017}
    document["ElectricUtility"] = {
        f"emissions_factor_series_lb_{pollutant}_per_kwh": [0.7123456789012345 + (t % 24) / 1e5 for t in range(steps)]
        for pollutant in ("CO2", "NOx", "SO2", "PM25")
    }
    assert len(json.dumps(document)) > 2 * 2**20
    response = optimizer_client.request("POST", "optimizer_job", json=document)
    assert response.status == 201, response.text()
    deadline = time.monotonic() + 120
    while (result := optimizer_client.optimizer.results(response.json()["run_uuid"])).running and time.monotonic() < deadline:
        time.sleep(0.1)
    assert result.optimal
    assert len(result.outputs.ElectricLoad.load_series_kw) == steps


def test_inputs_echo_the_scenario_with_the_defaults_used(reference: OptimizerResult) -> None:
    inputs = reference.inputs
    assert inputs.Financial.offtaker_discount_rate_fraction == 0.07
    assert inputs.Financial.owner_discount_rate_fraction == 0.07  # the owner is the offtaker
    assert inputs.PV.installed_cost_per_kw == 1200.0 and inputs.ElectricStorage.installed_cost_constant == 0.0
    assert inputs.Settings.timeout_seconds == 600


def test_the_inputs_echo_posted_again_gives_the_same_run(optimizer_client: sf.Client, demand_charge_storage: OptimizerResult) -> None:
    """The echo is a fully explicit scenario (contract §1.3): it validates and solves the same."""
    echoed = demand_charge_storage.inputs.to_dict()
    assert validate_scenario_dict(echoed) == []
    again = solve(optimizer_client, echoed)
    for section, field in [("ElectricStorage", "size_kw"), ("ElectricStorage", "size_kwh"), ("Financial", "lcc"), ("Financial", "lcc_bau")]:
        assert again.outputs[section][field] == pytest.approx(demand_charge_storage.outputs[section][field], rel=1e-6, abs=1e-3)


def test_integer_defaults_the_optimizer_fills_are_echoed_as_integers(demand_charge_storage: OptimizerResult) -> None:
    assert isinstance(demand_charge_storage.raw["inputs"]["ElectricStorage"]["macrs_option_years"], int)


INVALID = {
    "Site": {"latitude": 120, "longitude": -105.17},
    "ElectricLoad": {"annual_kwh": -5, "doe_reference_name": "FlatLoad"},
    "PV": {"max_kw": 10, "tilt": 95},
}


def test_an_invalid_post_answers_400_with_the_builders_input_errors(optimizer_client: sf.Client) -> None:
    with pytest.raises(sf.ValidationError) as caught:
        optimizer_client.request("POST", "optimizer_job", json=INVALID)
    assert caught.value.status == 400
    body = json.loads(caught.value.body)
    expected = input_errors(validate_scenario_dict(INVALID))
    assert set(expected) == {"Site", "ElectricLoad", "ElectricTariff", "PV"}
    assert body["messages"] == {"error": "Invalid inputs. See input_errors.", "input_errors": expected}
    assert body["run_uuid"] == "" and body["api_version"] == 3
    assert body["status"] == "Invalid inputs. No optimization task has been created. See messages for details."


#: Bad scenarios for several kinds of rule: field types, ranges and choices, a series of the wrong
#: length, a damaged URDB rate, an off-grid run holding a section it may not, rules across
#: sections, outage time steps past the year and two PV arrays of one name.
BAD_SCENARIOS = {
    "fields": {"Site": {"latitude": "north", "longitude": -105.17}, "ElectricLoad": {"annual_kwh": -5, "doe_reference_name": "Nowhere"},
               "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": True}, "Settings": {"time_steps_per_hour": 3}},
    "series": {"Site": SITE.to_dict(), "ElectricLoad": {"loads_kw": [1.0] * 17520, "year": 2017},
               "ElectricTariff": {"tou_energy_rates_per_kwh": [0.1] * 100, "blended_annual_demand_rate": 1.0}},
    "urdb": {"Site": SITE.to_dict(), "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 1e5},
             "ElectricTariff": {"urdb_response": {"energyweekdayschedule": [[0] * 24] * 11, "energyweekendschedule": [[5] * 24] * 12,
                                                  "energyratestructure": [[{"rate": "x"}]], "demandratchetpercentage": [0.5]}}},
    "off_grid": {"Settings": {"off_grid_flag": True}, "Site": SITE.to_dict(), "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 1e5},
                 "CHP": {"fuel_cost_per_mmbtu": 10.0}, "PV": {"can_net_meter": True}},
    "cross_section": {"Site": {**SITE.to_dict(), "min_resil_time_steps": 48}, "ElectricLoad": {"annual_kwh": 1e5},
                      "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 1.0},
                      "SpaceHeatingLoad": {}, "ElectricUtility": {"outage_start_time_steps": [8760], "outage_durations": [24]}},
    "pv_arrays": {"Site": SITE.to_dict(), "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 1e5},
                  "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 1.0},
                  "PV": [{"name": "roof", "min_kw": 5, "max_kw": 2.5}, {"name": "roof"}]},
}


@pytest.mark.parametrize("name", list(BAD_SCENARIOS))
def test_the_service_and_the_builder_give_the_same_input_errors(optimizer_client: sf.Client, name: str) -> None:
    """The embedded service validates in Rust without calling back into Python; its input_errors are
    the builder's, message for message and in the same order."""
    scenario = BAD_SCENARIOS[name]
    expected = input_errors(validate_scenario_dict(scenario))
    assert expected
    with pytest.raises(sf.ValidationError) as caught:
        optimizer_client.request("POST", "optimizer_job", json=scenario)
    errors = json.loads(caught.value.body)["messages"]["input_errors"]
    assert json.dumps(errors) == json.dumps(expected)


def test_submit_refuses_an_invalid_scenario_without_sending_it(optimizer_service: sf.LocalService, optimizer_client: sf.Client) -> None:
    before = optimizer_service.hits()
    with pytest.raises(sf.ParameterError) as caught:
        optimizer_client.optimizer.submit(INVALID)
    assert {f"{p.section}.{p.field}" for p in caught.value.errors if p.field} >= {"Site.latitude", "ElectricLoad.annual_kwh", "PV.tilt"}
    assert optimizer_service.hits() == before


def test_an_unknown_run_uuid_is_404(optimizer_client: sf.Client) -> None:
    missing = str(uuid.uuid4())
    with pytest.raises(sf.NotFoundError) as caught:
        optimizer_client.optimizer.results(missing)
    assert caught.value.status == 404
    assert f"run_uuid {missing} not in database" in str(caught.value)


def test_a_badly_formed_run_uuid_is_refused_by_the_client_and_400_at_the_service(
    optimizer_service: sf.LocalService, optimizer_client: sf.Client
) -> None:
    before = optimizer_service.hits()
    with pytest.raises(sf.ParameterError, match="run_uuid must be a UUID"):
        optimizer_client.optimizer.results("not-a-uuid")
    assert optimizer_service.hits() == before
    request = urllib.request.Request(
        f"{optimizer_service.base_url}/api/optimizer/stable/job/not-a-uuid/results/", headers={"X-Api-Key": optimizer_service.api_key}
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request)
    assert caught.value.code == 400
    assert json.loads(caught.value.read()) == {"messages": {"error": "badly formed hexadecimal UUID string"}, "status": "error"}


def test_run_waits_out_the_404_right_after_the_post() -> None:
    grace = 0.5
    with sf.LocalService(optimizer=sf.OptimizerSettings(not_found_grace=grace)) as svc:
        client = svc.client()
        run_uuid = client.optimizer.submit(tiny_scenario())
        with pytest.raises(sf.NotFoundError):
            client.optimizer.results(run_uuid)
        started = time.monotonic()
        result = client.optimizer.run(tiny_scenario(), timeout=30, poll_interval=0.05, max_interval=0.1)
        assert result.optimal and time.monotonic() - started >= grace
        polls = svc.hits()[f"/api/optimizer/stable/job/{result.run_uuid}/results/"]
        assert polls >= 3  # at least two 404s inside the grace period, then the answer


def test_a_hanging_run_ends_with_the_timeout_error() -> None:
    scenario = tiny_scenario().with_settings(timeout_seconds=1)
    with sf.LocalService(optimizer=sf.OptimizerSettings(hang=True)) as svc:
        client = svc.client()
        with pytest.raises(sf.JobTimeout) as caught:
            client.optimizer.run(scenario, timeout=0.3, poll_interval=0.05)
        run_uuid = caught.value.job_id
        assert uuid.UUID(run_uuid) and caught.value.last_status == "Optimizing..."
        assert f"client.optimizer.results('{run_uuid}')" in str(caught.value)
        running = client.optimizer.results(run_uuid)
        assert running.running and running.http_status == 200 and running.raw["outputs"] == {}
        with pytest.raises(sf.JobFailed) as failed:
            client.optimizer.run(scenario, timeout=10, poll_interval=0.05, max_interval=0.1)
        timed_out = client.optimizer.results(run_uuid)
    assert failed.value.status == FAILED
    assert failed.value.messages["error"].startswith("Optimization exceeded timeout: 1 seconds.")
    assert f"your run_uuid ({failed.value.job_id})" in failed.value.messages["error"]
    assert timed_out.status == FAILED and timed_out.http_status == 200 and timed_out.raw["outputs"] == {}
    assert timed_out.messages["error"].startswith("Optimization exceeded timeout: 1 seconds.")


def test_a_solve_longer_than_timeout_seconds_runs_in_the_background_and_is_stopped(optimizer_client: sf.Client) -> None:
    """A 35,040-step solve takes many seconds (see benches/bench_optimizer.py): the POST answers
    at once, the run is "Optimizing...", and with a one-second limit it ends near that second
    with the timeout error."""
    scenario = reference_scenario(steps_per_hour=4).with_settings(time_steps_per_hour=4, timeout_seconds=1)
    started = time.monotonic()
    run_uuid = optimizer_client.optimizer.submit(scenario)
    assert optimizer_client.optimizer.results(run_uuid).status == "Optimizing..."
    while (state := optimizer_client.optimizer.results(run_uuid)).running and time.monotonic() - started < 30:
        time.sleep(0.05)
    assert time.monotonic() - started < 5
    assert state.status == FAILED and state.http_status == 200
    assert state.messages["error"].startswith("Optimization exceeded timeout: 1 seconds.")


def test_an_unsupported_scenario_fails_naming_every_unsupported_part(optimizer_client: sf.Client) -> None:
    scenario = (
        Scenario(site=SITE)
        .with_load(ElectricLoad.flat(annual_kwh=100_000))
        .with_tariff(ElectricTariff(urdb_label="5e1676e95457a3f87673e3b0"))
        .with_pv(max_kw=10, installed_cost_per_kw=1000.0)
        .with_section(Generator(production_incentive_per_kwh=0.01), Wind(max_kw=100))
    )
    with pytest.raises(sf.JobFailed) as caught:
        solve(optimizer_client, scenario)
    assert caught.value.status == FAILED
    message = caught.value.messages["error"]
    for part in ("Generator.production_incentive_per_kwh", "ElectricTariff.urdb_label", "Wind without production_factor_series"):
        assert part in message


def test_inputs_the_optimizer_rejects_at_run_time_end_in_status_error_with_400(optimizer_client: sf.Client) -> None:
    scenario = (
        Scenario(site=SITE)
        .with_load(ElectricLoad(loads_kw=[0.0] * HOURS, year=2017, normalize_and_scale_load_profile_input=True, annual_kwh=100_000))
        .with_tariff(ElectricTariff.blended(energy_rate=FLAT_RATE))
    )
    with pytest.raises(sf.JobFailed) as caught:
        solve(optimizer_client, scenario)
    assert caught.value.status == "error"
    assert caught.value.messages["errors"] and caught.value.messages["has_stacktrace"] is False
    state = optimizer_client.optimizer.results(caught.value.job_id)
    assert state.status == "error" and state.http_status == 400 and state.run_uuid == caught.value.job_id


def test_the_nlr_route_profile_reaches_the_public_hosts_paths(optimizer_service: sf.LocalService) -> None:
    client = optimizer_service.client(routes="nlr")
    result = solve(client, tiny_scenario())
    assert result.optimal
    hits = optimizer_service.hits()
    assert hits["/api/reopt/stable/job/"] >= 1
    assert hits[f"/api/reopt/stable/job/{result.run_uuid}/results/"] >= 1


def test_the_async_client_runs_a_job(optimizer_service: sf.LocalService, optimizer_client: sf.Client) -> None:
    async def run() -> OptimizerResult:
        client = optimizer_service.async_client()
        return await client.optimizer.run(tiny_scenario(), timeout=30, poll_interval=0.05, max_interval=0.2)

    result = asyncio.run(run())
    assert result.optimal
    assert result.outputs.Financial.lcc == solve(optimizer_client, tiny_scenario()).outputs.Financial.lcc


def test_the_async_client_reports_failures_like_the_blocking_one(optimizer_service: sf.LocalService) -> None:
    async def run() -> OptimizerResult:
        return await optimizer_service.async_client().optimizer.run(
            tiny_scenario().with_section(Generator(production_incentive_per_kwh=0.01)), timeout=30, poll_interval=0.05, max_interval=0.2
        )

    with pytest.raises(sf.JobFailed, match="Generator.production_incentive_per_kwh"):
        asyncio.run(run())
