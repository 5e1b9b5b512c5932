//! Tests of the weather year: every input route's rules (grid, stamps, lengths, plausible
//! values), format detection, and the readers on files written here.

use super::*;
use crate::pvwatts::test_support::{csv_text, site, year_columns};

/// The error of a result that must fail (without printing a whole weather year otherwise).
fn error_of(result: Result<Weather, WeatherError>) -> WeatherError {
    match result {
        Ok(_) => panic!("expected a weather error"),
        Err(error) => error,
    }
}

#[test]
fn hourly_columns_without_minutes_are_hour_averages() {
    let weather = Weather::from_columns(site(), year_columns(false)).unwrap();
    assert_eq!(weather.len(), 8760);
    assert!(!weather.instantaneous);
    assert!(weather.minute.iter().all(|&m| m == 30.0));
    assert_eq!(weather.steps_per_hour, 1);
    assert!(!weather.has_leap_day());
}

#[test]
fn leap_year_with_february_29_is_accepted_and_can_drop_it() {
    let weather = Weather::from_columns(site(), year_columns(true)).unwrap();
    assert!(weather.has_leap_day());
    let trimmed = weather.without_leap_day();
    assert_eq!(trimmed.len(), 8760);
    assert!(!trimmed
        .month
        .iter()
        .zip(&trimmed.day)
        .any(|(&m, &d)| m == 2 && d == 29));
    assert_eq!(trimmed.dn[59 * 24 + 12], weather.dn[60 * 24 + 12]);
}

#[test]
fn wrong_lengths_and_counts_are_rejected() {
    let mut columns = year_columns(false);
    columns.dn.pop();
    let error = error_of(Weather::from_columns(site(), columns));
    assert_eq!(
        error.to_string(),
        "<columns>: column 'dn': has 8759 values but 'year' has 8760"
    );

    let mut columns = year_columns(false);
    for field in [
        &mut columns.dn,
        &mut columns.df,
        &mut columns.gh,
        &mut columns.tdry,
        &mut columns.wspd,
    ] {
        field.truncate(8000);
    }
    for field in [&mut columns.month, &mut columns.day, &mut columns.hour] {
        field.truncate(8000);
    }
    columns.year.truncate(8000);
    let error = error_of(Weather::from_columns(site(), columns));
    assert!(
        error
            .message
            .starts_with("expected one year of records (8760, or 8784 with February 29"),
        "{error}"
    );
}

/// `year_columns(false)` resampled to `per_hour` instants per hour at `offset` minutes into
/// each step (values repeated).
fn sub_hourly_columns(per_hour: u32, offset: f64) -> WeatherColumns {
    let hourly = year_columns(false);
    let mut columns: WeatherColumns = WeatherColumns {
        minute: Some(Vec::new()),
        ..Default::default()
    };
    let step = 60.0 / f64::from(per_hour);
    for record in 0..hourly.year.len() {
        for k in 0..per_hour {
            columns.year.push(hourly.year[record]);
            columns.month.push(hourly.month[record]);
            columns.day.push(hourly.day[record]);
            columns.hour.push(hourly.hour[record]);
            columns.minute.as_mut().unwrap().push(offset + step * f64::from(k));
            columns.gh.push(hourly.gh[record]);
            columns.dn.push(hourly.dn[record]);
            columns.df.push(hourly.df[record]);
            columns.tdry.push(hourly.tdry[record]);
            columns.wspd.push(hourly.wspd[record]);
        }
    }
    columns
}

#[test]
fn sub_hourly_instants_are_accepted_with_their_step() {
    for (per_hour, offset) in [(2, 0.0), (4, 7.5), (12, 0.0), (60, 0.0)] {
        let weather = Weather::from_columns(site(), sub_hourly_columns(per_hour, offset)).unwrap();
        assert_eq!(weather.steps_per_hour, per_hour);
        assert_eq!(weather.len(), 8760 * per_hour as usize);
        assert_eq!(weather.hours(), 8760.0);
        assert_eq!(weather.minute[1], offset + 60.0 / f64::from(per_hour));
    }
}

#[test]
fn sub_hourly_hour_averages_and_odd_steps_are_rejected() {
    let mut columns = sub_hourly_columns(2, 0.0);
    columns.minute = None;
    let error = error_of(Weather::from_columns(site(), columns));
    assert!(error.message.starts_with("2 records per hour without a minute column"), "{error}");

    let mut columns = sub_hourly_columns(2, 0.0);
    let minutes = columns.minute.as_mut().unwrap();
    minutes[3] = 0.0;
    let error = error_of(Weather::from_columns(site(), columns));
    assert_eq!((error.line, error.column.as_deref()), (Some(4), Some("minute")));
    assert!(error.message.starts_with("expected 1/1 01:30 after 1/1 01:00 but found 1/1 01:00"), "{error}");
}

