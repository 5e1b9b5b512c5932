//! Tests of the Fuentes cell temperature steps against PVWatts' own iteration (written out here as
//! SSC writes it), near ambient, across the free/forced flow switch, and of the helper functions.

use super::*;

/// One PVWatts iteration T ↦ G(T) with exactly SSC's floating-point operations, the reference
/// for the power-law form, for a model with INOCT `inoct_c` (°C) and a 1 h time step;
/// `wind_at_module` in m/s.
fn ssc_iteration(
    model: &FuentesModel,
    inoct_c: f64,
    inputs: &StepInputs,
    wind_at_module: f64,
    module: f64,
) -> f64 {
    let timestep_hours = 1.0;
    let inoct_k = inoct_c + 273.15;
    let (ambient, sky) = (inputs.ambient_k, inputs.sky_k);
    let convection =
        model.convection_ratio * pvwatts_top_convection(wind_at_module, module, ambient, true);
    let radiative_sky =
        EMISSIVITY * STEFAN_BOLTZMANN * (module.powf(2.0) + sky.powf(2.0)) * (module + sky);
    let ground = ambient + model.ground_ratio * (module - ambient);
    let radiative_ground =
        EMISSIVITY * STEFAN_BOLTZMANN * (module * module + ground * ground) * (module + ground);
    let total = convection + radiative_sky + radiative_ground;
    let eigen = -total / heat_capacity(inoct_k) * timestep_hours * 3600.0;
    let decay = if eigen > NO_MEMORY_EIGENVALUE {
        eigen.exp()
    } else {
        0.0
    };
    inputs.previous_module_k * decay
        + ((1.0 - decay)
            * (convection * ambient
                + radiative_sky * sky
                + radiative_ground * ground
                + inputs.previous_absorbed
                + (inputs.absorbed - inputs.previous_absorbed) / eigen)
            + inputs.absorbed
            - inputs.previous_absorbed)
            / total
}

/// Step inputs (after 300 W/m² in the previous step) and the wind speed at module height.
fn inputs(
    model: &FuentesModel,
    poa: f64,
    wind: f64,
    ambient_c: f64,
    previous_c: f64,
) -> (StepInputs, f64) {
    let ambient_k = ambient_c + 273.15;
    let wind_at_module = wind * model.wind_height_factor + 0.0001;
    let step_inputs = StepInputs {
        wind: model.convection.wind_factors(wind_at_module, true),
        ambient_k,
        sky_k: sky_temperature(ambient_k),
        absorbed: poa * ABSORPTIVITY,
        previous_absorbed: 300.0 * ABSORPTIVITY,
        previous_module_k: previous_c + 273.15,
    };
    (step_inputs, wind_at_module)
}

/// PVWatts' 10th iterate with SSC's arithmetic.
fn ssc_tenth_iterate(
    model: &FuentesModel,
    inoct_c: f64,
    step_inputs: &StepInputs,
    wind_at_module: f64,
) -> f64 {
    let mut module = step_inputs.previous_module_k;
    for _ in 0..PVWATTS_ITERATIONS {
        module = ssc_iteration(model, inoct_c, step_inputs, wind_at_module, module);
    }
    module
}

/// The engine's result for a step (Newton's fixed point or the continued iteration), whether
/// Newton's method gave it, and PVWatts' second iterate T₂.
fn solve(model: &FuentesModel, step_inputs: &StepInputs) -> (f64, bool, f64) {
    let first = model
        .update(step_inputs, step_inputs.previous_module_k)
        .next;
    let second = model.update(step_inputs, first);
    match model.solve_by_newton(step_inputs, first, &second) {
        Some(fixed_point) => (fixed_point, true, second.next),
        None => (
            model.iterate_like_pvwatts(step_inputs, first, &second),
            false,
            second.next,
        ),
    }
}

/// Solves a step for every combination of `poas` (W/m²), `winds` (m/s), `ambients` (°C) and
/// previous module temperatures (°C, `previous(ambient)`) with a model of INOCT `inoct_c`,
/// asserts that each result is within 1e-9 K of PVWatts' 10th iterate with SSC's arithmetic,
/// and hands the step inputs, the result and whether Newton's method gave it, and T₂ to
/// `inspect`.
fn check_grid_against_pvwatts(
    inoct_c: f64,
    (poas, winds, ambients): (&[f64], &[f64], &[f64]),
    previous: impl Fn(f64) -> Vec<f64>,
    mut inspect: impl FnMut(&StepInputs, f64, bool, f64),
) {
    let model = FuentesModel::new(inoct_c, 5.0, 1.0);
    for &poa in poas {
        for &wind in winds {
            for &ambient in ambients {
                for previous_c in previous(ambient) {
                    let (step_inputs, wind_at_module) =
                        inputs(&model, poa, wind, ambient, previous_c);
                    let (module, by_newton, second_iterate) = solve(&model, &step_inputs);
                    let reference =
                        ssc_tenth_iterate(&model, inoct_c, &step_inputs, wind_at_module);
                    assert!(
                        (module - reference).abs() < 1e-9,
                        "{poa} {wind} {ambient} {previous_c}: {module} vs {reference}"
                    );
                    inspect(&step_inputs, module, by_newton, second_iterate);
                }
            }
        }
    }
}

#[test]
fn cube_root_polynomial_is_accurate() {
    for i in 0..=4096 {
        let r = f64::from(i) / 4096.0;
        let exact = (1.0 + r).cbrt();
        let relative = (cube_root_of_one_plus(r) - exact).abs() / exact;
        assert!(relative < 5e-16, "{r}: {relative:e}");
    }
}

