//! Reader for weather CSV files: SAM CSV, NSRDB downloads (PSM3, GOES v4, TMY and single years,
//! any interval) and the climate-download CSV, with or without their metadata header.
//!
//! Layout: row 1 metadata names, row 2 metadata values (latitude, longitude and time zone are
//! required), row 3 column names, then one row per record (a units row after the names is
//! skipped when the metadata has `units`/`hasunits` = yes or 1). A file whose first row already
//! names the data columns (Month, Day, Hour, DNI, DHI, ...; such as a table saved without its
//! header rows) has no metadata: the caller gives the site (`SiteHints`). Site facts the caller
//! gives fill what the metadata lacks. Names are matched without regard
//! to case, `_`/`-` versus spaces, a trailing unit in parentheses and a measurement height
//! ("temperature_2m", "air temperature at 2m (C)", "windspeed_10m", "Wind Speed" all match).
//! When a quantity comes at several heights, the column without a height is used, otherwise the
//! lowest one (PVWatts expects wind at about 10 m). Pressure in Pa (unit "(Pa)", or values above
//! 2000 without a unit) is converted to mbar, temperature in K or °F to °C.
//!
//! Time zone: the time zone of the time stamps (`Time Zone`, 0 for UTC downloads) is used; `Local
//! Time Zone` only when no other is given. Without a `Year` column the metadata `Year` is used,
//! else 1900 (SSC's default). Hours 1–24 are shifted to 0–23 as SSC does. A `Minute` column makes
//! the data instantaneous (SSC's rule); without it records are hour averages labelled hh:30.
//! Reference: SAM CSV weather format (NREL, "SAM CSV Files for Solar Resource Data"); SSC
//! `shared/lib_weatherfile.cpp` (column aliases).

use super::text::{line_start, parse_value, read_in_parts, record_capacity, split_csv, ProjectedRows, Value};
use super::{Field, Origin, Series, SiteHints, SiteMeta, Weather, WeatherColumns, WeatherError};
use std::borrow::Cow;

/// Line (1-based) of the metadata names, values and column names.
const META_NAMES_LINE: usize = 1;
const META_VALUES_LINE: usize = 2;
const COLUMN_NAMES_LINE: usize = 3;
/// Data columns the first row must name for a file to count as having no metadata rows.
const COLUMNS_FOR_NO_METADATA: usize = 4;
/// Pressures above this without a unit are taken to be in Pa, mbar otherwise.
const PASCAL_DETECTION_THRESHOLD: f64 = 2000.0;

/// A column name broken into its parts.
#[derive(Debug, PartialEq)]
pub(super) struct ColumnName {
    /// Lower-case name with single spaces, without unit and height.
    pub(super) base: String,
    /// Measurement height, m.
    height_m: Option<u32>,
    /// Lower-case unit from trailing parentheses.
    unit: Option<String>,
}

/// Break a column name into base name, height and unit.
pub(super) fn normalize_column_name(raw: &str) -> ColumnName {
    let mut name = raw.trim().to_lowercase();
    let mut unit = None;
    if name.ends_with(')') {
        if let Some(open) = name.rfind('(') {
            unit = Some(name[open + 1..name.len() - 1].trim().to_string());
            name.truncate(open);
        }
    }
    let spaced: String = name
        .chars()
        .map(|c| if c == '_' || c == '-' { ' ' } else { c })
        .collect();
    let mut tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut height_m = None;
    if let Some(last) = tokens.last() {
        if let Some(number) = last
            .strip_suffix('m')
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        {
            height_m = number.parse().ok();
            tokens.pop();
            if tokens.last() == Some(&"at") {
                tokens.pop();
            }
        }
    }
    ColumnName {
        base: tokens.join(" "),
        height_m,
        unit,
    }
}