/// The climate generator's UTC year 2010 at UTC−7, as local standard time: from 31 December
/// 2009 17:00 to 31 December 2010 16:00, each record with its own year.
fn rolling_local_year(leap_year_without_february_29_in_utc: bool) -> WeatherColumns {
    let year = if leap_year_without_february_29_in_utc { 2012 } else { 2010 };
    let hourly = year_columns(false);
    let mut columns: WeatherColumns = WeatherColumns {
        minute: Some(Vec::new()),
        ..Default::default()
    };
    let mut utc_day = 0;
    let (mut month, mut day) = (1u8, 1u8);
    for record in 0..8760 {
        let utc_hour = (record % 24) as i64;
        if record > 0 && utc_hour == 0 {
            utc_day += 1;
            let (m, d) = crate::calendar::ssc_365_day::month_day_of_index(utc_day, false);
            month = m;
            day = d;
        }
        // Local time is 7 h earlier; the calendar of the local date in a leap year.
        let local = utc_hour - 7;
        let (local_year, local_month, local_day, local_hour) = if local >= 0 {
            (year, month, day, local as u8)
        } else if month == 1 && day == 1 {
            (year - 1, 12, 31, (local + 24) as u8)
        } else if month == 3 && day == 1 && leap_year_without_february_29_in_utc {
            (year, 2, 29, (local + 24) as u8)
        } else {
            let previous_day = if day > 1 { (month, day - 1) } else {
                let m = month - 1;
                (m, crate::calendar::ssc_365_day::days_in_month(m, false))
            };
            (year, previous_day.0, previous_day.1, (local + 24) as u8)
        };
        columns.year.push(local_year);
        columns.month.push(local_month);
        columns.day.push(local_day);
        columns.hour.push(local_hour);
        columns.minute.as_mut().unwrap().push(0.0);
        columns.gh.push(hourly.gh[record]);
        columns.dn.push(hourly.dn[record]);
        columns.df.push(hourly.df[record]);
        columns.tdry.push(hourly.tdry[record]);
        columns.wspd.push(hourly.wspd[record]);
    }
    columns
}

#[test]
fn a_year_may_start_anywhere_and_keep_its_real_years() {
    let weather = Weather::from_columns(site(), rolling_local_year(false)).unwrap();
    assert_eq!((weather.year[0], weather.month[0], weather.day[0], weather.hour[0]), (2009, 12, 31, 17));
    assert_eq!((weather.year[7], weather.month[7], weather.day[7], weather.hour[7]), (2010, 1, 1, 0));
    assert!(!weather.has_leap_day());
}

#[test]
fn a_utc_year_without_february_29_is_a_valid_local_year() {
    let weather = Weather::from_columns(site(), rolling_local_year(true)).unwrap();
    assert_eq!(weather.len(), 8760);
    assert!(weather.has_leap_day());
    let february_29 = (0..8760).filter(|&i| weather.month[i] == 2 && weather.day[i] == 29).count();
    assert_eq!(february_29, 7);
}

#[test]
fn a_second_missing_day_or_one_away_from_february_is_rejected() {
    let mut columns = year_columns(false);
    for record in 100 * 24..101 * 24 {
        columns.day[record] += 1;
    }
    let error = error_of(Weather::from_columns(site(), columns));
    assert_eq!(error.column.as_deref(), Some("day"));
    assert!(error.message.contains("expected 4/11 00:30 after 4/10 23:30 but found 4/12 00:30"), "{error}");
}

#[test]
fn out_of_sequence_and_out_of_range_values_name_record_and_column() {
    let mut columns = year_columns(false);
    columns.day[30] = 3;
    let error = error_of(Weather::from_columns(site(), columns));
    assert_eq!(
        (error.line, error.column.as_deref()),
        (Some(31), Some("day"))
    );
    assert!(
        error
            .message
            .starts_with("expected 1/2 06:30 after 1/2 05:30 but found 1/3 06:30"),
        "{error}"
    );

    let mut columns = year_columns(false);
    columns.dn[100] = -999.0;
    let error = error_of(Weather::from_columns(site(), columns));
    assert_eq!(
        error.to_string(),
        "<columns>:101: column 'dn': expected a value between 0 and 1500 W/m2, got -999"
    );

    let mut meta = site();
    meta.lat = 95.0;
    let error = error_of(Weather::from_columns(meta, year_columns(false)));
    assert_eq!(
        error.to_string(),
        "<columns>: column 'lat': latitude must be between -90 and 90, got 95"
    );
}

