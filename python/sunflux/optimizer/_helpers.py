"""Helper constructors for common loads and tariffs, mixed into the generated section classes.

``ElectricLoad.flat(...)``, ``ElectricTariff.blended(...)`` and ``ElectricTariff.tou(...)`` live
here, apart from the section classes that ``sections.py`` builds from the schema.
"""

from __future__ import annotations

import math
from typing import Any, Self

from sunflux._errors import ParameterError
from sunflux.optimizer._base import FloatSeries, Section, to_plain
from sunflux.optimizer.validation import HOURS_PER_YEAR, TIME_STEPS_PER_HOUR

__all__ = ["ElectricLoadHelpers", "ElectricTariffHelpers"]

HOURS_PER_DAY = 24


def _check_time_steps_per_hour(time_steps_per_hour: int) -> None:
    if time_steps_per_hour not in TIME_STEPS_PER_HOUR:
        raise ParameterError(
            f"time_steps_per_hour must be one of {TIME_STEPS_PER_HOUR} (got {time_steps_per_hour!r})"
        )


def _check_number(name: str, value: Any, minimum: float = 0.0) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ParameterError(f"{name} must be a finite number (got {value!r})")
    if value < minimum:
        raise ParameterError(f"{name} must be >= {minimum:g} (got {value!r})")


class ElectricLoadHelpers(Section):
    """Constructors for common electric loads."""

    @classmethod
    def flat(
        cls,
        *,
        annual_kwh: float,
        time_steps_per_hour: int = 1,
        year: int = 2017,
    ) -> Self:
        """A constant load using ``annual_kwh`` over the year, as an explicit ``loads_kw`` series.

        The series has one value per time step (8760 x ``time_steps_per_hour``), each
        ``annual_kwh / 8760`` kW; give the scenario the same ``Settings.time_steps_per_hour``.
        ``year`` is the calendar year of the series (the optimizer needs one with ``loads_kw``;
        2017 is the year of the service's reference profiles).
        """
        _check_number("annual_kwh", annual_kwh)
        _check_time_steps_per_hour(time_steps_per_hour)
        load_kw = annual_kwh / HOURS_PER_YEAR
        load = cls()
        load._assign_all(
            {"loads_kw": [load_kw] * (HOURS_PER_YEAR * time_steps_per_hour), "year": year}
        )
        return load


class ElectricTariffHelpers(Section):
    """Constructors for common tariffs."""

    @classmethod
    def blended(cls, *, energy_rate: float, demand_rate: float = 0.0) -> Self:
        """One energy price ($/kWh) and one demand charge ($/kW per month) for the whole year."""
        _check_number("energy_rate", energy_rate)
        _check_number("demand_rate", demand_rate)
        tariff = cls()
        tariff._assign_all(
            {"blended_annual_energy_rate": energy_rate, "blended_annual_demand_rate": demand_rate}
        )
        return tariff

    @classmethod
    def tou(cls, rates_per_kwh: FloatSeries, *, time_steps_per_hour: int = 1) -> Self:
        """A time-of-use energy price ($/kWh) per time step of the year.

        ``rates_per_kwh`` is either the full series (8760 x ``time_steps_per_hour`` values) or
        24 hourly prices of a typical day, repeated over every day of the year; any other length
        is a `ParameterError` here, not at ``check()``. Lists, numpy arrays and polars/pandas
        Series are accepted.
        """
        _check_time_steps_per_hour(time_steps_per_hour)
        rates = to_plain(rates_per_kwh)
        if not isinstance(rates, list):
            raise ParameterError(f"rates_per_kwh must be a sequence of prices (got {rates!r})")
        year_length = HOURS_PER_YEAR * time_steps_per_hour
        if len(rates) not in (HOURS_PER_DAY, year_length):
            raise ParameterError(
                f"rates_per_kwh must hold {HOURS_PER_DAY} hourly prices of a day or {year_length} prices of the year"
                f" (8760 x time_steps_per_hour={time_steps_per_hour}); got {len(rates)}"
            )
        if len(rates) == HOURS_PER_DAY:
            day = [rate for rate in rates for _ in range(time_steps_per_hour)]
            rates = day * (HOURS_PER_YEAR // HOURS_PER_DAY)
        tariff = cls()
        tariff._assign_all({"tou_energy_rates_per_kwh": rates})
        return tariff