/// The names (lower case) a header's latitude is found under.
const LATITUDE_KEYS: &[&str] = &["latitude", "lat"];
/// ... its longitude.
const LONGITUDE_KEYS: &[&str] = &["longitude", "lon", "long", "lng"];
/// ... the time zone of its stamps (which wins) ...
const DATA_TIME_ZONE_KEYS: &[&str] = &["time zone", "timezone", "time_zone", "tz", "data timezone", "data time zone"];
/// ... or the site's standard time zone.
const SITE_TIME_ZONE_KEYS: &[&str] = &["local time zone", "site timezone", "site time zone"];
/// ... its elevation.
const ELEVATION_KEYS: &[&str] = &["elevation", "elev", "el", "site elevation", "altitude"];

/// The site's numbers a weather table's metadata gives, each with the names (lower case) it is
/// found under: the header of a CSV file here, and pvlib's metadata in the Python face
/// (`sunflux._core.WEATHER_METADATA_KEYS`), so both accept the same names.
pub fn metadata_keys() -> [(&'static str, Vec<&'static str>); 4] {
    [
        ("lat", LATITUDE_KEYS.to_vec()),
        ("lon", LONGITUDE_KEYS.to_vec()),
        ("tz", [DATA_TIME_ZONE_KEYS, SITE_TIME_ZONE_KEYS].concat()),
        ("elevation", ELEVATION_KEYS.to_vec()),
    ]
}

/// The weather field a base column name stands for.
pub(super) fn field_of(base: &str) -> Option<Field> {
    let field = match base {
        "year" | "yr" => Field::Year,
        "month" | "mo" => Field::Month,
        "day" => Field::Day,
        "hour" | "hr" => Field::Hour,
        "minute" | "min" => Field::Minute,
        "ghi" | "gh" | "global" | "global horizontal" | "global horizontal irradiance" => Field::Gh,
        "dni"
        | "dn"
        | "beam"
        | "direct normal"
        | "direct normal irradiance"
        | "direct (beam) normal irradiance" => Field::Dn,
        "dhi" | "df" | "diffuse" | "diffuse horizontal" | "diffuse horizontal irradiance" => {
            Field::Df
        }
        "tdry"
        | "temperature"
        | "temp"
        | "air temperature"
        | "air temerature"
        | "temp air"
        | "tamb"
        | "ambient"
        | "ambient temp"
        | "dry bulb"
        | "drybulb"
        | "dry bulb temp"
        | "dry bulb temperature" => Field::Tdry,
        "wspd" | "wind speed" | "windspeed" | "ws" | "windvel" | "wind velocity" => Field::Wspd,
        "pres" | "pressure" | "air pressure" | "surface pressure" | "atmospheric pressure" => {
            Field::Pressure
        }
        "alb" | "albedo" | "surface albedo" => Field::Albedo,
        "snow" | "snow depth" | "snow cover" => Field::SnowDepth,
        _ => return None,
    };
    Some(field)
}

/// What a field is and the names it is most often found under, for messages.
pub(super) fn accepted_names(field: Field) -> &'static str {
    match field {
        Field::Year => "the year: year, Year",
        Field::Month => "the month: month, Month",
        Field::Day => "the day of the month: day, Day",
        Field::Hour => "the hour, 0-23 or 1-24: hour, Hour",
        Field::Minute => "the minute: minute, Minute",
        Field::Gh => "global horizontal irradiance in W/m2: ghi, GHI, gh",
        Field::Dn => "direct normal irradiance in W/m2: dni, DNI, dn, beam",
        Field::Df => "diffuse horizontal irradiance in W/m2: dhi, DHI, df, diffuse",
        Field::Tdry => "air temperature in C: temp_air, Temperature, tdry, temperature_2m",
        Field::Wspd => "wind speed in m/s: wind_speed, Wind Speed, wspd, windspeed_10m",
        Field::Pressure => "air pressure in mbar or Pa: pressure, Pressure, pres",
        Field::Albedo => "ground albedo: albedo, Surface Albedo",
        Field::SnowDepth => "snow depth in cm: snow_depth, Snow Depth",
        Field::Latitude | Field::Longitude | Field::TimeZone => "site metadata",
    }
}

