"""`OptimizerResult.summary()` and `sunflux.optimizer.summaries`: one row per run, the columns
docs/design.md lists (Float64, null where a run lacks them), stacked diagonally; and the typed
outputs (`sunflux.optimizer.outputs`): every field the classes declare is in the engine's own
results with the declared type, in a live service body too, and mypy reads them as declared."""

from __future__ import annotations

import json
import math
import pathlib
import subprocess
import sys
import types
import typing
from typing import Any

import polars as pl
import pytest

import sunflux as sf
import sunflux.optimizer as so
from support.paths import SCENARIOS
from support.markers import SCENARIO_CORPUS, requires_scenario_corpus
from support.optimizer_documents import scenario, pv_only, with_generator
from sunflux.optimizer import outputs as typed
from sunflux.optimizer._summary import FIXED_COLUMNS
from sunflux.optimizer.jobs import OptimizerResult

RESPONSE = SCENARIOS / "results_response.json"


def two_arrays() -> dict[str, Any]:
    document = pv_only()
    array = document.pop("PV")
    document["PV"] = [dict(array, name="roof", max_kw=100), dict(array, name="ground", installed_cost_per_kw=1400.0)]
    return document


@pytest.fixture(scope="module")
def solved() -> list[OptimizerResult]:
    return so.solve_many([pv_only(), with_generator(), two_arrays()], threads=2, progress=False)


def live_result() -> OptimizerResult:
    return OptimizerResult(json.loads(RESPONSE.read_text()))


def test_one_row_of_sizes_costs_bills_and_emissions(solved: list[OptimizerResult]) -> None:
    result = solved[1]
    row = result.summary()
    assert row.height == 1
    assert row.schema["run_uuid"] == pl.String and row.schema["status"] == pl.String
    assert all(dtype == pl.Float64 for column, dtype in row.schema.items() if column not in ("run_uuid", "status"))
    assert set(FIXED_COLUMNS) <= set(row.columns)
    values = row.row(0, named=True)
    assert values["run_uuid"] is None and values["status"] == "optimal"  # in process: no job
    outputs = result.raw["outputs"]
    assert values["PV.size_kw"] == outputs["PV"]["size_kw"] > 0
    assert values["Generator.size_kw"] == 50.0
    for field in ("lcc", "lcc_bau", "npv", "initial_capital_costs", "initial_capital_costs_after_incentives",
                  "simple_payback_years", "internal_rate_of_return"):
        assert values[f"Financial.{field}"] == outputs["Financial"][field]
    assert outputs["Financial"]["simple_payback_years"] > 0 and outputs["Financial"]["internal_rate_of_return"] > 0
    tariff = outputs["ElectricTariff"]
    for field in ("year_one_bill_before_tax", "year_one_bill_before_tax_bau", "year_one_energy_cost_before_tax",
                  "year_one_demand_cost_before_tax_bau"):
        assert values[f"ElectricTariff.{field}"] == tariff[field]
    assert values["Site.lifecycle_emissions_from_fuelburn_tonnes_CO2"] == outputs["Site"]["lifecycle_emissions_from_fuelburn_tonnes_CO2"]
    # Groups in order: ids, sizes, Financial, ElectricTariff, Site.
    groups = [c.split(".")[0].split("[")[0] for c in row.columns]
    assert groups[:4] == ["run_uuid", "status", "PV", "Generator"]
    assert groups.index("Financial") < groups.index("ElectricTariff") < groups.index("Site")
    assert not [c for c in row.columns if c.startswith("ElectricTariff.lifecycle_")], "year-one parts only"


