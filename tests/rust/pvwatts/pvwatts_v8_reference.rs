//! Reference test of the local PVWatts v8 engine against NREL SSC `pvwattsv8` (PySAM 7.1.1, SSC
//! 306) outputs stored in `tests/data/pvref_v8` (see its README and make_ref.py): 84 cases on
//! the two TMY3 files, the TMY2 file and two SAM CSV files with snow depth — every array type,
//! module type, horizontal-axis trackers, bifacial modules, every albedo option, soiling, the
//! snow model and other geometries and sizes. Hourly AC within 1e-6 W, annual AC within 1e-12
//! relative, monthly sums within 1e-12 relative; hourly plane-of-array irradiance, cell
//! temperature and DC of 18 cases within 1e-9 of SSC's.

use flate2::read::GzDecoder;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use sunflux::pvwatts::v8::params::validate_v8_system;
use sunflux::pvwatts::v8::{simulate_v8_with_sun_path, validate_v8_options, RawV8Options, V8Output, V8Params};
use sunflux::pvwatts::solarpos::Precision;
use sunflux::pvwatts::{parse_weather, RawParams, SunPath, Weather};

/// Largest hourly AC difference allowed, W.
const HOURLY_AC_TOL_W: f64 = 1e-6;
/// Largest relative difference of annual and monthly energy.
const ENERGY_REL_TOL: f64 = 1e-12;
/// Largest difference of the hourly detail outputs (W/m², °C, W).
const DETAIL_TOL: f64 = 1e-9;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("data").join(name)
}

fn read_gz(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let mut bytes = Vec::new();
    GzDecoder::new(file).read_to_end(&mut bytes).unwrap_or_else(|e| panic!("cannot gunzip {}: {e}", path.display()));
    bytes
}

/// The weather files the reference cases name.
fn weathers() -> BTreeMap<&'static str, Weather> {
    [
        ("723170TYA", "723170TYA.CSV.gz"),
        ("703165TY", "703165TY.csv.gz"),
        ("12839", "12839.tm2.gz"),
        ("snow_723170TYA", "pvref_v8/snow_723170TYA.csv.gz"),
        ("snow_703165TY", "pvref_v8/snow_703165TY.csv.gz"),
    ]
    .into_iter()
    .map(|(key, file)| {
        let name = file.rsplit('/').next().unwrap().trim_end_matches(".gz");
        (key, parse_weather(&read_gz(&data(file)), name).unwrap_or_else(|e| panic!("{e}")))
    })
    .collect()
}

/// A reference CSV (gzipped, header row, numeric cells) as named columns.
fn read_columns(path: &Path) -> BTreeMap<String, Vec<f64>> {
    let text = String::from_utf8(read_gz(path)).expect("reference CSV is UTF-8");
    let mut lines = text.lines();
    let names: Vec<String> = lines.next().expect("header").split(',').map(str::to_string).collect();
    let mut columns: Vec<Vec<f64>> = vec![Vec::with_capacity(8760); names.len()];
    for line in lines.filter(|l| !l.is_empty()) {
        for (column, cell) in columns.iter_mut().zip(line.split(',')) {
            column.push(cell.parse().unwrap_or_else(|_| panic!("bad number '{cell}'")));
        }
    }
    names.into_iter().zip(columns).collect()
}

fn number(value: &Value, key: &str) -> Option<f64> {
    value.get(key).and_then(Value::as_f64)
}

fn numbers(value: &Value, key: &str) -> Option<Vec<f64>> {
    value.get(key).and_then(Value::as_array).map(|items| items.iter().map(|v| v.as_f64().unwrap()).collect())
}

/// The SSC inputs of a case as engine parameters (SSC's default `use_wf_albedo` is 1).
fn params(case: &Value) -> V8Params {
    let system = &case["system"];
    let resource = &case["resource"];
    let mut raw = RawParams::new(
        number(system, "system_capacity").unwrap(),
        number(system, "module_type").unwrap() as i64,
        number(system, "losses").unwrap(),
        number(system, "array_type").unwrap() as i64,
        number(system, "tilt").unwrap(),
        number(system, "azimuth").unwrap(),
    );
    raw.dc_ac_ratio = number(system, "dc_ac_ratio").unwrap();
    raw.gcr = number(system, "gcr").unwrap();
    raw.inv_eff = number(system, "inv_eff").unwrap();
    let options = validate_v8_options(&RawV8Options {
        bifaciality: number(system, "bifaciality"),
        albedo: numbers(resource, "albedo"),
        use_wf_albedo: Some(number(resource, "use_wf_albedo").is_none_or(|flag| flag != 0.0)),
        soiling: numbers(system, "soiling"),
        en_snowloss: number(system, "en_snowloss").map(|flag| flag != 0.0),
    })
    .unwrap();
    V8Params { system: validate_v8_system(&raw).unwrap(), options }
}

/// Largest deviations seen per quantity, and the failures.
#[derive(Default)]
struct Comparison {
    worst: BTreeMap<String, (f64, String)>,
    failures: Vec<String>,
}