/// Conversion of a column's values to the engine's units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Conversion {
    None,
    PascalToMillibar,
    KilopascalToMillibar,
    KelvinToCelsius,
    FahrenheitToCelsius,
    /// Pressure without a unit: Pa if the values are too large to be mbar.
    PressureByMagnitude,
}

impl Conversion {
    fn for_column(field: Field, unit: Option<&str>) -> Conversion {
        match (field, unit) {
            (Field::Pressure, Some("pa")) => Conversion::PascalToMillibar,
            (Field::Pressure, Some("kpa")) => Conversion::KilopascalToMillibar,
            (Field::Pressure, None) => Conversion::PressureByMagnitude,
            (Field::Tdry, Some("k" | "kelvin")) => Conversion::KelvinToCelsius,
            (Field::Tdry, Some("f" | "°f" | "fahrenheit" | "degf")) => {
                Conversion::FahrenheitToCelsius
            }
            _ => Conversion::None,
        }
    }

    /// The column in engine units: the same buffer when nothing changes.
    pub(super) fn convert(self, values: Series) -> Series {
        if self == Conversion::None {
            return values;
        }
        let mut converted = values.to_vec();
        self.apply(&mut converted);
        converted.into()
    }

    pub(super) fn apply(self, values: &mut [f64]) {
        let convert: fn(f64) -> f64 = match self {
            Conversion::None => return,
            Conversion::PascalToMillibar => |v| v / 100.0,
            Conversion::KilopascalToMillibar => |v| v * 10.0,
            Conversion::KelvinToCelsius => |v| v - 273.15,
            Conversion::FahrenheitToCelsius => |v| (v - 32.0) * 5.0 / 9.0,
            Conversion::PressureByMagnitude => {
                if values.iter().any(|&v| v > PASCAL_DETECTION_THRESHOLD) {
                    |v| v / 100.0
                } else {
                    return;
                }
            }
        };
        values.iter_mut().for_each(|v| *v = convert(*v));
    }
}

/// The file column chosen for a field.
#[derive(Clone, Debug)]
pub(super) struct ChosenColumn {
    pub(super) index: usize,
    pub(super) name: String,
    height_m: Option<u32>,
    pub(super) conversion: Conversion,
}

