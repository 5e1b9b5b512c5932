//! Reading a weather file or its bytes: the size check, recognising the format from its first
//! lines (TMY2, TMY3, EPW or a headed CSV) and handing it to that format's reader, with the
//! site facts a caller gives (`SiteHints`).

use std::path::Path;

use crate::limits::{MAX_WEATHER_FILE_BYTES, MAX_WEATHER_FILE_LINES};
use super::{csv, epw, text, tmy2, tmy3, SiteMeta, Weather, WeatherError};

/// Lines of a file the readers look at before its data rows (EPW has eight header lines).
pub(super) const HEAD_LINES: usize = 9;

/// Weather file formats recognised by `parse_weather`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    Tmy2,
    Tmy3,
    Epw,
    HeaderCsv,
}

/// Site facts a caller gives when reading a file: they fill what the file lacks (a CSV saved
/// without its metadata rows), and where the file has its own, they must agree with it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SiteHints {
    /// Latitude, degrees north.
    pub lat: Option<f64>,
    /// Longitude, degrees east.
    pub lon: Option<f64>,
    /// Time zone of the time stamps, hours east of UTC.
    pub tz: Option<f64>,
    /// Elevation, m.
    pub elevation: Option<f64>,
}

impl SiteHints {
    /// An error naming the first fact that differs from the file's own (file values are stored
    /// as `f32`, so a hint that rounds to the same `f32` agrees).
    fn check_against(&self, meta: &SiteMeta, file: &str) -> Result<(), WeatherError> {
        for (hint, value, name) in [
            (self.lat, meta.lat, "lat"),
            (self.lon, meta.lon, "lon"),
            (self.tz, meta.tz, "tz"),
            (self.elevation, meta.elevation, "elevation"),
        ] {
            if let Some(hint) = hint {
                if !value.is_nan() && hint != value && f64::from(hint as f32) != value {
                    return Err(WeatherError::new(
                        file,
                        None,
                        None,
                        format!("{name}={hint} was given, but the file says {value}"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Read and parse a weather file; the format is detected from the content (and the extension
/// for TMY2 and EPW). See `parse_weather_with`.
pub fn read_weather_file(path: &Path, hints: &SiteHints) -> Result<Weather, WeatherError> {
    let name = path.display().to_string();
    let bytes = crate::files::read_regular_file(path, crate::limits::MAX_WEATHER_FILE_BYTES)
        .map_err(|message| WeatherError::new(&name, None, None, message))?;
    parse_weather_with(&bytes, &name, hints)
}

/// Parse weather file content (see `parse_weather_with`) that carries its own site.
pub fn parse_weather(bytes: &[u8], name_for_errors: &str) -> Result<Weather, WeatherError> {
    parse_weather_with(bytes, name_for_errors, &SiteHints::default())
}

/// Parse weather file content: TMY2 (`.tm2`), TMY3 CSV, EPW, SAM CSV, NSRDB or the
/// climate-download CSV (three header rows: metadata names, metadata values, column names; or
/// the column names alone, with the site from `hints`). `name_for_errors` is used in error
/// messages and its extension helps to recognise TMY2 and EPW. Content larger or longer than
/// a weather file can be is refused before it is decoded (see `check_size`).
pub fn parse_weather_with(
    bytes: &[u8],
    name_for_errors: &str,
    hints: &SiteHints,
) -> Result<Weather, WeatherError> {
    check_size(bytes, name_for_errors)?;
    let content = text::decode(bytes);
    let head: Vec<&str> = content.lines().take(HEAD_LINES).collect();
    let weather = match detect_format(&head, name_for_errors)? {
        Format::Tmy2 => tmy2::parse(&content, &head, name_for_errors),
        Format::Tmy3 => tmy3::parse(&content, &head, name_for_errors),
        Format::Epw => epw::parse(&content, &head, name_for_errors),
        Format::HeaderCsv => csv::parse(&content, &head, name_for_errors, hints),
    }?;
    hints.check_against(&weather.meta, name_for_errors)?;
    Ok(weather)
}

/// Refuses content of more than [`MAX_WEATHER_FILE_BYTES`] bytes or [`MAX_WEATHER_FILE_LINES`]
/// lines, whatever it came from (a path, bytes), before it is decoded or parsed: parsing keeps
/// every record, so a file of many years used to take memory in proportion to its rows before
/// the record count was checked. With the lines bounded, the readers' columns are too.
pub(super) fn check_size(bytes: &[u8], name: &str) -> Result<(), WeatherError> {
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > MAX_WEATHER_FILE_BYTES {
        return Err(WeatherError::new(
            name,
            None,
            None,
            format!("is larger than {MAX_WEATHER_FILE_BYTES} bytes, the limit for a weather file"),
        ));
    }
    let lines = text::line_count(bytes);
    if lines > MAX_WEATHER_FILE_LINES {
        return Err(WeatherError::new(
            name,
            None,
            None,
            format!(
                "has {lines} lines, more than a weather year can have ({MAX_WEATHER_FILE_LINES}: a leap year of \
                 one-minute records plus headers)"
            ),
        ));
    }
    Ok(())
}

pub(super) fn detect_format(lines: &[&str], name: &str) -> Result<Format, WeatherError> {
    let extension = Path::new(name)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let first = lines.first().copied().unwrap_or("");
    let second = lines.get(1).copied().unwrap_or("");
    if extension == "epw" || epw::looks_like_header(first) {
        return Ok(Format::Epw);
    }
    if extension == "tm2" || extension == "tmy2" || tmy2::looks_like_header(first) {
        return Ok(Format::Tmy2);
    }
    let first_fields = text::split_csv(first).len();
    let second_fields = text::split_csv(second);
    let tmy3_labels = second_fields
        .first()
        .is_some_and(|f| f.to_ascii_lowercase().starts_with("date"));
    if first_fields == 7 && (matches!(second_fields.len(), 68 | 71) || tmy3_labels) {
        return Ok(Format::Tmy3);
    }
    if first.contains(',') {
        return Ok(Format::HeaderCsv);
    }
    Err(WeatherError::new(
        name,
        Some(1),
        None,
        "unrecognised weather file format: expected TMY2, TMY3, EPW, SAM CSV, NSRDB or climate-download CSV",
    ))
}