#[test]
fn february_29_needs_a_leap_year_and_a_366_day_year() {
    let mut columns = year_columns(false);
    for record in 59 * 24..60 * 24 {
        columns.month[record] = 2;
        columns.day[record] = 29;
    }
    let error = error_of(Weather::from_columns(site(), columns.clone()));
    assert_eq!(error.column.as_deref(), Some("day"));
    assert_eq!(error.message, "29 February 2019 does not exist (2019 is not a leap year)");

    columns.year.iter_mut().for_each(|year| *year = 2020);
    let error = error_of(Weather::from_columns(site(), columns));
    assert!(error.message.starts_with("expected 3/1 00:30 after 2/29 23:30 but found 3/2 00:30"), "{error}");
}

const NSRDB_NAMES: &str = "Source,Location ID,City,State,Country,Latitude,Longitude,Time Zone,Elevation,Local Time Zone";
const NSRDB_VALUES: &str = "NSRDB,149190,-,-,-,39.74,-105.18,-7,1829,-7";

#[test]
fn sam_csv_with_minutes_is_instantaneous_and_rounded_to_f32() {
    let text = csv_text(
        NSRDB_NAMES,
        NSRDB_VALUES,
        "Year,Month,Day,Hour,Minute,GHI,DNI,DHI,Temperature,Wind Speed,Pressure",
        |i, c| {
            format!(
                "{},{},{},{},30,{},{},{},{},{},820.1",
                c.year[i],
                c.month[i],
                c.day[i],
                c.hour[i],
                c.gh[i],
                c.dn[i],
                c.df[i],
                c.tdry[i],
                c.wspd[i]
            )
        },
    );
    let weather = parse_weather(text.as_bytes(), "site.csv").unwrap();
    assert!(weather.instantaneous);
    assert_eq!(weather.meta.location_id, "149190");
    assert_eq!(weather.meta.source, "NSRDB");
    assert_eq!(weather.meta.lat, f64::from(39.74f32));
    assert_eq!(weather.pressure.as_ref().unwrap()[0], f64::from(820.1f32));
    let columns = year_columns(false);
    assert_eq!(weather.tdry[12], f64::from(columns.tdry[12] as f32));
}

#[test]
fn sam_csv_without_minutes_uses_the_hour_average_convention_and_hours_1_to_24() {
    let text = csv_text(
        "Latitude,Longitude,Time Zone",
        "39.74,-105.18,-7",
        "Month,Day,Hour,GHI,DNI,DHI,Tdry,Wspd",
        |i, c| {
            format!(
                "{},{},{},{},{},{},{},{}",
                c.month[i],
                c.day[i],
                c.hour[i] + 1,
                c.gh[i],
                c.dn[i],
                c.df[i],
                c.tdry[i],
                c.wspd[i]
            )
        },
    );
    let weather = parse_weather(text.as_bytes(), "sam.csv").unwrap();
    assert!(!weather.instantaneous);
    assert_eq!(weather.hour[0], 0);
    assert_eq!(weather.year[0], 1900);
    assert!(weather.meta.elevation.is_nan());
}

#[test]
fn climate_download_csv_columns_are_recognised() {
    let names = "Source,Location ID,City,County,State,Country,Offshore,EEZ,Latitude,Longitude,Time Zone,Elevation,\
                 Local Time Zone,GHI Units,DNI Units,DHI Units,Temperature Units,Wind Speed Units,Version";
    let values = "NCDB,80,-,-,-,b'Canada',0,-,48.75,-123.0,0,50,-8,w/m2,w/m2,w/m2,c,m/s,2.0.0";
    let columns = "Year,Month,Day,Hour,Minute,Pressure,DHI,DNI,GHI,relative humidity at 2m (%),\
                   air temperature at 2m (Celsius),wind direction at 10m (degrees),wind speed at 100m (m/s),\
                   wind speed at 10m (m/s)";
    let text = csv_text(names, values, columns, |i, c| {
        format!(
            "{},{},{},{},0,101325,{},{},{},50,{},180,9.5,{}",
            c.year[i],
            c.month[i],
            c.day[i],
            c.hour[i],
            c.df[i],
            c.dn[i],
            c.gh[i],
            c.tdry[i],
            c.wspd[i]
        )
    });
    let weather = parse_weather(text.as_bytes(), "climate.csv").unwrap();
    assert_eq!(weather.meta.tz, 0.0);
    assert_eq!(weather.meta.country, "Canada");
    assert_eq!(weather.wspd[3], year_columns(false).wspd[3]);
    assert_eq!(weather.pressure.as_ref().unwrap()[0], 1013.25);

    let short = "Year,Month,Day,Hour,Minute,ghi,dni,dhi,temperature_2m,windspeed_100m,windspeed_10m,pressure_0m";
    let text = csv_text(names, values, short, |i, c| {
        format!(
            "{},{},{},{},0,{},{},{},{},9.5,{},850.0",
            c.year[i],
            c.month[i],
            c.day[i],
            c.hour[i],
            c.gh[i],
            c.dn[i],
            c.df[i],
            c.tdry[i],
            c.wspd[i]
        )
    });
    let weather = parse_weather(text.as_bytes(), "climate.csv").unwrap();
    assert_eq!(weather.wspd[3], year_columns(false).wspd[3]);
    assert_eq!(weather.pressure.as_ref().unwrap()[0], 850.0);
}

