//! The station table: one row per station (`station_rows`), its columns (`StationColumn`) and
//! cells, and the Arrow record batch the Python side reads.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema};

use super::{Station, StationQuery};

/// One row of the station table (csv body and Arrow batch).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StationRow<'a> {
    /// Whether this is the closest station of its dataset.
    pub closest: bool,
    pub station: &'a Station,
}

/// The rows of the station table: `all_stations` (flagging each dataset's closest) when the
/// response has that list, otherwise the closest stations in dataset order. A closest station
/// missing from `all_stations` is appended so no station is lost.
pub fn station_rows(query: &StationQuery) -> Vec<StationRow<'_>> {
    let closest: Vec<&Station> = query.closest.iter().filter_map(|(_, station)| station.as_ref()).collect();
    let Some(all) = &query.all_stations else {
        return closest.into_iter().map(|station| StationRow { closest: true, station }).collect();
    };
    let is_closest = |station: &Station| closest.iter().any(|c| c.id == station.id && c.dataset == station.dataset);
    let listed = |station: &Station| all.iter().any(|s| s.id == station.id && s.dataset == station.dataset);
    let mut rows: Vec<StationRow<'_>> =
        all.iter().map(|station| StationRow { closest: is_closest(station), station }).collect();
    rows.extend(closest.iter().filter(|station| !listed(station)).map(|station| StationRow { closest: true, station }));
    rows
}

/// A column of the station table; the order of `ALL` is the csv column order and the Arrow field order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StationColumn {
    Dataset,
    Closest,
    Id,
    Lat,
    Lon,
    City,
    State,
    Timezone,
    Elevation,
    Distance,
    Resolution,
    Country,
    WeatherDataSource,
}

impl StationColumn {
    pub const ALL: [StationColumn; 13] = [
        StationColumn::Dataset,
        StationColumn::Closest,
        StationColumn::Id,
        StationColumn::Lat,
        StationColumn::Lon,
        StationColumn::City,
        StationColumn::State,
        StationColumn::Timezone,
        StationColumn::Elevation,
        StationColumn::Distance,
        StationColumn::Resolution,
        StationColumn::Country,
        StationColumn::WeatherDataSource,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StationColumn::Dataset => "dataset",
            StationColumn::Closest => "closest",
            StationColumn::Id => "id",
            StationColumn::Lat => "lat",
            StationColumn::Lon => "lon",
            StationColumn::City => "city",
            StationColumn::State => "state",
            StationColumn::Timezone => "timezone",
            StationColumn::Elevation => "elevation",
            StationColumn::Distance => "distance",
            StationColumn::Resolution => "resolution",
            StationColumn::Country => "country",
            StationColumn::WeatherDataSource => "weather_data_source",
        }
    }

    pub fn from_name(name: &str) -> Option<StationColumn> {
        StationColumn::ALL.into_iter().find(|column| column.name() == name)
    }

    fn data_type(self) -> DataType {
        match self {
            StationColumn::Closest => DataType::Boolean,
            StationColumn::Lat | StationColumn::Lon | StationColumn::Timezone => DataType::Float64,
            StationColumn::Elevation | StationColumn::Distance | StationColumn::Resolution => DataType::Int64,
            StationColumn::Dataset
            | StationColumn::Id
            | StationColumn::City
            | StationColumn::State
            | StationColumn::Country
            | StationColumn::WeatherDataSource => DataType::Utf8,
        }
    }

    fn nullable(self) -> bool {
        matches!(
            self,
            StationColumn::Dataset
                | StationColumn::Resolution
                | StationColumn::Country
                | StationColumn::WeatherDataSource
        )
    }

    /// Columns a csv body must have; the others may be left out (absent values, or every row
    /// closest when `closest` is missing).
    pub(super) fn required_in_csv(self) -> bool {
        matches!(
            self,
            StationColumn::Id
                | StationColumn::Lat
                | StationColumn::Lon
                | StationColumn::Timezone
                | StationColumn::Elevation
                | StationColumn::Distance
        )
    }

    fn unit(self) -> Option<&'static str> {
        match self {
            StationColumn::Lat | StationColumn::Lon => Some("degrees"),
            StationColumn::Timezone => Some("hours from GMT"),
            StationColumn::Elevation | StationColumn::Distance => Some("m"),
            StationColumn::Resolution => Some("km"),
            _ => None,
        }
    }

    fn field(self) -> Field {
        let field = Field::new(self.name(), self.data_type(), self.nullable());
        match self.unit() {
            Some(unit) => field.with_metadata(HashMap::from([("unit".to_string(), unit.to_string())])),
            None => field,
        }
    }
}