#[test]
fn update_slope_matches_finite_differences() {
    let model = FuentesModel::new(45.0, 5.0, 1.0);
    for (poa, wind, ambient, module) in [
        (800.0, 3.0, 20.0, 45.0),
        (200.0, 0.0, 5.0, 12.0),
        (950.0, 9.0, 30.0, 40.0),
    ] {
        let (step_inputs, _) = inputs(&model, poa, wind, ambient, 25.0);
        let t = module + 273.15;
        let h = 1e-4;
        let numeric = (model.update(&step_inputs, t + h).next
            - model.update(&step_inputs, t - h).next)
            / (2.0 * h);
        let analytic = model.update(&step_inputs, t).slope;
        assert!(
            (numeric - analytic).abs() < 1e-7 * (1.0 + analytic.abs()),
            "{numeric} vs {analytic}"
        );
    }
}

#[test]
fn power_law_update_matches_the_pvwatts_form() {
    let model = FuentesModel::new(45.0, 5.0, 1.0);
    for (poa, wind, ambient, module) in [
        (800.0, 3.0, 20.0, 45.0),
        (200.0, 0.0, 5.0, 12.0),
        (950.0, 25.0, 30.0, 40.0),
    ] {
        let (step_inputs, wind_at_module) = inputs(&model, poa, wind, ambient, 25.0);
        let t = module + 273.15;
        let fast = model.update(&step_inputs, t).next;
        let exact = ssc_iteration(&model, 45.0, &step_inputs, wind_at_module, t);
        assert!((fast - exact).abs() < 1e-11, "{fast} vs {exact}");
    }
}

#[test]
fn steps_agree_with_the_pvwatts_iteration() {
    let mut accepted = 0;
    let mut iterated = 0;
    check_grid_against_pvwatts(
        49.0,
        (
            &[50.0, 200.0, 500.0, 900.0],
            &[0.0, 1.0, 4.0, 12.0],
            &[-10.0, 10.0, 35.0],
        ),
        |_| vec![-5.0, 20.0, 60.0],
        |_, _, by_newton, _| {
            if by_newton {
                accepted += 1;
            } else {
                iterated += 1;
            }
        },
    );
    assert!(accepted > 50, "Newton accepted only {accepted} cases");
    assert!(iterated > 10, "only {iterated} cases iterated");
}

/// Two hours of real PSM3 files (Tucson, hour 7043 of a 1-axis tracker; Lakewood, hour 5726
/// of a backtracking tracker) where SSC's iterates cross the laminar/turbulent switch
/// (Re = 1.2e5 at a wind speed near 4.6 m/s): Newton's shortcut used to land 1.6e-4 K away
/// from PVWatts' 10th iterate there. Inputs as the engine saw them: previous cell
/// temperature and irradiance, irradiance, wind, ambient (°C, W/m², m/s).
#[test]
fn steps_whose_iterates_cross_the_flow_switch_follow_pvwatts() {
    for (previous_c, previous_poa, poa, wind, ambient_c) in [
        (
            48.54687139642215,
            839.0467709914462,
            813.3632935042701,
            4.599999904632568,
            32.0,
        ),
        (
            47.26569469426295,
            667.0366763503977,
            828.079821966066,
            4.599999904632568,
            32.0,
        ),
    ] {
        let model = FuentesModel::new(45.0, 5.0, 1.0);
        let ambient_k = ambient_c + 273.15;
        let wind_at_module = wind * model.wind_height_factor + 0.0001;
        let step_inputs = StepInputs {
            wind: model.convection.wind_factors(wind_at_module, true),
            ambient_k,
            sky_k: sky_temperature(ambient_k),
            absorbed: poa * ABSORPTIVITY,
            previous_absorbed: previous_poa * ABSORPTIVITY,
            previous_module_k: previous_c + 273.15,
        };
        let (module, _, _) = solve(&model, &step_inputs);
        let reference = ssc_tenth_iterate(&model, 45.0, &step_inputs, wind_at_module);
        assert!(
            (module - reference).abs() < 1e-10,
            "{module} vs PVWatts' {reference}"
        );
    }
}

#[test]
fn steps_near_ambient_agree_with_the_pvwatts_iteration() {
    let mut sampled_edge = 0;
    let mut accepted = 0;
    check_grid_against_pvwatts(
        45.0,
        (
            &[2.0, 10.0, 30.0, 60.0],
            &[0.0, 0.5, 2.0, 6.0],
            &[-5.0, 15.0, 30.0],
        ),
        |ambient| {
            [-3.0, -0.2, 0.0, 0.5, 8.0]
                .map(|offset| ambient + offset)
                .to_vec()
        },
        |step_inputs, module, by_newton, second_iterate| {
            if by_newton {
                accepted += 1;
                // Distance of the fixed point from ambient in multiples of e₂ = |T₂ − T*|.
                let clearance =
                    (module - step_inputs.ambient_k).abs() / (second_iterate - module).abs();
                assert!(clearance > AMBIENT_CLEARANCE_MIN);
                if clearance < AMBIENT_CLEARANCE_SAMPLED {
                    sampled_edge += 1;
                }
            }
        },
    );
    assert!(accepted > 100, "Newton accepted only {accepted} cases");
    assert!(
        sampled_edge > 0,
        "no case sampled the edge nearest to ambient"
    );
}
