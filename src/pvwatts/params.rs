//! PV system parameters of the PV estimator (PVWatts v5): module and array types, the accepted
//! ranges, and validation. This is the one place the ranges live; the local engine and the web
//! estimator both validate through `validate_params`.
//!
//! Ranges are those of the PV estimator v6 (`shared/spec`): system_capacity 0.05–500000 kW,
//! module_type 0/1/2, losses −5–99 %, array_type 0–4, tilt 0–90°, azimuth 0 ≤ a < 360°,
//! dc_ac_ratio > 0, gcr 0–3, inv_eff 90–99.5 %.

use std::fmt;

/// Module type: temperature coefficient of power and cover (Dobos 2014, PVWatts v5 manual,
/// NREL/TP-6A20-62641, table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModuleType {
    /// Crystalline silicon, glass cover, γ = −0.47 %/°C.
    Standard = 0,
    /// High-efficiency crystalline silicon, anti-reflective glass, γ = −0.35 %/°C.
    Premium = 1,
    /// Thin film, glass cover, γ = −0.20 %/°C.
    ThinFilm = 2,
}

impl ModuleType {
    /// The module type for an estimator code (0, 1, 2).
    pub fn from_i64(code: i64) -> Option<ModuleType> {
        match code {
            0 => Some(ModuleType::Standard),
            1 => Some(ModuleType::Premium),
            2 => Some(ModuleType::ThinFilm),
            _ => None,
        }
    }

    /// The estimator code of this module type.
    pub fn code(self) -> i64 {
        self as i64
    }

    /// Temperature coefficient of power, 1/°C (SSC `cmod_pvwattsv5.cpp`).
    pub fn temperature_coefficient(self) -> f64 {
        match self {
            ModuleType::Standard => -0.0047,
            ModuleType::Premium => -0.0035,
            ModuleType::ThinFilm => -0.0020,
        }
    }

    /// True when the cover has an anti-reflective coating (premium modules).
    pub fn has_anti_reflective_coating(self) -> bool {
        self == ModuleType::Premium
    }
}

/// How the modules are mounted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayType {
    /// Fixed tilt, open rack (INOCT 45 °C).
    FixedOpenRack = 0,
    /// Fixed tilt, roof mount (INOCT 49 °C).
    FixedRoofMount = 1,
    /// Single-axis tracker with row-to-row self-shading losses.
    OneAxis = 2,
    /// Single-axis tracker with backtracking (no self-shading loss).
    OneAxisBacktracking = 3,
    /// Two-axis tracker.
    TwoAxis = 4,
}

/// The tracking geometry of an array type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tracking {
    /// Fixed tilt and azimuth.
    Fixed,
    /// Rotation about one axis (tilt/azimuth give the axis), limited to ±45°.
    OneAxis {
        /// Backtracking avoids row-to-row shading; without it self-shading losses apply.
        backtracking: bool,
    },
    /// The surface always faces the sun.
    TwoAxis,
}

impl ArrayType {
    /// The array type for an estimator code (0–4).
    pub fn from_i64(code: i64) -> Option<ArrayType> {
        match code {
            0 => Some(ArrayType::FixedOpenRack),
            1 => Some(ArrayType::FixedRoofMount),
            2 => Some(ArrayType::OneAxis),
            3 => Some(ArrayType::OneAxisBacktracking),
            4 => Some(ArrayType::TwoAxis),
            _ => None,
        }
    }

    /// The estimator code of this array type.
    pub fn code(self) -> i64 {
        self as i64
    }

    /// Installed nominal operating cell temperature, °C.
    pub fn inoct_celsius(self) -> f64 {
        match self {
            ArrayType::FixedRoofMount => 49.0,
            _ => 45.0,
        }
    }

    /// Tracking geometry.
    pub fn tracking(self) -> Tracking {
        match self {
            ArrayType::FixedOpenRack | ArrayType::FixedRoofMount => Tracking::Fixed,
            ArrayType::OneAxis => Tracking::OneAxis {
                backtracking: false,
            },
            ArrayType::OneAxisBacktracking => Tracking::OneAxis { backtracking: true },
            ArrayType::TwoAxis => Tracking::TwoAxis,
        }
    }
}

