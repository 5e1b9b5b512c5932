"""The optimizer scenario builder's section classes and building: one class per section, field
information with unit, default and range, unset fields, misspelt fields, series from numpy, polars
and pandas, the load and tariff helpers, fluent and attribute building, round trips, ``diff`` and
the notebook views."""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path

import pytest

from sunflux._errors import ParameterError
from sunflux.optimizer import (
    PV,
    SECTION_CLASSES,
    SECTIONS,
    ElectricLoad,
    ElectricStorage,
    ElectricTariff,
    Financial,
    Meta,
    Scenario,
    Section,
    Settings,
    Site,
    UnknownFieldWarning,
)
from support.scenario_files import base_scenario, SERVICE_ONLY_SECTIONS, SPEC_SECTIONS, with_kinds


# ------------------------------------------------------------------------------------------------
# The section classes


def test_every_section_has_a_class() -> None:
    assert list(SECTION_CLASSES) == SPEC_SECTIONS + SERVICE_ONLY_SECTIONS
    for key, section_class in SECTION_CLASSES.items():
        assert section_class._key == key
        assert section_class.__doc__
        for name in SECTIONS[key]["fields"]:
            assert "Type: " in (vars(section_class)[name].__doc__ or "")


def test_no_field_hides_a_section_method() -> None:
    reserved = {name for name in dir(Section) if not name.startswith("_")}
    for key, section in SECTIONS.items():
        assert not reserved & set(section["fields"]), key


def test_field_info_carries_unit_default_range_and_choices() -> None:
    losses = PV.field_info("losses")
    assert (losses.unit, losses.default, losses.minimum, losses.maximum) == ("fraction", 0.14, 0, 0.99)
    assert PV.field_info("array_type").choices == (0, 1, 2, 3, 4)
    assert ElectricLoad.field_info("loads_kw").shape == "series"
    assert Site.field_info("latitude").required
    assert "max_kw" in ElectricStorage.fields()


def test_unset_fields_read_as_defaults_but_are_not_written() -> None:
    pv = PV(max_kw=100)
    assert pv.losses == 0.14
    assert pv.tilt is None
    assert not pv.is_set("losses")
    assert pv.to_dict() == {"max_kw": 100}
    assert pv.to_dict(include_defaults=True)["losses"] == 0.14
    del pv.max_kw
    assert pv.to_dict() == {}


def test_explicit_null_is_kept_apart_from_unset() -> None:
    financial = Financial(NOx_grid_cost_per_tonne=None)
    assert financial.to_dict() == {"NOx_grid_cost_per_tonne": None}
    assert financial.validate() == []


def test_misspelt_fields_are_refused_with_a_suggestion() -> None:
    pv = PV()
    with pytest.raises(AttributeError, match="did you mean 'losses'"):
        pv.lossess = 0.1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        PV(max_kwh=5)  # type: ignore[call-arg]


def test_sections_accept_numpy_polars_and_pandas_series() -> None:
    numpy = pytest.importorskip("numpy")
    polars = pytest.importorskip("polars")
    pandas = pytest.importorskip("pandas")
    load = ElectricLoad(loads_kw=numpy.full(8760, 2.5), year=numpy.int64(2017))
    assert load.loads_kw == [2.5] * 8760 and type(load.year) is int
    load.loads_kw = polars.Series([1] * 8760)
    assert load.loads_kw is not None and type(load.loads_kw[0]) is int
    load.critical_loads_kw = pandas.Series(numpy.linspace(0, 1, 8760))
    assert type(load.critical_loads_kw[1]) is float
    pv = PV(losses=numpy.float64(0.1), array_type=numpy.int8(0))
    assert type(pv.to_dict()["losses"]) is float and type(pv.to_dict()["array_type"]) is int
    json.dumps(load.to_dict())


def test_flat_load_helper() -> None:
    load = ElectricLoad.flat(annual_kwh=876_000)
    assert load.loads_kw == [100.0] * 8760 and load.year == 2017
    quarter_hourly = ElectricLoad.flat(annual_kwh=876_000, time_steps_per_hour=4, year=2021)
    assert quarter_hourly.loads_kw == [100.0] * 35040 and quarter_hourly.year == 2021
    with pytest.raises(ParameterError):
        ElectricLoad.flat(annual_kwh=1, time_steps_per_hour=3)
    with pytest.raises(ParameterError):
        ElectricLoad.flat(annual_kwh=-1)


