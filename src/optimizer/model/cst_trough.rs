//! A stand-in for the CST production factor the service computes with SAM: the hourly thermal
//! output of a parabolic-trough field per unit of its rated power, from hourly weather.
//!
//! The service (REopt.jl `run_ssc` and `normalize_response` in `src/core/cst_ssc.jl`, commit
//! 029db01d) runs SAM's transient `trough_physical_iph` model on the site's NSRDB typical year and
//! divides the field's hourly `q_dot_htf_sf_out` by the rated power, negatives set to 0. The rated
//! power is 39.37/60000 MWt per m² of aperture when `use_solar_mult_or_aperture_area` > 0, else the
//! solar multiple (3) times `q_pb_design`; SAM sizes the aperture so that the field's design-point
//! output is that same solar multiple times `q_pb_design`. This module replaces SAM's model by a
//! steady-state energy balance of one square metre of aperture in each hour:
//!
//! ```text
//! q_abs  = DNI · cos θ · K(θ) · η_end(θ) · η_row(ρ) · η_opt                      (W/m²)
//! q_net  = q_abs − q_receiver(T_in, T_out, T_amb) − q_piping(T_in, T_out, T_amb)   (W/m²)
//! factor = max(0, q_net) / q_rated
//! ```
//!
//! - Sun position: the PV engine's SPA (`pvwatts::solarpos`) at the middle of each hour.
//! - θ, the incidence angle on a horizontal north–south axis tracking east–west, and ρ, the
//!   tracking angle from the zenith: Duffie & Beckman, *Solar Engineering of Thermal Processes*
//!   (4th ed., 2013), eq. 1.7.5a; Stine & Geyer, *Power from the Sun* (2001), ch. 4.
//! - K(θ) = 1 + 0.0327·θ/cos θ − 0.1351·θ²/cos θ (θ in radians; SAM's `IAM_matrix` default),
//!   clipped to [0, 1].
//! - End loss η_end = 1 − [f·tan θ − (n−1)/n · max(0, f·tan θ − d)] / L with the focal length f
//!   2.15 m, the gap d 1 m between assemblies, the assembly length L 115 m and n assemblies in a
//!   loop (the form of SAM's physical trough, Wagner & Gilman 2011, NREL/TP-5500-49368).
//! - Row shadowing η_row = |cos ρ| · row spacing / aperture width, 0 below 0.5, at most 1
//!   (15 m rows, 6 m aperture; same source).
//! - η_opt, the peak optical efficiency: tracking error 0.988 · geometry 0.952 · mirror
//!   reflectance 0.93 · mirror cleanliness 0.97 · receiver shadowing 0.935 · receiver dirt 0.98 ·
//!   absorptance 0.963 · envelope transmittance 0.964 = 0.7217.
//! - q_receiver: the heat loss of a Schott PTR70 evacuated receiver, HL(ΔT) = 0.141·ΔT +
//!   6.48e-9·ΔT⁴ W per metre of receiver with ΔT the absorber–ambient difference in K (Burkholder
//!   & Kutscher 2009, *Heat Loss Testing of Schott's 2008 PTR70 Parabolic Trough Receiver*,
//!   NREL/TP-550-45633), averaged over a fluid temperature rising linearly from T_in to T_out along
//!   the loop (the absorber taken at the fluid's temperature), per m² of aperture through the
//!   assembly's 115 m of receiver per 656 m² of aperture.
//! - q_piping: SAM's header and runner loss coefficient 0.45 W/(m²·K) of pipe surface times an
//!   assumed 0.05 m² of pipe surface per m² of aperture, times the mean fluid–ambient difference.
//! - The field stows (no output) when the wind exceeds 25 m/s or the tracking angle leaves the
//!   deploy/stow limits (10° and 170° from the eastern horizon).
//! - q_rated: 39.37/60000 MW/m² = 656.17 W/m² when the aperture is given; with a solar multiple,
//!   q_net at the design point (DNI 950 W/m² at normal incidence, 25 °C ambient). The aperture
//!   and `q_pb_design` then cancel: the factor is the same for every field size, so the process
//!   heat load the service sizes `q_pb_design` from (`calculate_max_process_heat_load`) does not
//!   enter here.
//!
//! Design numbers (assembly geometry, efficiencies, IAM, pipe coefficient, stow limits, DNI at
//! design) are SAM's `trough_physical_iph` defaults as REopt.jl passes them
//! (`src/sam/defaults/defaults_trough_physical_iph_step1.json` and
//! `defaults_trough_physical_iph.json`, commit 029db01d). Temperatures: `SSC_Inputs.T_loop_in_des`/
//! `T_loop_out` when given, else the loop takes the process return `CST.outlet_temp_degF` in and
//! gives its supply `CST.inlet_temp_degF` + 50 K out; without those two, REopt.jl's own `ptc`
//! defaults, 70 °C in and 400 + 50 = 450 °C out. The API's schema defaults the two to 400 °F and
//! 70 °F, so a posted scenario without them runs from 21.1 to 254.4 °C.
//!
//! What this leaves out, so that it is a stand-in and not SAM: thermal inertia (the morning
//! warm-up of fluid, pipes and receivers, SAM's `mc_bal_*`, and the evening run-down), startup and
//! minimum-flow rules, the mass-flow limits per loop, freeze protection, the receivers' variants
//! with broken glass or lost vacuum, wind on the receiver, the field's actual pipe sizing, the
//! heat-transfer fluid's properties, defocusing (the service's default 2000 h of storage keeps the
//! field from defocusing), and the service's NSRDB weather. Only the `ptc` type is modelled; the
//! other types need `SSC_Inputs` and SAM.
//!
//! Units: irradiance W/m², temperatures °C, wind m/s, angles in degrees at the interface; the
//! factor is kW thermal per kW of rated power (the unit of `CST.production_factor`).