/// Default DC-to-AC ratio of the estimator.
pub const DEFAULT_DC_AC_RATIO: f64 = 1.2;
/// Default ground coverage ratio of the estimator.
pub const DEFAULT_GCR: f64 = 0.4;
/// Default nominal inverter efficiency of the estimator, %.
pub const DEFAULT_INV_EFF: f64 = 96.0;

/// Parameters exactly as a user gave them, before validation (codes stay integers so that, e.g.,
/// `module_type = 7` can be reported).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RawParams {
    /// DC nameplate capacity, kW.
    pub system_capacity: f64,
    /// Module type code (0, 1, 2).
    pub module_type: i64,
    /// System losses, %.
    pub losses: f64,
    /// Array type code (0–4).
    pub array_type: i64,
    /// Tilt of the array (fixed) or of the tracker axis, degrees from horizontal.
    pub tilt: f64,
    /// Azimuth of the array (fixed) or of the tracker axis, degrees clockwise from north.
    pub azimuth: f64,
    /// DC-to-AC ratio.
    pub dc_ac_ratio: f64,
    /// Ground coverage ratio (used by single-axis trackers).
    pub gcr: f64,
    /// Nominal inverter efficiency, %.
    pub inv_eff: f64,
}

impl RawParams {
    /// Required parameters, with the estimator defaults for dc_ac_ratio, gcr and inv_eff.
    pub fn new(
        system_capacity: f64,
        module_type: i64,
        losses: f64,
        array_type: i64,
        tilt: f64,
        azimuth: f64,
    ) -> Self {
        RawParams {
            system_capacity,
            module_type,
            losses,
            array_type,
            tilt,
            azimuth,
            dc_ac_ratio: DEFAULT_DC_AC_RATIO,
            gcr: DEFAULT_GCR,
            inv_eff: DEFAULT_INV_EFF,
        }
    }
}

/// Validated PV system parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SystemParams {
    /// DC nameplate capacity, kW.
    pub system_capacity: f64,
    /// Module type.
    pub module_type: ModuleType,
    /// System losses, % (applied as a DC derate).
    pub losses: f64,
    /// Array type.
    pub array_type: ArrayType,
    /// Tilt of the array or tracker axis, degrees.
    pub tilt: f64,
    /// Azimuth of the array or tracker axis, degrees clockwise from north.
    pub azimuth: f64,
    /// DC-to-AC ratio.
    pub dc_ac_ratio: f64,
    /// Ground coverage ratio (used by single-axis trackers only).
    pub gcr: f64,
    /// Nominal inverter efficiency, %.
    pub inv_eff: f64,
}

impl From<&SystemParams> for RawParams {
    fn from(p: &SystemParams) -> Self {
        RawParams {
            system_capacity: p.system_capacity,
            module_type: p.module_type.code(),
            losses: p.losses,
            array_type: p.array_type.code(),
            tilt: p.tilt,
            azimuth: p.azimuth,
            dc_ac_ratio: p.dc_ac_ratio,
            gcr: p.gcr,
            inv_eff: p.inv_eff,
        }
    }
}

/// An end of a parameter range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// The value may equal the bound.
    Inclusive(f64),
    /// The value must not equal the bound.
    Exclusive(f64),
    /// No bound on this side.
    Unbounded,
}

/// The accepted range of a numeric parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamRange {
    /// Parameter name as in the estimator.
    pub name: &'static str,
    /// Lower end.
    pub min: Bound,
    /// Upper end.
    pub max: Bound,
}

impl ParamRange {
    /// True when `value` lies in the range (NaN never does).
    pub fn contains(&self, value: f64) -> bool {
        let above = match self.min {
            Bound::Inclusive(m) => value >= m,
            Bound::Exclusive(m) => value > m,
            Bound::Unbounded => !value.is_nan(),
        };
        let below = match self.max {
            Bound::Inclusive(m) => value <= m,
            Bound::Exclusive(m) => value < m,
            Bound::Unbounded => !value.is_nan(),
        };
        above && below
    }

