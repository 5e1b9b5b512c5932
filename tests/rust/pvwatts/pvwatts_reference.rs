//! Reference test of the local PVWatts v5 engine against NREL SSC `pvwattsv5` (PySAM 7.1.1,
//! SSC 306) outputs stored in `tests/data/pvref` (see its README and make_ref.py): both TMY3 sites ×
//! 21 cases, hourly, monthly and annual; the weather as SSC read it; and the TMY2 site's annual
//! figures of the PVWatts v5 algorithm note (§7, SSC through PySAM).
//!
//! The weather files are the TMY files shipped with pvlib (`tests/data/*.gz`, NREL TMY2/TMY3
//! data). Everything this test reads is in the repository.

use flate2::read::GzDecoder;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use sunflux::pvwatts::solarpos::{Observer, Precision, SolarCalculator};
use sunflux::pvwatts::{
    parse_weather, simulate, validate_params, PvOutput, RawParams, SystemParams, Weather,
};

/// Relative tolerance on hourly, monthly and annual values.
const REL_TOL: f64 = 1e-9;
/// Absolute tolerance for hourly values near zero.
const ABS_TOL_NEAR_ZERO: f64 = 1e-6;

const TMY3_SITES: [(&str, &str); 2] = [
    ("723170TYA", "723170TYA.CSV.gz"),
    ("703165TY", "703165TY.csv.gz"),
];

/// The reference outputs, committed under `tests/data/pvref` (see its README).
fn pvref() -> PathBuf {
    fixture("pvref")
}