#[test]
fn csv_errors_name_file_line_and_column() {
    let text = csv_text(
        NSRDB_NAMES,
        NSRDB_VALUES,
        "Year,Month,Day,Hour,Minute,GHI,DNI,DHI,Temperature,Wind Speed",
        |i, c| {
            let ghi = if i == 8 {
                "abc".to_string()
            } else {
                c.gh[i].to_string()
            };
            format!(
                "{},{},{},{},30,{ghi},{},{},{},{}",
                c.year[i],
                c.month[i],
                c.day[i],
                c.hour[i],
                c.dn[i],
                c.df[i],
                c.tdry[i],
                c.wspd[i]
            )
        },
    );
    let error = error_of(parse_weather(text.as_bytes(), "file.csv"));
    assert_eq!(
        error.to_string(),
        "file.csv:12: column 'GHI': expected a number, got 'abc'"
    );

    let text = csv_text(
        "Latitude,Longitude",
        "39.7,-105.2",
        "Month,Day,Hour,DNI,DHI,Temperature,Wind Speed",
        |_, _| String::new(),
    );
    let error = error_of(parse_weather(text.as_bytes(), "nozone.csv"));
    assert_eq!(
        error.to_string(),
        "nozone.csv:1: time zone is required in the metadata header (row 1 names, row 2 values), or give it \
         when reading the file"
    );

    let text = csv_text(
        NSRDB_NAMES,
        NSRDB_VALUES,
        "Year,Month,Day,Hour,Minute,GHI,DHI,Temperature,Wind Speed",
        |_, _| String::new(),
    );
    let error = error_of(parse_weather(text.as_bytes(), "nodni.csv"));
    assert_eq!(
        error.to_string(),
        "nodni.csv:3: no DNI column found among the column names in row 3"
    );
}

/// An EPW file of `year_columns(false)`: `per_hour` records per hour with EPW's minutes
/// (hourly files write 60), hours ending 1–24, pressure in Pa, irradiance missing (9999) in
/// records `missing`.
fn epw_text(per_hour: u32, missing: &[usize]) -> String {
    let columns = year_columns(false);
    let mut text = String::from("LOCATION,Golden,CO,USA,TMY3,724666,39.74,-105.18,-7.0,1829.0\n");
    for header in ["DESIGN CONDITIONS,0", "TYPICAL/EXTREME PERIODS,0", "GROUND TEMPERATURES,0",
        "HOLIDAYS/DAYLIGHT SAVINGS,No,0,0,0", "COMMENTS 1,test", "COMMENTS 2,test", "DATA PERIODS,1,1,Data,Sunday,1/1,12/31"]
    {
        text.push_str(header);
        text.push('\n');
    }
    let mut record = 0;
    for i in 0..columns.year.len() {
        for k in 1..=per_hour {
            let minute = 60 * k / per_hour;
            let dni = if missing.contains(&record) { "9999".to_string() } else { columns.dn[i].to_string() };
            let tail = ["0"; 12].join(",");
            text.push_str(&format!(
                "{},{},{},{},{minute},A7A7,{},5.0,50,81000,0,0,0,{},{dni},{},0,0,0,0,180,{},0,0,0,0,0,0,0,0,{tail}\n",
                columns.year[i], columns.month[i], columns.day[i], columns.hour[i] + 1,
                columns.tdry[i], columns.gh[i], columns.df[i], columns.wspd[i],
            ));
            record += 1;
        }
    }
    text
}

