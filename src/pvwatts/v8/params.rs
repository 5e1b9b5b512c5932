//! PVWatts v8 inputs beyond v5's: bifaciality, ground albedo, monthly soiling and the snow model,
//! with their accepted ranges and validation. This is the one place these ranges live; the local
//! engine, the client and the embedded estimator all validate through `validate_v8_options` (and
//! `validate_v8_system` for the system parameters, whose ranges are v5's except the ground
//! coverage ratio).
//!
//! Ranges are those documented for the live PV estimator v8 (`Endpoint::PvEstimatorV8`): bifaciality
//! 0–1, albedo strictly between 0 and 1 (one value or twelve monthly values), soiling 0–100 % per
//! month (twelve values), gcr 0.01–0.99 (SSC refuses gcr < 0.01 or ≥ 1). `en_snowloss` (SSC's
//! switch for Marion's snow model) is not documented for the web service; the engine and the
//! embedded service honour it.

use crate::pvwatts::params::{
    validate_params_with_gcr, Bound, ParamRange, RawParams, SystemParams,
};

/// Ground coverage ratio accepted by PVWatts v8.
pub const V8_GCR_RANGE: ParamRange = ParamRange {
    name: "gcr",
    min: Bound::Inclusive(0.01),
    max: Bound::Inclusive(0.99),
};
/// Ratio of rear-side to front-side efficiency of bifacial modules (0 = monofacial).
pub const BIFACIALITY_RANGE: ParamRange = ParamRange {
    name: "bifaciality",
    min: Bound::Inclusive(0.0),
    max: Bound::Inclusive(1.0),
};
/// Ground reflectance, per value.
pub const ALBEDO_RANGE: ParamRange = ParamRange {
    name: "albedo",
    min: Bound::Exclusive(0.0),
    max: Bound::Exclusive(1.0),
};
/// Monthly soiling loss of the front-side irradiance, %, per value.
pub const SOILING_RANGE: ParamRange = ParamRange {
    name: "soiling",
    min: Bound::Inclusive(0.0),
    max: Bound::Inclusive(100.0),
};
/// Albedo used when neither the input nor the weather gives a valid one (SSC `albedo_default`).
pub const DEFAULT_ALBEDO: f64 = 0.2;
/// Albedo used instead of `DEFAULT_ALBEDO` on snow-covered ground (more than 0.5 cm of snow)
/// when the snow model is on (SSC `albedo_default_snow`).
pub const DEFAULT_SNOW_ALBEDO: f64 = 0.6;

/// Ground albedo given by the user.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlbedoInput {
    /// One value for the whole year.
    Constant(f64),
    /// One value per month, January first.
    Monthly([f64; 12]),
}

impl AlbedoInput {
    /// The albedo of `month` (1–12).
    pub fn for_month(&self, month: u8) -> f64 {
        match self {
            AlbedoInput::Constant(value) => *value,
            AlbedoInput::Monthly(values) => values[usize::from(month - 1)],
        }
    }

    /// The values as given (one or twelve).
    pub fn values(&self) -> &[f64] {
        match self {
            AlbedoInput::Constant(value) => std::slice::from_ref(value),
            AlbedoInput::Monthly(values) => values,
        }
    }
}

/// The v8-only options, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V8Options {
    /// Rear-side efficiency over front-side efficiency (0: monofacial modules, no rear model).
    pub bifaciality: f64,
    /// Ground albedo given by the user, used when `use_weather_albedo` is false (the full rule
    /// is `engine::record_albedo`).
    pub albedo: Option<AlbedoInput>,
    /// Take each record's albedo from the weather when it is valid (strictly between 0 and 1).
    pub use_weather_albedo: bool,
    /// Soiling loss per month, % (January first); `None` means no soiling loss.
    pub soiling: Option<[f64; 12]>,
    /// Run Marion's snow-coverage model (needs snow depth in the weather).
    pub snow_loss: bool,
}

impl Default for V8Options {
    /// Monofacial modules, the weather's albedo, no soiling, no snow model.
    fn default() -> Self {
        V8Options {
            bifaciality: 0.0,
            albedo: None,
            use_weather_albedo: true,
            soiling: None,
            snow_loss: false,
        }
    }
}

/// Everything a v8 simulation needs: v5's system parameters and the v8 options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct V8Params {
    pub system: SystemParams,
    pub options: V8Options,
}

/// The v8 options as a caller gave them (types already checked), before range checks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawV8Options {
    pub bifaciality: Option<f64>,
    /// One value or twelve monthly values.
    pub albedo: Option<Vec<f64>>,
    /// Default: true unless `albedo` is given (giving an albedo means wanting it used).
    pub use_wf_albedo: Option<bool>,
    /// Twelve monthly values, %.
    pub soiling: Option<Vec<f64>>,
    pub en_snowloss: Option<bool>,
}