fn read_gz(path: &Path) -> Vec<u8> {
    let file =
        std::fs::File::open(path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let mut bytes = Vec::new();
    GzDecoder::new(file)
        .read_to_end(&mut bytes)
        .unwrap_or_else(|e| panic!("cannot gunzip {}: {e}", path.display()));
    bytes
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
        .join(name)
}

fn load_weather(file: &str) -> Weather {
    let name = file.trim_end_matches(".gz");
    parse_weather(&read_gz(&fixture(file)), name).unwrap_or_else(|e| panic!("{e}"))
}

/// A reference CSV (gzipped, header row, numeric cells) as named columns.
fn read_reference_csv(path: &Path) -> BTreeMap<String, Vec<f64>> {
    let text = String::from_utf8(read_gz(path)).expect("reference CSV is UTF-8");
    let mut lines = text.lines();
    let names: Vec<String> = lines
        .next()
        .expect("header")
        .split(',')
        .map(str::to_string)
        .collect();
    let mut columns: BTreeMap<String, Vec<f64>> =
        names.iter().map(|n| (n.clone(), Vec::new())).collect();
    for line in lines.filter(|l| !l.is_empty()) {
        for (name, cell) in names.iter().zip(line.split(',')) {
            columns.get_mut(name).unwrap().push(
                cell.parse()
                    .unwrap_or_else(|_| panic!("bad number '{cell}'")),
            );
        }
    }
    columns
}

fn params(array_type: i64, module_type: i64, tilt: f64) -> SystemParams {
    let mut raw = RawParams::new(4.0, module_type, 14.0, array_type, tilt, 180.0);
    raw.dc_ac_ratio = 1.2;
    raw.gcr = 0.4;
    raw.inv_eff = 96.0;
    validate_params(&raw).expect("reference parameters are valid")
}

/// (case name, hourly group name, array type, module type, tilt) of the 21 reference cases.
fn cases() -> Vec<(String, String, i64, i64, f64)> {
    let mut cases = Vec::new();
    for at in 0..5 {
        for mt in 0..3 {
            cases.push((format!("at{at}_mt{mt}"), format!("at{at}"), at, mt, 20.0));
        }
    }
    for at in [2, 3] {
        for mt in 0..3 {
            cases.push((
                format!("at{at}_mt{mt}_tilt0"),
                format!("at{at}_tilt0"),
                at,
                mt,
                0.0,
            ));
        }
    }
    cases
}

/// Largest deviations seen per quantity, and the failures.
#[derive(Default)]
struct Comparison {
    max_abs: BTreeMap<String, f64>,
    max_rel: BTreeMap<String, f64>,
    failures: Vec<String>,
}

impl Comparison {
    fn record(&mut self, quantity: &str, label: &str, got: f64, expected: f64, allowed: f64) {
        let abs = (got - expected).abs();
        let rel = if expected != 0.0 {
            abs / expected.abs()
        } else {
            abs
        };
        let entry = self.max_abs.entry(quantity.to_string()).or_insert(0.0);
        *entry = entry.max(abs);
        if expected.abs() >= 1.0 {
            let entry = self.max_rel.entry(quantity.to_string()).or_insert(0.0);
            *entry = entry.max(rel);
        }
        let within = abs <= allowed;
        if !within && self.failures.len() < 50 {
            self.failures.push(format!("{label} {quantity}: got {got:?}, expected {expected:?} (|diff| {abs:e} > {allowed:e})"));
        }
    }

    fn relative(&mut self, quantity: &str, label: &str, got: f64, expected: f64) {
        self.record(quantity, label, got, expected, REL_TOL * expected.abs());
    }

    fn hourly(
        &mut self,
        quantity: &str,
        label: &str,
        got: &[f64],
        expected: &[f64],
    ) {
        assert_eq!(got.len(), expected.len(), "{label} {quantity}: length");
        for (hour, (&g, &e)) in got.iter().zip(expected).enumerate() {
            let allowed = (REL_TOL * e.abs()).max(ABS_TOL_NEAR_ZERO);
            self.record(quantity, &format!("{label} hour {hour}"), g, e, allowed);
        }
    }

    /// Print the largest absolute deviation and the largest relative one among reference values
    /// of magnitude ≥ 1 (in the quantity's unit).
    fn report(&self, title: &str) {
        eprintln!("{title}: max deviations");
        for (quantity, abs) in &self.max_abs {
            let rel = self.max_rel.get(quantity).copied().unwrap_or(0.0);
            eprintln!("  {quantity:<24} abs {abs:10.3e}   rel {rel:10.3e}");
        }
    }
}

fn compare_aggregates(
    cmp: &mut Comparison,
    label: &str,
    out: &PvOutput,
    expected: &serde_json::Value,
) {
    let monthly: [(&str, &[f64; 12]); 4] = [
        ("ac_monthly", &out.ac_monthly),
        ("dc_monthly", &out.dc_monthly),
        ("poa_monthly", &out.poa_monthly),
        ("solrad_monthly", &out.solrad_monthly),
    ];
    for (name, values) in monthly {
        let reference = expected[name]
            .as_array()
            .unwrap_or_else(|| panic!("{label}: no {name}"));
        for (month, (got, want)) in values.iter().zip(reference).enumerate() {
            cmp.relative(
                name,
                &format!("{label} month {}", month + 1),
                *got,
                want.as_f64().unwrap(),
            );
        }
    }
    for (name, got) in [
        ("ac_annual", out.ac_annual),
        ("solrad_annual", out.solrad_annual),
        ("capacity_factor", out.capacity_factor),
    ] {
        cmp.relative(name, label, got, expected[name].as_f64().unwrap());
    }
}

#[test]
fn weather_readers_reproduce_ssc_inputs_and_sunup() {
    let pvref = pvref();
    for (site, file) in TMY3_SITES {
        let weather = load_weather(file);
        let reference = read_reference_csv(&pvref.join(format!("weather_{site}.csv.gz")));
        assert_eq!(weather.len(), 8760);
        for (name, values) in [
            ("gh", &weather.gh),
            ("dn", &weather.dn),
            ("df", &weather.df),
            ("tamb", &weather.tdry),
            ("wspd", &weather.wspd),
        ] {
            assert_eq!(
                values, &reference[name],
                "{site}: weather column {name} differs from SSC's"
            );
        }
        let expected_month: Vec<u8> = reference["month"].iter().map(|&m| m as u8).collect();
        let expected_hour: Vec<u8> = reference["hour"].iter().map(|&h| h as u8).collect();
        assert_eq!(weather.month, expected_month, "{site}: months");
        assert_eq!(weather.hour, expected_hour, "{site}: hours");
        let out = simulate(&weather, &params(1, 0, 20.0));
        let expected_sunup: Vec<u8> = reference["sunup"].iter().map(|&s| s as u8).collect();
        assert_eq!(
            out.hourly.sunup, expected_sunup,
            "{site}: sun-up codes differ from SSC's"
        );
    }
}

fn check_site(site: &str, file: &str) {
    let pvref = pvref();
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(pvref.join("results.json")).expect("results.json"))
            .expect("valid JSON");
    let weather = load_weather(file);
    let mut groups: BTreeMap<String, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    let mut comparison = Comparison::default();
    for (case, group, array_type, module_type, tilt) in cases() {
        let reference = groups.entry(group.clone()).or_insert_with(|| {
            read_reference_csv(&pvref.join(format!("hourly_{site}_{group}.csv.gz")))
        });
        let out = simulate(&weather, &params(array_type, module_type, tilt));
        let label = format!("{site} {case}");
        let h = &out.hourly;
        let cmp = &mut comparison;
        cmp.hourly("poa", &label, &h.series.poa, &reference["poa"]);
        cmp.hourly("tpoa", &label, &h.tpoa, &reference[&format!("tpoa_mt{module_type}")]);
        cmp.hourly("tcell", &label, &h.series.tcell, &reference["tcell"]);
        cmp.hourly("dc", &label, &h.series.dc, &reference[&format!("dc_mt{module_type}")]);
        cmp.hourly("ac", &label, &h.series.ac, &reference[&format!("ac_mt{module_type}")]);
        cmp.hourly("aoi", &label, &h.aoi, &reference["aoi"]);
        cmp.hourly("shad_beam_factor", &label, &h.shad_beam_factor, &reference["shad_beam_factor"]);
        compare_aggregates(cmp, &label, &out, &results["sites"][site]["cases"][&case]);
    }
    comparison.report(&format!("{site}: every case"));
    let failures = &comparison.failures;
    assert!(
        failures.is_empty(),
        "{} deviations beyond tolerance:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// SSC's sun positions (PySAM `Irradproc`, see `tests/data/make_sun_positions.py`) at 2,000
/// instants of four sites: in `Precision::Exact` the engine's zenith and azimuth are the same
/// bits (the vectorised `Precision::Fast` is within 1e-12 degrees).
#[test]
fn exact_sun_positions_are_ssc_bit_for_bit() {
    let document: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixture("pysam_sun_positions.json")).expect("pysam_sun_positions.json"),
    )
    .expect("valid JSON");
    let year = document["year"].as_i64().expect("year") as i32;
    let per_site = document["per_site"].as_u64().expect("per_site") as usize;
    let rows = document["rows"].as_array().expect("rows");
    let mut checked = 0;
    for (s, site) in document["sites"].as_array().expect("sites").iter().enumerate() {
        let observer = Observer {
            latitude: site["lat"].as_f64().expect("lat"),
            longitude: site["lon"].as_f64().expect("lon"),
            tz: site["tz"].as_f64().expect("tz"),
            elevation: 0.0,
        };
        for precision in [Precision::Exact, Precision::Fast] {
            let calculator = SolarCalculator::with_precision(observer, precision);
            for row in &rows[s * per_site..(s + 1) * per_site] {
                let value = |i: usize| row[i].as_f64().expect("number");
                let position = calculator.position(
                    year,
                    value(0) as u8,
                    value(1) as u8,
                    value(2) as i32,
                    value(3) as i32,
                    1013.25,
                    15.0,
                );
                let zenith = degrees_like_ssc(position.zenith);
                let azimuth = degrees_like_ssc(position.azimuth);
                if precision == Precision::Exact {
                    assert_eq!((zenith, azimuth), (value(4), value(5)), "{observer:?} {row:?}");
                    checked += 1;
                } else {
                    assert!((zenith - value(4)).abs() < 1e-12 && (azimuth - value(5)).abs() < 1e-12);
                }
            }
        }
    }
    assert_eq!(checked, 2000);
}

