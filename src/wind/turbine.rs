//! One wind turbine's output from a wind resource time series, as SAM's `windpower` module
//! computes it for the optimizer service (one turbine, so no wake; no losses, no icing or
//! low-temperature cut-off, no availability adjustment: the settings REopt.jl passes).
//!
//! Per time step (SAM `cmod_windpower.cpp`, `lib_windfile.cpp`, `lib_windwatts.cpp`,
//! `lib_windwakemodel.cpp`, `lib_physics.h`):
//! 1. Speed, temperature and pressure at hub height: the column nearest the hub height, or,
//!    when the hub height lies strictly between two measurement heights, the linear
//!    interpolation between the nearest one and the nearest one on the other side. A speed
//!    still measured more than 1 m from the hub is carried there by the power law
//!    `v · (h_hub / h)^α` with the service's shear exponent α; more than 35 m away is an error.
//! 2. Air density ρ = p / (R_dry · T) [kg/m³], with p in Pa (a pressure strictly between 0.5
//!    and 1.1 is read as atm and multiplied by 101 325), R_dry = 287.058 J/(kg·K), T = t + 273.15 K.
//! 3. The power curve's speeds are scaled by (ρ₀ / ρ)^(1/3), ρ₀ = 101 325 / (287.058 · 288.15)
//!    kg/m³ (1 atm, 15 °C); the scaling is redone only when ρ moved more than 0.001 kg/m³ from
//!    the density it was last done for (SAM keeps it between steps).
//! 4. Output: linear interpolation in the scaled curve strictly inside its speed range, the last
//!    value at exactly its last speed, 0 outside; 0 below the cut-in speed (the scaled speed
//!    just before the first non-zero output).
//!
//! References: NREL System Advisor Model, SSC `windpower` module (github.com/NREL/ssc);
//! REopt.jl `src/core/production_factor.jl` for the inputs and the normalisation by turbine size.

use serde::{Deserialize, Serialize};

use super::SizeClass;
use super::POWER_CURVE_SPEEDS_M_PER_S;

/// Pascals per standard atmosphere.
pub const PA_PER_ATM: f64 = 101_325.0;
/// Specific gas constant of dry air (J/(kg·K)), SAM's value.
pub const R_DRY_AIR: f64 = 287.058;
/// Air density at 1 atm and 15 °C (kg/m³), the density power curves are given for.
pub const SEA_LEVEL_AIR_DENSITY: f64 = PA_PER_ATM / (R_DRY_AIR * 288.15);
/// The shear exponent REopt.jl passes (0.14 as a 32-bit float).
pub const SHEAR_EXPONENT: f64 = 0.140_000_000_596_046_45;
/// Density change (kg/m³) that makes SAM rescale the power curve.
const DENSITY_STEP: f64 = 0.001;
/// Farthest a speed measurement may be from the hub (m).
const MAX_HEIGHT_GAP_M: f64 = 35.0;
/// Hours in the modelled year.
const HOURS: usize = 8760;
/// Hours before 29 February in a leap year, the day SAM skips in 8784-hour data.
const LEAP_DAY_START_HOUR: usize = 1416;

/// The resource at one height: one value per time step in each column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceAtHeight {
    /// Measurement height (m above ground).
    pub height_m: f64,
    /// Air temperature (°C).
    pub temperature_c: Vec<f64>,
    /// Air pressure (atm; values above 1.1 are read as Pa, as SAM does).
    pub pressure_atm: Vec<f64>,
    /// Wind speed (m/s).
    pub speed_m_per_s: Vec<f64>,
    /// Wind direction (degrees from north); one turbine's output does not depend on it.
    pub direction_deg: Vec<f64>,
}

impl ResourceAtHeight {
    fn steps(&self) -> usize {
        self.speed_m_per_s.len()
    }
}

/// Air density (kg/m³) from pressure (atm, or Pa outside 0.5–1.1) and temperature (°C), SAM's
/// ideal-gas formula (`lib_windwatts.cpp`).
pub fn air_density(pressure: f64, temperature_c: f64) -> f64 {
    let pascals = if pressure > 0.5 && pressure < 1.1 { pressure * PA_PER_ATM } else { pressure };
    pascals / (R_DRY_AIR * (temperature_c + 273.15))
}

/// SAM's two-point line: `y1` when the points share x or y, else slope and intercept.
fn interpolate(x1: f64, y1: f64, x2: f64, y2: f64, x: f64) -> f64 {
    if x1 == x2 || y1 == y2 {
        return y1;
    }
    let slope = (y2 - y1) / (x2 - x1);
    slope * x + (y1 - slope * x1)
}