/// The message for values of a list that lie outside `range` (each with its position).
fn list_problem(range: &ParamRange, values: &[f64]) -> Option<String> {
    let outside: Vec<String> = values
        .iter()
        .enumerate()
        .filter(|(_, v)| !range.contains(**v))
        .map(|(i, v)| format!("{v} at position {i}"))
        .collect();
    (!outside.is_empty()).then(|| {
        format!(
            "{} values must each be {} (got {})",
            range.name,
            range,
            outside.join(", ")
        )
    })
}

/// Validate the v8 options. Returns every problem at once, each message starting with the
/// parameter name.
pub fn validate_v8_options(raw: &RawV8Options) -> Result<V8Options, Vec<String>> {
    let mut problems = Vec::new();
    let bifaciality = raw.bifaciality.unwrap_or(0.0);
    if !BIFACIALITY_RANGE.contains(bifaciality) {
        problems.push(BIFACIALITY_RANGE.violation(bifaciality));
    }
    let albedo = match raw.albedo.as_deref() {
        None => None,
        Some(values) => {
            let shaped = match values {
                [value] => Some(AlbedoInput::Constant(*value)),
                _ => <[f64; 12]>::try_from(values).ok().map(AlbedoInput::Monthly),
            };
            if shaped.is_none() {
                problems.push(format!(
                    "albedo must be one value or 12 monthly values (got {} values)",
                    values.len()
                ));
            }
            problems.extend(list_problem(&ALBEDO_RANGE, values));
            shaped
        }
    };
    let soiling = match raw.soiling.as_deref() {
        None => None,
        Some(values) => {
            let monthly = <[f64; 12]>::try_from(values).ok();
            if monthly.is_none() {
                problems.push(format!(
                    "soiling must be 12 monthly values in % (got {} values)",
                    values.len()
                ));
            }
            problems.extend(list_problem(&SOILING_RANGE, values));
            monthly
        }
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(V8Options {
        bifaciality,
        albedo,
        use_weather_albedo: raw.use_wf_albedo.unwrap_or(raw.albedo.is_none()),
        soiling,
        snow_loss: raw.en_snowloss.unwrap_or(false),
    })
}

/// Validate the system parameters with v8's ranges (v5's, with gcr 0.01–0.99).
pub fn validate_v8_system(raw: &RawParams) -> Result<SystemParams, Vec<String>> {
    validate_params_with_gcr(raw, &V8_GCR_RANGE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_monofacial_with_the_weather_albedo() {
        let options = validate_v8_options(&RawV8Options::default()).unwrap();
        assert_eq!(options, V8Options::default());
        let given = validate_v8_options(&RawV8Options {
            albedo: Some(vec![0.3]),
            ..RawV8Options::default()
        })
        .unwrap();
        assert_eq!(given.albedo, Some(AlbedoInput::Constant(0.3)));
        assert!(!given.use_weather_albedo, "a given albedo is used");
        let both = validate_v8_options(&RawV8Options {
            albedo: Some(vec![0.25; 12]),
            use_wf_albedo: Some(true),
            ..RawV8Options::default()
        })
        .unwrap();
        assert!(both.use_weather_albedo);
        assert_eq!(both.albedo.unwrap().for_month(12), 0.25);
    }

    #[test]
    fn every_problem_is_reported() {
        let problems = validate_v8_options(&RawV8Options {
            bifaciality: Some(1.5),
            albedo: Some(vec![0.2, 1.0]),
            use_wf_albedo: None,
            soiling: Some(vec![-1.0; 11]),
            en_snowloss: Some(true),
        })
        .unwrap_err();
        assert_eq!(
            problems,
            vec![
                "bifaciality must be between 0 and 1 (got 1.5)",
                "albedo must be one value or 12 monthly values (got 2 values)",
                "albedo values must each be greater than 0 and less than 1 (got 1 at position 1)",
                "soiling must be 12 monthly values in % (got 11 values)",
                "soiling values must each be between 0 and 100 (got -1 at position 0, -1 at position 1, \
                 -1 at position 2, -1 at position 3, -1 at position 4, -1 at position 5, -1 at position 6, \
                 -1 at position 7, -1 at position 8, -1 at position 9, -1 at position 10)",
            ]
        );
    }

    #[test]
    fn v8_takes_its_own_gcr_range() {
        let mut raw = RawParams::new(4.0, 0, 14.0, 2, 0.0, 180.0);
        raw.gcr = 0.005;
        assert_eq!(
            validate_v8_system(&raw).unwrap_err(),
            vec!["gcr must be between 0.01 and 0.99 (got 0.005)"]
        );
        raw.gcr = 0.99;
        assert!(validate_v8_system(&raw).is_ok());
        raw.gcr = 1.5;
        assert!(validate_v8_system(&raw).is_err());
        assert!(crate::pvwatts::params::validate_params(&raw).is_ok());
    }
}
