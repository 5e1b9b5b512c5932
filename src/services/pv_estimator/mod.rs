//! The PV estimator (v6 and v8): the typed result shared by both versions and the local engine,
//! parsing of JSON, JSONP and XML answers into it, and its Arrow tables. Each version's
//! parameters are a child (`v6`, whose rules v8 reuses, and `v8`); `request` is the call.

pub mod request;
mod v6;
pub mod v8;

pub use v6::*;

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, TimestampMicrosecondArray};
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::calendar::days_from_civil;
use crate::formats::timezone::standard_time_zone;
use crate::formats::xml::read_xml;
use crate::formats::Format;
use crate::pvwatts::{HourlySeries, PvOutput};
use crate::services::raw::rounded_i64;

/// `ssc_info` of the answer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SscInfo {
    #[serde(default, deserialize_with = "lenient_i64")]
    pub version: i64,
    #[serde(default)]
    pub build: String,
    /// The compute module (v8 answers name it, e.g. `pvwattsv8`).
    #[serde(default, deserialize_with = "lenient_opt_text")]
    pub module: Option<String>,
}

/// `station_info`: the weather file the estimate used. `distance` is metres (absent on some
/// answers); `elev` metres; `tz` hours from GMT.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct StationInfo {
    #[serde(default = "absent_number", deserialize_with = "lenient_f64")]
    pub lat: f64,
    #[serde(default = "absent_number", deserialize_with = "lenient_f64")]
    pub lon: f64,
    #[serde(default = "absent_number", deserialize_with = "lenient_f64")]
    pub elev: f64,
    #[serde(default = "absent_number", deserialize_with = "lenient_f64")]
    pub tz: f64,
    #[serde(default, deserialize_with = "lenient_text")]
    pub location: String,
    #[serde(default, deserialize_with = "lenient_text")]
    pub city: String,
    #[serde(default, deserialize_with = "lenient_text")]
    pub state: String,
    #[serde(default, deserialize_with = "lenient_text")]
    pub solar_resource_file: String,
    #[serde(default, deserialize_with = "lenient_opt_i64")]
    pub distance: Option<i64>,
    #[serde(default)]
    pub weather_data_source: Option<String>,
}

impl StationInfo {
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("lat".into(), json!(self.lat));
        map.insert("lon".into(), json!(self.lon));
        map.insert("elev".into(), json!(self.elev));
        map.insert("tz".into(), json!(self.tz));
        map.insert("location".into(), json!(self.location));
        map.insert("city".into(), json!(self.city));
        map.insert("state".into(), json!(self.state));
        map.insert("solar_resource_file".into(), json!(self.solar_resource_file));
        if let Some(distance) = self.distance {
            map.insert("distance".into(), json!(distance));
        }
        if let Some(source) = &self.weather_data_source {
            map.insert("weather_data_source".into(), json!(source));
        }
        Value::Object(map)
    }
}

/// Monthly outputs, January first (kWh/m², kWhdc, kWhac, kWh/m²/day).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Monthly {
    pub poa: Vec<f64>,
    pub dc: Vec<f64>,
    pub ac: Vec<f64>,
    pub solrad: Vec<f64>,
}

/// Hourly outputs (W, W/m², °C, m/s), one value per hour of the year: the engine's eight series
/// (`pvwatts::HourlySeries`, moved, not copied, out of a local simulation) and any further ones.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Hourly {
    pub series: HourlySeries,
    /// Further hourly series, in answer order: v8's `alb`, and the local v8 engine's outputs.
    pub extra: Vec<(String, Vec<f64>)>,
}

/// An estimate: the web estimator's answer or the local engine's result.
#[derive(Debug, Clone, PartialEq)]
pub struct PvEstimate {
    pub version: Option<String>,
    /// Request parameters as echoed (never the key).
    pub inputs: Map<String, Value>,
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
    pub ssc_info: Option<SscInfo>,
    pub station_info: Option<StationInfo>,
    pub monthly: Monthly,
    /// kWhac.
    pub ac_annual: f64,
    /// kWh/m²/day.
    pub solrad_annual: f64,
    /// Percent.
    pub capacity_factor: f64,
    pub hourly: Option<Hourly>,
}