use serde_json::{Map, Value};

use crate::pvwatts::solarpos::{Observer, Precision, SolarCalculator};

/// Tracking error · geometry effects · clean mirror reflectance · mirror dirt · general error.
const COLLECTOR_EFFICIENCY: f64 = 0.988 * 0.952 * 0.93 * 0.97 * 1.0;
/// Receiver shadowing (bellows) · receiver dirt · absorptance · envelope transmittance.
const RECEIVER_EFFICIENCY: f64 = 0.935 * 0.98 * 0.963 * 0.964;
/// The peak optical efficiency of the field.
pub const PEAK_OPTICAL_EFFICIENCY: f64 = COLLECTOR_EFFICIENCY * RECEIVER_EFFICIENCY;
/// SAM's incidence angle modifier coefficients (`IAM_matrix`): constant, θ/cos θ, θ²/cos θ.
const IAM: [f64; 3] = [1.0, 0.0327, -0.1351];
/// Average focal length of an assembly, m (`Ave_Focal_Length`).
const FOCAL_LENGTH_M: f64 = 2.15;
/// Gap between assemblies in a row, m (`Distance_SCA`).
const ASSEMBLY_GAP_M: f64 = 1.0;
/// Length of one assembly (and of its receiver), m (`L_SCA`).
const ASSEMBLY_LENGTH_M: f64 = 115.0;
/// Aperture area of one assembly, m² (`A_aperture`).
const ASSEMBLY_APERTURE_M2: f64 = 656.0;
/// Aperture width, m (`W_aperture`).
const APERTURE_WIDTH_M: f64 = 6.0;
/// Row spacing, centre to centre, m (`Row_Distance`).
const ROW_SPACING_M: f64 = 15.0;
/// Assemblies in one loop (SAM's trough default; the step-1 file leaves `nSCA` unset).
const ASSEMBLIES_PER_LOOP: f64 = 8.0;
/// Burkholder & Kutscher (2009) PTR70 heat loss: W/m per K and per K⁴.
const RECEIVER_LOSS_LINEAR: f64 = 0.141;
const RECEIVER_LOSS_QUARTIC: f64 = 6.48e-9;
/// SAM's header and runner heat loss coefficient, W/(m²·K) of pipe surface (`Pipe_hl_coef`).
const PIPE_LOSS_COEFFICIENT: f64 = 0.45;
/// Assumed pipe surface per aperture area (SAM sizes the pipes from the layout instead).
const PIPE_SURFACE_PER_APERTURE: f64 = 0.05;
/// Wind speed above which the field stows, m/s (`wind_stow_speed`).
const STOW_WIND_M_PER_S: f64 = 25.0;
/// Deploy angle from the eastern horizon, degrees (`theta_dep`; the stow angle is 180° less it).
const DEPLOY_ANGLE_DEG: f64 = 10.0;
/// DNI at the design point, W/m² (`I_bn_des`).
pub const DESIGN_DNI: f64 = 950.0;
/// Ambient temperature at the design point, °C (an assumption of this stand-in).
pub const DESIGN_AMBIENT_C: f64 = 25.0;
/// The service's rated power per aperture area, W/m² (39.37/60000 MWt/m², `normalize_response`).
pub const RATED_POWER_PER_APERTURE: f64 = 39.37 / 60000.0 * 1e6;
/// The service's `ptc` temperatures when none are given, °C (`run_ssc`): the process return
/// (`outlet_temp`) enters the loop and the supply (`inlet_temp`) plus 50 K leaves it.
const DEFAULT_PROCESS_RETURN_C: f64 = 70.0;
const DEFAULT_PROCESS_SUPPLY_C: f64 = 400.0;
const LOOP_OUT_ABOVE_SUPPLY_K: f64 = 50.0;