#[test]
fn epw_files_are_read_as_ssc_reads_them() {
    let weather = parse_weather(epw_text(1, &[]).as_bytes(), "golden.epw").unwrap();
    assert!(weather.instantaneous);
    assert_eq!(weather.steps_per_hour, 1);
    assert_eq!((weather.hour[0], weather.minute[0]), (0, 30.0));
    assert_eq!(weather.meta.city, "Golden");
    assert_eq!(weather.meta.lat, f64::from(39.74f32));
    assert_eq!(weather.pressure.as_ref().unwrap()[0], 810.0);

    let half_hourly = parse_weather(epw_text(2, &[]).as_bytes(), "golden_30.epw").unwrap();
    assert_eq!(half_hourly.steps_per_hour, 2);
    assert_eq!((half_hourly.hour[1], half_hourly.minute[1]), (0, 60.0));
    assert_eq!((half_hourly.hour[2], half_hourly.minute[2]), (1, 30.0));
}

#[test]
fn missing_epw_values_are_filled_like_ssc() {
    let columns = year_columns(false);
    let noon = 12;
    let weather = parse_weather(epw_text(1, &[noon, noon + 24, noon + 25, noon + 26]).as_bytes(), "gaps.epw").unwrap();
    let mean = (columns.dn[noon - 1] as f32 + columns.dn[noon + 1] as f32) / 2.0;
    assert_eq!(weather.dn[noon], f64::from(mean));
    let (before, after) = (columns.dn[noon + 23] as f32, columns.dn[noon + 27] as f32);
    let slope = (after - before) / 4.0;
    for step in 1..4 {
        assert_eq!(weather.dn[noon + 23 + step], f64::from(before + slope * step as f32));
    }
}

#[test]
fn a_csv_without_metadata_rows_takes_its_site_from_the_caller() {
    let text = csv_text(
        "Year,Month,Day,Hour,Minute,GHI,DNI,DHI,Temperature,Wind Speed",
        "",
        "",
        |i, c| format!("{},{},{},{},30,{},{},{},{},{}", c.year[i], c.month[i], c.day[i], c.hour[i], c.gh[i], c.dn[i], c.df[i], c.tdry[i], c.wspd[i]),
    )
    .replacen("\n\n\n", "\n", 1);
    let error = error_of(parse_weather(text.as_bytes(), "bare.csv"));
    assert!(error.message.starts_with("the file has no metadata rows (row 1 names the data columns), so the site must be given: lat, lon, tz"), "{error}");
    let hints = SiteHints { lat: Some(39.74), lon: Some(-105.18), tz: Some(-7.0), elevation: Some(1829.0) };
    let weather = parse_weather_with(text.as_bytes(), "bare.csv", &hints).unwrap();
    assert_eq!((weather.meta.lat, weather.meta.tz, weather.meta.elevation), (39.74, -7.0, 1829.0));
    assert!(weather.instantaneous);
}

#[test]
fn site_facts_given_must_agree_with_the_file() {
    let text = epw_text(1, &[]);
    let agreeing = SiteHints { lat: Some(39.74), tz: Some(-7.0), ..SiteHints::default() };
    assert!(parse_weather_with(text.as_bytes(), "golden.epw", &agreeing).is_ok());
    let other = SiteHints { tz: Some(-6.0), ..SiteHints::default() };
    let error = error_of(parse_weather_with(text.as_bytes(), "golden.epw", &other));
    assert_eq!(error.to_string(), "golden.epw: tz=-6 was given, but the file says -7");
}

#[test]
fn quarter_hour_csv_with_minutes_at_the_middle_of_each_step() {
    let hourly = year_columns(false);
    let mut text = format!("{NSRDB_NAMES}\n{NSRDB_VALUES}\nYear,Month,Day,Hour,Minute,DNI,DHI,Tdry,Wspd\n");
    for i in 0..hourly.year.len() {
        for k in 0..4 {
            let minute = 7.5 + 15.0 * f64::from(k);
            text.push_str(&format!(
                "{},{},{},{},{minute},{},{},{},{}\n",
                hourly.year[i], hourly.month[i], hourly.day[i], hourly.hour[i], hourly.dn[i], hourly.df[i], hourly.tdry[i], hourly.wspd[i]
            ));
        }
    }
    let weather = parse_weather(text.as_bytes(), "quarter.csv").unwrap();
    assert_eq!((weather.steps_per_hour, weather.minute[1]), (4, 22.5));
    assert!(weather.gh.iter().all(|v| v.is_nan()));
}

#[test]
fn empty_epw_and_unknown_formats_are_rejected() {
    let error = error_of(parse_weather(
        b"LOCATION,Denver,CO,USA,TMY3,724666,39.74,-105.18,-7.0,1829.0\n",
        "denver.epw",
    ));
    assert!(error.message.contains("found 0"), "{error}");
    let error = error_of(parse_weather(b"just some text\n", "notes.txt"));
    assert!(
        error
            .message
            .starts_with("unrecognised weather file format"),
        "{error}"
    );
}