/// Radians to degrees as SSC converts them (a product with `RTOD = 180/π`).
fn degrees_like_ssc(radians: f64) -> f64 {
    radians * (180.0 / std::f64::consts::PI)
}

#[test]
fn greensboro_tmy3_matches_ssc_for_all_cases() {
    check_site(TMY3_SITES[0].0, TMY3_SITES[0].1);
}

#[test]
fn sand_point_tmy3_matches_ssc_for_all_cases() {
    check_site(TMY3_SITES[1].0, TMY3_SITES[1].1);
}

/// Miami TMY2: annual AC of all 21 cases (kWh, 6 decimals) and the base-case details, from
/// the PVWatts v5 algorithm note, §7 (SSC via PySAM).
#[test]
fn miami_tmy2_matches_ssc_annual_figures() {
    let weather = load_weather("12839.tm2.gz");
    assert_eq!(weather.meta.lat, 25.8);
    assert_eq!(weather.meta.tz, -5.0);
    let annual_ac = [
        5852.216847,
        5965.432765,
        6077.415728,
        5792.954539,
        5921.442361,
        6052.488186,
        6910.994706,
        7040.531268,
        7199.486050,
        7054.968793,
        7191.710765,
        7356.371479,
        7584.759945,
        7732.772586,
        7914.982793,
        6634.038712,
        6757.579376,
        6904.484562,
        6734.041159,
        6864.068253,
        7014.529607,
    ];
    let mut cmp = Comparison::default();
    for ((case, _, array_type, module_type, tilt), expected) in cases().into_iter().zip(annual_ac) {
        let out = simulate(&weather, &params(array_type, module_type, tilt));
        cmp.record(
            "ac_annual",
            &format!("12839 {case}"),
            out.ac_annual,
            expected,
            5.0e-7 + REL_TOL * expected,
        );
    }
    let base = simulate(&weather, &params(1, 0, 20.0));
    cmp.relative(
        "solrad_annual",
        "12839 at1_mt0",
        base.solrad_annual,
        5.251740361849069,
    );
    cmp.relative(
        "capacity_factor",
        "12839 at1_mt0",
        base.capacity_factor,
        16.532404507069423,
    );
    let monthly_ac = [
        422.900, 454.293, 538.645, 569.956, 537.132, 484.563, 524.469, 520.053, 458.844, 461.503,
        403.517, 417.078,
    ];
    for (month, (got, expected)) in base.ac_monthly.iter().zip(monthly_ac).enumerate() {
        cmp.record(
            "ac_monthly",
            &format!("12839 at1_mt0 month {}", month + 1),
            *got,
            expected,
            5.0e-4,
        );
    }
    cmp.report("12839 (TMY2)");
    assert!(cmp.failures.is_empty(), "{}", cmp.failures.join("\n"));
}