/// How the service rates the field (`normalize_response`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rating {
    /// `use_solar_mult_or_aperture_area` = 0: solar multiple · `q_pb_design`, the aperture sized
    /// to give that at the design point.
    SolarMultiple,
    /// `use_solar_mult_or_aperture_area` > 0: 39.37/60000 MWt per m² of the given aperture.
    Aperture,
}

/// The field's operating temperatures and rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TroughDesign {
    /// Fluid temperature entering the loops, °C (`T_loop_in_des`).
    pub loop_in_c: f64,
    /// Fluid temperature leaving the loops, °C (`T_loop_out`).
    pub loop_out_c: f64,
    pub rating: Rating,
}

impl Default for TroughDesign {
    fn default() -> Self {
        TroughDesign {
            loop_in_c: DEFAULT_PROCESS_RETURN_C,
            loop_out_c: DEFAULT_PROCESS_SUPPLY_C + LOOP_OUT_ABOVE_SUPPLY_K,
            rating: Rating::SolarMultiple,
        }
    }
}

/// Where the field is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TroughSite {
    /// Degrees north.
    pub latitude: f64,
    /// Degrees east.
    pub longitude: f64,
    /// Hours east of UTC of the weather's time stamps (local standard time).
    pub tz: f64,
    /// Metres above sea level (for the refraction's air pressure).
    pub elevation_m: f64,
}

/// Hourly weather, one entry per hour, stamps in local standard time (hour 0–23; the sun is
/// taken at the middle of the hour, as for NSRDB's typical years stamped at minute 30).
#[derive(Clone, Copy, Debug)]
pub struct TroughWeather<'a> {
    pub year: &'a [i32],
    pub month: &'a [u8],
    pub day: &'a [u8],
    pub hour: &'a [u8],
    /// Direct normal irradiance, W/m².
    pub dni: &'a [f64],
    /// Dry-bulb temperature, °C.
    pub dry_bulb_c: &'a [f64],
    /// Wind speed, m/s.
    pub wind_m_per_s: &'a [f64],
}

/// Incidence angle θ and tracking angle ρ (from the zenith, positive toward the east), degrees,
/// of a horizontal north–south axis turning east–west, for a sun at `zenith_deg` and
/// `azimuth_deg` east of north (Duffie & Beckman eq. 1.7.5a written with the sun's azimuth).
pub fn incidence_and_tracking_deg(zenith_deg: f64, azimuth_deg: f64) -> (f64, f64) {
    let (zenith, azimuth) = (zenith_deg.to_radians(), azimuth_deg.to_radians());
    let east = zenith.sin() * azimuth.sin();
    let north = zenith.sin() * azimuth.cos();
    let cos_incidence = (1.0 - north * north).max(0.0).sqrt();
    (cos_incidence.min(1.0).acos().to_degrees(), east.atan2(zenith.cos()).to_degrees())
}

/// K(θ), SAM's incidence angle modifier, within [0, 1] (θ in degrees, below 90).
pub fn incidence_angle_modifier(incidence_deg: f64) -> f64 {
    let theta = incidence_deg.to_radians();
    (IAM[0] + (IAM[1] * theta + IAM[2] * theta * theta) / theta.cos()).clamp(0.0, 1.0)
}

/// The share of the aperture whose reflection reaches a receiver past the loop's ends.
pub fn end_loss_factor(incidence_deg: f64) -> f64 {
    let overhang = FOCAL_LENGTH_M * incidence_deg.to_radians().tan();
    let regained = (overhang - ASSEMBLY_GAP_M).max(0.0) * (ASSEMBLIES_PER_LOOP - 1.0) / ASSEMBLIES_PER_LOOP;
    (1.0 - (overhang - regained) / ASSEMBLY_LENGTH_M).clamp(0.0, 1.0)
}