def test_several_arrays_have_their_own_columns_and_a_total(solved: list[OptimizerResult]) -> None:
    result = solved[2]
    values = result.summary().row(0, named=True)
    arrays = result.raw["outputs"]["PV"]
    assert [a["name"] for a in arrays] == ["roof", "ground"]
    assert values["PV[roof].size_kw"] == arrays[0]["size_kw"] and values["PV[ground].size_kw"] == arrays[1]["size_kw"]
    assert values["PV.size_kw"] == pytest.approx(arrays[0]["size_kw"] + arrays[1]["size_kw"])
    assert [a.size_kw for a in result.outputs.pv_arrays()] == [arrays[0]["size_kw"], arrays[1]["size_kw"]]
    unnamed = {"status": "optimal", "outputs": {"PV": [{"size_kw": 1.0}, {"name": "x", "size_kw": None}]}}
    row = OptimizerResult(unnamed).summary().row(0, named=True)
    assert (row["PV.size_kw"], row["PV[0].size_kw"], row["PV[1].size_kw"]) == (1.0, 1.0, None)


def test_summaries_stack_diagonally_in_order(solved: list[OptimizerResult]) -> None:
    live = live_result()
    failed = OptimizerResult({"run_uuid": "abc", "status": "error", "messages": {"error": "infeasible"}})
    frame = so.summaries([*solved, live, failed])
    assert frame.height == 5
    assert frame["status"].to_list() == ["optimal"] * 4 + ["error"]
    assert frame["run_uuid"].to_list() == [None, None, None, live.run_uuid, "abc"]
    assert frame["PV.size_kw"].to_list()[:4] == [
        solved[0].outputs.PV.size_kw, solved[1].outputs.PV.size_kw,
        pytest.approx(sum(a.size_kw for a in solved[2].outputs.pv_arrays())), live.outputs.PV.size_kw,
    ]
    assert frame["Generator.size_kw"].to_list() == [None, 50.0, None, None, None]
    assert frame["PV[roof].size_kw"].null_count() == 4
    # Payback and IRR: the local engine's pro forma and the live body's.
    paybacks = [result.raw["outputs"]["Financial"]["simple_payback_years"] for result in [*solved, live]]
    assert frame["Financial.simple_payback_years"].to_list() == [*paybacks, None]
    assert frame.row(4, named=True) | {"run_uuid": None, "status": None} == dict.fromkeys(frame.columns)
    # Each row equals its own summary, the columns it lacks null.
    for index, result in enumerate([*solved, live, failed]):
        own = result.summary()
        assert frame.select(own.columns).slice(index, 1).equals(own)
        assert all(frame[c][index] is None for c in frame.columns if c not in own.columns)


def test_summaries_of_nothing_and_of_the_wrong_thing() -> None:
    empty = so.summaries([])
    assert empty.height == 0 and empty.columns == list(FIXED_COLUMNS)
    with pytest.raises(sf.ParameterError, match=r"results\[0\] must be an OptimizerResult"):
        so.summaries([{"status": "optimal"}])  # type: ignore[list-item]


