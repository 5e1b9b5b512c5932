//! The WIND Toolkit SRW download route (`Endpoint::WindToolkitSrw`): a synthetic, labelled site-year
//! in SRW (`services::wind_toolkit::srw`), deterministic per site (its toolkit grid cell, or its
//! 0.02° cell outside the grid), year and height. Bad parameters answer 400 with the service's
//! `errors` list; the gateway has already checked the key and the limits.
//!
//! The synthetic hour (none of it measured): a site mean speed at 80 m of 5 to 8.5 m/s and a
//! shear exponent of 0.10 to 0.22, both drawn per site; speed = mean · (h / 80 m)^α · seasonal
//! (±15 %, windiest in January) · diurnal (±10 %, windiest at 15:00) · exp(0.35 z − 0.06) with
//! z an hourly AR(1) normal series (φ = 0.9); direction = a drawn prevailing direction plus 40°
//! of its own AR(1) series, veering 0.05°/m with height; temperature = 25 °C − 0.5 °C per degree
//! of latitude beyond 25°, ±10 °C by season (coldest in mid-January in the north), ±5 °C by hour,
//! −6.5 °C/km with height; pressure = 0.97–1.00 atm at the surface (drawn per site) ±0.008 atm,
//! × exp(−h / 8434 m).

use axum::extract::Request;
use axum::response::Response;
use serde_json::json;

use super::prng::SplitMix64;
use super::reply::ServiceReply;
use super::state::{query_pairs, reply_response};
use crate::services::wind_toolkit::srw::{write_srw, Quantity, SrwColumn, SrwHeader, WindResource};
use crate::services::wind_toolkit::{validate_wind_toolkit, RawWindToolkit, WindToolkitQuery};
use crate::wind::grid::toolkit_cell;

/// What every synthetic answer says it is (line 1's city field and line 2).
pub const SYNTHETIC_LABEL: &str = "sunflux synthetic wind";
const HOURS: usize = 8760;

/// `GET …/wtk-srw-download`.
pub async fn handle(request: Request) -> Response {
    reply_response(reply(&query_pairs(&request)))
}

/// The answer to decoded query pairs.
pub fn reply(pairs: &[(String, String)]) -> ServiceReply {
    match validate_wind_toolkit(&RawWindToolkit::from_query(pairs)) {
        Ok(query) => ServiceReply::new(200, "text/csv; charset=utf-8", write_srw(&synthetic_resource(&query))),
        Err(problems) => ServiceReply::json(400, &json!({"errors": problems})),
    }
}

/// A seed per site (grid cell) and year.
fn seed(query: &WindToolkitQuery) -> u64 {
    #[allow(clippy::cast_possible_truncation, reason = "a 0.02° cell index of a checked coordinate")]
    let (row, column) = toolkit_cell(query.latitude, query.longitude)
        .unwrap_or_else(|| ((query.latitude * 50.0).round() as i64 + 1_000_000, (query.longitude * 50.0).round() as i64 + 1_000_000));
    let packed = (row as u64) << 40 ^ (column as u64) << 16 ^ u64::from(query.year.unsigned_abs());
    SplitMix64::new(packed).next_u64()
}

/// An approximately standard normal draw (sum of 12 uniforms).
fn normal(rng: &mut SplitMix64) -> f64 {
    (0..12).map(|_| rng.next_f64()).sum::<f64>() - 6.0
}

/// An AR(1) series of unit variance.
fn ar1(rng: &mut SplitMix64, phi: f64) -> Vec<f64> {
    let innovation = (1.0 - phi * phi).sqrt();
    let mut z = normal(rng);
    (0..HOURS)
        .map(|_| {
            z = phi * z + innovation * normal(rng);
            z
        })
        .collect()
}

