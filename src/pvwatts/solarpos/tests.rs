//! Tests of the sun position code: every instruction set gives the same positions, and the
//! small-angle functions match the C library's.

use super::*;

#[test]
fn every_instruction_set_gives_identical_positions() {
    let calculator = SolarCalculator::new(Observer {
        latitude: 36.1,
        longitude: -79.9,
        tz: -5.0,
        elevation: 270.0,
    });
    let mut requests = PositionRequests::with_capacity(8760);
    for day in 0..365 {
        let (month, day_of_month) = crate::calendar::ssc_365_day::month_day_of_index(day, false);
        let date = RequestDate::new(1990 + day as i32 % 7, month, day_of_month);
        for hour in 0..24 {
            let temperature = -10.0 + f64::from(hour) * 1.7;
            requests.push(&date, hour, 30, -5.0, 990.0 + f64::from(hour), temperature);
        }
    }
    let baseline = calculator.positions_with(InstructionSet::Baseline, &requests);
    let bits = |p: &SunPositions| -> Vec<u64> {
        [
            &p.zenith,
            &p.azimuth,
            &p.sin_zenith,
            &p.cos_zenith,
            &p.extraterrestrial_horizontal,
        ]
        .iter()
        .flat_map(|column| column.iter().map(|v| v.to_bits()))
        .collect()
    };
    for instruction_set in InstructionSet::supported() {
        let positions = calculator.positions_with(instruction_set, &requests);
        assert!(bits(&positions) == bits(&baseline), "{instruction_set:?}");
    }
    let days: Vec<f64> = (0..400).map(|d| 2447000.5 + f64::from(d)).collect();
    let baseline = GeocentricColumns::compute(&days, 0.0, Precision::Fast);
    for (i, &jd) in days.iter().enumerate() {
        let sun = geocentric_sun::<FastMath>(jd, 0.0);
        assert_eq!(
            baseline.sidereal_time[i].to_bits(),
            sun.sidereal_time.to_bits()
        );
        assert_eq!(
            baseline.right_ascension[i].to_bits(),
            sun.right_ascension.to_bits()
        );
        assert_eq!(baseline.declination[i].to_bits(), sun.declination.to_bits());
    }
}

#[test]
fn small_angle_functions_match_the_c_library() {
    let mut identical = 0;
    let count = 100_000;
    for i in 0..count {
        let beta = 6e-6 * (2.0 * f64::from(i) / f64::from(count) - 1.0) + 1e-12;
        let (sin, cos, tan) = small_angle_sin_cos_tan(beta);
        for (value, reference) in [(sin, beta.sin()), (cos, beta.cos()), (tan, beta.tan())] {
            let ulp = f64::from_bits(reference.abs().to_bits() + 1) - reference.abs();
            assert!(
                (value - reference).abs() <= ulp,
                "{beta:e}: {value:e} vs {reference:e}"
            );
            identical += usize::from(value == reference);
        }
    }
    assert!(
        identical as f64 >= 0.999 * 3.0 * f64::from(count),
        "{identical}"
    );
}