/// Pick, for each field, the column without a height or else the lowest one.
pub(super) fn choose_columns(names: &[Cow<'_, str>]) -> Vec<(Field, ChosenColumn)> {
    let mut chosen: Vec<(Field, ChosenColumn)> = Vec::new();
    for (index, raw) in names.iter().enumerate() {
        let parsed = normalize_column_name(raw);
        let Some(field) = field_of(&parsed.base) else {
            continue;
        };
        let candidate = ChosenColumn {
            index,
            name: raw.to_string(),
            height_m: parsed.height_m,
            conversion: Conversion::for_column(field, parsed.unit.as_deref()),
        };
        let rank = |c: &ChosenColumn| c.height_m.map_or(0, |h| u64::from(h) + 1);
        match chosen.iter_mut().find(|(f, _)| *f == field) {
            Some((_, existing)) if rank(&candidate) < rank(existing) => *existing = candidate,
            Some(_) => {}
            None => chosen.push((field, candidate)),
        }
    }
    chosen
}

/// Site metadata from the names/values rows.
struct Metadata {
    site: SiteMeta,
    start_year: Option<i32>,
    has_units_row: bool,
}

fn parse_metadata(
    names: &[Cow<'_, str>],
    values: &[Cow<'_, str>],
    hints: &SiteHints,
    file: &str,
) -> Result<Metadata, WeatherError> {
    let lookup = |aliases: &[&str]| {
        names
            .iter()
            .zip(values)
            .find(|(name, value)| {
                aliases.contains(&name.trim().to_lowercase().as_str()) && !value.trim().is_empty()
            })
            .map(|(name, value)| (name.to_string(), value.trim().to_string()))
    };
    let number = |aliases: &[&str]| -> Result<Option<f64>, WeatherError> {
        match lookup(aliases) {
            None => Ok(None),
            Some((name, value)) => match parse_value(&value) {
                Value::Number(v) => Ok(Some(v)),
                _ => Err(WeatherError::new(
                    file,
                    Some(META_VALUES_LINE),
                    Some(&name),
                    format!("expected a number, got '{value}'"),
                )),
            },
        }
    };
    let required = |aliases: &[&str], what: &str, hint: Option<f64>| -> Result<f64, WeatherError> {
        number(aliases)?.or(hint).ok_or_else(|| {
            WeatherError::new(
                file,
                Some(META_NAMES_LINE),
                None,
                format!(
                    "{what} is required in the metadata header (row 1 names, row 2 values), or give it \
                     when reading the file"
                ),
            )
        })
    };
    let text = |aliases: &[&str]| {
        lookup(aliases)
            .map(|(_, v)| strip_bytes_literal(&v))
            .unwrap_or_default()
    };

    let tz = match number(DATA_TIME_ZONE_KEYS)? {
        Some(tz) => tz,
        None => required(SITE_TIME_ZONE_KEYS, "time zone", hints.tz)?,
    };
    let site = SiteMeta {
        lat: required(LATITUDE_KEYS, "latitude", hints.lat)?,
        lon: required(LONGITUDE_KEYS, "longitude", hints.lon)?,
        tz,
        elevation: number(ELEVATION_KEYS)?
            .or(hints.elevation)
            .unwrap_or(f64::NAN),
        city: text(&["city"]),
        state: text(&["state", "province", "region"]),
        country: text(&["country"]),
        location_id: text(&[
            "location id",
            "location",
            "id",
            "station",
            "station id",
            "wban",
            "wban#",
            "site",
            "siteid",
            "site id",
        ]),
        source: text(&["source", "src", "data source"]),
    };
    let start_year = number(&["year"])?.map(|y| y as i32);
    let units = text(&["units", "hasunits"]).to_lowercase();
    Ok(Metadata {
        site,
        start_year,
        has_units_row: units == "yes" || units == "1" || units == "true",
    })
}

/// Remove a Python bytes-literal wrapper such as `b'Canada'` that some services leak.
fn strip_bytes_literal(value: &str) -> String {
    value
        .strip_prefix("b'")
        .and_then(|v| v.strip_suffix('\''))
        .unwrap_or(value)
        .to_string()
}

/// True when a row names at least four data columns (a file without metadata rows).
fn names_data_columns(row: &[Cow<'_, str>]) -> bool {
    row.iter()
        .filter(|name| field_of(&normalize_column_name(name).base).is_some())
        .count()
        >= COLUMNS_FOR_NO_METADATA
}

/// The site of a file without metadata rows: all of it from the caller.
fn metadata_from_hints(hints: &SiteHints, file: &str) -> Result<Metadata, WeatherError> {
    let missing: Vec<&str> = [("lat", hints.lat), ("lon", hints.lon), ("tz", hints.tz)]
        .iter()
        .filter(|(_, value)| value.is_none())
        .map(|(name, _)| *name)
        .collect();
    if !missing.is_empty() {
        return Err(WeatherError::new(
            file,
            Some(META_NAMES_LINE),
            None,
            format!(
                "the file has no metadata rows (row 1 names the data columns), so the site must be given: \
                 {} (and elevation)",
                missing.join(", ")
            ),
        ));
    }
    Ok(Metadata {
        site: SiteMeta {
            lat: hints.lat.unwrap_or(f64::NAN),
            lon: hints.lon.unwrap_or(f64::NAN),
            tz: hints.tz.unwrap_or(f64::NAN),
            elevation: hints.elevation.unwrap_or(f64::NAN),
            ..SiteMeta::default()
        },
        start_year: None,
        has_units_row: false,
    })
}

/// Parse a header CSV file (its text and first lines); `hints` fill site facts the file lacks.
pub(super) fn parse(text: &str, head: &[&str], file: &str, hints: &SiteHints) -> Result<Weather, WeatherError> {
    let row = |line: usize| split_csv(head.get(line - 1).copied().unwrap_or(""));
    let first_row = row(META_NAMES_LINE);
    let (metadata, column_names_line) = if names_data_columns(&first_row) {
        (metadata_from_hints(hints, file)?, META_NAMES_LINE)
    } else {
        (parse_metadata(&first_row, &row(META_VALUES_LINE), hints, file)?, COLUMN_NAMES_LINE)
    };
    let column_names = row(column_names_line);
    let chosen = choose_columns(&column_names);
    let column = |field: Field| {
        chosen
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, c)| c.clone())
    };
    for (field, what) in [
        (Field::Month, "Month"),
        (Field::Day, "Day"),
        (Field::Hour, "Hour"),
        (Field::Dn, "DNI"),
        (Field::Df, "DHI"),
        (Field::Tdry, "Temperature"),
        (Field::Wspd, "Wind Speed"),
    ] {
        if column(field).is_none() {
            return Err(WeatherError::new(
                file,
                Some(column_names_line),
                None,
                format!("no {what} column found among the column names in row {column_names_line}"),
            ));
        }
    }
    let first_data_line = column_names_line + 1 + usize::from(metadata.has_units_row);

    read_rows(text, first_data_line, chosen, file)?.into_weather(metadata, file)
}

/// Reads the data rows from line `first_data_line` on, in parts on several threads when the data
/// is large (see `read_in_parts`) and has no quotes (a quoted cell may hold a line break, so a
/// part could start inside one).
fn read_rows(
    text: &str,
    first_data_line: usize,
    chosen: Vec<(Field, ChosenColumn)>,
    file: &str,
) -> Result<Table, WeatherError> {
    let wanted: Vec<usize> = chosen.iter().map(|(_, c)| c.index).collect();
    let data = &text[line_start(text, first_data_line)..];
    let splittable = memchr::memchr(b'"', data.as_bytes()).is_none();
    read_in_parts(
        data,
        first_data_line,
        splittable,
        |part, first_line| read_part(part, first_line, chosen.clone(), &wanted, file),
        Table::append,
        file,
    )
}

/// The records of one part of the data, whose first line has the file's line number `first_line`.
fn read_part(
    part: &str,
    first_line: usize,
    chosen: Vec<(Field, ChosenColumn)>,
    wanted: &[usize],
    file: &str,
) -> Result<Table, WeatherError> {
    let mut table = Table::new(chosen, record_capacity(part));
    let mut rows = ProjectedRows::new(part, 1, wanted);
    while let Some(line) = rows.next_row() {
        if wanted.iter().all(|&column| rows.get(column).is_none_or(str::is_empty)) {
            continue;
        }
        table.push_row(&rows, line + first_line - 1, file)?;
    }
    Ok(table)
}


/// True for the columns every record must have a number in.
pub(super) fn is_required(field: Field) -> bool {
    matches!(
        field,
        Field::Year
            | Field::Month
            | Field::Day
            | Field::Hour
            | Field::Minute
            | Field::Dn
            | Field::Df
            | Field::Tdry
            | Field::Wspd
    )
}

/// Records being collected, one vector per chosen column.
struct Table {
    chosen: Vec<(Field, ChosenColumn)>,
    values: Vec<Vec<f64>>,
    record_lines: Vec<usize>,
}

impl Table {
    /// A table for the `chosen` columns with room for about `records` records.
    fn new(chosen: Vec<(Field, ChosenColumn)>, records: usize) -> Self {
        let values = (0..chosen.len()).map(|_| Vec::with_capacity(records)).collect();
        Table {
            chosen,
            values,
            record_lines: Vec::with_capacity(records),
        }
    }

    /// Appends the records of `later`, a table of the same columns read from the rows after these.
    fn append(&mut self, later: Table) {
        for (values, more) in self.values.iter_mut().zip(later.values) {
            values.extend(more);
        }
        self.record_lines.extend(later.record_lines);
    }

    /// Parse the chosen cells of the current row of `rows`.
    fn push_row(&mut self, rows: &ProjectedRows<'_>, line: usize, file: &str) -> Result<(), WeatherError> {
        for ((field, column), values) in self.chosen.iter().zip(&mut self.values) {
            let cell = rows.get(column.index).unwrap_or("");
            let value = match parse_value(cell) {
                Value::Number(v) => v,
                Value::Missing if !is_required(*field) => f64::NAN,
                _ => {
                    return Err(WeatherError::new(
                        file,
                        Some(line),
                        Some(&column.name),
                        format!("expected a number, got '{cell}'"),
                    ))
                }
            };
            values.push(value);
        }
        self.record_lines.push(line);
        Ok(())
    }

    /// Values of a field's column, converted to engine units.
    fn take(&mut self, field: Field) -> Option<Vec<f64>> {
        let position = self.chosen.iter().position(|(f, _)| *f == field)?;
        let mut values = std::mem::take(&mut self.values[position]);
        self.chosen[position].1.conversion.apply(&mut values);
        Some(values)
    }

    /// A date/time column as integers within `range`.
    fn integers(
        &mut self,
        field: Field,
        range: std::ops::RangeInclusive<i64>,
        file: &str,
    ) -> Result<Option<Vec<i64>>, WeatherError> {
        let Some(values) = self.take(field) else {
            return Ok(None);
        };
        let name = self.column_name(field);
        values
            .iter()
            .enumerate()
            .map(|(record, &v)| {
                let integer = v as i64;
                if v.fract() == 0.0 && range.contains(&integer) {
                    Ok(integer)
                } else {
                    Err(WeatherError::new(
                        file,
                        Some(self.record_lines[record]),
                        Some(&name),
                        format!(
                            "expected a whole number from {} to {}, got {v}",
                            range.start(),
                            range.end()
                        ),
                    ))
                }
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// The minute column, if any: 0 to 59 as SSC accepts them, fractions allowed (15-minute
    /// files stamped at the middle of each step write 7.5).
    fn minutes(&mut self, file: &str) -> Result<Option<Vec<f64>>, WeatherError> {
        let Some(values) = self.take(Field::Minute) else {
            return Ok(None);
        };
        match values.iter().position(|v| !(0.0..=59.0).contains(v)) {
            None => Ok(Some(values)),
            Some(record) => Err(WeatherError::new(
                file,
                Some(self.record_lines[record]),
                Some(&self.column_name(Field::Minute)),
                format!("expected a minute from 0 to 59, got {}", values[record]),
            )),
        }
    }

    /// The file's name of a chosen column.
    fn column_name(&self, field: Field) -> String {
        self.chosen
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, c)| c.name.clone())
            .unwrap_or_default()
    }

    fn into_weather(mut self, metadata: Metadata, file: &str) -> Result<Weather, WeatherError> {
        let records = self.record_lines.len();
        let start_year = i64::from(metadata.start_year.unwrap_or(1900));
        let year = self
            .integers(Field::Year, -9999..=9999, file)?
            .unwrap_or_else(|| vec![start_year; records]);
        let month = self
            .integers(Field::Month, 1..=12, file)?
            .unwrap_or_default();
        let day = self.integers(Field::Day, 1..=31, file)?.unwrap_or_default();
        let mut hour = self
            .integers(Field::Hour, 0..=24, file)?
            .unwrap_or_default();
        let minute = self.minutes(file)?;
        if hour.iter().min() == Some(&1) && hour.iter().max() == Some(&24) {
            hour.iter_mut().for_each(|h| *h -= 1);
        }
        let to_u8 = |values: Vec<i64>| {
            values
                .into_iter()
                .map(|v| v.clamp(0, 255) as u8)
                .collect::<Vec<u8>>()
        };
        let columns = WeatherColumns {
            year: year.into_iter().map(|y| y as i32).collect(),
            month: to_u8(month),
            day: to_u8(day),
            hour: to_u8(hour),
            minute,
            gh: self
                .take(Field::Gh)
                .unwrap_or_else(|| vec![f64::NAN; records]),
            dn: self.take(Field::Dn).unwrap_or_default(),
            df: self.take(Field::Df).unwrap_or_default(),
            tdry: self.take(Field::Tdry).unwrap_or_default(),
            wspd: self.take(Field::Wspd).unwrap_or_default(),
            pressure: self.take(Field::Pressure),
            albedo: self.take(Field::Albedo),
            snow_depth: self.take(Field::SnowDepth),
        };
        let mut origin = Origin::file(file, self.record_lines, META_VALUES_LINE);
        for (field, column) in &self.chosen {
            origin.name_column(*field, &column.name);
        }
        for (field, name) in [
            (Field::Latitude, "Latitude"),
            (Field::Longitude, "Longitude"),
            (Field::TimeZone, "Time Zone"),
        ] {
            origin.name_column(field, name);
        }
        Weather::assemble(metadata.site, columns, &origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write;

    const NAMES: &str = "Year,Month,Day,Hour,Minute,GHI,DNI,DHI,Temperature,Wind Speed";

    /// `records` data rows (about 40 bytes each) with distinct values.
    fn data_rows(records: usize) -> String {
        let mut data = String::new();
        for i in 0..records {
            let _ = writeln!(data, "2019,{},{},{},{},{},{},{},{}.5,{}", i % 12 + 1, i % 28 + 1, i % 24, i % 60, i % 1000, i % 900, i % 300, i % 40, i % 7);
        }
        data
    }

    fn columns() -> (Vec<(Field, ChosenColumn)>, Vec<usize>) {
        let chosen = choose_columns(&split_csv(NAMES));
        let wanted = chosen.iter().map(|(_, c)| c.index).collect();
        (chosen, wanted)
    }

    #[test]
    fn parts_read_on_several_threads_equal_one_pass() {
        let data = data_rows(30_000);
        let (chosen, wanted) = columns();
        let one_pass = read_part(&data, 2, chosen.clone(), &wanted, "f.csv").unwrap();
        assert_eq!(one_pass.record_lines.len(), 30_000);
        for parts in [2, 3, 4, 7] {
            let pieces = super::super::text::split_at_line_breaks(&data, 2, parts);
            assert_eq!(pieces.iter().map(|(piece, _)| piece.len()).sum::<usize>(), data.len());
            let mut joined = Table::new(chosen.clone(), 0);
            for (piece, first_line) in pieces {
                joined.append(read_part(piece, first_line, chosen.clone(), &wanted, "f.csv").unwrap());
            }
            assert_eq!(joined.values, one_pass.values, "{parts} parts");
            assert_eq!(joined.record_lines, one_pass.record_lines, "{parts} parts");
        }
        let text = format!("{NAMES}\n{data}");
        let read = read_rows(&text, 2, chosen, "f.csv").unwrap();
        assert_eq!((read.values, read.record_lines), (one_pass.values, one_pass.record_lines));
    }

    #[test]
    fn the_first_bad_row_of_the_file_is_reported_whichever_part_holds_it() {
        let mut lines: Vec<String> = data_rows(30_000).lines().map(str::to_owned).collect();
        lines[29_000] = lines[29_000].replacen(",", ",x", 1);
        lines[21_000] = lines[21_000].replacen(",", ",y", 1);
        let text = format!("{NAMES}\n{}\n", lines.join("\n"));
        let (chosen, _) = columns();
        let error = read_rows(&text, 2, chosen, "f.csv").err().unwrap();
        assert_eq!(error.line, Some(21_002), "{error}");
    }
}