/// The unshaded share of the aperture at tracking angle ρ (degrees) in rows 15 m apart.
pub fn row_shadow_factor(tracking_deg: f64) -> f64 {
    let unshaded = tracking_deg.to_radians().cos().abs() * ROW_SPACING_M / APERTURE_WIDTH_M;
    if unshaded < 0.5 {
        0.0
    } else {
        unshaded.min(1.0)
    }
}

/// Receiver heat loss, W per m² of aperture, for fluid rising linearly from `loop_in_c` to
/// `loop_out_c` along the loop at ambient `ambient_c`.
pub fn receiver_loss(loop_in_c: f64, loop_out_c: f64, ambient_c: f64) -> f64 {
    let (low, high) = (loop_in_c - ambient_c, loop_out_c - ambient_c);
    let mean = 0.5 * (low + high);
    // The mean of ΔT⁴ over a linear profile is (high⁵ − low⁵) / (5 (high − low)).
    let mean_quartic = if (high - low).abs() < 1e-9 { mean.powi(4) } else { (high.powi(5) - low.powi(5)) / (5.0 * (high - low)) };
    (RECEIVER_LOSS_LINEAR * mean + RECEIVER_LOSS_QUARTIC * mean_quartic) * ASSEMBLY_LENGTH_M / ASSEMBLY_APERTURE_M2
}

/// Header and runner heat loss, W per m² of aperture.
pub fn piping_loss(loop_in_c: f64, loop_out_c: f64, ambient_c: f64) -> f64 {
    PIPE_LOSS_COEFFICIENT * PIPE_SURFACE_PER_APERTURE * (0.5 * (loop_in_c + loop_out_c) - ambient_c)
}

/// Net field output at the design point, W/m² of aperture.
pub fn design_output(design: &TroughDesign) -> f64 {
    DESIGN_DNI * PEAK_OPTICAL_EFFICIENCY
        - receiver_loss(design.loop_in_c, design.loop_out_c, DESIGN_AMBIENT_C)
        - piping_loss(design.loop_in_c, design.loop_out_c, DESIGN_AMBIENT_C)
}

/// Net heat to the fluid, W/m² of aperture, in one hour (may be negative: losses at night).
fn net_output(design: &TroughDesign, zenith_deg: f64, azimuth_deg: f64, dni: f64, ambient_c: f64, wind: f64) -> f64 {
    let (incidence, tracking) = incidence_and_tracking_deg(zenith_deg, azimuth_deg);
    let deployed = zenith_deg < 90.0 && tracking.abs() <= 90.0 - DEPLOY_ANGLE_DEG && wind <= STOW_WIND_M_PER_S;
    let absorbed = if deployed && dni > 0.0 {
        let cos_incidence = incidence.to_radians().cos();
        dni * cos_incidence
            * incidence_angle_modifier(incidence)
            * end_loss_factor(incidence)
            * row_shadow_factor(tracking)
            * PEAK_OPTICAL_EFFICIENCY
    } else {
        0.0
    };
    absorbed - receiver_loss(design.loop_in_c, design.loop_out_c, ambient_c) - piping_loss(design.loop_in_c, design.loop_out_c, ambient_c)
}

/// Air pressure at an elevation, mbar (the standard atmosphere's barometric formula).
fn pressure_mbar(elevation_m: f64) -> f64 {
    1013.25 * (1.0 - 2.25577e-5 * elevation_m.max(0.0)).powf(5.25588)
}

/// The hourly production factor (kW thermal per kW rated) of a trough field; see the module note.
/// Err names the first bad input.
pub fn production_factor(weather: &TroughWeather<'_>, site: &TroughSite, design: &TroughDesign) -> Result<Vec<f64>, String> {
    check(weather, site, design)?;
    let rated = match design.rating {
        Rating::SolarMultiple => design_output(design),
        Rating::Aperture => RATED_POWER_PER_APERTURE,
    };
    if rated <= 0.0 {
        return Err(format!(
            "the trough's heat losses between {} and {} °C exceed its design-point absorption (no rated power)",
            design.loop_in_c, design.loop_out_c
        ));
    }
    let observer = Observer { latitude: site.latitude, longitude: site.longitude, tz: site.tz, elevation: site.elevation_m.max(0.0) };
    let sun = SolarCalculator::with_precision(observer, Precision::Exact);
    let pressure = pressure_mbar(site.elevation_m);
    Ok((0..weather.dni.len())
        .map(|t| {
            let ambient = weather.dry_bulb_c[t];
            let position = sun.position(weather.year[t], weather.month[t], weather.day[t], i32::from(weather.hour[t]), 30, pressure, ambient);
            let net = net_output(
                design,
                position.zenith.to_degrees(),
                position.azimuth.to_degrees(),
                weather.dni[t],
                ambient,
                weather.wind_m_per_s[t],
            );
            net.max(0.0) / rated
        })
        .collect())
}