#[derive(Deserialize)]
struct EnvelopeDe {
    #[serde(default, deserialize_with = "lenient_opt_text")]
    version: Option<String>,
    #[serde(default)]
    inputs: Option<Map<String, Value>>,
    #[serde(default)]
    errors: Option<Value>,
    #[serde(default)]
    warnings: Option<Value>,
    #[serde(default)]
    ssc_info: Option<SscInfo>,
    #[serde(default)]
    station_info: Option<StationInfo>,
    #[serde(default)]
    outputs: Option<OutputsDe>,
}

/// The outputs as sent: every field may be absent, and a required one that is absent is an
/// error naming it (`required_outputs`), never a zero.
#[derive(Deserialize, Default)]
struct OutputsDe {
    poa_monthly: Option<Vec<f64>>,
    dc_monthly: Option<Vec<f64>>,
    ac_monthly: Option<Vec<f64>>,
    solrad_monthly: Option<Vec<f64>>,
    #[serde(default, deserialize_with = "lenient_opt_f64")]
    ac_annual: Option<f64>,
    #[serde(default, deserialize_with = "lenient_opt_f64")]
    solrad_annual: Option<f64>,
    #[serde(default, deserialize_with = "lenient_opt_f64")]
    capacity_factor: Option<f64>,
    ac: Option<Vec<f64>>,
    poa: Option<Vec<f64>>,
    dn: Option<Vec<f64>>,
    dc: Option<Vec<f64>>,
    df: Option<Vec<f64>>,
    tamb: Option<Vec<f64>>,
    tcell: Option<Vec<f64>>,
    wspd: Option<Vec<f64>>,
    /// v8's hourly albedo.
    alb: Option<Vec<f64>>,
}

fn lenient_f64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => s.trim().parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    })
}

fn lenient_opt_f64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(Some(lenient_f64(d)?).filter(|n| n.is_finite()))
}

/// What an absent station number reads as: not a number (written back as null), never 0.
fn absent_number() -> f64 {
    f64::NAN
}

fn lenient_i64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    Ok(rounded_i64(lenient_f64(d)?))
}

fn lenient_opt_i64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let number = lenient_f64(d)?;
    Ok(number.is_finite().then(|| rounded_i64(number)))
}

fn lenient_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(lenient_opt_text(d)?.unwrap_or_default())
}

fn lenient_opt_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    })
}

fn messages(value: Option<Value>) -> Vec<String> {
    match value {
        Some(Value::Array(items)) => items.into_iter().map(|item| item.as_str().map_or_else(|| item.to_string(), str::to_owned)).collect(),
        Some(Value::String(text)) if !text.trim().is_empty() => vec![text],
        _ => Vec::new(),
    }
}

/// Strips a JSONP wrapper `name( … )` or `name( … );`, if any.
pub fn unwrap_jsonp(body: &[u8]) -> &[u8] {
    let start = body.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(0);
    if matches!(body.get(start), Some(b'{') | Some(b'[') | None) {
        return body;
    }
    let (Some(open), Some(close)) = (body.iter().position(|b| *b == b'('), body.iter().rposition(|b| *b == b')')) else {
        return body;
    };
    body.get(open + 1..close).unwrap_or(body)
}

/// Parses an estimator answer in JSON (JSONP unwrapped) or XML.
pub fn parse_estimate(body: &[u8], format: Format) -> Result<PvEstimate, String> {
    let envelope: EnvelopeDe = match format {
        Format::Xml => {
            let value = read_xml(body).map_err(|e| format!("response body is not valid XML: {e}"))?;
            serde_json::from_value(value).map_err(|e| format!("unexpected XML response: {e}"))?
        }
        _ => serde_json::from_slice(unwrap_jsonp(body)).map_err(|e| format!("response body is not valid estimator JSON: {e}"))?,
    };
    from_envelope(envelope)
}

/// The outputs the spec marks "always", each checked present (monthly ones with 12 values).
struct Required {
    monthly: Monthly,
    ac_annual: f64,
    solrad_annual: f64,
    capacity_factor: f64,
}

