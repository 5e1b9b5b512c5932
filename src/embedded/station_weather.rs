//! The weather of a catalog station for the embedded PV estimator: the synthetic generator's
//! typical year at the station (local standard time, hour-centred), as an engine `Weather`,
//! cached per station because a year is reused by every estimate at that station.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::embedded::catalog::CatalogStation;
use crate::embedded::weather_gen::{tmy_year, SiteSpec};
use crate::pvwatts::{SiteMeta, Weather, WeatherColumns};

/// Where the station's weather comes from (the synthetic weather generator in the service).
pub trait WeatherSource {
    fn weather(&self, station: &CatalogStation) -> Result<std::sync::Arc<Weather>, String>;
}

/// The calendar year whose synthetic weather stands in for a station's typical year.
pub const TYPICAL_YEAR: i32 = 2010;
/// Stations kept in the cache before it is emptied.
const CACHE_LIMIT: usize = 512;

/// Weather of catalog stations from the generator, cached by station seed.
#[derive(Default)]
pub struct GeneratedWeather {
    cache: Mutex<HashMap<u64, Arc<Weather>>>,
}

impl GeneratedWeather {
    /// The typical year of `station` (built on first use).
    pub fn for_station(&self, station: &CatalogStation) -> Result<Arc<Weather>, String> {
        if let Some(found) = self.cache.lock().map_err(|e| e.to_string())?.get(&station.seed) {
            return Ok(found.clone());
        }
        let weather = Arc::new(station_weather(station)?);
        let mut cache = self.cache.lock().map_err(|e| e.to_string())?;
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(station.seed, weather.clone());
        Ok(weather)
    }
}

impl WeatherSource for GeneratedWeather {
    fn weather(&self, station: &CatalogStation) -> Result<Arc<Weather>, String> {
        self.for_station(station)
    }
}

/// Generates the station's typical year and hands it to the engine's checked constructor.
pub fn station_weather(station: &CatalogStation) -> Result<Weather, String> {
    let site = SiteSpec {
        lat: station.lat,
        lon: station.lon,
        elevation_m: station.elevation as f64,
        tz_offset_hours: station.timezone,
        seed: station.seed,
    };
    let year = tmy_year(&site, TYPICAL_YEAR);
    let meta = SiteMeta {
        lat: station.lat,
        lon: station.lon,
        tz: station.timezone,
        elevation: station.elevation as f64,
        city: station.city.clone(),
        state: station.state.clone(),
        country: station.country.clone(),
        location_id: station.v1_id.clone(),
        source: format!("sunflux synthetic weather ({})", station.weather_data_source),
    };
    let columns: WeatherColumns = WeatherColumns {
        year: year.year,
        month: year.month,
        day: year.day,
        hour: year.hour,
        minute: None,
        gh: year.gh,
        dn: year.dn,
        df: year.df,
        tdry: year.tdry,
        wspd: year.wspd,
        pressure: Some(year.pressure),
        albedo: None,
        snow_depth: None,
    };
    Weather::from_columns(meta, columns).map_err(|e| e.to_string())
}
