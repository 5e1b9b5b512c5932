//! SAM's wind resource format (SRW), as the WIND Toolkit's download writes it: five header lines
//! (1: location id, city, state, country, year, latitude, longitude, elevation, time step in
//! hours, rows; 2: a description; 3: each column's quantity, `Temperature`, `Pressure`, `Speed`
//! or `Direction`; 4: units, `C`, `atm`, `m/s`, `Degrees`; 5: each column's height in m), then
//! one comma-separated row per time step. Read into typed columns, written (the embedded
//! service's answer), turned into the turbine model's input and into an Arrow table.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field, Schema};

use crate::wind::turbine::ResourceAtHeight;

/// The quantity of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    Temperature,
    Pressure,
    Speed,
    Direction,
}

impl Quantity {
    pub const ALL: [Quantity; 4] = [Quantity::Temperature, Quantity::Pressure, Quantity::Speed, Quantity::Direction];

    /// As SAM reads line 3 (case-insensitive, with its short forms).
    fn parse(name: &str) -> Option<Quantity> {
        match name.trim().to_ascii_lowercase().as_str() {
            "temperature" | "temp" => Some(Quantity::Temperature),
            "pressure" | "pres" => Some(Quantity::Pressure),
            "speed" | "velocity" => Some(Quantity::Speed),
            "direction" | "dir" => Some(Quantity::Direction),
            _ => None,
        }
    }

    /// The header name and unit the toolkit writes.
    pub fn header(self) -> (&'static str, &'static str) {
        match self {
            Quantity::Temperature => ("Temperature", "C"),
            Quantity::Pressure => ("Pressure", "atm"),
            Quantity::Speed => ("Speed", "m/s"),
            Quantity::Direction => ("Direction", "Degrees"),
        }
    }

    /// The column name in the Arrow table (unit in the name).
    pub fn column_name(self) -> &'static str {
        match self {
            Quantity::Temperature => "temperature_c",
            Quantity::Pressure => "pressure_atm",
            Quantity::Speed => "wind_speed_m_per_s",
            Quantity::Direction => "wind_direction_deg",
        }
    }
}

/// Line 1 and 2 of the file. Numbers the file leaves blank or writes as text
/// (`Not Available`) are None.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SrwHeader {
    pub location_id: String,
    pub city: String,
    pub state: String,
    pub country: String,
    pub year: Option<i32>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub elevation_m: Option<f64>,
    pub time_step_hours: Option<f64>,
    pub description: String,
}

/// One column: its quantity, unit as written, height (m) and one value per time step.
#[derive(Debug, Clone, PartialEq)]
pub struct SrwColumn {
    pub quantity: Quantity,
    pub unit: String,
    pub height_m: f64,
    pub values: Vec<f64>,
}

/// A whole SRW file.
#[derive(Debug, Clone, PartialEq)]
pub struct WindResource {
    pub header: SrwHeader,
    pub columns: Vec<SrwColumn>,
}

fn cells(line: &str) -> Vec<&str> {
    line.trim_end_matches(['\r', '\n']).split(',').map(str::trim).collect()
}