fn required_outputs(outputs: &mut OutputsDe) -> Result<Required, String> {
    let mut missing = Vec::new();
    let mut monthly = |name: &str, values: Option<Vec<f64>>| match values {
        Some(values) if values.len() == 12 => values,
        Some(values) => {
            missing.push(format!("12 values of outputs.{name} (it has {})", values.len()));
            Vec::new()
        }
        None => {
            missing.push(format!("outputs.{name}"));
            Vec::new()
        }
    };
    let monthly = Monthly {
        poa: monthly("poa_monthly", outputs.poa_monthly.take()),
        dc: monthly("dc_monthly", outputs.dc_monthly.take()),
        ac: monthly("ac_monthly", outputs.ac_monthly.take()),
        solrad: monthly("solrad_monthly", outputs.solrad_monthly.take()),
    };
    let mut number = |name: &str, value: Option<f64>| {
        value.unwrap_or_else(|| {
            missing.push(format!("outputs.{name}"));
            f64::NAN
        })
    };
    let required = Required {
        ac_annual: number("ac_annual", outputs.ac_annual),
        solrad_annual: number("solrad_annual", outputs.solrad_annual),
        capacity_factor: number("capacity_factor", outputs.capacity_factor),
        monthly,
    };
    if missing.is_empty() {
        Ok(required)
    } else {
        Err(format!("the answer has no {}", missing.join(", ")))
    }
}

fn from_envelope(envelope: EnvelopeDe) -> Result<PvEstimate, String> {
    let Some(mut outputs) = envelope.outputs else { return Err("the answer has no outputs".into()) };
    let required = required_outputs(&mut outputs)?;
    let mut inputs = envelope.inputs.unwrap_or_default();
    inputs.remove("api_key");
    let hourly = match (outputs.ac, outputs.poa, outputs.dn, outputs.dc, outputs.df, outputs.tamb, outputs.tcell, outputs.wspd) {
        (Some(ac), Some(poa), Some(dn), Some(dc), Some(df), Some(tamb), Some(tcell), Some(wspd)) => {
            let extra: Vec<(String, Vec<f64>)> = outputs.alb.into_iter().map(|alb| ("alb".to_owned(), alb)).collect();
            let hourly = Hourly { series: HourlySeries { ac, poa, dn, dc, df, tamb, tcell, wspd }, extra };
            let lengths: Vec<usize> = [&hourly.series.poa, &hourly.series.dn, &hourly.series.dc, &hourly.series.df, &hourly.series.tamb, &hourly.series.tcell, &hourly.series.wspd]
                .into_iter()
                .chain(hourly.extra.iter().map(|(_, values)| values))
                .map(Vec::len)
                .collect();
            if lengths.iter().any(|n| *n != hourly.series.ac.len()) {
                return Err(format!("hourly outputs have different lengths: ac {} vs {lengths:?}", hourly.series.ac.len()));
            }
            Some(hourly)
        }
        (None, None, None, None, None, None, None, None) => None,
        _ => return Err("hourly outputs are incomplete: expected ac, poa, dn, dc, df, tamb, tcell and wspd".into()),
    };
    Ok(PvEstimate {
        version: envelope.version,
        inputs,
        errors: messages(envelope.errors),
        warnings: messages(envelope.warnings),
        ssc_info: envelope.ssc_info,
        station_info: envelope.station_info,
        monthly: required.monthly,
        ac_annual: required.ac_annual,
        solrad_annual: required.solrad_annual,
        capacity_factor: required.capacity_factor,
        hourly,
    })
}

impl PvEstimate {
    /// The result of the local engine, in the estimator's units and shape.
    pub fn from_simulation(output: PvOutput, timeframe: Timeframe, station_info: Option<StationInfo>, inputs: Map<String, Value>) -> Self {
        let hours = output.hourly;
        let hourly = (timeframe == Timeframe::Hourly).then(|| Hourly { series: hours.series, extra: Vec::new() });
        PvEstimate {
            version: None,
            inputs,
            errors: Vec::new(),
            warnings: Vec::new(),
            ssc_info: None,
            station_info,
            monthly: Monthly {
                poa: output.poa_monthly.to_vec(),
                dc: output.dc_monthly.to_vec(),
                ac: output.ac_monthly.to_vec(),
                solrad: output.solrad_monthly.to_vec(),
            },
            ac_annual: output.ac_annual,
            solrad_annual: output.solrad_annual,
            capacity_factor: output.capacity_factor,
            hourly,
        }
    }