/// A power curve and the density its speeds were last scaled for.
#[derive(Debug, Clone, PartialEq)]
pub struct Turbine {
    speeds: Vec<f64>,
    power_kw: Vec<f64>,
    scaled_speeds: Vec<f64>,
    scaled_for: f64,
}

impl Turbine {
    /// A turbine of speeds (m/s) and outputs (kW) at sea-level density, of equal length ≥ 2.
    pub fn new(speeds: &[f64], power_kw: &[f64]) -> Result<Turbine, String> {
        if speeds.len() != power_kw.len() || speeds.len() < 2 {
            return Err(format!("a power curve needs as many outputs as speeds, at least 2 (got {} and {})", speeds.len(), power_kw.len()));
        }
        Ok(Turbine { speeds: speeds.to_vec(), power_kw: power_kw.to_vec(), scaled_speeds: speeds.to_vec(), scaled_for: SEA_LEVEL_AIR_DENSITY })
    }

    /// The generic turbine of a size class.
    pub fn of_class(class: SizeClass) -> Turbine {
        let speeds = POWER_CURVE_SPEEDS_M_PER_S.to_vec();
        Turbine { speeds: speeds.clone(), power_kw: class.power_curve_kw().to_vec(), scaled_speeds: speeds, scaled_for: SEA_LEVEL_AIR_DENSITY }
    }

    /// Output (kW) at hub-height speed `speed` (m/s) and air density `density` (kg/m³); the
    /// curve's scaling is kept for the next step, as SAM keeps it.
    pub fn power_kw(&mut self, speed: f64, density: f64) -> f64 {
        if (density - self.scaled_for).abs() > DENSITY_STEP {
            let factor = (SEA_LEVEL_AIR_DENSITY / density).cbrt();
            self.scaled_speeds = self.speeds.iter().map(|s| s * factor).collect();
            self.scaled_for = density;
        }
        let scaled = &self.scaled_speeds;
        let first_output = self.power_kw.iter().position(|kw| *kw != 0.0).unwrap_or(0);
        let cut_in = scaled.get(first_output.saturating_sub(1)).copied().unwrap_or(0.0);
        let (first, last) = (scaled.first().copied().unwrap_or(0.0), scaled.last().copied().unwrap_or(0.0));
        let output = if speed > first && speed < last {
            let upper = scaled.iter().position(|s| *s > speed).unwrap_or(scaled.len() - 1).max(1);
            interpolate(scaled[upper - 1], self.power_kw[upper - 1], scaled[upper], self.power_kw[upper], speed)
        } else if speed == last {
            self.power_kw.last().copied().unwrap_or(0.0)
        } else {
            0.0
        };
        if speed < cut_in || output <= 0.0 {
            0.0
        } else {
            output
        }
    }
}

/// A quantity at the hub from the columns that hold it: the nearest column, or the
/// interpolation between the nearest and the nearest on the other side of the hub; with the
/// height it stands for (the hub when interpolated).
fn at_hub(columns: &[(f64, f64)], hub_m: f64) -> Option<(f64, f64)> {
    let first = nearest(columns, hub_m, None)?;
    let (height, value) = columns[first];
    if height != hub_m {
        if let Some(other) = nearest(columns, hub_m, Some(first)) {
            let (height2, value2) = columns[other];
            let between = (height < hub_m && hub_m < height2) || (height > hub_m && hub_m > height2);
            if between {
                return Some((interpolate(height, value, height2, value2, hub_m), hub_m));
            }
        }
    }
    Some((value, height))
}

/// Index of the column nearest `hub_m` (the first of equals); with `other_side_of`, only columns
/// not on the same side of the hub as that one.
fn nearest(columns: &[(f64, f64)], hub_m: f64, other_side_of: Option<usize>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (index, (height, _)) in columns.iter().enumerate() {
        if let Some(excluded) = other_side_of {
            let excluded_height = columns[excluded].0;
            let same_side = (*height > hub_m && excluded_height > hub_m) || (*height < hub_m && excluded_height < hub_m);
            if index == excluded || same_side {
                continue;
            }
        }
        let gap = (height - hub_m).abs();
        if best.is_none_or(|(_, best_gap)| gap < best_gap) {
            best = Some((index, gap));
        }
    }
    best.map(|(index, _)| index)
}