impl Comparison {
    fn check(&mut self, quantity: &str, case: &str, got: f64, expected: f64, deviation: f64, allowed: f64) {
        let entry = self.worst.entry(quantity.to_string()).or_insert((0.0, String::new()));
        if deviation > entry.0 {
            *entry = (deviation, case.to_string());
        }
        if !(deviation <= allowed) && self.failures.len() < 40 {
            self.failures.push(format!("{case} {quantity}: got {got:?}, expected {expected:?} (deviation {deviation:e} > {allowed:e})"));
        }
    }

    fn absolute(&mut self, quantity: &str, case: &str, got: f64, expected: f64, allowed: f64) {
        self.check(quantity, case, got, expected, (got - expected).abs(), allowed);
    }

    fn relative(&mut self, quantity: &str, case: &str, got: f64, expected: f64) {
        let deviation = if expected == 0.0 { got.abs() } else { (got / expected - 1.0).abs() };
        self.check(quantity, case, got, expected, deviation, ENERGY_REL_TOL);
    }
}

fn compare_case(
    comparison: &mut Comparison,
    case: &Value,
    output: &V8Output,
    hourly_ac: &BTreeMap<String, Vec<f64>>,
    detail: &BTreeMap<String, Vec<f64>>,
) {
    let name = case["name"].as_str().unwrap();
    let ours = &output.estimate;
    let expected_ac = &hourly_ac[name];
    assert_eq!(ours.hourly.series.ac.len(), expected_ac.len(), "{name}: hours");
    for (hour, (&got, &expected)) in ours.hourly.series.ac.iter().zip(expected_ac).enumerate() {
        comparison.absolute("hourly ac (W)", &format!("{name} hour {hour}"), got, expected, HOURLY_AC_TOL_W);
    }
    comparison.relative("ac_annual", name, ours.ac_annual, number(case, "ac_annual").unwrap());
    comparison.absolute("capacity_factor (%)", name, ours.capacity_factor, number(case, "capacity_factor").unwrap(), 1e-12);
    comparison.absolute("solrad_annual", name, ours.solrad_annual, number(case, "solrad_annual").unwrap(), 1e-12);
    for (key, values) in [
        ("ac_monthly", &ours.ac_monthly),
        ("dc_monthly", &ours.dc_monthly),
        ("poa_monthly", &ours.poa_monthly),
        ("solrad_monthly", &ours.solrad_monthly),
    ] {
        for (month, (&got, expected)) in values.iter().zip(numbers(case, key).unwrap()).enumerate() {
            comparison.relative(key, &format!("{name} month {}", month + 1), got, expected);
        }
    }
    for (output_name, values) in [("poa", &ours.hourly.series.poa), ("tcell", &ours.hourly.series.tcell), ("dc", &ours.hourly.series.dc)] {
        if let Some(expected) = detail.get(&format!("{name}:{output_name}")) {
            for (hour, (&got, &expected)) in values.iter().zip(expected).enumerate() {
                comparison.absolute(&format!("hourly {output_name}"), &format!("{name} hour {hour}"), got, expected, DETAIL_TOL);
            }
        }
    }
}

#[test]
fn every_reference_case_matches_ssc() {
    let reference: Value = serde_json::from_slice(&std::fs::read(data("pvref_v8/cases.json")).unwrap()).unwrap();
    let hourly_ac = read_columns(&data("pvref_v8/hourly_ac.csv.gz"));
    let detail = read_columns(&data("pvref_v8/hourly_detail.csv.gz"));
    let weathers = weathers();
    let sun_paths: BTreeMap<&str, SunPath> = weathers.iter().map(|(key, weather)| (*key, SunPath::compute(weather, Precision::Fast))).collect();
    let cases = reference["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 84);
    let mut comparison = Comparison::default();
    for case in cases {
        let key = case["weather"].as_str().unwrap();
        let output = simulate_v8_with_sun_path(&weathers[key], &sun_paths[key], &params(case), 0)
            .unwrap_or_else(|e| panic!("{}: {e}", case["name"]));
        compare_case(&mut comparison, case, &output, &hourly_ac, &detail);
    }
    for (quantity, (deviation, case)) in &comparison.worst {
        println!("{quantity:22} worst {deviation:.3e} ({case})");
    }
    assert!(comparison.failures.is_empty(), "{} deviations:\n{}", comparison.failures.len(), comparison.failures.join("\n"));
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let reference: Value = serde_json::from_slice(&std::fs::read(data("pvref_v8/cases.json")).unwrap()).unwrap();
    let weathers = weathers();
    for name in ["723170TYA_dense_at3", "snow_703165TY_bifacial_at1"] {
        let case = reference["cases"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap();
        let weather = &weathers[case["weather"].as_str().unwrap()];
        let sun_path = SunPath::compute(weather, Precision::Fast);
        let one = simulate_v8_with_sun_path(weather, &sun_path, &params(case), 1).unwrap();
        for threads in [2, 3, 7] {
            assert_eq!(simulate_v8_with_sun_path(weather, &sun_path, &params(case), threads).unwrap(), one, "{name}, {threads} threads");
        }
    }
}