/// Reads an SRW file; every problem names its line.
pub fn parse_srw(text: &str) -> Result<WindResource, String> {
    let mut lines = text.lines();
    let mut next = |what: &str| lines.next().ok_or_else(|| format!("the SRW file ends before its {what} (header line)"));
    let first = cells(next("location")?);
    if first.len() < 8 {
        return Err(format!("SRW line 1 needs at least 8 fields (location id, city, state, country, year, latitude, longitude, elevation); it has {}", first.len()));
    }
    let field = |i: usize| first.get(i).copied().unwrap_or("");
    let number = |i: usize| field(i).parse::<f64>().ok().filter(|v| v.is_finite());
    let header = SrwHeader {
        location_id: field(0).to_owned(),
        city: field(1).to_owned(),
        state: field(2).to_owned(),
        country: field(3).to_owned(),
        year: field(4).parse().ok(),
        latitude: number(5),
        longitude: number(6),
        elevation_m: number(7),
        time_step_hours: number(8),
        description: next("description")?.trim().trim_end_matches(',').to_owned(),
    };
    let names = cells(next("quantities")?);
    let mut quantities = Vec::new();
    for (index, name) in names.iter().enumerate().filter(|(_, name)| !name.is_empty()) {
        let quantity = Quantity::parse(name).ok_or_else(|| format!("SRW line 3, column {}: {name:?} is not Temperature, Pressure, Speed or Direction", index + 1))?;
        quantities.push(quantity);
    }
    if quantities.is_empty() {
        return Err("SRW line 3 names no column".into());
    }
    let units = cells(next("units")?);
    let heights_line = cells(next("heights")?);
    let heights: Vec<&str> = heights_line.iter().copied().filter(|h| !h.is_empty()).collect();
    if heights.len() != quantities.len() {
        return Err(format!("SRW line 5 gives {} heights for {} columns", heights.len(), quantities.len()));
    }
    let mut columns = Vec::with_capacity(quantities.len());
    for (index, (quantity, height)) in quantities.iter().zip(&heights).enumerate() {
        let height_m = height.parse::<f64>().ok().filter(|h| h.is_finite()).ok_or_else(|| format!("SRW line 5, column {}: {height:?} is not a height", index + 1))?;
        let unit = units.get(index).copied().unwrap_or("").to_owned();
        columns.push(SrwColumn { quantity: *quantity, unit, height_m, values: Vec::new() });
    }
    for (offset, line) in lines.enumerate().filter(|(_, line)| !line.trim().trim_matches(',').is_empty()) {
        let row = cells(line);
        for (index, column) in columns.iter_mut().enumerate() {
            let cell = row.get(index).copied().unwrap_or("");
            let value = cell.parse::<f64>().map_err(|_| format!("SRW line {}, column {}: {cell:?} is not a number", offset + 6, index + 1))?;
            column.values.push(value);
        }
    }
    if columns.first().is_none_or(|c| c.values.is_empty()) {
        return Err("the SRW file has no data rows".into());
    }
    Ok(WindResource { header, columns })
}

/// Writes an SRW file as the toolkit does (trailing newline, no trailing commas).
pub fn write_srw(resource: &WindResource) -> String {
    let h = &resource.header;
    let text = |value: Option<String>| value.unwrap_or_else(|| "Not Available".to_owned());
    let steps = resource.columns.first().map_or(0, |c| c.values.len());
    let mut out = format!(
        "{},{},{},{},{},{},{},{},{},{}\n{}\n",
        h.location_id,
        h.city,
        h.state,
        h.country,
        text(h.year.map(|y| y.to_string())),
        text(h.latitude.map(|v| v.to_string())),
        text(h.longitude.map(|v| v.to_string())),
        text(h.elevation_m.map(|v| v.to_string())),
        text(h.time_step_hours.map(|v| v.to_string())),
        steps,
        h.description
    );
    let join = |cell: &dyn Fn(&SrwColumn) -> String| resource.columns.iter().map(cell).collect::<Vec<_>>().join(",");
    out.push_str(&join(&|c| c.quantity.header().0.to_owned()));
    out.push('\n');
    out.push_str(&join(&|c| c.unit.clone()));
    out.push('\n');
    out.push_str(&join(&|c| c.height_m.to_string()));
    out.push('\n');
    for step in 0..steps {
        out.push_str(&join(&|c| c.values.get(step).map_or_else(String::new, |v| format!("{v:.4}"))));
        out.push('\n');
    }
    out
}

impl WindResource {
    /// The columns of one quantity at one height.
    fn column(&self, quantity: Quantity, height_m: f64) -> Option<&SrwColumn> {
        self.columns.iter().find(|c| c.quantity == quantity && c.height_m == height_m)
    }

    /// The heights (m) that hold all four quantities, in file order.
    pub fn complete_heights(&self) -> Vec<f64> {
        let mut heights: Vec<f64> = Vec::new();
        for column in &self.columns {
            if !heights.contains(&column.height_m) && Quantity::ALL.iter().all(|q| self.column(*q, column.height_m).is_some()) {
                heights.push(column.height_m);
            }
        }
        heights
    }