def test_tariff_helpers() -> None:
    blended = ElectricTariff.blended(energy_rate=0.1, demand_rate=12)
    assert blended.to_dict() == {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 12}
    day = [0.1] * 16 + [0.3] * 5 + [0.1] * 3
    tou = ElectricTariff.tou(day)
    rates = tou.tou_energy_rates_per_kwh
    assert rates is not None and len(rates) == 8760 and rates[16] == 0.3 and rates[24 + 16] == 0.3
    half_hourly = ElectricTariff.tou(day, time_steps_per_hour=2).tou_energy_rates_per_kwh
    assert half_hourly is not None and len(half_hourly) == 17520 and half_hourly[33] == 0.3
    full = ElectricTariff.tou([0.2] * 8760)
    assert full.tou_energy_rates_per_kwh == [0.2] * 8760


# ------------------------------------------------------------------------------------------------
# Building scenarios


def example() -> Scenario:
    return (
        Scenario(site=Site(latitude=39.7407, longitude=-105.1686))
        .with_load(ElectricLoad.flat(annual_kwh=1_000_000))
        .with_tariff(ElectricTariff.tou([0.09] * 16 + [0.28] * 5 + [0.09] * 3))
        .with_pv(max_kw=500, array_type=0)
        .with_storage(max_kw=200, max_kwh=800)
    )


def test_fluent_building_gives_a_valid_scenario() -> None:
    scenario = example()
    assert scenario.validate() == []
    assert scenario.check() is scenario
    assert list(scenario.to_dict()) == ["Site", "ElectricLoad", "ElectricTariff", "PV",
                                        "ElectricStorage"]


def test_with_methods_return_new_scenarios() -> None:
    first = Scenario(site=Site(latitude=1, longitude=2))
    second = first.with_pv(max_kw=10)
    assert first.pv is None and isinstance(second.pv, PV)
    pv = PV(max_kw=5)
    third = second.with_pv(pv)
    pv.max_kw = 6
    assert isinstance(third.pv, PV) and third.pv.max_kw == 5
    several = first.with_pv(PV(name="east", azimuth=90), PV(name="west", azimuth=270))
    assert isinstance(several.pv, list) and len(several.pv) == 2
    assert several.with_settings(time_steps_per_hour=2).settings == Settings(time_steps_per_hour=2)
    with pytest.raises(TypeError):
        first.with_storage(ElectricStorage(), max_kw=1)

def test_fields_update_the_section_and_objects_replace_it() -> None:
    """``with_settings(timeout_seconds=60)`` on an off-grid scenario keeps ``off_grid_flag``: fields
    update the section already set; a section object replaces it whole."""
    off_grid = Scenario(settings=Settings(off_grid_flag=True, time_steps_per_hour=1))
    limited = off_grid.with_settings(timeout_seconds=60)
    assert limited.settings == Settings(off_grid_flag=True, time_steps_per_hour=1, timeout_seconds=60)
    assert off_grid.settings == Settings(off_grid_flag=True, time_steps_per_hour=1)
    assert off_grid.with_settings(Settings(timeout_seconds=60)).settings == Settings(timeout_seconds=60)
    assert Scenario().with_settings(timeout_seconds=60).settings == Settings(timeout_seconds=60)

    sized = example()
    assert isinstance(sized.pv, PV)
    retilted = sized.with_pv(tilt=30)
    assert isinstance(retilted.pv, PV)
    assert (retilted.pv.max_kw, retilted.pv.array_type, retilted.pv.tilt) == (500, 0, 30)
    assert sized.with_load(annual_kwh=2_000_000).electric_load.doe_reference_name == sized.electric_load.doe_reference_name
    several = sized.with_pv(PV(name="east", azimuth=90), PV(name="west", azimuth=270))
    with pytest.raises(TypeError, match="several arrays"):
        several.with_pv(tilt=30)
    with pytest.raises(TypeError, match="tlt"):
        sized.with_settings(tlt=3)
    assert sized.with_storage(max_kwh=10).to_dict()["ElectricStorage"] == {"max_kw": 200, "max_kwh": 10}



def test_plain_attribute_setting() -> None:
    scenario = Scenario()
    scenario.site = Site(latitude=10.0, longitude=20.0)
    scenario.electric_load = ElectricLoad(doe_reference_name="Hospital")
    scenario.electric_tariff = ElectricTariff(urdb_label="5ed6c1a15457a3367add15ae")
    scenario.meta = Meta(description="a test")
    assert scenario.validate() == []
    scenario.meta = None
    assert "Meta" not in scenario.to_dict()
    with pytest.raises(TypeError):
        scenario.site = PV()  # type: ignore[assignment]
    with pytest.raises(AttributeError, match="electric_storage"):
        scenario.electric_storag = ElectricStorage()  # type: ignore[attr-defined]


