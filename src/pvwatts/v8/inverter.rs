//! The inverter: Sandia's model with PVWatts v8's coefficients. AC rating = DC rating / DC-to-AC
//! ratio; DC rating = AC rating / nominal efficiency; no voltage dependence, no curvature (C0–C3
//! = 0), no night-time loss; the self-consumption P_so is 0.2246 % of the AC rating for systems
//! below 10 W, 0.2478 % below 1 kW and 0.4931 % from 1 kW up (SSC compares the DC rating in watts
//! with thresholds meant as 10 kW and 1 MW; the engine keeps SSC's thresholds). With those
//! coefficients P_ac = P_ac0/(P_dc0 − P_so) · (P_dc − P_so) for P_dc > P_so, else 0, clipped at
//! P_ac0.
//!
//! References: King, Gonzalez, Galbraith & Boyson (2007), Performance model for grid-connected
//! photovoltaic inverters, SAND2007-5036; SSC `shared/lib_sandia.cpp` (`sandia_inverter_t`) and
//! `ssc/cmod_pvwattsv8.cpp` (inverter set-up, SSC issue 870).

/// The inverter of one system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SandiaInverter {
    /// AC rating, W.
    ac_rating: f64,
    /// DC input at the AC rating, W.
    dc_rating: f64,
    /// DC power the inverter needs to start, W.
    self_consumption: f64,
}

impl SandiaInverter {
    /// The inverter of a system of `dc_nameplate_w` (W) with DC-to-AC ratio `dc_ac_ratio` and
    /// nominal efficiency `efficiency_percent` (%).
    pub fn new(dc_nameplate_w: f64, dc_ac_ratio: f64, efficiency_percent: f64) -> Self {
        let ac_rating = dc_nameplate_w / dc_ac_ratio;
        let self_consumption_share = if dc_nameplate_w < 10.0 {
            0.002246
        } else if dc_nameplate_w < 1000.0 {
            0.002478
        } else {
            0.004931
        };
        SandiaInverter {
            ac_rating,
            dc_rating: ac_rating / (efficiency_percent * 0.01),
            self_consumption: self_consumption_share * ac_rating,
        }
    }

    /// AC rating, W.
    pub fn ac_rating(&self) -> f64 {
        self.ac_rating
    }

    /// AC output, W, for DC input `dc` (W): never negative, never above the AC rating.
    pub fn ac_power(&self, dc: f64) -> f64 {
        if !(dc > self.self_consumption) {
            return 0.0;
        }
        let ac = self.ac_rating / (self.dc_rating - self.self_consumption)
            * (dc - self.self_consumption);
        if ac > self.ac_rating {
            self.ac_rating
        } else {
            ac
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efficiency_is_nominal_at_rating_and_output_clips() {
        let inverter = SandiaInverter::new(4000.0, 1.2, 96.0);
        let ac_rating = 4000.0 / 1.2;
        assert_eq!(inverter.ac_rating(), ac_rating);
        let at_rating = inverter.ac_power(ac_rating / 0.96);
        assert!((at_rating - ac_rating).abs() < 1e-9);
        assert_eq!(inverter.ac_power(5000.0), ac_rating);
        assert_eq!(inverter.ac_power(0.004931 * ac_rating), 0.0);
        assert_eq!(inverter.ac_power(0.0), 0.0);
        let half = inverter.ac_power(1500.0);
        assert!(half / 1500.0 < 0.96 && half / 1500.0 > 0.94, "{half}");
    }
}
