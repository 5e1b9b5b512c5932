//! Technical potential service (RE Data Explorer, deprecated upstream): the typed configuration
//! record, validation of a job's input fields against it (one definition shared by the client and
//! the embedded service), the configuration query, job status, the typed job result in both
//! directions, and the Arrow tables behind `.to_polars()`.
//!
//! Decisions the spec leaves open (recorded in docs/design.md):
//! - `region` and `resource` accept the configuration's ids ("6", "32") and, for convenience, the
//!   region label ("India") or the resource key or label ("wind_t200"); the body always carries
//!   the ids.
//! - The canonical POST body writes every scalar as a string, exactly like the live docs'
//!   example (`"excludeProtectedAreas": "true"`, `"powerDensity": "3"`, `{"min": "1"}`); inputs
//!   are accepted as native JSON values or as strings. A `{min, max}` side that is absent or null
//!   is left out of the body; a field whose value is null counts as not given.
//! - An offered field the caller leaves out is sent with its `defaultValue`; without one,
//!   `powerDensity` takes the resource's `defaultPowerDensity`, `limitBySolarResource` min 2 max 9
//!   and `limitByWindSpeed` min 3 (no max). A given `{min, max}` object replaces the default
//!   whole; a missing side is open.
//! - Corridor `distance` must be one of the offered distances; `units` is `kilometers` or `miles`
//!   (the dataType's wording) and defaults to kilometers.
//! - `limitByLandUse` lists land-use types to EXCLUDE (the live example lists urban land, water
//!   bodies and wooded wetland, the classic exclusions of technical-potential studies).
//!   `limitByGeographicExtent` lists the sub-regions to keep and must not be empty.
//! - The configuration query takes `countries` or a WKT POINT in `wkt`, not both.
//! - Job status: `queued`, `started`, `finished`; any other value is a failure
//!   ([`JobStatus::Failed`]) whose messages are the body's `errors`.

mod arrow;
mod configuration;
mod job_fields;
mod jobs;
mod query;
pub mod request;
mod values;
mod vocabulary;