    /// The answer envelope as the service writes it (JSON; XML is written from the same value).
    pub fn envelope_value(&self) -> Value {
        let mut outputs = Map::new();
        outputs.insert("ac_monthly".into(), json!(self.monthly.ac));
        outputs.insert("poa_monthly".into(), json!(self.monthly.poa));
        outputs.insert("solrad_monthly".into(), json!(self.monthly.solrad));
        outputs.insert("dc_monthly".into(), json!(self.monthly.dc));
        outputs.insert("ac_annual".into(), json!(self.ac_annual));
        outputs.insert("solrad_annual".into(), json!(self.solrad_annual));
        outputs.insert("capacity_factor".into(), json!(self.capacity_factor));
        if let Some(h) = &self.hourly {
            for (name, values) in [("ac", &h.series.ac), ("poa", &h.series.poa), ("dn", &h.series.dn), ("dc", &h.series.dc), ("df", &h.series.df), ("tamb", &h.series.tamb), ("tcell", &h.series.tcell), ("wspd", &h.series.wspd)] {
                outputs.insert(name.into(), json!(values));
            }
            for (name, values) in &h.extra {
                outputs.insert(name.clone(), json!(values));
            }
        }
        let mut envelope = Map::new();
        envelope.insert("inputs".into(), Value::Object(self.inputs.clone()));
        envelope.insert("errors".into(), json!(self.errors));
        envelope.insert("warnings".into(), json!(self.warnings));
        envelope.insert("version".into(), json!(self.version));
        if let Some(ssc) = &self.ssc_info {
            let mut info = Map::new();
            info.insert("version".into(), json!(ssc.version));
            info.insert("build".into(), json!(ssc.build));
            if let Some(module) = &ssc.module {
                info.insert("module".into(), json!(module));
            }
            envelope.insert("ssc_info".into(), Value::Object(info));
        }
        if let Some(station) = &self.station_info {
            envelope.insert("station_info".into(), station.to_value());
        }
        envelope.insert("outputs".into(), Value::Object(outputs));
        Value::Object(envelope)
    }

    /// The station's offset from GMT, hours; NaN when the answer does not say.
    pub fn tz_hours(&self) -> f64 {
        self.station_info.as_ref().map_or(f64::NAN, |s| s.tz)
    }
}

/// Microseconds in an hour.
const HOUR_US: i64 = 3_600_000_000;

/// The start of each of `hours` consecutive hours from 1 January 00:00 of `year` in local
/// standard time `tz_hours`, as UTC microseconds since 1970: for answers that carry no calendar
/// (typical years).
pub fn consecutive_hours_utc_us(year: i32, hours: usize, tz_hours: f64) -> Vec<i64> {
    let start = days_from_civil(year, 1, 1) * 24 * HOUR_US - rounded_i64(tz_hours * 3.6e9);
    (0..i64::try_from(hours).unwrap_or(0)).map(|hour| start + hour * HOUR_US).collect()
}