/// Replace the `field`-th comma-separated cell of 1-based `line` in `text`.
fn replace_csv_cell(text: &str, line: usize, field: usize, value: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut cells: Vec<&str> = lines[line - 1].split(',').collect();
    cells[field] = value;
    lines[line - 1] = cells.join(",");
    lines.join("\n")
}

fn expect_error(bytes: &[u8], name: &str) -> String {
    match parse_weather(bytes, name) {
        Ok(_) => panic!("{name}: expected a parse error"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn tmy_reader_errors_name_file_line_and_column() {
    let tmy3 = String::from_utf8(read_gz(&fixture("723170TYA.CSV.gz"))).unwrap();
    assert_eq!(
        expect_error(
            replace_csv_cell(&tmy3, 7, 4, "x1x").as_bytes(),
            "723170TYA.CSV"
        ),
        "723170TYA.CSV:7: column 'GHI (W/m^2)': expected a number, got 'x1x'"
    );
    assert_eq!(
        expect_error(replace_csv_cell(&tmy3, 20, 7, "-9900").as_bytes(), "723170TYA.CSV"),
        "723170TYA.CSV:20: column 'DNI (W/m^2)': expected a value between 0 and 1500 W/m2, got -9900"
    );
    let tmy2 = String::from_utf8(read_gz(&fixture("12839.tm2.gz"))).unwrap();
    let mut lines: Vec<String> = tmy2.lines().map(str::to_string).collect();
    lines[9].replace_range(23..27, "ab12");
    assert_eq!(
        expect_error(lines.join("\n").as_bytes(), "12839.tm2"),
        "12839.tm2:10: column 'DNI': expected an integer in columns 24-27, got 'ab12'"
    );
    let missing = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/no-such-file.csv");
    let error = sunflux::pvwatts::read_weather_file(&missing, &Default::default()).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("no-such-file.csv: cannot read file"),
        "{error}"
    );
}

#[test]
fn simulate_many_matches_simulate() {
    let greensboro = load_weather(TMY3_SITES[0].1);
    let miami = load_weather("12839.tm2.gz");
    let jobs: Vec<(&Weather, SystemParams)> = (0..10)
        .map(|i| {
            (
                if i % 3 == 0 { &miami } else { &greensboro },
                params(i % 5, i % 3, 20.0),
            )
        })
        .collect();
    let expected: Vec<PvOutput> = jobs.iter().map(|(w, p)| simulate(w, p)).collect();
    assert_eq!(sunflux::pvwatts::simulate_many(&jobs, 2), expected);
}

/// The SAM CSV version of a TMY3 file used by `tests/data/make_extra_cases.py` (same text): NSRDB-style
/// metadata rows, then Year, Month, Day, Hour (0–23), optionally Minute (30), GHI, DNI, DHI,
/// Temperature, Wind Speed, Pressure, Albedo copied verbatim from the TMY3 cells.
fn sam_csv_from_tmy3(tmy3: &str, with_minute: bool) -> String {
    let lines: Vec<&str> = tmy3.lines().collect();
    let head: Vec<&str> = lines[0].split(',').collect();
    let mut text = format!(
        "Source,Location ID,City,State,Country,Latitude,Longitude,Time Zone,Elevation\nTMY3,{},-,-,-,{},{},{},{}\n",
        head[0], head[4], head[5], head[3], head[6]
    );
    text.push_str(if with_minute {
        "Year,Month,Day,Hour,Minute,GHI,DNI,DHI,Temperature,Wind Speed,Pressure,Albedo\n"
    } else {
        "Year,Month,Day,Hour,GHI,DNI,DHI,Temperature,Wind Speed,Pressure,Albedo\n"
    });
    for line in &lines[2..] {
        let c: Vec<&str> = line.split(',').collect();
        let date: Vec<i64> = c[0].split('/').map(|p| p.parse().unwrap()).collect();
        let hour: i64 = c[1].split(':').next().unwrap().parse::<i64>().unwrap() - 1;
        let minute = if with_minute { "30," } else { "" };
        text.push_str(&format!(
            "{},{},{},{hour},{minute}{},{},{},{},{},{},{}\n",
            date[2], date[0], date[1], c[4], c[7], c[10], c[31], c[46], c[40], c[61]
        ));
    }
    text
}

/// A TMY3 text with the header's time zone, latitude and longitude replaced (as `relocated_tmy3`
/// in `tests/data/make_extra_cases.py`).
fn relocated_tmy3(tmy3: &str, tz: &str, lat: &str, lon: &str) -> String {
    let (header, rest) = tmy3.split_once('\n').expect("TMY3 header line");
    let mut fields: Vec<&str> = header.split(',').collect();
    fields[3] = tz;
    fields[4] = lat;
    fields[5] = lon;
    format!("{}\n{rest}", fields.join(","))
}

/// 64 random systems on eight inputs (both TMY3 files, the TMY2 file, SAM CSV without and with a
/// Minute column, the latter simulated as instantaneous data, and the Greensboro data moved to
/// Nome, Cape Town and Auckland), against SSC results in `tests/data/pysam_extra_cases.json`
/// (made by `tests/data/make_extra_cases.py`).
#[test]
fn random_systems_and_sam_csv_inputs_match_ssc() {
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("pysam_extra_cases.json")).expect("fixture"))
            .expect("JSON");
    let greensboro = String::from_utf8(read_gz(&fixture("723170TYA.CSV.gz"))).unwrap();
    let mut inputs: BTreeMap<&str, Weather> = BTreeMap::new();
    inputs.insert("723170TYA.CSV", load_weather("723170TYA.CSV.gz"));
    inputs.insert("703165TY.csv", load_weather("703165TY.csv.gz"));
    inputs.insert("12839.tm2", load_weather("12839.tm2.gz"));
    for (name, with_minute) in [
        ("723170TYA_sam.csv", false),
        ("723170TYA_sam_minute.csv", true),
    ] {
        let weather =
            parse_weather(sam_csv_from_tmy3(&greensboro, with_minute).as_bytes(), name).unwrap();
        assert_eq!(weather.instantaneous, with_minute);
        inputs.insert(name, weather);
    }
    for (name, tz, lat, lon) in [
        ("723170TYA_at_nome.CSV", "-9.0", "64.5", "-165.4"),
        ("723170TYA_at_capetown.CSV", "2.0", "-33.9", "18.4"),
        ("723170TYA_at_auckland.CSV", "12.0", "-36.8", "174.8"),
    ] {
        let text = relocated_tmy3(&greensboro, tz, lat, lon);
        inputs.insert(name, parse_weather(text.as_bytes(), name).unwrap());
    }
    let mut cmp = Comparison::default();
    for case in expected["cases"].as_array().expect("cases") {
        let file = case["file"].as_str().unwrap();
        let p = &case["params"];
        let number = |key: &str| p[key].as_f64().unwrap();
        let raw = RawParams {
            system_capacity: number("system_capacity"),
            module_type: p["module_type"].as_i64().unwrap(),
            losses: number("losses"),
            array_type: p["array_type"].as_i64().unwrap(),
            tilt: number("tilt"),
            azimuth: number("azimuth"),
            dc_ac_ratio: number("dc_ac_ratio"),
            gcr: number("gcr"),
            inv_eff: number("inv_eff"),
        };
        let out = simulate(&inputs[file], &validate_params(&raw).expect("valid case"));
        let label = format!("{file} {p}");
        for key in ["ac_annual", "solrad_annual", "capacity_factor"] {
            let got = match key {
                "ac_annual" => out.ac_annual,
                "solrad_annual" => out.solrad_annual,
                _ => out.capacity_factor,
            };
            cmp.relative(key, &label, got, case[key].as_f64().unwrap());
        }
        for (key, values) in [
            ("ac_monthly", &out.ac_monthly),
            ("poa_monthly", &out.poa_monthly),
            ("dc_monthly", &out.dc_monthly),
        ] {
            for (month, got) in values.iter().enumerate() {
                cmp.relative(
                    key,
                    &format!("{label} month {}", month + 1),
                    *got,
                    case[key][month].as_f64().unwrap(),
                );
            }
        }
        let sunup_hours = out.hourly.sunup.iter().filter(|&&s| s > 0).count() as f64;
        cmp.record(
            "sunup_hours",
            &label,
            sunup_hours,
            case["sunup_hours"].as_f64().unwrap(),
            0.0,
        );
    }
    cmp.report("extra SSC cases");
    assert!(cmp.failures.is_empty(), "{}", cmp.failures.join("\n"));
}
