//! Which sun-up records of a v8 simulation need SSC's exact sun position, and that position.
//!
//! Two cases: single-axis trackers with a horizontal axis, whose tilt acos(cos R) and azimuth
//! asin(sin R / sin(tilt)) are ill-conditioned (an ulp in the rotation moves the azimuth by up
//! to 1e-8 rad), so the few-ulp differences of the fast vectorised sun path would show in the
//! plane-of-array irradiance at the 1e-5 W/m² level; and records whose refraction inputs differ
//! between v5's rule (`sunpath`) and v8's (`refraction`: carried-over pressure and temperature,
//! and the noon records SSC's sun table refracts with another record's values). Both take `solarpos` in `Precision::Exact` (the C library's functions in
//! SSC's order, bit-identical to SSC's `solarpos_spa`); it costs about 1 µs per sun-up record.

use super::refraction::{
    refraction_inputs, sun_instant, RefractionInputs, MIN_PLAUSIBLE_PRESSURE_MBAR, STANDARD_TEMPERATURE_C,
};
use crate::pvwatts::incidence::SunDirection;
use crate::pvwatts::solarpos::{Precision, SolarCalculator};
use crate::pvwatts::sunpath::{daylight_window, observer_of, SunPath, SunUp, STANDARD_PRESSURE_MBAR};
use crate::pvwatts::weather::Weather;

/// The sun of one sun-up record: its direction and the extraterrestrial irradiance on the
/// horizontal, W/m².
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactSun {
    pub direction: SunDirection,
    pub extraterrestrial_horizontal: f64,
}

/// Whether `sunpath` gave record `i` the refraction inputs SSC's v8 gives it.
fn same_refraction_as_sun_path(weather: &Weather, i: usize, used: RefractionInputs) -> bool {
    let own_pressure = match &weather.pressure {
        Some(values) if values[i] > MIN_PLAUSIBLE_PRESSURE_MBAR => values[i],
        _ => STANDARD_PRESSURE_MBAR,
    };
    let own_temperature = if weather.tdry[i].is_nan() {
        STANDARD_TEMPERATURE_C
    } else {
        weather.tdry[i]
    };
    own_pressure.to_bits() == used.0.to_bits() && own_temperature.to_bits() == used.1.to_bits()
}

/// SSC's sun for the sun-up records that need it, in the order of `sun_path`'s positions: every
/// record when `every_record` (horizontal-axis trackers), otherwise only the records whose
/// refraction inputs differ between v5's rule (`sunpath`) and v8's (`refraction`: missing or
/// implausible pressure or temperature, and noon records that SSC's sun table refracts with
/// another record's values). `None` when no record needs it.
pub fn exact_up_positions(
    weather: &Weather,
    sun_path: &SunPath,
    every_record: bool,
) -> Option<Vec<Option<ExactSun>>> {
    let used = refraction_inputs(weather, sun_path);
    let needed: Vec<usize> = (0..weather.len())
        .filter(|&i| sun_path.sunup[i] != SunUp::Night)
        .collect();
    let wanted = |i: usize| every_record || !same_refraction_as_sun_path(weather, i, used[i]);
    if !needed.iter().any(|&i| wanted(i)) {
        return None;
    }
    let observer = observer_of(weather);
    let calculator = SolarCalculator::new(observer);
    let exact = SolarCalculator::with_precision(observer, Precision::Exact);
    let positions = needed
        .iter()
        .map(|&i| {
            if !wanted(i) {
                return None;
            }
            let (year, month, day) = (weather.year[i], weather.month[i], weather.day[i]);
            let window = daylight_window(year, i32::from(month), i32::from(day), &calculator);
            let (hour, minute) = sun_instant(weather, i, sun_path.sunup[i], window);
            let (pressure, temperature) = used[i];
            let position = exact.position(year, month, day, hour, minute, pressure, temperature);
            Some(ExactSun {
                direction: SunDirection::new(position.zenith, position.azimuth),
                extraterrestrial_horizontal: position.extraterrestrial_horizontal,
            })
        })
        .collect();
    Some(positions)
}
