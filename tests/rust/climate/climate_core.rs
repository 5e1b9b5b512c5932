//! Integration tests of the climate download core: the weather generator's physical
//! invariants, the CSV writer/parser round trip, WKT, request validation, the zip round trip
//! and the download-job bookkeeping with a fake clock.

use std::time::Duration;

use sunflux::formats::climate_csv::{expected_rows, parse_climate_csv, write_climate_csv, ClimateCsvError};
use sunflux::spec::vocabulary::Attribute;
use sunflux::formats::climate_zip::read_climate_zip;
use sunflux::formats::wkt::{parse_wkt, Geometry, LonLat};
use sunflux::formats::Format;
use sunflux::embedded::catalog::Catalog;
use sunflux::embedded::climate::{build_download_zip, prepare_download, site_year_table, ClimateHttpRequest};
use sunflux::embedded::climate::grid::{describe_site, nearest_site};
use sunflux::embedded::climate::jobs::{ClimateJobs, Download, JobLimits, JobState, NewJob, Refusal};
use sunflux::embedded::weather_gen::{generate, ClimateSeries, SeriesOptions, SiteSpec, TimeBase};
use sunflux::services::climate::{validate_climate_request, RawClimateRequest};

fn site(lat: f64, elevation_m: f64, seed: u64) -> SiteSpec {
    SiteSpec { lat, lon: -100.0, elevation_m, tz_offset_hours: -7.0, seed }
}

fn utc_year(spec: &SiteSpec, year: i32) -> ClimateSeries {
    generate(spec, year, &SeriesOptions::download(true, false))
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    sum / count as f64
}

fn catalog() -> &'static Catalog {
    static CATALOG: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    CATALOG.get_or_init(Catalog::synthetic)
}

#[test]
fn irradiance_closes_and_is_zero_at_night() {
    for (lat, seed) in [(40.0, 1), (-33.9, 2), (1.3, 3), (69.0, 4)] {
        let series = utc_year(&site(lat, 300.0, seed), 2010);
        let mut daylight = 0;
        for i in 0..series.len() {
            let cos_zenith = series.zenith_deg[i].to_radians().cos();
            let (ghi, dni, dhi) = (series.ghi[i], series.dni[i], series.dhi[i]);
            assert!(ghi >= 0.0 && dni >= 0.0 && dhi >= 0.0);
            if cos_zenith > 0.0 {
                daylight += 1;
                assert!((dni * cos_zenith + dhi - ghi).abs() < 1e-9, "row {i}: {dni} {dhi} {ghi}");
                assert!(ghi < 1.2 * 1420.0 * cos_zenith + 1.0);
            } else {
                assert_eq!((ghi, dni, dhi), (0.0, 0.0, 0.0), "row {i} at night");
            }
        }
        assert!(daylight > 3000, "lat {lat}: {daylight} daylight hours");
    }
}

#[test]
fn same_seed_same_weather_other_seed_other_weather() {
    let a = utc_year(&site(40.0, 1600.0, 11), 2013);
    assert_eq!(a, utc_year(&site(40.0, 1600.0, 11), 2013));
    let b = utc_year(&site(40.0, 1600.0, 12), 2013);
    assert_ne!(a.ghi, b.ghi);
    assert_ne!(a.temperature_2m, b.temperature_2m);
}

#[test]
fn rows_follow_the_year_and_leap_day() {
    let spec = site(40.0, 0.0, 5);
    assert_eq!(generate(&spec, 2012, &SeriesOptions::download(true, true)).len(), 8784);
    assert_eq!(generate(&spec, 2012, &SeriesOptions::download(true, false)).len(), 8760);
    assert_eq!(generate(&spec, 2013, &SeriesOptions::download(true, true)).len(), 8760);
    let with_leap = generate(&spec, 2012, &SeriesOptions::download(false, true));
    assert_eq!(with_leap.month[59 * 24], 2);
    assert_eq!(with_leap.day[59 * 24], 29);
    assert_eq!(expected_rows(2012, true, 60), with_leap.len());
}