/// Hub-height speed (m/s), temperature (°C) and pressure at one step, read as SAM reads a
/// resource table with interpolation on; errors as SAM's.
fn hub_conditions(resource: &[ResourceAtHeight], step: usize, hub_m: f64) -> Result<(f64, f64, f64), String> {
    let column = |pick: fn(&ResourceAtHeight) -> &Vec<f64>| -> Vec<(f64, f64)> {
        resource.iter().map(|r| (r.height_m, pick(r).get(step).copied().unwrap_or(f64::NAN))).collect()
    };
    let missing = || format!("the wind resource has no value at time step {step}");
    let (mut speed, measured_at) = at_hub(&column(|r| &r.speed_m_per_s), hub_m).ok_or_else(missing)?;
    let (temperature, _) = at_hub(&column(|r| &r.temperature_c), hub_m).ok_or_else(missing)?;
    let (pressure, _) = at_hub(&column(|r| &r.pressure_atm), hub_m).ok_or_else(missing)?;
    if [speed, temperature, pressure].iter().any(|v| v.is_nan()) {
        return Err(missing());
    }
    if !(0.0..=120.0).contains(&speed) {
        return Err(format!("wind speed of {speed} m/s at time step {step} is outside the possible range of 0 to 120 m/s"));
    }
    if !(-200.0..=100.0).contains(&temperature) {
        return Err(format!("temperature of {temperature} °C at time step {step} is outside the possible range of -200 to 100 °C"));
    }
    if (measured_at - hub_m).abs() > MAX_HEIGHT_GAP_M {
        return Err(format!("the closest wind speed measurement height ({measured_at} m) is more than 35 m from the hub height ({hub_m} m)"));
    }
    if (measured_at - hub_m).abs() > 1.0 {
        speed *= (hub_m / measured_at).powf(SHEAR_EXPONENT);
    }
    Ok((speed, temperature, pressure))
}

/// The turbine's output (kW) at every step of the resource (a whole number of 8760-hour years'
/// steps; 8784 hourly values lose 29 February, as in SAM).
pub fn output_kw(turbine: &mut Turbine, hub_height_m: f64, resource: &[ResourceAtHeight]) -> Result<Vec<f64>, String> {
    let steps = resource.first().map_or(0, ResourceAtHeight::steps);
    if steps == 0 || resource.iter().any(|r| r.steps() != steps || r.temperature_c.len() != steps || r.pressure_atm.len() != steps) {
        return Err("the wind resource needs columns of one non-zero length".into());
    }
    let skipped = if steps.is_multiple_of(8784) {
        let per_hour = steps / 8784;
        LEAP_DAY_START_HOUR * per_hour..(LEAP_DAY_START_HOUR + 24) * per_hour
    } else if steps.is_multiple_of(HOURS) {
        0..0
    } else {
        return Err(format!("invalid number of wind resource records ({steps}): must be a whole multiple of 8760"));
    };
    (0..steps)
        .filter(|step| !skipped.contains(step))
        .map(|step| {
            let (speed, temperature, pressure) = hub_conditions(resource, step, hub_height_m)?;
            Ok(turbine.power_kw(speed, air_density(pressure, temperature)))
        })
        .collect()
}