/// The synthetic site-year at the query's height.
pub fn synthetic_resource(query: &WindToolkitQuery) -> WindResource {
    let mut rng = SplitMix64::new(seed(query));
    let mean_80m = 5.0 + 3.5 * rng.next_f64();
    let shear = 0.10 + 0.12 * rng.next_f64();
    let prevailing = 360.0 * rng.next_f64();
    let surface_atm = 0.97 + 0.03 * rng.next_f64();
    let (speed_noise, direction_noise, weather_noise) = (ar1(&mut rng, 0.9), ar1(&mut rng, 0.95), ar1(&mut rng, 0.98));
    let height = f64::from(query.hub_height_m);
    let tau = std::f64::consts::TAU;
    let hemisphere = if query.latitude < 0.0 { -1.0 } else { 1.0 };
    let mean_temperature = 25.0 - 0.5 * (query.latitude.abs() - 25.0).max(0.0);
    let mut columns: Vec<SrwColumn> =
        Quantity::ALL.iter().map(|q| SrwColumn { quantity: *q, unit: q.header().1.to_owned(), height_m: height, values: Vec::with_capacity(HOURS) }).collect();
    for hour in 0..HOURS {
        #[allow(clippy::cast_precision_loss, reason = "hours of a year")]
        let (day, clock) = ((hour / 24) as f64, (hour % 24) as f64);
        let season = (tau * (day - 15.0) / 365.0).cos();
        let diurnal = (tau * (clock - 15.0) / 24.0).cos();
        let speed = mean_80m * (height / 80.0).powf(shear) * (1.0 + 0.15 * season) * (1.0 + 0.1 * diurnal) * (0.35 * speed_noise[hour] - 0.06).exp();
        let direction = (prevailing + 40.0 * direction_noise[hour] + 0.05 * (height - 80.0)).rem_euclid(360.0);
        let temperature = mean_temperature - 10.0 * hemisphere * season + 5.0 * diurnal + 2.0 * weather_noise[hour] - 0.0065 * height;
        let pressure = (surface_atm + 0.008 * weather_noise[hour]) * (-height / 8434.0).exp();
        for (column, value) in columns.iter_mut().zip([temperature, pressure, speed, direction]) {
            column.values.push(value);
        }
    }
    let header = SrwHeader {
        location_id: "0".into(),
        city: SYNTHETIC_LABEL.into(),
        state: String::new(),
        country: String::new(),
        year: Some(query.year),
        latitude: Some(query.latitude),
        longitude: Some(query.longitude),
        elevation_m: None,
        time_step_hours: Some(1.0),
        description: format!("{SYNTHETIC_LABEL} from the sunflux local service (not WIND Toolkit data)"),
    };
    WindResource { header, columns }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::services::wind_toolkit::srw::parse_srw;

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn the_answer_is_labelled_plausible_and_the_same_for_the_same_site() {
        let ask = pairs(&[("lat", "39.91"), ("lon", "-105.23"), ("hubheight", "80"), ("year", "2012"), ("api_key", "k")]);
        let answer = reply(&ask);
        assert_eq!((answer.status, answer.content_type), (200, "text/csv; charset=utf-8"));
        assert_eq!(answer, reply(&ask), "deterministic");
        let resource = parse_srw(std::str::from_utf8(&answer.body).unwrap()).unwrap();
        assert!(resource.header.city.contains("synthetic") && resource.header.description.contains("not WIND Toolkit data"));
        let at = &resource.at_heights().unwrap()[0];
        assert_eq!((at.height_m, at.speed_m_per_s.len()), (80.0, HOURS));
        let mean = at.speed_m_per_s.iter().sum::<f64>() / 8760.0;
        assert!((4.0..10.0).contains(&mean) && at.speed_m_per_s.iter().all(|s| (0.0..40.0).contains(s)), "{mean}");
        assert!(at.direction_deg.iter().all(|d| (0.0..360.0).contains(d)));
        assert!(at.temperature_c.iter().all(|t| (-40.0..45.0).contains(t)) && at.pressure_atm.iter().all(|p| (0.9..1.05).contains(p)));
        let other = reply(&pairs(&[("lat", "31.0"), ("lon", "-100.0"), ("hubheight", "80"), ("year", "2012")]));
        assert_ne!(other.body, answer.body, "another site, another year of wind");
        let low = parse_srw(std::str::from_utf8(&reply(&pairs(&[("lat", "39.91"), ("lon", "-105.23"), ("hubheight", "10"), ("year", "2012")])).body).unwrap()).unwrap();
        let low_mean = low.at_heights().unwrap()[0].speed_m_per_s.iter().sum::<f64>() / 8760.0;
        assert!(low_mean < mean, "slower near the ground: {low_mean} vs {mean}");
    }

    #[test]
    fn bad_parameters_are_refused_with_the_services_errors() {
        let answer = reply(&pairs(&[("lat", "39.9"), ("lon", "-105.2"), ("hubheight", "50")]));
        assert_eq!(answer.status, 400);
        let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
        let errors = body["errors"].as_array().unwrap();
        assert_eq!(errors.len(), 2, "{body}");
        assert!(errors[0].as_str().unwrap().starts_with("hubheight must be one of"));
    }
}