    /// The message for a value outside the range, starting with the parameter name.
    pub fn violation(&self, value: f64) -> String {
        format!("{} must be {} (got {})", self.name, self, value)
    }
}

impl fmt::Display for ParamRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max) {
            (Bound::Inclusive(a), Bound::Inclusive(b)) => write!(f, "between {a} and {b}"),
            (Bound::Inclusive(a), Bound::Exclusive(b)) => {
                write!(f, "at least {a} and less than {b}")
            }
            (Bound::Exclusive(a), Bound::Inclusive(b)) => {
                write!(f, "greater than {a} and at most {b}")
            }
            (Bound::Exclusive(a), Bound::Exclusive(b)) => {
                write!(f, "greater than {a} and less than {b}")
            }
            (Bound::Inclusive(a), Bound::Unbounded) => write!(f, "at least {a}"),
            (Bound::Exclusive(a), Bound::Unbounded) => write!(f, "greater than {a}"),
            (Bound::Unbounded, Bound::Inclusive(b)) => write!(f, "at most {b}"),
            (Bound::Unbounded, Bound::Exclusive(b)) => write!(f, "less than {b}"),
            (Bound::Unbounded, Bound::Unbounded) => write!(f, "a number"),
        }
    }
}

/// DC nameplate capacity, kW.
pub const SYSTEM_CAPACITY_RANGE: ParamRange = ParamRange {
    name: "system_capacity",
    min: Bound::Inclusive(0.05),
    max: Bound::Inclusive(500000.0),
};
/// System losses, %.
pub const LOSSES_RANGE: ParamRange = ParamRange {
    name: "losses",
    min: Bound::Inclusive(-5.0),
    max: Bound::Inclusive(99.0),
};
/// Tilt, degrees.
pub const TILT_RANGE: ParamRange = ParamRange {
    name: "tilt",
    min: Bound::Inclusive(0.0),
    max: Bound::Inclusive(90.0),
};
/// Azimuth, degrees.
pub const AZIMUTH_RANGE: ParamRange = ParamRange {
    name: "azimuth",
    min: Bound::Inclusive(0.0),
    max: Bound::Exclusive(360.0),
};
/// DC-to-AC ratio.
pub const DC_AC_RATIO_RANGE: ParamRange = ParamRange {
    name: "dc_ac_ratio",
    min: Bound::Exclusive(0.0),
    max: Bound::Unbounded,
};
/// Ground coverage ratio.
pub const GCR_RANGE: ParamRange = ParamRange {
    name: "gcr",
    min: Bound::Inclusive(0.0),
    max: Bound::Inclusive(3.0),
};
/// Nominal inverter efficiency, %.
pub const INV_EFF_RANGE: ParamRange = ParamRange {
    name: "inv_eff",
    min: Bound::Inclusive(90.0),
    max: Bound::Inclusive(99.5),
};

/// Accepted module_type codes.
pub const MODULE_TYPE_CODES: [i64; 3] = [0, 1, 2];
/// Accepted array_type codes.
pub const ARRAY_TYPE_CODES: [i64; 5] = [0, 1, 2, 3, 4];

fn list_codes(codes: &[i64]) -> String {
    let texts: Vec<String> = codes.iter().map(i64::to_string).collect();
    match texts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => texts.join(""),
    }
}

/// The message for `value` when it lies outside `range`.
fn range_problem(range: &ParamRange, value: f64) -> Option<String> {
    (!range.contains(value)).then(|| range.violation(value))
}

/// Validate raw parameters. Returns every problem at once, in parameter order; each message
/// starts with the parameter name, e.g. "tilt must be between 0 and 90 (got 95)".
pub fn validate_params(raw: &RawParams) -> Result<SystemParams, Vec<String>> {
    validate_params_with_gcr(raw, &GCR_RANGE)
}

