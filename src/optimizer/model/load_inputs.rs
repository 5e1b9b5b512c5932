//! ElectricLoad read into the load per step: a custom `loads_kw` profile (with its
//! normalization and scaling to energy and to monthly peaks) or a FlatLoad profile scaled to
//! energy, and the net-load adjustment for existing PV. The profiles and their scaling are
//! `optimizer::loads`; this is where the scenario's inputs choose among them.

use serde_json::{Map, Value};

use super::{FilledDefault, Pv, Reader, REFERENCE_PROFILE_YEAR};
use crate::optimizer::loads::{flat_load_shape, peak_scaling_skipped, scale_profile, scale_to_monthly_peaks, EnergyTarget, PeakScalingError, FLAT_LOADS};

impl Reader<'_> {
    /// The load year and the load per step before the net-load adjustment.
    pub(super) fn read_load(&mut self, steps_per_hour: usize) -> Option<(i32, Vec<f64>)> {
        let Some(map) = self.section("ElectricLoad") else {
            self.invalid.push("ElectricLoad: Missing required inputs.".into());
            return None;
        };
        let s = "ElectricLoad";
        let loads = self.numbers(map, s, "loads_kw");
        let annual = self.number_in(map, s, "annual_kwh");
        let monthly = self.numbers(map, s, "monthly_totals_kwh");
        let peaks = self.numbers(map, s, "monthly_peaks_kw");
        let normalize = self.flag(map, s, "normalize_and_scale_load_profile_input");
        if annual.is_some() && !monthly.is_empty() {
            self.invalid.push("Cannot provide both annual_kwh and monthly_totals_kwh to scale the electric load profile.".into());
            return None;
        }
        if !monthly.is_empty() && monthly.len() != 12 {
            self.invalid.push("ElectricLoad.monthly_totals_kwh must have 12 values.".into());
            return None;
        }
        let energy = match (annual, monthly.is_empty()) {
            (Some(total), _) => Some(EnergyTarget::Annual(total)),
            (None, false) => Some(EnergyTarget::Monthly(monthly)),
            (None, true) => None,
        };
        let name = self.text(map, "doe_reference_name");
        if !loads.is_empty() {
            let Some(year) = self.number_in(map, s, "year").map(|y| y as i32) else {
                self.invalid.push("Must provide ElectricLoad.year when using loads_kw input.".into());
                return None;
            };
            let series = self.series(&loads, s, "loads_kw", steps_per_hour)?;
            let blend = self.reference_blend(map);
            let blend: Vec<(&str, f64)> = blend.iter().map(|(name, share)| (name.as_str(), *share)).collect();
            // The service looks at the reference names even for a custom profile.
            let scaling = LoadScaling { normalize, energy, peaks, skip_peaks: peak_scaling_skipped(name, &blend) };
            return self.custom_load(series, year, steps_per_hour, scaling).map(|load| (year, load));
        }
        if name.is_empty() {
            self.invalid.push("ElectricLoad: Must provide at least one set of valid inputs.".into());
            return None;
        }
        if !FLAT_LOADS.contains(&name) {
            self.unsupported.push(format!(
                "ElectricLoad.doe_reference_name={name} (reference building profiles other than FlatLoad: resolve them into loads_kw with Scenario.resolve(client))"
            ));
            return None;
        }
        let Some(energy) = energy else {
            self.unsupported.push(format!(
                "ElectricLoad.doe_reference_name={name} without annual_kwh or monthly_totals_kwh (the climate-zone default energy: resolve it with Scenario.resolve(client))"
            ));
            return None;
        };
        // `monthly_peaks_kw` is left unused here: the service does not scale a FlatLoad to peaks.
        let year = REFERENCE_PROFILE_YEAR;
        self.filled.push(FilledDefault::new(s, "year", Value::from(year)));
        let hourly = scale_profile(&flat_load_shape(name, year), &energy, year, 1);
        Some((year, hourly.iter().flat_map(|&kw| std::iter::repeat_n(kw, steps_per_hour)).collect()))
    }

    /// `blended_doe_reference_names` paired with `blended_doe_reference_percents` (only what
    /// the service's FlatLoad test of `monthly_peaks_kw` reads; unpaired names are dropped).
    fn reference_blend(&mut self, map: &Map<String, Value>) -> Vec<(String, f64)> {
        let names: Vec<String> = match map.get("blended_doe_reference_names") {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        };
        let shares = self.numbers(map, "ElectricLoad", "blended_doe_reference_percents");
        names.into_iter().zip(shares).collect()
    }

    /// A custom `loads_kw` profile with `normalize_and_scale_load_profile_input` as the
    /// service applies it: the energy scaling first (the profile normalized, then scaled to
    /// `annual_kwh` or `monthly_totals_kwh`), then the scaling to `monthly_peaks_kw`
    /// (`loads::scale_to_monthly_peaks`), or the peaks alone on the profile as given.
    fn custom_load(&mut self, loads: Vec<f64>, year: i32, steps_per_hour: usize, scaling: LoadScaling) -> Option<Vec<f64>> {
        let LoadScaling { normalize, energy, peaks, skip_peaks } = scaling;
        if !normalize {
            if energy.is_none() && peaks.is_empty() {
                return Some(loads);
            }
            self.invalid.push(
                "If providing loads_kw and annual_kwh or monthly_totals_kwh or monthly_peaks_kw, must set normalize_and_scale_load_profile_input=true."
                    .into(),
            );
            return None;
        }
        let loads = match energy {
            Some(energy) => {
                let total: f64 = loads.iter().sum();
                if total <= 0.0 {
                    self.invalid.push("ElectricLoad.loads_kw must have a positive total to be normalized.".into());
                    return None;
                }
                let shape: Vec<f64> = loads.iter().map(|kw| kw / total).collect();
                scale_profile(&shape, &energy, year, steps_per_hour)
            }
            None if peaks.is_empty() => {
                self.invalid.push(
                    "Provided loads_kw with normalize_and_scale_load_profile_input=true, but no annual_kwh, monthly_totals_kwh, or monthly_peaks_kw was provided"
                        .into(),
                );
                return None;
            }
            None => loads,
        };
        if peaks.is_empty() || skip_peaks {
            return Some(loads);
        }
        match scale_to_monthly_peaks(&loads, &peaks, year, steps_per_hour) {
            Ok(scaled) => Some(scaled),
            Err(PeakScalingError::Rejected(message)) => {
                self.invalid.push(message);
                None
            }
            Err(PeakScalingError::Months(problems)) => {
                for problem in problems {
                    self.unsupported.push(format!("ElectricLoad.monthly_peaks_kw ({problem})"));
                }
                None
            }
        }
    }

    /// `loads_kw_is_net`: the load given is net of the existing PV, whose output is added back.
    pub(super) fn net_load_adjustment(&mut self, mut load: Vec<f64>, pvs: &[Pv]) -> Vec<f64> {
        let map = self.section("ElectricLoad").unwrap_or(self.empty);
        let is_net = self.flag(map, "ElectricLoad", "loads_kw_is_net");
        for pv in pvs.iter().filter(|pv| is_net && pv.existing_kw > 0.0) {
            for (kw, factor) in load.iter_mut().zip(&pv.production_factor) {
                *kw += pv.existing_kw * factor;
            }
        }
        load
    }
}

/// How a custom `loads_kw` profile is to be scaled (ElectricLoad inputs).
struct LoadScaling {
    /// `normalize_and_scale_load_profile_input`.
    normalize: bool,
    /// `annual_kwh` or `monthly_totals_kwh`.
    energy: Option<EnergyTarget>,
    /// `monthly_peaks_kw` (empty: not given).
    peaks: Vec<f64>,
    /// The service does not scale to the peaks (FlatLoad reference names), though it checks
    /// that they come with `normalize`.
    skip_peaks: bool,
}