def _hint_accepts(hint: Any, value: Any) -> bool:
    """Whether a JSON value is of a declared field type (float, str, list[float], X | None)."""
    if isinstance(hint, types.UnionType):
        return any(_hint_accepts(arm, value) for arm in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if hint is str:
        return isinstance(value, str)
    if typing.get_origin(hint) is list:
        return isinstance(value, list) and all(_hint_accepts(typing.get_args(hint)[0], item) for item in value)
    if isinstance(hint, type) and issubclass(hint, typed.Record):
        return isinstance(value, dict)
    raise AssertionError(f"unexpected hint {hint!r}")


def _declared(cls: type[typed.Record]) -> dict[str, Any]:
    return {name: hint for name, hint in typing.get_type_hints(cls).items() if not name.startswith("_")}


def _check_declared_fields(outputs: dict[str, Any], sections: list[str]) -> None:
    record = typed.Outputs(outputs, "outputs")
    for section in sections:
        cls = _declared(typed.Outputs)[section]
        view = getattr(record, section)
        assert type(view) is cls, section
        for field, hint in _declared(cls).items():
            if field in cls._optional and field not in outputs[section]:
                continue
            assert field in outputs[section], f"{section}.{field} is declared but not in the results"
            assert _hint_accepts(hint, outputs[section][field]), f"{section}.{field}: {outputs[section][field]!r:.60} is not {hint}"
            assert getattr(view, field) == outputs[section][field]


def test_every_declared_field_is_in_the_engines_results(solved: list[OptimizerResult]) -> None:
    outputs = solved[1].raw["outputs"]
    _check_declared_fields(outputs, ["Financial", "ElectricTariff", "ElectricUtility", "ElectricLoad", "PV", "Generator", "Site"])
    for array in solved[2].outputs.pv_arrays():
        assert type(array) is typed.PVOutputs and _hint_accepts(float, array.size_kw)
    assert type(solved[1].outputs.Site) is typed.SiteOutputs
    with pytest.raises(AttributeError, match="outputs has no 'ElectricStorage'"):
        _ = solved[0].outputs.ElectricStorage


def test_declared_storage_degradation_fields_are_in_the_engines_results() -> None:
    """One year of a fixed 100 kW / 200 kWh battery under the replacement strategy with a steep
    calendar fade (its state of charge held at half the size or more), so it is replaced within
    the year: every declared ElectricStorage field is in the results."""
    document = scenario()
    document["Financial"] = {"analysis_years": 1}
    document["ElectricStorage"] = {
        "min_kw": 100, "max_kw": 100, "min_kwh": 200, "max_kwh": 200, "soc_min_fraction": 0.5, "model_degradation": True,
        "degradation": {"calendar_fade_coefficient": 0.06, "maintenance_strategy": "replacement"},
    }
    result = so.solve(document)
    outputs = result.raw["outputs"]
    assert typed.ElectricStorageOutputs._optional <= outputs["ElectricStorage"].keys()
    _check_declared_fields(outputs, ["ElectricStorage"])
    storage = result.outputs.ElectricStorage
    assert len(storage.state_of_health) == 365 and storage.state_of_health[0] == 1.0
    assert 1 <= storage.replacement_month <= 12 and storage.maintenance_cost > 0


def test_declared_wind_fields_are_in_the_engines_results() -> None:
    document = pv_only()
    del document["PV"]
    document["Wind"] = {"max_kw": 200, "installed_cost_per_kw": 3000.0,
                        "production_factor_series": [0.3 + 0.2 * math.sin(hour / 7.0) for hour in range(8760)]}
    result = so.solve(document)
    _check_declared_fields(result.raw["outputs"], ["Wind"])
    assert result.summary()["Wind.size_kw"].to_list() == [result.outputs.Wind.size_kw]


def test_declared_heating_fields_are_in_the_engines_results() -> None:
    """A space heating load served by the existing boiler, a new one and a fixed 500 gal tank."""
    document = pv_only()
    del document["PV"]
    document["SpaceHeatingLoad"] = {"fuel_loads_mmbtu_per_hour": [1.0 + 0.5 * math.sin(hour / 5.0) for hour in range(8760)]}
    document["ExistingBoiler"] = {"fuel_cost_per_mmbtu": 12.0}
    document["Boiler"] = {"fuel_cost_per_mmbtu": 8.0, "efficiency": 0.9}
    document["HotThermalStorage"] = {"min_gal": 500.0, "max_gal": 500.0}
    result = so.solve(document)
    _check_declared_fields(result.raw["outputs"], ["ExistingBoiler", "Boiler", "HeatingLoad", "HotThermalStorage"])
    assert result.outputs.HotThermalStorage.size_gal == pytest.approx(500.0)
    thermal = result.outputs.HeatingLoad.annual_calculated_total_heating_thermal_load_mmbtu
    served = sum(result.outputs.ExistingBoiler.thermal_to_load_series_mmbtu_per_hour) + sum(
        result.outputs.Boiler.thermal_to_load_series_mmbtu_per_hour) + sum(result.outputs.HotThermalStorage.storage_to_load_series_mmbtu_per_hour)
    assert served == pytest.approx(thermal, abs=1e-2)


def test_declared_cooling_fields_are_in_the_engines_results() -> None:
    """A cooling load of 30 % of the electric load served by the existing chiller (COP 5). The
    ElectricLoad names a reference building (FlatLoad), so, as the service, the fraction becomes
    thermal with the default COP of a small chiller (4.40), and the chiller then uses COP 5."""
    document = pv_only()
    del document["PV"]
    document["CoolingLoad"] = {"annual_fraction_of_electric_load": 0.3}
    document["ExistingChiller"] = {"cop": 5.0}
    result = so.solve(document)
    _check_declared_fields(result.raw["outputs"], ["ExistingChiller", "CoolingLoad"])
    electric = sum(result.outputs.ElectricLoad.load_series_kw)
    assert result.outputs.CoolingLoad.annual_electric_chiller_base_load_kwh == pytest.approx(0.3 * electric * 4.40 / 5.0, abs=0.01)
    assert result.outputs.ExistingChiller.annual_thermal_production_tonhour == pytest.approx(
        result.outputs.CoolingLoad.annual_calculated_tonhour, abs=0.01)


def test_declared_absorption_chiller_and_cold_storage_fields_are_in_the_engines_results() -> None:
    """Hot water heated by the existing boiler on cheap fuel feeds a cheap absorption chiller; the
    chilled-water tank may be built. The chillers' cooling to load and the tank's discharge meet
    the cooling load."""
    document = pv_only()
    del document["PV"]
    document["DomesticHotWaterLoad"] = {"fuel_loads_mmbtu_per_hour": [0.5] * 8760}
    document["ExistingBoiler"] = {"fuel_cost_per_mmbtu": 1.0}
    document["CoolingLoad"] = {"annual_fraction_of_electric_load": 0.3}
    document["ExistingChiller"] = {"cop": 3.0}
    document["AbsorptionChiller"] = {"installed_cost_per_ton": 100.0, "om_cost_per_ton": 1.0}
    document["ColdThermalStorage"] = {"max_gal": 5000.0}
    result = so.solve(document)
    _check_declared_fields(result.raw["outputs"], ["ExistingChiller", "AbsorptionChiller", "ColdThermalStorage", "CoolingLoad"])
    outputs = result.outputs
    assert outputs.AbsorptionChiller.size_ton > 0
    served = (sum(outputs.ExistingChiller.thermal_to_load_series_ton) + sum(outputs.AbsorptionChiller.thermal_to_load_series_ton)
              + sum(outputs.ColdThermalStorage.storage_to_load_series_ton))
    assert served == pytest.approx(outputs.CoolingLoad.annual_calculated_tonhour, abs=1.0)


def test_declared_steam_turbine_fields_are_in_the_engines_results() -> None:
    """The steam existing boiler feeds a back-pressure turbine with given ratios (kWh electric and
    heat out per kWh of steam in) whose exhaust serves the space heating load: every declared
    field is in the results, the boiler's steam is the turbine's, and the heat served is the load."""
    document = pv_only()
    del document["PV"]
    document["SpaceHeatingLoad"] = {"fuel_loads_mmbtu_per_hour": [2.0 + math.sin(hour / 5.0) for hour in range(8760)]}
    document["ExistingBoiler"] = {"production_type": "steam", "fuel_cost_per_mmbtu": 6.0, "can_supply_steam_turbine": True}
    document["SteamTurbine"] = {"max_kw": 100.0, "electric_produced_to_thermal_consumed_ratio": 0.065,
                                "thermal_produced_to_thermal_consumed_ratio": 0.92, "macrs_option_years": 0}
    result = so.solve(document)
    _check_declared_fields(result.raw["outputs"], ["ExistingBoiler", "SteamTurbine", "HeatingLoad"])
    outputs = result.outputs
    assert outputs.SteamTurbine.size_kw > 0
    assert sum(outputs.ExistingBoiler.thermal_to_steamturbine_series_mmbtu_per_hour) == pytest.approx(
        sum(outputs.SteamTurbine.thermal_consumption_series_mmbtu_per_hour), abs=1e-3)
    served = sum(outputs.ExistingBoiler.thermal_to_load_series_mmbtu_per_hour) + sum(outputs.SteamTurbine.thermal_to_load_series_mmbtu_per_hour)
    assert served == pytest.approx(outputs.HeatingLoad.annual_calculated_total_heating_thermal_load_mmbtu, abs=1e-2)


@pytest.mark.slow
def test_declared_high_temp_storage_fields_are_in_the_engines_results() -> None:
    """A fixed 1,000 kWh high-temperature storage serving a process-heat load (built, so its
    series are not empty); its discharge and the boiler's heat to load cover the load."""
    document = scenario()
    del document["PV"]
    document["ProcessHeatLoad"] = {"fuel_loads_mmbtu_per_hour": [2.0 + math.sin(hour / 5.0) for hour in range(8760)]}
    document["ExistingBoiler"] = {"fuel_cost_per_mmbtu": 6.0}
    document["HighTempThermalStorage"] = {"min_kwh": 1000.0, "max_kwh": 1000.0}
    result = so.solve(document)
    _check_declared_fields(result.raw["outputs"], ["ExistingBoiler", "HighTempThermalStorage", "HeatingLoad"])
    outputs = result.outputs
    assert outputs.HighTempThermalStorage.size_kwh == pytest.approx(1000.0, abs=1e-3)
    assert len(outputs.HighTempThermalStorage.soc_series_fraction) == 8760
    served = sum(outputs.ExistingBoiler.thermal_to_load_series_mmbtu_per_hour) + sum(outputs.HighTempThermalStorage.storage_to_load_series_mmbtu_per_hour)
    assert served == pytest.approx(outputs.HeatingLoad.annual_calculated_total_heating_thermal_load_mmbtu, abs=1e-2)


@pytest.mark.slow
def test_declared_cst_fields_are_in_the_engines_results() -> None:
    """A fixed 1,000 kW CST (a daytime production factor) serving a process-heat load without
    storage: its heat goes to the load or is curtailed, and its electricity is its heat over 1000."""
    document = scenario()
    del document["PV"]
    document["Site"] = dict(document["Site"], land_acres=5.0)
    document["ProcessHeatLoad"] = {"fuel_loads_mmbtu_per_hour": [1.0] * 8760}
    document["ExistingBoiler"] = {"fuel_cost_per_mmbtu": 6.0}
    factor = [max(0.0, 0.7 * math.sin((hour % 24 - 6) / 12.0 * math.pi)) for hour in range(8760)]
    document["CST"] = {"min_kw": 1000.0, "max_kw": 1000.0, "production_factor": factor}
    result = so.solve(document)
    _check_declared_fields(result.raw["outputs"], ["CST", "ExistingBoiler"])
    cst = result.outputs.CST
    assert cst.size_kw == pytest.approx(1000.0, abs=1e-3)
    assert cst.annual_thermal_production_mmbtu == pytest.approx(sum(factor) * 1000.0 / 293.07107, rel=1e-4)
    to_load, curtailed = sum(cst.thermal_to_load_series_mmbtu_per_hour), sum(cst.thermal_curtailed_series_mmbtu_per_hour)
    assert to_load + curtailed == pytest.approx(cst.annual_thermal_production_mmbtu, abs=1e-2)
    assert to_load > 0 and curtailed > 0 and sum(cst.thermal_to_storage_series_mmbtu_per_hour) == 0
    assert cst.thermal_to_process_heat_load_series_mmbtu_per_hour == cst.thermal_to_load_series_mmbtu_per_hour
    assert cst.annual_electric_consumption_kwh == pytest.approx(cst.annual_thermal_production_mmbtu * 293.07107 / 1000.0, rel=1e-4)


@pytest.mark.slow
def test_declared_storage_fields_are_in_the_engines_results() -> None:
    """A fixed 50 kW / 100 kWh battery (built, so its series are not empty)."""
    document = scenario()
    del document["PV"]
    document["ElectricStorage"] = {"min_kw": 50, "max_kw": 50, "min_kwh": 100, "max_kwh": 100}
    result = so.solve(document)
    _check_declared_fields(result.raw["outputs"], ["ElectricStorage"])
    assert len(result.outputs.ElectricStorage.soc_series_fraction) == 8760
    row = result.summary().row(0, named=True)
    assert (row["ElectricStorage.size_kw"], row["ElectricStorage.size_kwh"]) == pytest.approx((50.0, 100.0), abs=1e-5)


@requires_scenario_corpus
def test_every_declared_field_is_in_a_live_results_body() -> None:
    """The service's own answer (REopt-Analysis-Scripts' saved results) has every field the
    classes declare for the sections it holds, with the declared types."""
    assert SCENARIO_CORPUS is not None
    raw = json.loads((SCENARIO_CORPUS / "REopt-Analysis-Scripts__response_1.json").read_text())
    _check_declared_fields(raw["outputs"], ["Financial", "ElectricTariff", "ElectricUtility", "ElectricLoad", "PV", "Site"])
    row = OptimizerResult(raw).summary().row(0, named=True)
    assert row["Financial.internal_rate_of_return"] == raw["outputs"]["Financial"]["internal_rate_of_return"]
    assert row["Site.lifecycle_emissions_tonnes_CO2"] == raw["outputs"]["Site"]["lifecycle_emissions_tonnes_CO2"]


def test_the_typed_records_keep_the_old_behaviour() -> None:
    result = live_result()
    assert isinstance(result.outputs, typed.Record) and isinstance(result.outputs.PV, typed.Record)
    assert result.outputs.PV.size_kw == result.raw["outputs"]["PV"]["size_kw"]
    assert result.outputs["Financial"]["lcc"] == result.outputs.Financial.lcc
    assert result.outputs.Financial.microgrid_upgrade_cost is None  # undeclared fields read as before
    with pytest.raises(AttributeError, match="outputs.PV has no 'nonexistent'"):
        _ = result.outputs.PV.nonexistent
    assert sf.optimizer.jobs.Record is typed.Record


MYPY_SAMPLE = """
from typing import Any, assert_type

import polars as pl
import sunflux.optimizer as so
from sunflux.optimizer.jobs import OptimizerResult
from sunflux.optimizer.outputs import PVOutputs, SiteOutputs


def read(result: OptimizerResult) -> None:
    assert_type(result.outputs.PV.size_kw, float)
    assert_type(result.outputs.PV.name, str)
    assert_type(result.outputs.Financial.lcc, float)
    assert_type(result.outputs.Financial.npv, float | None)
    assert_type(result.outputs.ElectricStorage.size_kwh, float)
    assert_type(result.outputs.Generator.size_kw, float)
    assert_type(result.outputs.Wind.size_kw, float)
    assert_type(result.outputs.ElectricTariff.year_one_bill_before_tax_bau, float | None)
    assert_type(result.outputs.ElectricLoad.load_series_kw, list[float])
    assert_type(result.outputs.pv_arrays(), list[PVOutputs])
    assert_type(result.outputs.Site, SiteOutputs)
    assert_type(result.outputs.Site.lifecycle_emissions_tonnes_CO2, float | None)
    assert_type(result.outputs.ElectricUtility.annual_emissions_tonnes_NOx_bau, float | None)
    assert_type(result.outputs.Site.annual_emissions_from_fuelburn_tonnes_CO2, float | None)
    assert_type(result.outputs.Financial.simple_payback_years, float)
    assert_type(result.outputs.Financial.offtaker_annual_free_cashflows, list[float])
    assert_type(result.outputs.PV.lcoe_per_kwh, float)
    assert_type(result.outputs.Site.renewable_electricity_fraction, Any)
    assert_type(result.summary(), pl.DataFrame)
    assert_type(so.summaries([result]), pl.DataFrame)
    assert_type(so.solve_many([]), list[OptimizerResult])
"""


@pytest.mark.slow
def test_mypy_reads_the_outputs_types(tmp_path: pathlib.Path) -> None:
    (tmp_path / "sample.py").write_text(MYPY_SAMPLE)
    mypy = pathlib.Path(sys.executable).parent / "mypy"
    result = subprocess.run(
        [str(mypy) if mypy.exists() else "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), "sample.py"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
