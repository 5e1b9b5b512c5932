//! What `resolve` reads and writes for Wind, free of I/O: a sized Wind section (`max_kw` > 0 or
//! unset) without `production_factor_series` needs one; it is computed with the service's
//! turbine model (`wind::turbine`) from the section's own four resource series when all are
//! given (at the hub height, as REopt.jl passes them), else from the WIND Toolkit's resource at
//! the heights the service downloads for the class's hub height (`wind::resource_heights`, year
//! 2012). The class is `size_class`, or the one the service picks from the average of
//! `ElectricLoad.loads_kw` (so the load is resolved first).

use serde_json::{Map, Value};

use super::references::steps_per_hour;
use crate::error::{Error, Result};
use crate::optimizer::scenario::given;
use crate::optimizer::scenario::validation::cross::{NOT_IN_WIND_TOOLKIT, WIND_RESOURCE_SERIES};
use crate::services::wind_toolkit::WindToolkitQuery;
use crate::wind::grid::in_toolkit;
use crate::wind::turbine::{production_factor, ResourceAtHeight};
use crate::wind::{resource_heights, SizeClass, RESOURCE_YEAR};

/// Where the production factor comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum WindSource {
    /// The section's own series, at the hub height.
    Given(ResourceAtHeight),
    /// One WIND Toolkit download per height.
    Toolkit(Vec<WindToolkitQuery>),
}

/// A Wind section's need: its turbine class and the resource to run it on.
#[derive(Debug, Clone, PartialEq)]
pub struct WindNeed {
    pub class: SizeClass,
    pub source: WindSource,
}

fn numbers(value: Option<&Value>) -> Option<Vec<f64>> {
    value?.as_array()?.iter().map(Value::as_f64).collect()
}

/// The need of `document`'s Wind section, or None when it has a production factor or is not
/// sized. `ParameterError` for an unknown `size_class`, a site without coordinates or outside
/// the WIND Toolkit grid (the service's message), or resource series that are not numbers.
pub fn wind_need(document: &Value) -> Result<Option<WindNeed>> {
    let Some(wind) = document.get("Wind").and_then(Value::as_object) else { return Ok(None) };
    let sized = wind.get("max_kw").and_then(Value::as_f64).is_none_or(|kw| kw > 0.0);
    if !sized || given(wind.get("production_factor_series")) {
        return Ok(None);
    }
    let class = size_class(document, wind)?;
    if WIND_RESOURCE_SERIES.iter().all(|name| given(wind.get(*name))) {
        let series = |name: &str| numbers(wind.get(name)).ok_or_else(|| Error::Parameter(vec![format!("Wind.{name} must be a list of numbers")]));
        return Ok(Some(WindNeed {
            class,
            source: WindSource::Given(ResourceAtHeight {
                height_m: class.hub_height_m(),
                speed_m_per_s: series("wind_meters_per_sec")?,
                direction_deg: series("wind_direction_degrees")?,
                temperature_c: series("temperature_celsius")?,
                pressure_atm: series("pressure_atmospheres")?,
            }),
        }));
    }
    let coordinate = |name: &str| document.get("Site").and_then(|site| site.get(name)).and_then(Value::as_f64);
    let (Some(latitude), Some(longitude)) = (coordinate("latitude"), coordinate("longitude")) else {
        return Err(Error::Parameter(vec!["Site.latitude and Site.longitude are needed to resolve the Wind resource".into()]));
    };
    if !in_toolkit(latitude, longitude) {
        return Err(Error::Parameter(vec![format!("Wind.Site: {NOT_IN_WIND_TOOLKIT}")]));
    }
    let queries = resource_heights(class.hub_height_m())
        .into_iter()
        .map(|hub_height_m| WindToolkitQuery { latitude, longitude, hub_height_m, year: RESOURCE_YEAR })
        .collect();
    Ok(Some(WindNeed { class, source: WindSource::Toolkit(queries) }))
}