fn check(weather: &TroughWeather<'_>, site: &TroughSite, design: &TroughDesign) -> Result<(), String> {
    let rows = weather.dni.len();
    if rows == 0 {
        return Err("the weather has no hours".into());
    }
    let lengths = [weather.year.len(), weather.month.len(), weather.day.len(), weather.hour.len(), weather.dry_bulb_c.len(), weather.wind_m_per_s.len()];
    if lengths.iter().any(|&n| n != rows) {
        return Err(format!("the weather's columns differ in length (DNI has {rows} hours)"));
    }
    if !(-90.0..=90.0).contains(&site.latitude) || !(-180.0..=180.0).contains(&site.longitude) {
        return Err(format!("latitude {} / longitude {} outside [-90, 90] / [-180, 180]", site.latitude, site.longitude));
    }
    if !(-12.0..=14.0).contains(&site.tz) || !site.elevation_m.is_finite() {
        return Err(format!("time zone {} h outside [-12, 14] or elevation {} m not finite", site.tz, site.elevation_m));
    }
    if !(design.loop_in_c.is_finite() && design.loop_out_c.is_finite()) || design.loop_out_c <= design.loop_in_c {
        return Err(format!("the loop outlet temperature {} °C must exceed the inlet {} °C", design.loop_out_c, design.loop_in_c));
    }
    if let Some(t) = (0..rows).find(|&t| !(1..=12).contains(&weather.month[t]) || !(1..=31).contains(&weather.day[t]) || weather.hour[t] > 23) {
        return Err(format!("hour {t}: month {}, day {}, hour {} is not a date and hour", weather.month[t], weather.day[t], weather.hour[t]));
    }
    let bad = |values: &[f64], low: f64, high: f64| values.iter().position(|v| !(low..=high).contains(v));
    if let Some(t) = bad(weather.dni, 0.0, 1500.0) {
        return Err(format!("hour {t}: DNI {} W/m² outside [0, 1500]", weather.dni[t]));
    }
    if let Some(t) = bad(weather.dry_bulb_c, -90.0, 70.0) {
        return Err(format!("hour {t}: dry-bulb temperature {} °C outside [-90, 70]", weather.dry_bulb_c[t]));
    }
    if let Some(t) = bad(weather.wind_m_per_s, 0.0, 100.0) {
        return Err(format!("hour {t}: wind speed {} m/s outside [0, 100]", weather.wind_m_per_s[t]));
    }
    Ok(())
}

