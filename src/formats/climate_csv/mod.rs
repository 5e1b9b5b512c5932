//! The climate download CSV: the typed metadata of rows 1–2, the writer (the embedded service)
//! and the fast parser (the client) into typed columns and an Arrow `RecordBatch`, plus the
//! column naming and calendar rules of the row count (`layout`). The 12 attributes and their
//! file names are the spec's vocabulary (`spec::vocabulary::Attribute`).
//!
//! Layout (spec, "CSV layout"): row 1 the 21 metadata names, row 2 their values, row 3 `Year,
//! Month, Day, Hour, Minute` and one column per attribute (long names, e.g. `air temperature at
//! 2m (Celsius)`), then one row per hour. Short names (`temperature_2m`) are the spec's
//! attribute names; long names are kept on each column.
//!
//! Conventions:
//! - The metadata `Time Zone` is the offset of the time stamps (0 for UTC downloads) and `Local
//!   Time Zone` the site's standard offset, as in NSRDB files. The Arrow `timestamp` column holds
//!   UTC instants (µs); its time zone is the crate's name for the stamps' standard offset
//!   (`formats::timezone`: `UTC`, `Etc/GMT+7`, `Asia/Kolkata`), or `UTC` when that offset has
//!   no such name. The Year … Minute columns always keep the file's stamps.
//! - Values are written with Rust's shortest round-trip formatting, so writer → parser returns
//!   the same `f64` bits; the service rounds values to each attribute's file precision first.
//! - The parser reads the three header rows by hand as the `csv` crate reads them (quoting) and
//!   the data rows straight into `Vec<f64>` columns (no per-field allocation): rows of plain
//!   decimals (`-?digits[.digits]`, exact, bit-identical to `str::parse::<f64>`) on a fast
//!   path that takes the stamp fields it can predict from the rows before, any other row by a
//!   general scanner on the standard parser. A shared body (Python `bytes`, a response) above
//!   128 KiB is cut at line ends and parsed in parallel on the process's parser threads
//!   (`parser_threads`). The UTC instants are computed while parsing. The vectors become Arrow
//!   buffers without copying. An empty value is NaN.
//! - An error body received instead of CSV (service JSON `{"status":400,"errors":[...]}`,
//!   gateway JSON/CSV/XML/HTML) is recognised and returned as `ClimateCsvError::ErrorBody`.


use crate::spec::vocabulary::Attribute;

mod arrow;
mod layout;
mod metadata;
mod reader;
mod table;
mod writer;