    /// The turbine model's input: every height with all four quantities (pressure read in atm).
    pub fn at_heights(&self) -> Result<Vec<ResourceAtHeight>, String> {
        let heights = self.complete_heights();
        if heights.is_empty() {
            return Err("the SRW file has no height with temperature, pressure, speed and direction".into());
        }
        let values = |q: Quantity, h: f64| self.column(q, h).map_or_else(Vec::new, |c| c.values.clone());
        Ok(heights
            .into_iter()
            .map(|h| ResourceAtHeight {
                height_m: h,
                temperature_c: values(Quantity::Temperature, h),
                pressure_atm: values(Quantity::Pressure, h),
                speed_m_per_s: values(Quantity::Speed, h),
                direction_deg: values(Quantity::Direction, h),
            })
            .collect())
    }

    /// One Float64 column per file column, named by quantity with its unit; `_<height>m` is
    /// appended when the file holds more than one height.
    pub fn batch(&self) -> Result<RecordBatch, ArrowError> {
        let mut heights: Vec<f64> = self.columns.iter().map(|c| c.height_m).collect();
        heights.dedup();
        let several = heights.len() > 1;
        let fields: Vec<Field> = self
            .columns
            .iter()
            .map(|c| {
                let name = if several { format!("{}_{}m", c.quantity.column_name(), c.height_m) } else { c.quantity.column_name().to_owned() };
                Field::new(name, DataType::Float64, false)
            })
            .collect();
        let arrays: Vec<ArrayRef> = self.columns.iter().map(|c| Arc::new(Float64Array::from(c.values.clone())) as ArrayRef).collect();
        RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "861847,city??,CO,country??,2012,39.74,-105.17,Not Available,1,3,,\n\
WIND Toolkit data from NREL downloaded on 2022-11-13,,,\n\
Temperature,Pressure,Speed,Direction\n\
C,atm,m/s,Degrees\n\
80,80,80,80\n\
-1.27,0.8061,5.51,261.79\n\
-1.5,0.8062,6.25,265\n\
-2,0.807,0,270.5\n";

    #[test]
    fn a_toolkit_file_is_read_into_typed_columns() {
        let resource = parse_srw(SMALL).unwrap();
        let h = &resource.header;
        assert_eq!((h.location_id.as_str(), h.state.as_str(), h.year, h.latitude, h.longitude), ("861847", "CO", Some(2012), Some(39.74), Some(-105.17)));
        assert_eq!((h.elevation_m, h.time_step_hours, h.description.as_str()), (None, Some(1.0), "WIND Toolkit data from NREL downloaded on 2022-11-13"));
        let quantities: Vec<Quantity> = resource.columns.iter().map(|c| c.quantity).collect();
        assert_eq!(quantities, Quantity::ALL);
        assert_eq!(resource.columns[2].values, [5.51, 6.25, 0.0]);
        assert_eq!((resource.columns[1].unit.as_str(), resource.columns[3].height_m), ("atm", 80.0));
        let at = resource.at_heights().unwrap();
        assert_eq!((at.len(), at[0].height_m, at[0].pressure_atm[1]), (1, 80.0, 0.8062));
        let batch = resource.batch().unwrap();
        let names: Vec<String> = batch.schema().fields().iter().map(|f| f.name().clone()).collect();
        assert_eq!(names, ["temperature_c", "pressure_atm", "wind_speed_m_per_s", "wind_direction_deg"]);
        assert_eq!(batch.num_rows(), 3);
    }

    #[test]
    fn what_is_written_reads_back_and_broken_files_are_named() {
        let resource = parse_srw(SMALL).unwrap();
        assert_eq!(parse_srw(&write_srw(&resource)).unwrap(), resource);
        let bad_cell = SMALL.replace("6.25", "calm");
        assert_eq!(parse_srw(&bad_cell).unwrap_err(), "SRW line 7, column 3: \"calm\" is not a number");
        assert!(parse_srw(&SMALL.replace("Direction", "Humidity")).unwrap_err().contains("\"Humidity\" is not"));
        assert!(parse_srw(&SMALL.replace("80,80,80,80", "80,80")).unwrap_err().contains("2 heights for 4 columns"));
        assert!(parse_srw("1,2,3\n").unwrap_err().contains("at least 8 fields"));
        assert!(parse_srw("{\"errors\": [\"bad\"]}").is_err());
    }
}