/// The per-record table: `timestamp` (`utc_us`, the start of each record's interval, shown in
/// the station's standard time zone; µs, tz-aware) and the eight series, the Vecs moved into
/// Arrow buffers without copying.
pub fn hourly_batch(hourly: Hourly, tz_hours: f64, utc_us: Vec<i64>) -> Result<RecordBatch, ArrowError> {
    if utc_us.len() != hourly.series.ac.len() {
        return Err(ArrowError::InvalidArgumentError(format!(
            "{} time stamps for {} hourly values",
            utc_us.len(),
            hourly.series.ac.len()
        )));
    }
    let zone = standard_time_zone(tz_hours).unwrap_or_else(|| "UTC".to_owned());
    let timestamp = TimestampMicrosecondArray::from(utc_us).with_timezone(zone.as_str());
    let mut fields = vec![Field::new("timestamp", DataType::Timestamp(TimeUnit::Microsecond, Some(zone.as_str().into())), false)];
    let mut columns: Vec<ArrayRef> = vec![Arc::new(timestamp)];
    let series = [
        ("ac", hourly.series.ac),
        ("poa", hourly.series.poa),
        ("dn", hourly.series.dn),
        ("dc", hourly.series.dc),
        ("df", hourly.series.df),
        ("tamb", hourly.series.tamb),
        ("tcell", hourly.series.tcell),
        ("wspd", hourly.series.wspd),
    ];
    for (name, values) in series.into_iter().map(|(name, values)| (name.to_owned(), values)).chain(hourly.extra) {
        fields.push(Field::new(name, DataType::Float64, false));
        columns.push(Arc::new(Float64Array::from(values)));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
}

/// The monthly table: month 1–12 and poa, dc, ac, solrad.
pub fn monthly_batch(monthly: &Monthly) -> Result<RecordBatch, ArrowError> {
    let months = monthly.ac.len();
    let schema = Schema::new(vec![
        Field::new("month", DataType::Int64, false),
        Field::new("poa", DataType::Float64, false),
        Field::new("dc", DataType::Float64, false),
        Field::new("ac", DataType::Float64, false),
        Field::new("solrad", DataType::Float64, false),
    ]);
    let pad = |values: &Vec<f64>| -> Vec<f64> { (0..months).map(|i| values.get(i).copied().unwrap_or(f64::NAN)).collect() };
    RecordBatch::try_new(
        Arc::new(schema),
        vec![
            Arc::new(Int64Array::from((1..=i64::try_from(months).unwrap_or(0)).collect::<Vec<_>>())),
            Arc::new(Float64Array::from(pad(&monthly.poa))),
            Arc::new(Float64Array::from(pad(&monthly.dc))),
            Arc::new(Float64Array::from(monthly.ac.clone())),
            Arc::new(Float64Array::from(pad(&monthly.solrad))),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::solar::Dataset;

    fn raw(pairs: &[(&str, &str)]) -> RawEstimate {
        let owned: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        RawEstimate::from_query(&owned, Format::Json)
    }

    const BASE: [(&str, &str); 8] = [
        ("system_capacity", "4"),
        ("module_type", "0"),
        ("losses", "14"),
        ("array_type", "1"),
        ("tilt", "20"),
        ("azimuth", "180"),
        ("lat", "40"),
        ("lon", "-105"),
    ];

    #[test]
    fn valid_request_round_trips_through_query_pairs() {
        let params = validate_estimate(&raw(&BASE)).unwrap();
        assert_eq!(params.timeframe, Timeframe::Monthly);
        assert_eq!(params.location, Location::Coordinates { lat: 40.0, lon: -105.0, dataset: Dataset::Satdb, radius_miles: 100 });
        let pairs: Vec<(String, String)> = params.query_pairs().into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        assert_eq!(validate_estimate(&RawEstimate::from_query(&pairs, Format::Json)).unwrap(), params);
    }

    #[test]
    fn every_problem_is_reported_with_its_name() {
        let bad = raw(&[
            ("system_capacity", "0.01"),
            ("module_type", "3"),
            ("losses", "abc"),
            ("array_type", "1.5"),
            ("tilt", "91"),
            ("azimuth", "360"),
            ("lat", "91"),
            ("lon", "-105"),
            ("dataset", "nsrdb"),
            ("radius", "-1"),
            ("timeframe", "daily"),
            ("gcr", "3.5"),
            ("inv_eff", "89"),
            ("dc_ac_ratio", "0"),
        ]);
        let problems = validate_estimate(&bad).unwrap_err();
        for name in [
            "system_capacity", "module_type", "losses", "array_type", "tilt", "azimuth", "lat", "dataset", "radius", "timeframe", "gcr",
            "inv_eff", "dc_ac_ratio",
        ] {
            assert!(problems.iter().any(|p| p.starts_with(name)), "{name} missing in {problems:#?}");
        }
        assert_eq!(problems.iter().filter(|p| p.starts_with("losses")).count(), 1, "{problems:#?}");
    }

    #[test]
    fn location_rules() {
        let mut both = BASE.to_vec();
        both.push(("file_id", "1-724699"));
        assert!(validate_estimate(&raw(&both)).unwrap_err()[0].contains("not be given together"));
        let file: Vec<(&str, &str)> = BASE[..6].iter().copied().chain([("file_id", "1-724699")]).collect();
        assert_eq!(validate_estimate(&raw(&file)).unwrap().location, Location::FileId("1-724699".into()));
        let v2: Vec<(&str, &str)> = BASE[..6].iter().copied().chain([("file_id", "1-720797-tm3")]).collect();
        assert!(validate_estimate(&raw(&v2)).unwrap_err()[0].contains("v1 ids work only with the v6 estimator"));
        let with_dataset: Vec<(&str, &str)> = file.iter().copied().chain([("dataset", "tmy3")]).collect();
        assert!(validate_estimate(&raw(&with_dataset)).unwrap_err()[0].starts_with("dataset"));
        assert!(validate_estimate(&raw(&BASE[..6])).unwrap_err()[0].starts_with("lat and lon are required"));
    }

    #[test]
    fn callback_rules() {
        let mut ok = BASE.to_vec();
        ok.push(("callback", "handle_1"));
        assert_eq!(validate_estimate(&raw(&ok)).unwrap().callback.as_deref(), Some("handle_1"));
        let mut bad = BASE.to_vec();
        bad.push(("callback", "alert(1)"));
        assert!(validate_estimate(&raw(&bad)).unwrap_err()[0].starts_with("callback"));
        let owned: Vec<(String, String)> = ok.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        assert!(validate_estimate(&RawEstimate::from_query(&owned, Format::Xml)).unwrap_err()[0].contains("only to json"));
    }

    #[test]
    fn real_v6_body_parses_with_string_inputs() {
        let body = br#"{"inputs":{"lat":"40","lon":"-105","system_capacity":"4","azimuth":"180","tilt":"40","array_type":"1","module_type":"1","losses":"10"},"errors":[],"warnings":[],"version":"1.4.0","ssc_info":{"version":45,"build":"Linux 64 bit GNU/C++ Jul  7 2015 14:24:09"},"station_info":{"lat":40.0099983215332,"lon":-105.0199966430664,"elev":1581.84,"tz":-7,"location":"None","city":"","state":"Colorado","solar_resource_file":"W10502N4001.csv","distance":2029},"outputs":{"ac_monthly":[474.3,485.2,588.6,592.7,623.9,583.2,599.8,596.5,578.2,555.1,477.9,451.6],"poa_monthly":[135.4,138.2,173.3,178.2,190.1,180.3,186.7,184.6,176.9,166.1,138.3,128.2],"solrad_monthly":[4.37,4.93,5.59,5.94,6.13,6.01,6.02,5.95,5.89,5.36,4.61,4.13],"dc_monthly":[496.8,508.5,617.4,621.8,654.8,611.7,629.1,625.7,606.3,582.1,500.9,473.0],"ac_annual":6575.3188,"solrad_annual":5.618,"capacity_factor":18.765}}"#;
        let estimate = parse_estimate(body, Format::Json).unwrap();
        assert_eq!(estimate.ac_annual, 6575.3188);
        assert_eq!(estimate.station_info.as_ref().unwrap().location, "None");
        assert_eq!(estimate.station_info.as_ref().unwrap().distance, Some(2029));
        assert_eq!(estimate.ssc_info.as_ref().unwrap().version, 45);
        assert_eq!(estimate.monthly.ac.len(), 12);
        assert!(estimate.hourly.is_none());
        let jsonp = [b"cb(".as_slice(), body.as_slice(), b");".as_slice()].concat();
        assert_eq!(parse_estimate(&jsonp, Format::Json).unwrap(), estimate);
    }

    #[test]
    fn timestamps_start_at_local_midnight_in_microseconds() {
        let series = HourlySeries { ac: vec![0.0; 3], poa: vec![0.0; 3], dn: vec![0.0; 3], dc: vec![0.0; 3], df: vec![0.0; 3], tamb: vec![0.0; 3], tcell: vec![0.0; 3], wspd: vec![0.0; 3] };
        let hourly = Hourly { series, extra: Vec::new() };
        let batch = hourly_batch(hourly, -7.0, consecutive_hours_utc_us(1990, 3, -7.0)).unwrap();
        assert_eq!(batch.schema().field(0).data_type(), &DataType::Timestamp(TimeUnit::Microsecond, Some("Etc/GMT+7".into())));
        let stamps = batch.column(0).as_any().downcast_ref::<TimestampMicrosecondArray>().unwrap();
        assert_eq!(stamps.value(0), (days_from_civil(1990, 1, 1) * 24 + 7) * HOUR_US);
        assert_eq!(stamps.value(1) - stamps.value(0), HOUR_US);
        assert_eq!(consecutive_hours_utc_us(2010, 1, 5.5)[0], (days_from_civil(2010, 1, 1) * 24 - 5) * HOUR_US - HOUR_US / 2);
    }
}