/// The field design of a `CST` section as the service's `run_ssc` sets it for `tech_type` "ptc":
/// Err names the tech type when it is another one (those need `SSC_Inputs` and SAM).
pub fn design_of_cst(cst: &Map<String, Value>) -> Result<TroughDesign, String> {
    let tech_type = cst.get("tech_type").and_then(Value::as_str).unwrap_or("ptc");
    if tech_type != "ptc" {
        return Err(format!("CST.tech_type={tech_type} (only the parabolic trough, \"ptc\", has a stand-in for SAM)"));
    }
    let celsius = |field: &str| cst.get(field).and_then(Value::as_f64).map(|f| (f - 32.0) / 1.8);
    let (supply, ret) = match (celsius("inlet_temp_degF"), celsius("outlet_temp_degF")) {
        (Some(supply), Some(ret)) => (supply, ret),
        _ => (DEFAULT_PROCESS_SUPPLY_C, DEFAULT_PROCESS_RETURN_C),
    };
    let ssc = cst.get("SSC_Inputs").and_then(Value::as_object);
    let ssc_number = |field: &str| ssc.and_then(|inputs| inputs.get(field)).and_then(Value::as_f64);
    Ok(TroughDesign {
        loop_in_c: ssc_number("T_loop_in_des").unwrap_or(ret),
        loop_out_c: ssc_number("T_loop_out").unwrap_or(supply + LOOP_OUT_ABOVE_SUPPLY_K),
        rating: if ssc_number("use_solar_mult_or_aperture_area").unwrap_or(0.0) > 0.0 { Rating::Aperture } else { Rating::SolarMultiple },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pvwatts::solarpos::sun_position;
    use serde_json::json;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    /// One year of hourly stamps (365 days, local standard time) with weather from `f(day of
    /// year, hour, zenith in degrees)` → (DNI, dry bulb, wind).
    struct Year {
        year: Vec<i32>,
        month: Vec<u8>,
        day: Vec<u8>,
        hour: Vec<u8>,
        dni: Vec<f64>,
        dry_bulb: Vec<f64>,
        wind: Vec<f64>,
    }

    impl Year {
        fn new(site: &TroughSite, f: impl Fn(usize, u8, f64) -> (f64, f64, f64)) -> Year {
            const DAYS: [u8; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
            let observer = Observer { latitude: site.latitude, longitude: site.longitude, tz: site.tz, elevation: site.elevation_m };
            let mut year = Year { year: vec![], month: vec![], day: vec![], hour: vec![], dni: vec![], dry_bulb: vec![], wind: vec![] };
            let mut day_of_year = 0;
            for (m, &days) in DAYS.iter().enumerate() {
                for d in 1..=days {
                    for h in 0..24u8 {
                        let zenith = sun_position(2010, m as u8 + 1, d, i32::from(h), 30, &observer, 1013.25, 20.0).zenith.to_degrees();
                        let (dni, dry_bulb, wind) = f(day_of_year, h, zenith);
                        year.year.push(2010);
                        year.month.push(m as u8 + 1);
                        year.day.push(d);
                        year.hour.push(h);
                        year.dni.push(dni);
                        year.dry_bulb.push(dry_bulb);
                        year.wind.push(wind);
                    }
                    day_of_year += 1;
                }
            }
            year
        }

        fn weather(&self) -> TroughWeather<'_> {
            TroughWeather {
                year: &self.year,
                month: &self.month,
                day: &self.day,
                hour: &self.hour,
                dni: &self.dni,
                dry_bulb_c: &self.dry_bulb,
                wind_m_per_s: &self.wind,
            }
        }
    }

    const TUCSON: TroughSite = TroughSite { latitude: 32.2, longitude: -110.9, tz: -7.0, elevation_m: 0.0 };

    /// Clear-sky DNI of Meinel & Meinel (1976): 1353 · 0.7^(AM^0.678) W/m², AM = 1/cos z.
    fn clear_sky_dni(zenith_deg: f64) -> f64 {
        if zenith_deg >= 89.0 {
            return 0.0;
        }
        1353.0 * 0.7f64.powf((1.0 / zenith_deg.to_radians().cos()).powf(0.678))
    }

    #[test]
    fn incidence_angle_at_known_geometry() {
        let (theta, rho) = incidence_and_tracking_deg(0.0, 123.0);
        assert!(close(theta, 0.0, 1e-9) && close(rho, 0.0, 1e-9));
        // A sun due east lies in the trough's plane of rotation: normal incidence, tracked by its zenith.
        let (theta, rho) = incidence_and_tracking_deg(60.0, 90.0);
        assert!(close(theta, 0.0, 1e-6) && close(rho, 60.0, 1e-9));
        // A noon sun due south strikes at its zenith angle with the trough flat.
        let (theta, rho) = incidence_and_tracking_deg(30.0, 180.0);
        assert!(close(theta, 30.0, 1e-9) && close(rho, 0.0, 1e-9));
        // Zenith 45°, azimuth 135°: sin 45 · cos 135 = −1/2 along the axis, so θ = 30°; ρ = atan(1/√2).
        let (theta, rho) = incidence_and_tracking_deg(45.0, 135.0);
        assert!(close(theta, 30.0, 1e-9) && close(rho, 35.2644, 1e-4));
        // Duffie & Beckman eq. 1.7.5a from latitude, declination and hour angle.
        let (latitude, declination, hour_angle) = (40f64.to_radians(), (-10f64).to_radians(), 30f64.to_radians());
        let up = latitude.sin() * declination.sin() + latitude.cos() * declination.cos() * hour_angle.cos();
        let east = -declination.cos() * hour_angle.sin();
        let north = declination.sin() * latitude.cos() - declination.cos() * hour_angle.cos() * latitude.sin();
        let expected = (up * up + (declination.cos() * hour_angle.sin()).powi(2)).sqrt().acos().to_degrees();
        let (theta, rho) = incidence_and_tracking_deg(up.acos().to_degrees(), east.atan2(north).to_degrees().rem_euclid(360.0));
        assert!(close(theta, expected, 1e-9), "{theta} vs {expected}");
        assert!(rho < 0.0, "an afternoon sun turns the trough west: {rho}");
    }

    #[test]
    fn zero_at_night_and_in_the_dark() {
        let year = Year::new(&TUCSON, |_, _, zenith| (if zenith < 90.0 { 0.0 } else { 800.0 }, 10.0, 2.0));
        let factor = production_factor(&year.weather(), &TUCSON, &TroughDesign::default()).unwrap();
        assert_eq!(factor.len(), 8760);
        assert!(factor.iter().all(|&f| f == 0.0), "DNI only when the sun is down must give nothing");
    }

    #[test]
    fn clear_noon_matches_a_hand_calculation() {
        // Tucson, 21 June, 12:30 MST, 1000 W/m², 35 °C: solar noon at 12:00 + 4 min/° · 5.9° − EoT
        // (−1.6 min) ≈ 12:25.2, so the hour angle is 1.2° and the declination 23.44°.
        let (latitude, declination, hour_angle) = (32.2f64.to_radians(), 23.44f64.to_radians(), 1.2f64.to_radians());
        let cos_zenith = latitude.sin() * declination.sin() + latitude.cos() * declination.cos() * hour_angle.cos();
        let cos_theta = (cos_zenith * cos_zenith + (declination.cos() * hour_angle.sin()).powi(2)).sqrt();
        let theta = cos_theta.acos();
        assert!(close(theta.to_degrees(), 8.78, 0.05));
        let modifier = (1.0 + (0.0327 * theta - 0.1351 * theta * theta) / cos_theta).min(1.0);
        let end = 1.0 - 2.15 * theta.tan() / 115.0;
        let optical = 0.988 * 0.952 * 0.93 * 0.97 * 0.935 * 0.98 * 0.963 * 0.964;
        // PTR70 loss over 35 → 415 K above ambient: 0.141 · 225 + 6.48e-9 · (415⁵ − 35⁵)/(5 · 380) W/m.
        let receiver = (0.141 * 225.0 + 6.48e-9 * (415f64.powi(5) - 35f64.powi(5)) / 1900.0) * 115.0 / 656.0;
        let piping = 0.45 * 0.05 * (260.0 - 35.0);
        let net = 1000.0 * cos_theta * modifier * end * optical - receiver - piping;
        assert!(close(receiver, 12.92, 0.01) && close(net, 693.0, 1.0), "receiver {receiver}, net {net}");
        let design = TroughDesign { rating: Rating::Aperture, ..TroughDesign::default() };
        let weather = TroughWeather {
            year: &[2010],
            month: &[6],
            day: &[21],
            hour: &[12],
            dni: &[1000.0],
            dry_bulb_c: &[35.0],
            wind_m_per_s: &[3.0],
        };
        let factor = production_factor(&weather, &TUCSON, &design).unwrap()[0];
        assert!(close(factor, net / RATED_POWER_PER_APERTURE, 0.002), "{factor} vs {}", net / RATED_POWER_PER_APERTURE);
        // Rated by the solar multiple, the design point (950 W/m² at normal incidence, 25 °C) is 1.
        assert!(close(design_output(&TroughDesign::default()), 666.28, 0.01), "{}", design_output(&TroughDesign::default()));
        let rated = production_factor(&weather, &TUCSON, &TroughDesign::default()).unwrap()[0];
        assert!(close(rated, net / design_output(&TroughDesign::default()), 0.002));
    }

    #[test]
    fn clear_sky_capacity_factor_is_plausible() {
        let year = Year::new(&TUCSON, |day, hour, zenith| {
            let season = (2.0 * std::f64::consts::PI * (day as f64 - 200.0) / 365.0).cos();
            let daily = (2.0 * std::f64::consts::PI * (f64::from(hour) - 15.0) / 24.0).cos();
            (clear_sky_dni(zenith), 20.0 + 10.0 * season + 7.0 * daily, 3.0)
        });
        let factor = production_factor(&year.weather(), &TUCSON, &TroughDesign::default()).unwrap();
        let capacity_factor = factor.iter().sum::<f64>() / 8760.0;
        let dni_kwh_per_m2 = year.dni.iter().sum::<f64>() / 1000.0;
        // Every day clear: ≈ 3,600 kWh/m² of DNI, of which the field delivers a bit over half.
        assert!((3000.0..4200.0).contains(&dni_kwh_per_m2), "{dni_kwh_per_m2}");
        assert!((0.25..0.40).contains(&capacity_factor), "capacity factor {capacity_factor}");
        let summer: f64 = factor[172 * 24..173 * 24].iter().sum();
        let winter: f64 = factor[355 * 24..356 * 24].iter().sum();
        assert!(summer > 1.5 * winter, "a north-south trough gathers far more in summer: {summer} vs {winter}");
        assert!(factor.iter().all(|&f| (0.0..=1.1).contains(&f)));
    }

    #[test]
    fn output_rises_with_dni() {
        let year = Year::new(&TUCSON, |_, _, zenith| (clear_sky_dni(zenith), 25.0, 2.0));
        let brighter: Vec<f64> = year.dni.iter().map(|d| (d * 1.2).min(1500.0)).collect();
        let base = production_factor(&year.weather(), &TUCSON, &TroughDesign::default()).unwrap();
        let more = production_factor(&TroughWeather { dni: &brighter, ..year.weather() }, &TUCSON, &TroughDesign::default()).unwrap();
        assert!(base.iter().zip(&more).all(|(a, b)| b >= a));
        assert!(more.iter().sum::<f64>() > 1.1 * base.iter().sum::<f64>());
        // Hotter fluid loses more: the same sun gives less.
        let hot = TroughDesign { loop_in_c: 200.0, loop_out_c: 500.0, rating: Rating::Aperture };
        let cool = TroughDesign { loop_in_c: 50.0, loop_out_c: 150.0, rating: Rating::Aperture };
        let hot_sum: f64 = production_factor(&year.weather(), &TUCSON, &hot).unwrap().iter().sum();
        let cool_sum: f64 = production_factor(&year.weather(), &TUCSON, &cool).unwrap().iter().sum();
        assert!(cool_sum > hot_sum);
    }

    #[test]
    fn wind_stows_the_field() {
        let calm = Year::new(&TUCSON, |_, _, zenith| (clear_sky_dni(zenith), 25.0, 2.0));
        let storm: Vec<f64> = vec![30.0; 8760];
        let factor = production_factor(&TroughWeather { wind_m_per_s: &storm, ..calm.weather() }, &TUCSON, &TroughDesign::default()).unwrap();
        assert!(factor.iter().all(|&f| f == 0.0));
    }

    #[test]
    fn bad_inputs_are_refused() {
        let year = Year::new(&TUCSON, |_, _, zenith| (clear_sky_dni(zenith), 25.0, 2.0));
        let design = TroughDesign::default();
        let short = &year.dry_bulb[..100];
        let refusal = |weather: &TroughWeather<'_>, site: &TroughSite, design: &TroughDesign| production_factor(weather, site, design).err().expect("refused");
        assert!(refusal(&TroughWeather { dry_bulb_c: short, ..year.weather() }, &TUCSON, &design).contains("differ in length"));
        let mut negative = year.dni.clone();
        negative[5] = -1.0;
        assert!(refusal(&TroughWeather { dni: &negative, ..year.weather() }, &TUCSON, &design).contains("hour 5: DNI -1"));
        assert!(refusal(&TroughWeather { dni: &[], ..year.weather() }, &TUCSON, &design).contains("no hours"));
        assert!(refusal(&year.weather(), &TroughSite { latitude: 95.0, ..TUCSON }, &design).contains("latitude 95"));
        let reversed = TroughDesign { loop_in_c: 300.0, loop_out_c: 200.0, rating: Rating::SolarMultiple };
        assert!(refusal(&year.weather(), &TUCSON, &reversed).contains("must exceed the inlet"));
        let lossy = TroughDesign { loop_in_c: 800.0, loop_out_c: 1200.0, rating: Rating::SolarMultiple };
        assert!(refusal(&year.weather(), &TUCSON, &lossy).contains("no rated power"));
    }

    #[test]
    fn the_design_follows_the_service_defaults_and_ssc_inputs() {
        let design = |cst: Value| design_of_cst(cst.as_object().unwrap());
        assert_eq!(design(json!({})).unwrap(), TroughDesign { loop_in_c: 70.0, loop_out_c: 450.0, rating: Rating::SolarMultiple });
        let degrees_f = design(json!({"inlet_temp_degF": 392.0, "outlet_temp_degF": 122.0})).unwrap();
        assert!(close(degrees_f.loop_in_c, 50.0, 1e-9) && close(degrees_f.loop_out_c, 250.0, 1e-9));
        let ssc = json!({"tech_type": "ptc", "SSC_Inputs": {"T_loop_in_des": 20.0, "T_loop_out": 300.0, "use_solar_mult_or_aperture_area": 1.0}});
        assert_eq!(design(ssc).unwrap(), TroughDesign { loop_in_c: 20.0, loop_out_c: 300.0, rating: Rating::Aperture });
        assert!(design(json!({"tech_type": "lf"})).unwrap_err().contains("CST.tech_type=lf"));
    }
}
