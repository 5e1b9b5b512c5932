//! Electric load profiles as the service builds them from a scenario: the FlatLoad shapes and
//! the scaling of a profile to annual or monthly energy.

use crate::optimizer::calendar;

/// The FlatLoad profiles (constant load over their operating hours).
pub const FLAT_LOADS: [&str; 6] = ["FlatLoad", "FlatLoad_24_5", "FlatLoad_16_7", "FlatLoad_16_5", "FlatLoad_8_7", "FlatLoad_8_5"];

/// Normalized hourly shape of a FlatLoad profile for `year`: 1 in operating hours, 0 elsewhere,
/// divided by the count. `_5` variants skip Saturdays and Sundays; `_16_` runs 06:00–22:00 and
/// `_8_` 09:00–17:00.
pub fn flat_load_shape(name: &str, year: i32) -> Vec<f64> {
    let weekdays_only = name.ends_with("_5");
    let hours: std::ops::Range<u8> = if name.starts_with("FlatLoad_16") {
        6..22
    } else if name.starts_with("FlatLoad_8") {
        9..17
    } else {
        0..24
    };
    let on: Vec<f64> = calendar::step_times(year, 1)
        .iter()
        .map(|time| if (!weekdays_only || !time.weekend) && hours.contains(&time.hour) { 1.0 } else { 0.0 })
        .collect();
    let count: f64 = on.iter().sum();
    on.iter().map(|x| x / count).collect()
}

/// Annual or monthly energy a load profile is scaled to (kWh).
#[derive(Debug, Clone, PartialEq)]
pub enum EnergyTarget {
    Annual(f64),
    Monthly(Vec<f64>),
}

/// Scales a profile whose values sum to 1 so that it carries the target energy:
/// annual → `kW_t = shape_t · E · n`; monthly → each month's steps are scaled to that month's
/// kWh (a month with no operating steps gets none). `n` = steps per hour of the shape.
pub fn scale_profile(shape: &[f64], energy: &EnergyTarget, year: i32, steps_per_hour: usize) -> Vec<f64> {
    let n = steps_per_hour as f64;
    match energy {
        EnergyTarget::Annual(total) => shape.iter().map(|x| x * total * n).collect(),
        EnergyTarget::Monthly(months) => {
            let month_of_step = calendar::month_of_each_step(year, steps_per_hour);
            let mut month_share = [0.0; 12];
            for (x, &m) in shape.iter().zip(&month_of_step) {
                month_share[m as usize] += x;
            }
            shape
                .iter()
                .zip(&month_of_step)
                .map(|(x, &m)| {
                    let share = month_share[m as usize];
                    if share > 0.0 {
                        x * months[m as usize] / share * n
                    } else {
                        0.0
                    }
                })
                .collect()
        }
    }
}