#[test]
fn local_standard_time_is_the_utc_series_shifted_by_the_offset() {
    let spec = site(35.0, 500.0, 21);
    let utc = utc_year(&spec, 2011);
    let local =
        generate(&spec, 2011, &SeriesOptions { time_base: TimeBase::LocalStandard, leap_day: false, minute: 0 });
    assert_eq!(local.stamp_offset_hours, -7.0);
    assert_eq!((local.month[0], local.day[0], local.hour[0]), (1, 1, 0));
    assert_eq!(local.unix_seconds[0] - utc.unix_seconds[0], 7 * 3600);
    for i in 0..utc.len() - 7 {
        assert_eq!(local.unix_seconds[i], utc.unix_seconds[i + 7]);
        for attribute in Attribute::ALL {
            assert_eq!(local.values(attribute)[i], utc.values(attribute)[i + 7], "{attribute:?} row {i}");
        }
    }
}

#[test]
fn seasons_elevation_and_wind_shear_are_physical() {
    let north = utc_year(&site(45.0, 200.0, 31), 2009);
    let south = utc_year(&site(-45.0, 200.0, 31), 2009);
    let month_mean = |s: &ClimateSeries, month: i32| {
        mean((0..s.len()).filter(|&i| s.month[i] == month).map(|i| s.temperature_2m[i]))
    };
    assert!(month_mean(&north, 7) > month_mean(&north, 1) + 10.0);
    assert!(month_mean(&south, 1) > month_mean(&south, 7) + 10.0);
    let tropics = utc_year(&site(5.0, 200.0, 31), 2009);
    assert!(mean(tropics.temperature_2m.iter().copied()) > mean(north.temperature_2m.iter().copied()) + 8.0);

    let low = utc_year(&site(40.0, 0.0, 41), 2009);
    let high = utc_year(&site(40.0, 2500.0, 41), 2009);
    assert!(mean(high.pressure_0m.iter().copied()) < mean(low.pressure_0m.iter().copied()) - 200.0);
    assert!(mean(high.temperature_2m.iter().copied()) < mean(low.temperature_2m.iter().copied()));
    assert!(low.relative_humidity_2m.iter().all(|rh| (2.0..=100.0).contains(rh)));

    let [s10, s100, s200] = &low.wind_speed;
    assert!(mean(s10.iter().copied()) < mean(s100.iter().copied()));
    assert!(mean(s100.iter().copied()) < mean(s200.iter().copied()));
    assert!((0..low.len()).all(|i| s10[i] > 0.0 && s10[i] < s100[i] && s100[i] < s200[i]));
    assert!(low.wind_direction.iter().flatten().all(|d| (0.0..360.0).contains(d)));
}

