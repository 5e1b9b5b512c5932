//! The fast path for dataset query JSON: serde deserializes the envelope straight into stations
//! (no intermediate `Value` tree for the records, field names matched without allocating). Any
//! body it cannot read is handed back to the `Value` path, which names the offending field.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Dataset, QueryVersion, Station, StationQuery};
use crate::services::raw::rounded_i64;

/// A number that may come as a JSON number or numeric text; null and empty text are absent.
#[derive(Debug, Clone, Copy, Default)]
struct Lenient(Option<f64>);

impl<'de> Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct LenientVisitor;
        impl<'de> Visitor<'de> for LenientVisitor {
            type Value = Lenient;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or numeric text")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Lenient, E> {
                Ok(Lenient(v.is_finite().then_some(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Lenient, E> {
                Ok(Lenient(Some(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Lenient, E> {
                Ok(Lenient(Some(v as f64)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Lenient, E> {
                let trimmed = v.trim();
                if trimmed.is_empty() {
                    return Ok(Lenient(None));
                }
                trimmed.parse::<f64>().ok().filter(|n| n.is_finite()).map(|n| Lenient(Some(n))).ok_or_else(|| E::custom("not a number"))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Lenient, E> {
                Ok(Lenient(None))
            }
        }
        deserializer.deserialize_any(LenientVisitor)
    }
}

/// Text that may come as a JSON string, number or boolean; null is absent.
#[derive(Debug, Clone, Default)]
struct Text(Option<String>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("text")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text(Some(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Text, E> {
                Ok(Text(Some(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Text, E> {
                Ok(Text(Some(v.to_string())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Text, E> {
                Ok(Text(Some(v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Text, E> {
                Ok(Text(Some(v.to_string())))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Text, E> {
                Ok(Text(Some(v.to_string())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Text, E> {
                Ok(Text(None))
            }
        }
        deserializer.deserialize_any(TextVisitor)
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct StationRecord {
    id: Text,
    lat: Lenient,
    lon: Lenient,
    city: Text,
    state: Text,
    timezone: Lenient,
    elevation: Lenient,
    distance: Lenient,
    resolution: Lenient,
    country: Text,
    weather_data_source: Text,
    dataset: Text,
}

impl StationRecord {
    /// The station, or `None` when a required field is missing (the slow path then explains).
    fn into_station(self, dataset_key: Option<&str>, query_version: QueryVersion) -> Option<Station> {
        let id = self.id.0?;
        let dataset = dataset_key
            .map(str::to_owned)
            .or(self.dataset.0)
            .or_else(|| Dataset::from_id(&id).map(|d| d.code().to_owned()));
        Some(Station {
            lat: self.lat.0?,
            lon: self.lon.0?,
            city: self.city.0.unwrap_or_default(),
            state: self.state.0.unwrap_or_default(),
            timezone: self.timezone.0?,
            elevation: rounded_i64(self.elevation.0?),
            distance: rounded_i64(self.distance.0?),
            resolution: self.resolution.0.map(rounded_i64),
            country: self.country.0,
            weather_data_source: self.weather_data_source.0,
            dataset,
            id,
            query_version,
        })
    }
}

/// `outputs`: dataset code → record or null, plus `all_stations`.
#[derive(Default)]
struct Outputs {
    closest: Vec<(String, Option<StationRecord>)>,
    all_stations: Option<Vec<StationRecord>>,
}

impl<'de> Deserialize<'de> for Outputs {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OutputsVisitor;
        impl<'de> Visitor<'de> for OutputsVisitor {
            type Value = Outputs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("the outputs object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Outputs, A::Error> {
                let mut outputs = Outputs::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "all_stations" {
                        outputs.all_stations = Some(map.next_value::<Vec<StationRecord>>()?);
                    } else {
                        outputs.closest.push((key, map.next_value::<Option<StationRecord>>()?));
                    }
                }
                Ok(outputs)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Outputs, E> {
                Err(de::Error::custom("outputs is null"))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, _seq: A) -> Result<Outputs, A::Error> {
                Err(de::Error::custom("outputs is a list"))
            }
        }
        deserializer.deserialize_any(OutputsVisitor)
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Envelope {
    version: Text,
    inputs: Option<Map<String, Value>>,
    errors: Option<Vec<Value>>,
    warnings: Option<Vec<Value>>,
    metadata: Option<Map<String, Value>>,
    outputs: Option<Outputs>,
}

fn messages(values: Option<Vec<Value>>) -> Vec<String> {
    values.unwrap_or_default().into_iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned)).collect()
}

/// Reads a well-formed JSON envelope; `None` sends the body to the detailed `Value` path.
pub(super) fn parse_fast(body: &[u8], query_version: QueryVersion) -> Option<StationQuery> {
    let envelope: Envelope = serde_json::from_slice(body).ok()?;
    let outputs = envelope.outputs?;
    let closest = outputs
        .closest
        .into_iter()
        .map(|(code, record)| match record {
            None => Some((code, None)),
            Some(record) => {
                let station = record.into_station(Some(&code), query_version)?;
                Some((code, Some(station)))
            }
        })
        .collect::<Option<Vec<_>>>()?;
    let all_stations = match outputs.all_stations {
        None => None,
        Some(records) => Some(records.into_iter().map(|r| r.into_station(None, query_version)).collect::<Option<Vec<_>>>()?),
    };
    let mut inputs = envelope.inputs.unwrap_or_default();
    inputs.remove("api_key");
    Some(StationQuery {
        query_version,
        version: envelope.version.0,
        inputs,
        errors: messages(envelope.errors),
        warnings: messages(envelope.warnings),
        metadata: envelope.metadata.unwrap_or_default(),
        closest,
        all_stations,
    })
}