/// The production factor (kW per kW of turbine) the service computes for a size class: SAM's
/// output of the class's turbine, its first 8760 values (REopt.jl reads no more) divided by
/// the turbine's size, each hour repeated `steps_per_hour` times.
pub fn production_factor(class: SizeClass, resource: &[ResourceAtHeight], steps_per_hour: usize) -> Result<Vec<f64>, String> {
    let mut turbine = Turbine::of_class(class);
    let output = output_kw(&mut turbine, class.hub_height_m(), resource)?;
    let rated = class.rated_kw();
    Ok(output.iter().take(HOURS).flat_map(|kw| std::iter::repeat_n(kw / rated, steps_per_hour.max(1))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steady(height_m: f64, speed: f64, temperature_c: f64, pressure_atm: f64) -> ResourceAtHeight {
        ResourceAtHeight {
            height_m,
            temperature_c: vec![temperature_c; HOURS],
            pressure_atm: vec![pressure_atm; HOURS],
            speed_m_per_s: vec![speed; HOURS],
            direction_deg: vec![180.0; HOURS],
        }
    }

    #[test]
    fn sea_level_density_is_the_standard_atmosphere() {
        assert!((SEA_LEVEL_AIR_DENSITY - 1.224_978).abs() < 1e-6, "{SEA_LEVEL_AIR_DENSITY}");
        assert!((air_density(1.0, 15.0) - SEA_LEVEL_AIR_DENSITY).abs() < 1e-12);
        assert_eq!(air_density(101_325.0, 15.0), air_density(1.0, 15.0), "a pressure above 1.1 is read as Pa");
    }

    /// At sea-level density the curve is read as given: linear between its points, its last
    /// value at 25 m/s, nothing above or below cut-in.
    #[test]
    fn the_curve_is_interpolated_at_standard_density() {
        let mut large = Turbine::of_class(SizeClass::Large);
        let rho = SEA_LEVEL_AIR_DENSITY;
        assert!((large.power_kw(5.5, rho) - (324.625 + 560.952) / 2.0).abs() < 1e-9);
        assert!((large.power_kw(3.25, rho) - (70.119 + 0.25 * (166.208 - 70.119))).abs() < 1e-9);
        assert!((large.power_kw(2.5, rho) - 70.119 / 2.0).abs() < 1e-9, "between 2 and 3 m/s the line from 0 to 70.119");
        assert_eq!(large.power_kw(1.99, rho), 0.0);
        assert_eq!((large.power_kw(25.0, rho), large.power_kw(25.01, rho), large.power_kw(0.0, rho)), (2000.0, 0.0, 0.0));
        let mut residential = Turbine::of_class(SizeClass::Residential);
        assert!((residential.power_kw(18.5, rho) - 1.25).abs() < 1e-12, "the residential curve falls to 0 at 19 m/s");
    }

    /// Thinner air shifts the curve to higher speeds by (ρ₀/ρ)^(1/3): at 0.9 ρ₀ the 5 m/s point
    /// moves to 5 · 0.9^(-1/3) m/s.
    #[test]
    fn thinner_air_shifts_the_curve() {
        let mut medium = Turbine::of_class(SizeClass::Medium);
        let rho = 0.9 * SEA_LEVEL_AIR_DENSITY;
        let shifted = 5.0 * (1.0_f64 / 0.9).cbrt();
        assert!((medium.power_kw(shifted, rho) - 40.578125).abs() < 1e-9);
        assert!(medium.power_kw(5.0, rho) < 40.578125);
        // Within 0.001 kg/m³ of the last scaling, the curve stays as it was.
        assert!((medium.power_kw(shifted, rho + 0.0009) - 40.578125).abs() < 1e-9);
    }

    /// A hand-checked hour: large turbine at 80 m, 7.5 m/s, 1 atm and 15 °C: (890.771 +
    /// 1329.664) / 2 kW, so 0.555109 kW/kW; repeated to 4 steps per hour.
    #[test]
    fn a_hand_checked_production_factor() {
        let factor = production_factor(SizeClass::Large, &[steady(80.0, 7.5, 15.0, 1.0)], 4).unwrap();
        assert_eq!(factor.len(), 4 * HOURS);
        assert!((factor[0] - (890.771 + 1329.664) / 2.0 / 2000.0).abs() < 1e-12, "{}", factor[0]);
    }

    /// The residential hub (20 m) lies between the toolkit's 10 m and 40 m: speed is
    /// interpolated linearly (4 and 7 m/s give 5 m/s), with no shear.
    #[test]
    fn the_hub_is_interpolated_between_heights_and_sheared_from_one() {
        let resource = [steady(10.0, 4.0, 15.0, 1.0), steady(40.0, 7.0, 15.0, 1.0)];
        let factor = production_factor(SizeClass::Residential, &resource, 1).unwrap();
        assert!((factor[0] - 0.326586914 / 2.5).abs() < 1e-12, "{}", factor[0]);
        let sheared = production_factor(SizeClass::Residential, &[steady(40.0, 6.0, 15.0, 1.0)], 1).unwrap();
        let speed = 6.0 * (0.5_f64).powf(SHEAR_EXPONENT);
        let expected = 0.326586914 + (0.564342188 - 0.326586914) * (speed - 5.0);
        assert!((sheared[0] * 2.5 - expected).abs() < 1e-9, "{} vs {expected}", sheared[0] * 2.5);
        let too_far = production_factor(SizeClass::Large, &[steady(10.0, 6.0, 15.0, 1.0)], 1).unwrap_err();
        assert!(too_far.contains("more than 35 m"), "{too_far}");
    }

    #[test]
    fn leap_years_lose_their_29th_of_february_and_bad_values_are_refused() {
        let mut leap = steady(80.0, 8.0, 15.0, 1.0);
        for column in [&mut leap.speed_m_per_s, &mut leap.temperature_c, &mut leap.pressure_atm, &mut leap.direction_deg] {
            column.resize(8784, column[0]);
        }
        leap.speed_m_per_s[LEAP_DAY_START_HOUR..LEAP_DAY_START_HOUR + 24].fill(0.0);
        let factor = production_factor(SizeClass::Large, &[leap], 1).unwrap();
        assert_eq!(factor.len(), HOURS);
        assert!(factor.iter().all(|f| (f - 1329.664 / 2000.0).abs() < 1e-12), "29 February's calm is skipped");
        let mut bad = steady(80.0, 8.0, 15.0, 1.0);
        bad.speed_m_per_s[3] = 130.0;
        assert!(production_factor(SizeClass::Large, &[bad], 1).unwrap_err().contains("0 to 120 m/s"));
        assert!(production_factor(SizeClass::Large, &[], 1).is_err());
    }
}