#[test]
fn service_csv_round_trips_exactly_through_the_parser() {
    let raw = RawClimateRequest::from_pairs(
        "round-trip",
        &[
            ("wkt", "POINT(77.2 28.6)"),
            ("names", "2012"),
            ("interval", "60"),
            ("email", "me@example.org"),
            ("utc", "false"),
            ("leap_day", "true"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    let params = validate_climate_request(&raw, Format::Csv).unwrap();
    let info = describe_site(nearest_site(28.6, 77.2).unwrap(), catalog());
    let table = site_year_table(&params, &info, 2012);
    let parsed = parse_climate_csv(&write_climate_csv(&table)).unwrap();
    assert_eq!(parsed.columns, table.columns, "values, names and long names");
    assert_eq!(
        (&parsed.year, &parsed.month, &parsed.day, &parsed.hour, &parsed.minute),
        (&table.year, &table.month, &table.day, &table.hour, &table.minute)
    );
    assert_eq!(parsed.metadata.location_id, table.metadata.location_id);
    assert_eq!(parsed.metadata.local_time_zone, Some(5.5));
    assert_eq!(parsed.check_rows(2012, true, 60), Ok(()));
    assert!(matches!(
        parsed.check_rows(2012, false, 60),
        Err(ClimateCsvError::RowCount { expected: 8760, found: 8784, .. })
    ));
    let batch = parsed.into_record_batch().unwrap();
    assert_eq!(batch.num_rows(), 8784);
    assert_eq!(batch.num_columns(), 6 + 12);
}

#[test]
fn wkt_shapes_and_mistakes() {
    assert_eq!(parse_wkt("POINT (-105 40)").unwrap(), Geometry::Point(LonLat { lon: -105.0, lat: 40.0 }));
    assert_eq!(parse_wkt("MULTIPOINT ((1 2), (3 4))").unwrap(), parse_wkt("MULTIPOINT (1 2, 3 4)").unwrap());
    let polygon = parse_wkt("POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 1))").unwrap();
    assert_eq!(polygon.kind(), "POLYGON");
    assert!(parse_wkt("POINT(40 -105)").unwrap_err().to_string().contains("longitude first"));
    assert!(parse_wkt("MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)))").unwrap_err().to_string().contains("not supported"));
}

#[test]
fn validation_reports_every_problem_once_with_its_fix() {
    let raw = RawClimateRequest::from_pairs(
        "ok",
        &[("wkt".to_string(), "POINT(1 2)".to_string()), ("names".to_string(), "2020".to_string())],
    );
    let problems = validate_climate_request(&raw, Format::Json).unwrap_err();
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("2000–2014"));
    assert!(problems[1].contains("interval=60"));
    assert!(problems[2].contains("you@example.org"));
}

#[test]
fn zip_of_a_request_reads_back_as_one_long_frame() {
    let body = [
        ("wkt", "POLYGON((-105.25 40.0, -105.17 40.0, -105.17 40.05, -105.25 40.0))"),
        ("names", "2005"),
        ("interval", "60"),
        ("email", "me@example.org"),
        ("attributes", "temperature_2m"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()));
    let request = ClimateHttpRequest { dataset: "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5", format: Format::Json, query: &[], body: &body };
    let prepared = prepare_download(&request, catalog(), false).unwrap();
    let sites = prepared.sites.len();
    assert!(sites >= 3, "{sites}");
    let zip = read_climate_zip(&build_download_zip(&prepared).unwrap(), u64::MAX, None).unwrap();
    assert_eq!(zip.files.len(), sites);
    assert_eq!(zip.sites.num_rows(), sites);
    assert_eq!(zip.num_rows(), sites * 8760);
    let names: Vec<&str> = zip.schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["site", "year", "Year", "Month", "Day", "Hour", "Minute", "timestamp", "temperature_2m"]);
}

#[test]
fn job_state_machine_queue_and_rates_with_a_fake_clock() {
    let limits = JobLimits { queue_capacity: 1, ..JobLimits::default() };
    let mut jobs = ClimateJobs::new(limits, 77);
    let clock = |s: u64| Duration::from_secs(s);
    let new = |user: &str| NewJob {
        user: user.to_string(),
        email: "x@y.org".to_string(),
        description: "d".to_string(),
        payload: (),
    };
    let first = jobs.submit(new("a"), clock(0), |id| format!("http://h/files/climate/{id}.zip")).unwrap();
    assert!(matches!(jobs.submit(new("b"), clock(0), |id| id.to_string()), Err(Refusal::QueueFull { .. })));
    assert_eq!(jobs.download(&first.id), Download::NotReady(JobState::Queued));
    let (id, _) = jobs.start_next().unwrap();
    assert_eq!(jobs.status(&id).unwrap().state, JobState::Building);
    jobs.complete(&id, bytes::Bytes::from_static(b"zip"), clock(5));
    assert_eq!(jobs.status(&id).unwrap().state, JobState::Ready);
    assert_eq!(jobs.outbox().len(), 1);

    let mut now = clock(100);
    let start = now;
    for _ in 0..30 {
        loop {
            match jobs.admit_csv("a", now) {
                Ok(permit) => {
                    jobs.finish_csv(permit);
                    break;
                }
                Err(refusal) => now += refusal.retry_after(),
            }
        }
    }
    assert!(now - start >= clock(29));
}