fn size_class(document: &Value, wind: &Map<String, Value>) -> Result<SizeClass> {
    let name = wind.get("size_class").and_then(Value::as_str).unwrap_or("");
    let load = numbers(document.get("ElectricLoad").and_then(|load| load.get("loads_kw"))).unwrap_or_default();
    if name.is_empty() && load.is_empty() {
        return Err(Error::Parameter(vec!["Wind.size_class, or ElectricLoad.loads_kw to choose it by, is needed to resolve the Wind production".into()]));
    }
    SizeClass::of(name, &load).ok_or_else(|| {
        let names: Vec<&str> = SizeClass::ALL.iter().map(|class| class.name()).collect();
        Error::Parameter(vec![format!("Wind.size_class must be one of {} (got {name:?})", names.join(", "))])
    })
}

/// `document` with the production factor of `need` computed on `resource` (every height's
/// columns) as Wind's `production_factor_series`, one value per scenario time step.
pub fn with_wind_production(mut document: Value, need: &WindNeed, resource: &[ResourceAtHeight]) -> Result<Value> {
    let per_hour = usize::try_from(steps_per_hour(&document)).unwrap_or(1).max(1);
    let factor = production_factor(need.class, resource, per_hour).map_err(|problem| Error::Parameter(vec![format!("Wind resource: {problem}")]))?;
    if let Some(Value::Object(wind)) = document.get_mut("Wind") {
        wind.insert("production_factor_series".to_owned(), Value::from(factor));
    }
    Ok(document)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn scenario(wind: Value) -> Value {
        json!({"Site": {"latitude": 38.9228, "longitude": -95.94535}, "ElectricLoad": {"loads_kw": vec![114.0; 8760]}, "Wind": wind})
    }

    #[test]
    fn a_sized_wind_without_production_asks_the_toolkit_at_its_class_heights() {
        let need = wind_need(&scenario(json!({"max_kw": 1500}))).unwrap().unwrap();
        assert_eq!(need.class, SizeClass::Medium, "114 kW on average picks the medium turbine");
        let WindSource::Toolkit(queries) = need.source else { panic!("{need:?}") };
        assert_eq!(queries.iter().map(|q| (q.hub_height_m, q.year)).collect::<Vec<_>>(), [(60, 2012)]);
        let residential = wind_need(&scenario(json!({"size_class": "residential"}))).unwrap().unwrap();
        let WindSource::Toolkit(queries) = residential.source else { panic!() };
        assert_eq!(queries.iter().map(|q| q.hub_height_m).collect::<Vec<_>>(), [10, 40]);
        for done in [json!({"max_kw": 0}), json!({"production_factor_series": vec![0.2; 8760]})] {
            assert_eq!(wind_need(&scenario(done)).unwrap(), None);
        }
        assert!(matches!(wind_need(&scenario(json!({"size_class": "huge"}))), Err(Error::Parameter(_))));
        let mut hawaii = scenario(json!({}));
        hawaii["Site"] = json!({"latitude": 21.3, "longitude": -157.85});
        let Err(Error::Parameter(problems)) = wind_need(&hawaii) else { panic!("accepted") };
        assert_eq!(problems, [format!("Wind.Site: {NOT_IN_WIND_TOOLKIT}")]);
    }

    #[test]
    fn given_series_are_used_at_the_hub_and_the_factor_follows_the_time_steps() {
        let mut wind = json!({"size_class": "large"});
        for (name, value) in WIND_RESOURCE_SERIES.iter().zip([7.5, 180.0, 15.0, 1.0]) {
            wind[*name] = json!(vec![value; 8760]);
        }
        let mut document = scenario(wind);
        document["Settings"] = json!({"time_steps_per_hour": 2});
        let need = wind_need(&document).unwrap().unwrap();
        let WindSource::Given(resource) = &need.source else { panic!("{need:?}") };
        assert_eq!(resource.height_m, 80.0);
        let resolved = with_wind_production(document.clone(), &need, std::slice::from_ref(resource)).unwrap();
        let factor = resolved["Wind"]["production_factor_series"].as_array().unwrap();
        assert_eq!(factor.len(), 2 * 8760);
        assert!((factor[1].as_f64().unwrap() - (890.771 + 1329.664) / 4000.0).abs() < 1e-12);
        assert_eq!(wind_need(&resolved).unwrap(), None, "resolved once, nothing more to do");
    }
}