/// `validate_params` with another accepted range of the ground coverage ratio (PVWatts v8 takes
/// 0.01–0.99, see `v8::params`); every other range is the same.
pub fn validate_params_with_gcr(
    raw: &RawParams,
    gcr_range: &ParamRange,
) -> Result<SystemParams, Vec<String>> {
    let module_type = ModuleType::from_i64(raw.module_type);
    let array_type = ArrayType::from_i64(raw.array_type);
    let problems: Vec<String> = [
        range_problem(&SYSTEM_CAPACITY_RANGE, raw.system_capacity),
        module_type.is_none().then(|| {
            format!(
                "module_type must be {} (got {})",
                list_codes(&MODULE_TYPE_CODES),
                raw.module_type
            )
        }),
        range_problem(&LOSSES_RANGE, raw.losses),
        array_type.is_none().then(|| {
            format!(
                "array_type must be {} (got {})",
                list_codes(&ARRAY_TYPE_CODES),
                raw.array_type
            )
        }),
        range_problem(&TILT_RANGE, raw.tilt),
        range_problem(&AZIMUTH_RANGE, raw.azimuth),
        range_problem(&DC_AC_RATIO_RANGE, raw.dc_ac_ratio),
        range_problem(gcr_range, raw.gcr),
        range_problem(&INV_EFF_RANGE, raw.inv_eff),
    ]
    .into_iter()
    .flatten()
    .collect();
    match (module_type, array_type) {
        (Some(module_type), Some(array_type)) if problems.is_empty() => Ok(SystemParams {
            system_capacity: raw.system_capacity,
            module_type,
            losses: raw.losses,
            array_type,
            tilt: raw.tilt,
            azimuth: raw.azimuth,
            dc_ac_ratio: raw.dc_ac_ratio,
            gcr: raw.gcr,
            inv_eff: raw.inv_eff,
        }),
        _ => Err(problems),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_parameters_pass() {
        let params = validate_params(&RawParams::new(4.0, 1, 14.0, 3, 0.0, 180.0)).unwrap();
        assert_eq!(params.module_type, ModuleType::Premium);
        assert_eq!(params.array_type, ArrayType::OneAxisBacktracking);
        assert_eq!(
            (params.dc_ac_ratio, params.gcr, params.inv_eff),
            (1.2, 0.4, 96.0)
        );
    }

    #[test]
    fn every_problem_is_reported_in_parameter_order() {
        let raw = RawParams {
            system_capacity: 0.0,
            module_type: 7,
            losses: 100.0,
            array_type: -1,
            tilt: 95.0,
            azimuth: 360.0,
            dc_ac_ratio: 0.0,
            gcr: 3.5,
            inv_eff: 80.0,
        };
        assert_eq!(
            validate_params(&raw).unwrap_err(),
            vec![
                "system_capacity must be between 0.05 and 500000 (got 0)",
                "module_type must be 0, 1 or 2 (got 7)",
                "losses must be between -5 and 99 (got 100)",
                "array_type must be 0, 1, 2, 3 or 4 (got -1)",
                "tilt must be between 0 and 90 (got 95)",
                "azimuth must be at least 0 and less than 360 (got 360)",
                "dc_ac_ratio must be greater than 0 (got 0)",
                "gcr must be between 0 and 3 (got 3.5)",
                "inv_eff must be between 90 and 99.5 (got 80)",
            ]
        );
    }

    #[test]
    fn range_ends_and_nan() {
        let mut raw = RawParams::new(0.05, 0, -5.0, 0, 90.0, 0.0);
        raw.gcr = 3.0;
        raw.inv_eff = 99.5;
        assert!(validate_params(&raw).is_ok());
        raw.tilt = f64::NAN;
        assert_eq!(
            validate_params(&raw).unwrap_err(),
            vec!["tilt must be between 0 and 90 (got NaN)"]
        );
    }

    #[test]
    fn enums_round_trip_codes() {
        for code in 0..3 {
            assert_eq!(ModuleType::from_i64(code).unwrap().code(), code);
        }
        for code in 0..5 {
            assert_eq!(ArrayType::from_i64(code).unwrap().code(), code);
        }
        assert_eq!(ModuleType::from_i64(3), None);
        assert_eq!(ArrayType::from_i64(5), None);
        assert_eq!(ArrayType::FixedRoofMount.inoct_celsius(), 49.0);
        assert_eq!(
            ArrayType::OneAxis.tracking(),
            Tracking::OneAxis {
                backtracking: false
            }
        );
    }
}