pub use arrow::*;
pub use configuration::*;
pub use job_fields::*;
pub use jobs::*;
pub use query::*;
pub use values::*;
pub use vocabulary::*;

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use arrow_array::StringArray;
    use serde_json::{Map, Value};

    use crate::formats::wkt::LonLat;

    use super::*;
    use serde_json::json;

    fn sample_config() -> Configuration {
        let body = json!({
            "metadata": {"version": "1.0.0", "resultset": {"count": 1}},
            "inputs": {"countries": "Testland"},
            "outputs": [{
                "id": 6, "region": {"id": 6, "label": "Testland"}, "extra": true,
                "availableResources": [
                    {"resource": {"id": 14, "key": "fixlat", "label": "Fixed Tilt PV System", "defaultPowerDensity": 36},
                     "inputFields": [
                        {"fieldId": 3, "fieldName": "excludeProtectedAreas", "dataType": "boolean"},
                        {"fieldId": 7, "fieldName": "limitBySlope", "dataType": "min and/or max as number"},
                        {"fieldId": 6, "fieldName": "limitToTransmissionCorridors",
                         "dataType": "distance as number and units as one of kilometers or miles",
                         "fieldValues": {"distance": [1, 5, 10], "units": ["kilometers"]}},
                        {"fieldId": 17, "fieldName": "powerDensity", "dataType": "number"},
                        {"fieldId": 18, "fieldName": "limitBySolarResource", "dataType": "min and/or max as number",
                         "defaultValue": {"min": 2, "max": 9}},
                        {"fieldId": 8, "fieldName": "limitByGeographicExtent",
                         "dataType": "array of strings including only provided geographic extents",
                         "fieldValues": ["North", "South"]},
                        {"fieldId": 4, "fieldName": "limitByLandUse",
                         "dataType": "array of strings including only provided land use types"},
                        {"fieldId": 99, "fieldName": "futureField", "dataType": "something new"}
                     ]},
                    {"resource": {"id": 32, "key": "wind_t200", "label": "Wind T-200", "defaultPowerDensity": 3},
                     "inputFields": [
                        {"fieldId": 21, "fieldName": "limitByWindSpeed", "dataType": "min and/or max as number"}
                     ]}
                ]
            }],
            "errors": [],
            "status": 200
        });
        Configuration::from_value(&body).unwrap()
    }

    fn fields(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn configuration_reads_ids_labels_and_fields() {
        let config = sample_config();
        assert_eq!(config.version.as_deref(), Some("1.0.0"));
        assert_eq!(config.count, Some(1));
        let region = &config.regions[0];
        assert_eq!((region.id, region.region_id, region.label.as_str()), (6, 6, "Testland"));
        assert_eq!(region.resources[0].default_power_density, Some(36.0));
        assert_eq!(region.resources[0].input_fields.len(), 8);
        assert!(config.find_region("testland").is_some());
        assert!(region.find_resource("32").is_some());
        assert!(region.find_resource("Fixed Tilt PV System").is_some());
    }

    #[test]
    fn configuration_round_trips_through_the_writer() {
        let config = sample_config();
        let outputs: Vec<Value> = config.regions.iter().map(RegionConfig::to_value).collect();
        let again = Configuration::from_value(&json!({"outputs": outputs})).unwrap();
        assert_eq!(again.regions, config.regions);
    }

    #[test]
    fn configuration_rejects_wrong_shapes() {
        assert!(Configuration::from_value(&json!({"outputs": {}})).is_err());
        assert!(Configuration::from_value(&json!({"outputs": [{"region": {"label": "x"}}]})).is_err());
        assert!(Configuration::from_value(&json!({})).unwrap_err().to_string().contains("outputs"));
        assert_eq!(Configuration::from_value(&json!({"outputs": []})).unwrap().regions.len(), 0);
    }

    #[test]
    fn canonical_body_uses_strings_ids_and_defaults() {
        let config = sample_config();
        let request = validate_job(
            &config,
            "Testland",
            "fixlat",
            &fields(
                json!({"excludeProtectedAreas": true, "limitBySlope": {"max": 10}, "limitByLandUse": ["water bodies"]}),
            ),
        )
        .unwrap();
        assert_eq!(
            Value::Object(request.body.clone()),
            json!({
                "region": "6", "resource": "14",
                "excludeProtectedAreas": "true",
                "limitBySlope": {"max": "10"},
                "powerDensity": "36",
                "limitBySolarResource": {"min": "2", "max": "9"},
                "limitByLandUse": ["Water Bodies"]
            })
        );
        assert!(request.filters.exclude_protected_areas);
        assert_eq!(request.filters.power_density, Some(36.0));
        assert_eq!(request.filters.excluded_land_use, vec!["Water Bodies".to_string()]);
        let again = validate_job(
            &config,
            "6",
            "14",
            &request
                .body
                .iter()
                .filter(|(k, _)| *k != "region" && *k != "resource")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
        .unwrap();
        assert_eq!(again.body, request.body);
    }

    #[test]
    fn wind_default_has_no_max() {
        let request = validate_job(&sample_config(), "6", "32", &Map::new()).unwrap();
        assert_eq!(request.filters.wind_speed, Some(WIND_SPEED_DEFAULT));
        assert_eq!(request.body["limitByWindSpeed"], json!({"min": "3"}));
        assert!(request.body.get("powerDensity").is_none(), "powerDensity is not offered for this resource");
    }

    #[test]
    fn null_means_not_given() {
        let request =
            validate_job(&sample_config(), "6", "14", &fields(json!({"limitBySolarResource": null}))).unwrap();
        assert_eq!(request.filters.solar_resource, Some(SOLAR_RESOURCE_DEFAULT));
        assert!(validate_job(&sample_config(), "6", "14", &fields(json!({"nonsense": null}))).is_err());
    }

    #[test]
    fn unknown_shapes_pass_through() {
        let request = validate_job(&sample_config(), "6", "14", &fields(json!({"futureField": {"a": 1}}))).unwrap();
        assert_eq!(request.body["futureField"], json!({"a": 1}));
    }

    #[test]
    fn every_problem_is_named() {
        let config = sample_config();
        let problems = validate_job(
            &config,
            "6",
            "fixlat",
            &fields(json!({
                "excludeProtectedAreas": "yes",
                "limitBySlope": {"min": 5, "max": 1, "step": 2},
                "limitToTransmissionCorridors": {"distance": 7, "units": "leagues"},
                "powerDensity": "0",
                "limitBySolarResource": {},
                "limitByGeographicExtent": [],
                "limitByLandUse": ["Moon Dust", 3],
                "limitByWindSpeed": {"min": 3},
            })),
        )
        .unwrap_err();
        let expected_starts = [
            "excludeProtectedAreas: expected true or false",
            "limitBySlope: unknown key 'step'",
            "limitBySlope: min 5 is greater than max 1",
            "limitToTransmissionCorridors.distance: 7 is not offered",
            "limitToTransmissionCorridors.units: expected kilometers or miles",
            "powerDensity: must be greater than 0",
            "limitBySolarResource: give min and/or max",
            "limitByGeographicExtent: list at least one",
            "limitByLandUse: 'Moon Dust' is not one of the offered values",
            "limitByLandUse: expected strings, got 3",
            "limitByWindSpeed: not an input field of resource fixlat",
        ];
        for start in expected_starts {
            assert!(problems.iter().any(|p| p.starts_with(start)), "missing {start:?} in {problems:#?}");
        }
        assert_eq!(problems.len(), expected_starts.len(), "{problems:#?}");
    }

    #[test]
    fn region_and_resource_must_exist() {
        let config = sample_config();
        let problems = validate_job(&config, "Atlantis", "fixlat", &Map::new()).unwrap_err();
        assert!(problems[0].starts_with("region: 'Atlantis' is not a region"), "{problems:?}");
        let problems = validate_job(&config, "6", "wind_t999", &Map::new()).unwrap_err();
        assert!(problems[0].contains("offered: 14 (fixlat), 32 (wind_t200)"), "{problems:?}");
    }

    #[test]
    fn corridor_units_default_to_kilometers_and_miles_convert() {
        let config = sample_config();
        let request =
            validate_job(&config, "6", "14", &fields(json!({"limitToTransmissionCorridors": {"distance": "5"}})))
                .unwrap();
        assert_eq!(request.body["limitToTransmissionCorridors"], json!({"distance": "5", "units": "kilometers"}));
        let request = validate_job(
            &config,
            "6",
            "14",
            &fields(json!({"limitToTransmissionCorridors": {"distance": 10, "units": "Miles"}})),
        )
        .unwrap();
        let corridor = request.filters.transmission_corridor.unwrap();
        assert!((corridor.distance_km() - 16.09344).abs() < 1e-9);
    }

    #[test]
    fn config_query_rules() {
        assert_eq!(validate_config_query(None, None), Ok(ConfigQuery::All));
        assert_eq!(
            validate_config_query(Some("India, Kenya,"), None),
            Ok(ConfigQuery::Countries(vec!["India".into(), "Kenya".into()]))
        );
        assert!(validate_config_query(Some(" , "), None).is_err());
        assert!(validate_config_query(Some("India"), Some("POINT(1 2)")).is_err());
        let point = validate_config_query(None, Some(" point ( 77.216  28.644 ) ")).unwrap();
        assert_eq!(
            point,
            ConfigQuery::Point {
                wkt: "point ( 77.216  28.644 )".into(),
                position: LonLat { lon: 77.216, lat: 28.644 }
            }
        );
        assert_eq!(point.query_pairs(), vec![("wkt", "point ( 77.216  28.644 )".to_string())]);
        assert!(validate_config_query(None, Some("MULTIPOINT(1 2, 3 4)")).unwrap_err()[0].contains("not a MULTIPOINT"));
        for bad in ["POINT(200 0)", "POINT(0 95)", "POINT(1)", "POINT(a b)", ""] {
            assert!(validate_config_query(None, Some(bad)).unwrap_err()[0].starts_with("wkt: "), "{bad}");
        }
    }

    #[test]
    fn status_parse_treats_unknown_as_failure() {
        assert_eq!(JobStatus::parse("queued"), JobStatus::Queued);
        assert_eq!(JobStatus::parse(" Started "), JobStatus::Started);
        assert_eq!(JobStatus::parse("finished"), JobStatus::Finished);
        assert_eq!(JobStatus::parse("error"), JobStatus::Failed("error".into()));
        assert!(JobStatus::parse("failed").is_terminal());
        assert!(!JobStatus::Queued.is_terminal());
    }

    #[test]
    fn job_result_round_trips() {
        let class =
            ClassStats { nameplate_capacity_mw: 1.5, ac_generation_mwh: 2.0, land_area_sq_km: 0.5, min: 4.0, max: 4.5 };
        let stats = Stats {
            total_nameplate_capacity_mw: 1.5,
            total_ac_generation_mwh: 2.0,
            total_land_area_sq_km: 0.5,
            min: Some(4.1),
            max: None,
            classes: vec![class],
        };
        let result = JobResult {
            job_id: Some("tpot_result_x_1".into()),
            status: JobStatus::Finished,
            disposition: Some("finished".into()),
            runtime_seconds: Some(2.5),
            map_data_deleted: Some(false),
            results: Some(JobResultData {
                cumulative_stats: stats.clone(),
                regional_stats: BTreeMap::from([("North".to_string(), stats)]),
                resource_data: Some(ResourceData { resource_type: "fixlat".into(), units: "kWh/m2/day".into() }),
            }),
            errors: vec![],
        };
        let body = json!({"inputs": {"jobId": "tpot_result_x_1"}, "outputs": result.outputs_value(), "errors": []});
        assert!(body["outputs"]["results"]["regional_stats"]["North"].get("regional_min").is_some());
        assert_eq!(JobResult::from_value(&body).unwrap(), result);
    }

    #[test]
    fn classes_table_has_one_row_per_class() {
        let classes = [
            ClassStats { nameplate_capacity_mw: 1.0, ac_generation_mwh: 2.0, land_area_sq_km: 3.0, min: 0.0, max: 4.0 },
            ClassStats { nameplate_capacity_mw: 4.0, ac_generation_mwh: 5.0, land_area_sq_km: 6.0, min: 4.0, max: 4.5 },
        ];
        let batch = classes_to_record_batch(&classes).unwrap();
        assert_eq!((batch.num_rows(), batch.num_columns()), (2, 5));
        assert_eq!(batch.schema().field(2).metadata()["unit"], "MW");
    }

    #[test]
    fn configuration_table_has_one_row_per_field() {
        let batch = configuration_to_record_batch(&sample_config()).unwrap();
        assert_eq!(batch.num_rows(), 9);
        let names = batch.column(8).as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(names.value(8), "limitByWindSpeed");
    }

    #[test]
    fn numbers_are_written_like_the_service() {
        assert_eq!(format_number(3.0), "3");
        assert_eq!(format_number(0.5), "0.5");
        assert_eq!(number_value(36.0), json!(36));
        assert_eq!(number_value(26.98), json!(26.98));
        assert_eq!(number_of(&json!(" 12 ")), Some(12.0));
        assert_eq!(number_of(&json!("NaN")), None);
    }
}