pub use arrow::*;
pub use layout::*;
pub use metadata::*;
pub use reader::*;
pub use table::*;
pub use writer::*;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_schema::{DataType, TimeUnit};
    use serde_json::Value;

    use crate::calendar::{civil_from_days, days_from_civil};

    use super::*;

    fn sample_table() -> ClimateTable {
        let metadata = ClimateMetadata {
            source: "sunflux synthetic".into(),
            location_id: "123".into(),
            city: "Boulder, east".into(),
            county: "-".into(),
            state: "Colorado".into(),
            country: "United States".into(),
            offshore: Some(false),
            eez: String::new(),
            latitude: Some(40.02),
            longitude: Some(-105.26),
            time_zone: Some(-7.0),
            elevation: Some(1650.0),
            local_time_zone: Some(-7.0),
            units: Units::service(),
            version: "1.0.0".into(),
            raw: Vec::new(),
        };
        ClimateTable {
            metadata,
            year: vec![2010, 2010],
            month: vec![1, 1],
            day: vec![1, 1],
            hour: vec![0, 1],
            minute: vec![0, 0],
            columns: vec![
                DataColumn::of(Attribute::Ghi, vec![0.0, 12.5]),
                DataColumn::of(Attribute::Temperature2m, vec![-3.25, 1.0 / 3.0]),
            ],
        }
    }

    #[test]
    fn names_map_both_ways() {
        for attribute in Attribute::ALL {
            assert_eq!(Attribute::from_name(attribute.name()), Some(attribute));
            assert_eq!(Attribute::from_column_name(attribute.long_name()), Some(attribute));
            assert_eq!(short_column_name(attribute.long_name()), attribute.name());
        }
        assert_eq!(short_column_name("wind direction at 180m (deg)"), "winddirection_180m");
        assert_eq!(short_column_name("Clearsky DHI"), "clearskydhi");
        assert_eq!(Attribute::WindDirection10m.round_for_file(359.7), 0.0);
        assert_eq!(Attribute::Temperature2m.round_for_file(-0.04), 0.0);
        assert!(Attribute::Temperature2m.round_for_file(-0.04).is_sign_positive());
    }

    #[test]
    fn calendar_matches_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        for days in -800_000..800_000 {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(expected_rows(2012, true, 60), 8784);
        assert_eq!(expected_rows(2012, false, 60), 8760);
        assert_eq!(expected_rows(2013, true, 60), 8760);
        assert_eq!(expected_rows(2013, true, 7), 0);
        assert_eq!(timestamp_time_zone(0.0), "UTC");
        assert_eq!(timestamp_time_zone(-7.0), "Etc/GMT+7");
        assert_eq!(timestamp_time_zone(-3.5), "UTC");
    }

    #[test]
    fn writer_output_has_the_spec_layout_and_parses_back_exactly() {
        let table = sample_table();
        let text = String::from_utf8(write_climate_csv(&table)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], METADATA_NAMES.join(","));
        assert!(lines[1].starts_with(
            "sunflux synthetic,123,\"Boulder, east\",-,Colorado,United States,False,-,40.02,-105.26,-7,1650,-7,w/m2"
        ));
        assert_eq!(lines[2], "Year,Month,Day,Hour,Minute,GHI,air temperature at 2m (Celsius)");
        assert_eq!(lines[3], "2010,1,1,0,0,0,-3.25");
        let parsed = parse_climate_csv(text.as_bytes()).unwrap();
        assert_eq!(parsed.columns, table.columns);
        assert_eq!(parsed.year, table.year);
        assert_eq!(parsed.metadata.city, "Boulder, east");
        assert_eq!(parsed.metadata.offshore, Some(false));
        assert_eq!(parsed.metadata.latitude, Some(40.02));
        assert_eq!(parsed.metadata.eez, "-");
    }

    #[test]
    fn fast_writer_matches_display() {
        let mut rng = crate::embedded::prng::SplitMix64::new(8);
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.05,
            -0.05,
            1e14,
            123456.7891,
            0.1 + 0.2,
            1e-7,
            2.5e20,
            f64::NAN,
            f64::INFINITY,
        ];
        for _ in 0..200_000 {
            let decimals = rng.below(6) as i32;
            let raw = (rng.next_f64() - 0.5) * 10f64.powi(rng.below(9) as i32);
            values.push((raw * 10f64.powi(decimals)).round() / 10f64.powi(decimals));
            values.push(raw);
        }
        for value in values {
            let mut fast = Vec::new();
            push_f64(&mut fast, value);
            assert_eq!(String::from_utf8(fast).unwrap(), value.to_string());
        }
    }

    #[test]
    fn listed_numbers_match_the_standard_parser() {
        let cases = [
            "0",
            "-0",
            "1",
            "12.5",
            "-3.25",
            "0.1",
            "1013.2",
            "123456789012345678",
            "9007199254740993",
            "1e5",
            "2.5E-3",
            "-7.0e+2",
            "0.000001",
            "3.14159265358979",
            "1e-30",
            "00012.500",
            "+4.5",
        ];
        for case in cases {
            let body = format!("a\nb\nYear,Month,Day,Hour,x\n2010,1,1,0,{case}\n");
            let parsed = parse_climate_csv(body.as_bytes()).unwrap();
            let value = parsed.columns[0].values[0];
            let expected: f64 = case.parse().unwrap();
            assert_eq!(value.to_bits(), expected.to_bits(), "{case}");
        }
    }

    /// Random numbers of every shape the parser meets — integers and decimals of 1–22 digits,
    /// signs, leading and trailing zeros, exponents — in rows long enough to split over threads,
    /// with the last value at the very end of the body (no newline): each must have exactly the
    /// bits of the standard parser.
    #[test]
    fn random_numbers_parse_like_the_standard_parser() {
        fn random_digits(rng: &mut crate::embedded::prng::SplitMix64, most: u64) -> String {
            let count = rng.below(most + 1);
            (0..count).map(|_| char::from(b'0' + rng.below(10) as u8)).collect()
        }
        let mut rng = crate::embedded::prng::SplitMix64::new(29);
        let mut texts = Vec::new();
        for _ in 0..300_000 {
            let sign = ["", "", "-", "+"][rng.below(4) as usize];
            let longest_whole = if rng.below(4) == 0 { 20 } else { 5 };
            let whole = format!("{}{}", rng.below(10), random_digits(&mut rng, longest_whole));
            let fraction = match rng.below(5) {
                0 => String::new(),
                1 | 2 => format!(".{}", random_digits(&mut rng, 4)),
                3 => format!(".{}", random_digits(&mut rng, 22)),
                _ => {
                    let mantissa_fraction = random_digits(&mut rng, 3);
                    let exponent_sign = ["", "-", "+"][rng.below(3) as usize];
                    format!(".{mantissa_fraction}e{exponent_sign}{}", rng.below(30))
                }
            };
            texts.push(format!("{sign}{whole}{fraction}"));
        }
        let mut body = String::from("a\nb\nYear,Month,Day,Hour,x\n");
        for (row, text) in texts.iter().enumerate() {
            let newline = if row + 1 == texts.len() { "" } else { "\n" };
            body.push_str(&format!("2010,1,1,0,{text}{newline}"));
        }
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        for (text, value) in texts.iter().zip(&parsed.columns[0].values) {
            let expected: f64 = text.parse().unwrap();
            assert_eq!(value.to_bits(), expected.to_bits(), "{text}");
        }
    }

    #[test]
    fn malformed_rows_are_located() {
        let body = "a\nb\nYear,Month,Day,Hour,Minute,GHI\n2010,1,1,0,0,5\n2010,1,1,1,0,abc\n";
        let error = parse_climate_csv(body.as_bytes()).unwrap_err();
        assert_eq!(error, ClimateCsvError::Malformed { line: 5, message: "GHI value \"abc\" is not a number".into() });
        let short = "a\nb\nYear,Month,Day,Hour,Minute,GHI\n2010,1,1,0\n";
        assert!(matches!(parse_climate_csv(short.as_bytes()), Err(ClimateCsvError::Malformed { line: 4, .. })));
        let long = "a\nb\nYear,Month,Day,Hour,Minute,GHI\n2010,1,1,0,0,1,2\n";
        assert!(parse_climate_csv(long.as_bytes()).unwrap_err().to_string().contains("more fields"));
        let bad_day = "a\nb\nYear,Month,Day,Hour,Minute,GHI\n2013,2,29,0,0,1\n";
        assert!(parse_climate_csv(bad_day.as_bytes()).unwrap_err().to_string().contains("2013-02"));
        assert!(parse_climate_csv(b"Source\nx\nfoo,bar\n1,2\n").unwrap_err().to_string().contains("not a climate CSV"));
    }

    fn shared(body: &str) -> SharedBody {
        Arc::new(body.as_bytes().to_vec())
    }

    #[test]
    fn large_bodies_split_in_order_and_keep_line_numbers() {
        let mut body = String::from("a\nb\nYear,Month,Day,Hour,Minute,GHI\r\n");
        for row in 0..40_000 {
            body.push_str(&format!("2010,1,1,{},0,{row}.5\r\n", row % 24));
        }
        assert!(body.len() > 2 * PARALLEL_MIN_BYTES);
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        assert_eq!(parsed.len(), 40_000);
        assert!(parsed.columns[0].values.iter().enumerate().all(|(i, &v)| v == i as f64 + 0.5));
        assert!(parsed.hour.iter().enumerate().all(|(i, &h)| h == (i % 24) as i32));
        let in_parallel = read_climate_csv(shared(&body)).unwrap();
        assert_eq!(in_parallel.table, parsed);
        assert_eq!(in_parallel.timestamps_us, parsed.timestamps_us());
        assert_eq!(read_climate_csv(shared(&format!("\u{feff}{body}"))).unwrap().table, parsed);
        let broken = body.replacen("2010,1,1,3,0,39987.5", "2010,1,1,3,0,x", 1);
        let error = ClimateCsvError::Malformed { line: 39_991, message: "GHI value \"x\" is not a number".into() };
        assert_eq!(parse_climate_csv(broken.as_bytes()).unwrap_err(), error);
        assert_eq!(read_climate_csv(shared(&broken)).unwrap_err(), error);
    }

    /// Rows the fast path cannot take (blank lines, exponents, empty values, CRLF and LF mixed)
    /// anywhere in a large body: parsed in parallel exactly as on one thread.
    #[test]
    fn shared_bodies_parse_like_borrowed_ones() {
        let mut rng = crate::embedded::prng::SplitMix64::new(31);
        let mut body = String::from("a\nb\nYear,Month,Day,Hour,Minute,GHI,air temperature at 2m (Celsius)\n");
        let start = days_from_civil(2012, 1, 1);
        for row in 0..20_000i64 {
            let (year, month, day) = civil_from_days(start + row / 24);
            let value = match rng.below(50) {
                0 => "1.5e2".to_string(),
                1 => String::new(),
                _ => format!("{}", rng.below(100_000) as f64 / 100.0),
            };
            let end = if rng.below(2) == 0 { "\n" } else { "\r\n" };
            let blank = if rng.below(100) == 0 { "\n" } else { "" };
            body.push_str(&format!(
                "{year},{month},{day},{},0,{value},-{}.{}{end}{blank}",
                row % 24,
                row % 40,
                row % 10
            ));
        }
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        assert_eq!(parsed.len(), 20_000);
        for _ in 0..3 {
            let in_parallel = read_climate_csv(shared(&body)).unwrap();
            // Compared as text: the empty values are NaN, which equals nothing.
            assert_eq!(format!("{:?}", in_parallel.table), format!("{parsed:?}"));
            assert_eq!(in_parallel.timestamps_us, parsed.timestamps_us());
        }
    }

    #[test]
    fn concurrent_parses_share_the_parser_threads() {
        let mut body = String::from("a\nb\nYear,Month,Day,Hour,Minute,GHI\n");
        for row in 0..30_000 {
            body.push_str(&format!("2011,3,{},{},0,{row}\n", 1 + row / 24 % 28, row % 24));
        }
        let expected = parse_climate_csv(body.as_bytes()).unwrap();
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..10 {
                        assert_eq!(read_climate_csv(shared(&body)).unwrap().table, expected);
                    }
                });
            }
        });
    }

    /// The stamp fields taken from the prediction (the date repeated, the hour stepped by one)
    /// and those read are the same; a prediction never lets an invalid stamp through.
    #[test]
    fn predicted_stamps_match_the_text() {
        let rows = [
            "2012,2,28,22,0",
            "2012,2,28,23,0",
            "2012,2,29,0,0",
            "2012,2,29,1,0",
            "2012,2,29,1,30",
            "2012,2,29,2,30",
            "2012,2,29,3,00",
            "2012,2,29,4,00",
            "2012,2,29,05,0",
            "2012,2,29,06,0",
            "2012,2,29,7,0",
            "2012,2,29,7,0",
            "2012,2,29,9,0",
            "2012,3,1,10,0",
            "2012,3,1,11,0",
            "2012,03,1,12,0",
            "2012,3,1,13,0",
        ];
        let mut body = String::from("Time Zone\n-7\nYear,Month,Day,Hour,Minute,GHI\n");
        for (index, row) in rows.iter().enumerate() {
            body.push_str(&format!("{row},{index}\n"));
        }
        let parsed = read_climate_csv(shared(&body)).unwrap();
        let table = &parsed.table;
        for (index, row) in rows.iter().enumerate() {
            let fields: Vec<i32> = row.split(',').map(|field| field.parse().unwrap()).collect();
            let stamp =
                [table.year[index], table.month[index], table.day[index], table.hour[index], table.minute[index]];
            assert_eq!(stamp.to_vec(), fields, "{row}");
        }
        assert_eq!(parsed.timestamps_us, table.timestamps_us());
        let next_day = body.replace("2012,3,1,13,0,16", "2012,3,1,23,0,16\n2012,3,1,24,0,17");
        let error = read_climate_csv(shared(&next_day)).unwrap_err();
        assert_eq!(error, ClimateCsvError::Malformed { line: 21, message: "hour 24 is not 0–23".into() });
        let no_leap_day = body.replace("2012,", "2013,");
        assert!(read_climate_csv(shared(&no_leap_day)).unwrap_err().to_string().contains("day 29 does not exist"));
    }

    #[test]
    fn header_rows_read_as_the_csv_crate_reads_them() {
        let bodies: [&[u8]; 9] = [
            b"a,b\n\nc,d\r\ne,\"f,\"\"g\"\"\"\nrest",
            b"a\rb\r\nc\nrest",
            b"\"a\"x,\"b\nc\",d\ne\nf",
            b"a,b\n  \n,\n\"\"\"x\nrest",
            b"x\"y\"z,w\n1\n2\n",
            b"a\n\r\n\r\nb\nc\r\n2010,1",
            b",\n,,\n\n,\n",
            b"Source,City\nNSRDB,\"Boulder, east\"\nYear,Month\n",
            b"a\nb\nc",
        ];
        for body in bodies {
            let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(body);
            let mut record = csv::StringRecord::new();
            let mut expected: Vec<Vec<String>> = Vec::new();
            for _ in 0..3 {
                assert!(reader.read_record(&mut record).unwrap());
                expected.push(record.iter().map(|f| f.trim().to_string()).collect());
            }
            let mut expected_start = reader.position().byte() as usize;
            if body[expected_start - 1] == b'\r' && body.get(expected_start) == Some(&b'\n') {
                expected_start += 1;
            }
            let (rows, data_start) = read_header_rows(body).unwrap();
            assert_eq!(rows.to_vec(), expected, "{}", String::from_utf8_lossy(body));
            assert_eq!(data_start, expected_start, "{}", String::from_utf8_lossy(body));
        }
        assert!(read_header_rows(b"a\n\nb\n\r\n")
            .unwrap_err()
            .to_string()
            .contains("ends before the three header rows"));
        assert!(read_header_rows(b"a\xff\nb\nc\n").unwrap_err().to_string().contains("invalid UTF-8"));
    }

    #[test]
    fn newline_count_matches_a_byte_count() {
        let mut rng = crate::embedded::prng::SplitMix64::new(12);
        let bytes: Vec<u8> =
            (0..10_007).map(|_| [b'\n', b'\r', b'0', 0x8A, 0x0B, 0x09, 0xFF][rng.below(7) as usize]).collect();
        for start in 0..9 {
            let slice = &bytes[start..];
            assert_eq!(count_newlines(slice), slice.iter().filter(|&&b| b == b'\n').count());
        }
        let only_newlines = vec![b'\n'; 10_007];
        assert_eq!(count_newlines(&only_newlines), only_newlines.len());
    }

    #[test]
    fn crlf_trailing_empty_columns_and_empty_values() {
        let body = "Source,Latitude,Longitude,Time Zone\r\nNSRDB,40,-105,-7\r\nYear,Month,Day,Hour,Minute,DHI,,\r\n2010,1,1,0,30,,,\r\n";
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        assert_eq!(parsed.columns.len(), 1);
        assert!(parsed.columns[0].values[0].is_nan());
        assert_eq!(parsed.minute, vec![30]);
        assert_eq!(
            parsed.timestamps_us(),
            vec![(days_from_civil(2010, 1, 1) * 86_400 + 30 * 60 + 7 * 3600) * 1_000_000]
        );
    }

    #[test]
    fn error_bodies_are_recognised() {
        let json = br#"{"inputs":{"body":{},"params":{},"query":{}},"metadata":{"version":"2.0.0"},"status":400,"errors":["Data processing failure."]}"#;
        assert_eq!(
            parse_climate_csv(json).unwrap_err(),
            ClimateCsvError::ErrorBody {
                status: Some(400),
                code: None,
                messages: vec!["Data processing failure.".into()]
            }
        );
        let gateway = b"Error Code,Error Message\nOVER_RATE_LIMIT,You have exceeded your rate limit.\n";
        let ClimateCsvError::ErrorBody { code, .. } = parse_climate_csv(gateway).unwrap_err() else { panic!() };
        assert_eq!(code.as_deref(), Some("OVER_RATE_LIMIT"));
        assert!(matches!(
            parse_climate_csv(b"<html><body>Request rejected</body></html>"),
            Err(ClimateCsvError::ErrorBody { .. })
        ));
    }

    #[test]
    fn ncdb_style_header_and_bytes_literal() {
        let body = "SiteID,Site Timezone,Data Timezone,Longitude,Latitude,Country\n80,-9,-9,-130.756,48.75498,b'Canada'\nYear,Month,Day,Hour,Minute,wind direction at 180m (deg)\n2017,1,1,0,0,347.18\n";
        let parsed = parse_climate_csv(body.as_bytes()).unwrap();
        assert_eq!(parsed.metadata.location_id, "80");
        assert_eq!(parsed.metadata.country, "Canada");
        assert_eq!(parsed.metadata.time_zone, Some(-9.0));
        assert_eq!(parsed.columns[0].name, "winddirection_180m");
        let batch = parsed.into_record_batch().unwrap();
        assert_eq!(batch.num_columns(), 7);
        assert_eq!(
            batch.schema().field(5).data_type(),
            &DataType::Timestamp(TimeUnit::Microsecond, Some("Etc/GMT+9".into()))
        );
    }

    #[test]
    fn record_batch_has_typed_columns_and_metadata() {
        let table = sample_table();
        let batch = table.clone().into_record_batch().unwrap();
        let schema = batch.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["Year", "Month", "Day", "Hour", "Minute", "timestamp", "ghi", "temperature_2m"]);
        assert_eq!(schema.field(6).metadata().get("long_name").map(String::as_str), Some("GHI"));
        let meta: Value = serde_json::from_str(&schema.metadata()[SCHEMA_METADATA_KEY]).unwrap();
        assert_eq!(meta["columns"]["temperature_2m"], "air temperature at 2m (Celsius)");
        assert_eq!(meta["state"], "Colorado");
        assert_eq!((meta["synthetic"].as_bool(), schema.metadata().get(SYNTHETIC_METADATA_KEY).map(String::as_str)), (Some(true), Some("true")));
        let mut measured = sample_table();
        measured.metadata.source = "NSRDB".into();
        assert_eq!((measured.metadata_json()["synthetic"].as_bool(), measured.schema().metadata().get(SYNTHETIC_METADATA_KEY)), (Some(false), None));
        assert!(table.check_rows(2010, false, 60).unwrap_err().to_string().contains("expected 8760 rows"));
        let rows = metadata_record_batch(&[("123".into(), &table.metadata)]).unwrap();
        assert_eq!(rows.num_rows(), 1);
    }
}