def test_assigning_a_dict_builds_the_section() -> None:
    scenario = Scenario()
    with pytest.warns(UnknownFieldWarning, match="Site.node"):
        scenario.site = {"latitude": 1.0, "longitude": 2.0, "node": 3}  # type: ignore[assignment]
    assert isinstance(scenario.site, Site) and scenario.site.extra == {"node": 3}


def test_round_trip_keeps_nulls_order_and_number_kinds(tmp_path: Path) -> None:
    document = {
        "Settings": {"time_steps_per_hour": 1, "run_bau": None},
        "Site": {"longitude": -105, "latitude": 39.5, "roof_squarefeet": None},
        "ElectricLoad": {"doe_reference_name": "Hospital", "annual_kwh": 1000000},
        "ElectricTariff": {"urdb_label": "abc", "wholesale_rate": 0.04},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 10},
        "SpaceHeatingLoad": {},
        "user_uuid": "not-a-uuid",
    }
    scenario = Scenario.from_dict(document)
    assert scenario.validate() == []
    assert with_kinds(scenario.to_dict()) == with_kinds(document)
    assert list(scenario.to_dict()["Site"]) == ["longitude", "latitude", "roof_squarefeet"]
    target = tmp_path / "scenario.json"
    scenario.to_json(target)
    assert Scenario.from_json(target) == scenario
    assert Scenario.from_json(target.read_bytes()) == scenario
    with target.open() as handle:
        assert Scenario.from_json(handle) == scenario
    assert pickle.loads(pickle.dumps(scenario)) == scenario


def test_from_dict_copies_its_input() -> None:
    document = base_scenario()
    scenario = Scenario.from_dict(document)
    document["Site"]["latitude"] = 0.0
    assert scenario.site is not None and scenario.site.latitude == 39.7407
    exported = scenario.to_dict()
    exported["Site"]["latitude"] = 1.0
    assert scenario.site.latitude == 39.7407


def test_include_defaults_fills_present_sections_only() -> None:
    full = Scenario.from_dict(base_scenario()).to_dict(include_defaults=True)
    assert full["Site"]["sector"] == "commercial/industrial"
    assert full["ElectricLoad"]["critical_load_fraction"] == 0.5
    assert "Settings" not in full


def test_structural_problems_are_refused() -> None:
    with pytest.raises(ParameterError, match="must be an object"):
        Scenario.from_dict({"Site": 3, "ElectricLoad": {}})
    with pytest.raises(ParameterError, match="JSON object"):
        Scenario.from_dict([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="Not valid JSON"):
        Scenario.from_json("{not json")


def test_nan_cannot_be_exported() -> None:
    scenario = Scenario.from_dict(base_scenario())
    scenario.pv = PV(max_kw=math.nan)
    with pytest.raises(ParameterError, match=r"PV\.max_kw"):
        scenario.to_json()


def test_diff_reports_changed_added_and_removed_fields() -> None:
    left = example()
    right = left.copy()
    assert left.diff(right) == [] and left == right
    assert isinstance(right.pv, PV) and right.electric_load is not None
    right.pv.max_kw = 600
    right.pv.tilt = 20
    right.electric_storage = None
    loads = list(right.electric_load.loads_kw or [])
    loads[5] = 0.0
    right.electric_load.loads_kw = loads
    differences = {difference.path: difference for difference in left.diff(right)}
    assert set(differences) == {"PV.max_kw", "PV.tilt", "ElectricStorage",
                                "ElectricLoad.loads_kw"}
    assert "1 of 8760 values differ, first at index 5" in str(differences["ElectricLoad.loads_kw"])
    assert str(differences["PV.tilt"]) == "PV.tilt: (unset) -> 20"
    same_value_other_kind = left.copy()
    assert isinstance(same_value_other_kind.pv, PV)
    same_value_other_kind.pv.max_kw = 500.0
    assert left.diff(same_value_other_kind) == []


def test_repr_and_html_show_only_what_was_set() -> None:
    scenario = example()
    text = repr(scenario)
    assert text.startswith("Scenario(site=Site(latitude=39.7407, longitude=-105.1686)")
    assert "loads_kw=<8760 values, 114.155..114.155>" in text
    assert "losses" not in text
    page = scenario._repr_html_()
    assert "<table>" in page and "max_kwh" in page and "losses" not in page
    assert "kWh" in page