/// One cell of the station table, typed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Cell<'a> {
    Text(Option<&'a str>),
    Float(f64),
    Integer(Option<i64>),
    Flag(bool),
}

impl Cell<'_> {
    pub(super) fn csv_text(self) -> String {
        match self {
            Cell::Text(text) => text.unwrap_or_default().to_string(),
            Cell::Float(number) => number.to_string(),
            Cell::Integer(number) => number.map(|n| n.to_string()).unwrap_or_default(),
            Cell::Flag(flag) => flag.to_string(),
        }
    }
}

pub(super) fn cell<'a>(row: &StationRow<'a>, column: StationColumn) -> Cell<'a> {
    let station = row.station;
    match column {
        StationColumn::Dataset => Cell::Text(station.dataset.as_deref()),
        StationColumn::Closest => Cell::Flag(row.closest),
        StationColumn::Id => Cell::Text(Some(&station.id)),
        StationColumn::Lat => Cell::Float(station.lat),
        StationColumn::Lon => Cell::Float(station.lon),
        StationColumn::City => Cell::Text(Some(&station.city)),
        StationColumn::State => Cell::Text(Some(&station.state)),
        StationColumn::Timezone => Cell::Float(station.timezone),
        StationColumn::Elevation => Cell::Integer(Some(station.elevation)),
        StationColumn::Distance => Cell::Integer(Some(station.distance)),
        StationColumn::Resolution => Cell::Integer(station.resolution),
        StationColumn::Country => Cell::Text(station.country.as_deref()),
        StationColumn::WeatherDataSource => Cell::Text(station.weather_data_source.as_deref()),
    }
}

/// The Arrow schema of [`stations_to_record_batch`]; units are in each field's `unit` metadata.
pub fn station_schema() -> Schema {
    Schema::new(StationColumn::ALL.map(StationColumn::field).to_vec())
}

/// The station table as one Arrow batch: one row per station (see [`station_rows`]).
pub fn stations_to_record_batch(query: &StationQuery) -> Result<RecordBatch, ArrowError> {
    let rows = station_rows(query);
    let columns: Vec<ArrayRef> = StationColumn::ALL
        .into_iter()
        .map(|column| column_array(column, rows.iter().map(|row| cell(row, column))))
        .collect();
    RecordBatch::try_new(Arc::new(station_schema()), columns)
}

pub(super) fn column_array<'a>(column: StationColumn, cells: impl Iterator<Item = Cell<'a>>) -> ArrayRef {
    match column.data_type() {
        DataType::Boolean => Arc::new(BooleanArray::from(
            cells.map(|c| if let Cell::Flag(flag) = c { Some(flag) } else { None }).collect::<Vec<_>>(),
        )),
        DataType::Float64 => Arc::new(Float64Array::from(
            cells.map(|c| if let Cell::Float(number) = c { Some(number) } else { None }).collect::<Vec<_>>(),
        )),
        DataType::Int64 => Arc::new(Int64Array::from(
            cells.map(|c| if let Cell::Integer(number) = c { number } else { None }).collect::<Vec<_>>(),
        )),
        _ => Arc::new(StringArray::from(
            cells.map(|c| if let Cell::Text(text) = c { text } else { None }).collect::<Vec<_>>(),
        )),
    }
}
