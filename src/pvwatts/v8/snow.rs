//! Snow on the modules: Marion's snow-coverage model (hourly form), as PVWatts v8 runs it.
//!
//! A snowfall (depth up by at least 1 cm per hour, depth at least 1 cm) covers the rows
//! completely; with less than 1 cm on the ground nothing stays on them; otherwise the cover slides
//! off by 0.1 · 1.97 · sin(tilt) of a row per hour whenever T_amb − POA/m > 0 with m = −80
//! W/(m²·°C). The DC loss is the covered share of the row rounded up to whole modules (the rows
//! are 1 or 2 modules up): loss = ⌈coverage · n⌉ / n. Depths below 0, above 610 cm or missing count
//! as 0 cm; after 500 such values in sun-up hours the weather is taken to have no snow data and
//! the simulation stops. The model runs only in sun-up hours and, as in SSC, in single precision.
//!
//! References: Marion, Schaefer, Caine & Sanchez (2013), Measured and modeled photovoltaic system
//! energy losses from snow for Colorado and Wisconsin locations, Solar Energy 97; Ryberg & Freeman
//! (2015), Integration, validation, and application of a PV snow coverage model in SAM,
//! NREL/TP-6A20-64296; SSC `shared/lib_snowmodel.cpp` (`pvsnowmodel`).

/// Slope m of the sliding condition T_amb − POA/m > 0, W/(m²·°C).
const SLIDING_SLOPE: f32 = -80.0;
/// Sliding coefficient of glass-faced modules, rows per hour.
const SLIDE_COEFFICIENT: f32 = 1.97;
/// Depth gain per hour that counts as snowfall, cm.
const SNOWFALL_THRESHOLD_CM: f32 = 1.0;
/// Depth below which the rows are clear, cm.
const DEPTH_THRESHOLD_CM: f32 = 1.0;
/// Deepest plausible snow, cm (about 20 ft).
const MAX_DEPTH_CM: f32 = 610.0;
/// Implausible depths in sun-up hours after which the weather has no snow data.
pub const MAX_BAD_DEPTHS: u32 = 500;

/// The message when the weather has no usable snow depth.
pub fn no_snow_data_message() -> String {
    format!(
        "the snow model needs snow depth in the weather: found {MAX_BAD_DEPTHS} missing or invalid \
         snow depth values (below 0 or above {MAX_DEPTH_CM} cm) in sun-up hours; turn en_snowloss off or \
         give a weather with a snow depth column"
    )
}

/// The snow state of one array, carried from hour to hour.
#[derive(Clone, Debug, PartialEq)]
pub struct SnowModel {
    modules_up: i32,
    previous_depth: f32,
    coverage: f32,
    bad_depths: u32,
}

/// The result of one hour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnowStep {
    /// Share of the DC power lost (0–1).
    pub loss: f32,
    /// Share of the rows covered (0–1).
    pub coverage: f32,
}

impl SnowModel {
    /// A clear array whose rows are `modules_up` modules high.
    pub fn new(modules_up: i32) -> Self {
        SnowModel {
            modules_up,
            previous_depth: 0.0,
            coverage: 0.0,
            bad_depths: 0,
        }
    }

    /// Implausible depths seen so far.
    pub fn bad_depths(&self) -> u32 {
        self.bad_depths
    }

    /// Advance one sun-up hour: plane-of-array irradiance `poa` (W/m², both sides), surface
    /// tilt `tilt_deg`, ambient temperature `ambient_c`, snow depth `depth_cm`, hours per step
    /// `step_hours`. `None` once the weather has shown `MAX_BAD_DEPTHS` implausible depths.
    pub fn step(
        &mut self,
        poa: f32,
        tilt_deg: f32,
        ambient_c: f32,
        depth_cm: f32,
        step_hours: f32,
    ) -> Option<SnowStep> {
        let mut depth = depth_cm;
        if depth < 0.0 || depth > MAX_DEPTH_CM || depth.is_nan() {
            depth = 0.0;
            self.bad_depths += 1;
            if self.bad_depths == MAX_BAD_DEPTHS {
                return None;
            }
        }
        let mut coverage = if depth - self.previous_depth >= SNOWFALL_THRESHOLD_CM * step_hours
            && depth >= DEPTH_THRESHOLD_CM
        {
            1.0
        } else {
            self.coverage
        };
        if depth < DEPTH_THRESHOLD_CM {
            coverage = 0.0;
        }
        if ambient_c - poa / SLIDING_SLOPE > 0.0 {
            let slide = 0.1
                * f64::from(SLIDE_COEFFICIENT)
                * (f64::from(tilt_deg) * std::f64::consts::PI / 180.0).sin()
                * f64::from(step_hours);
            coverage -= slide as f32;
        }
        if coverage < 0.0 {
            coverage = 0.0;
        }
        let loss = if self.modules_up > 0 {
            (coverage * self.modules_up as f32).ceil() / self.modules_up as f32
        } else {
            0.0
        };
        self.previous_depth = depth;
        self.coverage = coverage;
        Some(SnowStep { loss, coverage })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snowfall_covers_and_sun_clears_the_rows() {
        let mut model = SnowModel::new(2);
        let fall = model.step(100.0, 20.0, -5.0, 10.0, 1.0).unwrap();
        assert_eq!(
            fall,
            SnowStep {
                loss: 1.0,
                coverage: 1.0
            }
        );
        // Cold and dim: no sliding.
        let cold = model.step(50.0, 20.0, -10.0, 10.0, 1.0).unwrap();
        assert_eq!(cold.coverage, 1.0);
        // Warm enough to slide: 0.1 × 1.97 × sin 20° per hour; a part-covered row loses a module.
        let slide = model.step(400.0, 20.0, 2.0, 9.5, 1.0).unwrap();
        let expected = 1.0 - (0.1 * 1.97 * (20.0f64).to_radians().sin()) as f32;
        assert!((slide.coverage - expected).abs() < 1e-6);
        assert_eq!(slide.loss, 1.0);
        let more = model.step(400.0, 20.0, 2.0, 9.0, 1.0).unwrap();
        assert_eq!(more.loss, 1.0);
        let melted = model.step(400.0, 20.0, 5.0, 0.5, 1.0).unwrap();
        assert_eq!(
            melted,
            SnowStep {
                loss: 0.0,
                coverage: 0.0
            }
        );
    }

    #[test]
    fn missing_depths_end_the_model() {
        let mut model = SnowModel::new(1);
        for _ in 0..MAX_BAD_DEPTHS - 1 {
            assert_eq!(model.step(0.0, 0.0, 0.0, f32::NAN, 1.0).unwrap().loss, 0.0);
        }
        assert!(model.step(0.0, 0.0, 0.0, -1.0, 1.0).is_none());
        assert!(no_snow_data_message().contains("en_snowloss"));
    }
}
