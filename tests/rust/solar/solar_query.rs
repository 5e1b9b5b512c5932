//! Solar dataset query, end to end in pure Rust: the embedded endpoint's replies in every format
//! parse back to the same result, and real response bodies (tests/data) parse.

use sunflux::formats::Format;
use sunflux::embedded::catalog::Catalog;
use sunflux::embedded::solar::{answer, data_query_reply};
use sunflux::services::solar::{
    parse_data_query, station_rows, stations_to_record_batch, validate_data_query, DataQueryParams, QueryVersion,
    RawDataQuery, StationQuery,
};

const KEY: &str = "0123456789abcdefghij0123456789abcdefghij";
const FORMATS: [Format; 3] = [Format::Json, Format::Xml, Format::Csv];
const VERSIONS: [QueryVersion; 2] = [QueryVersion::V1, QueryVersion::V2];

fn params(lat: f64, lon: f64, radius: u32, all: bool, version: QueryVersion, format: Format) -> DataQueryParams {
    DataQueryParams { lat, lon, radius, all, version, format }
}

fn query_of(params: &DataQueryParams) -> Vec<(String, String)> {
    params.query_pairs().into_iter().map(|(name, value)| (name.to_string(), value)).collect()
}

/// What the client should see: the service's own result, minus the api_key, and without the
/// version in csv (which does not carry it).
fn expected(params: &DataQueryParams, catalog: &Catalog) -> StationQuery {
    let inputs = query_of(params).into_iter().map(|(name, value)| (name, value.into())).collect();
    let mut result = answer(params, inputs, catalog);
    if params.format == Format::Csv {
        result.version = None;
    }
    result
}

fn fetch(params: &DataQueryParams, catalog: &Catalog) -> (u16, String, Vec<u8>) {
    let reply = data_query_reply(params.version, params.format, &query_of(params), KEY, catalog);
    (reply.status, reply.content_type.to_string(), reply.body)
}

#[test]
fn every_format_round_trips_to_the_same_result() {
    let catalog = Catalog::synthetic();
    let places = [
        (40.0, -105.0, 100, false),
        (40.0, -105.0, 50, true),
        (40.0, -105.0, 0, false),
        (48.86, 2.35, 150, true),
        (0.0, -140.0, 100, true),
        (80.0, 0.0, 100, false),
        (-33.9, 18.4, 2000, false),
    ];
    for (lat, lon, radius, all) in places {
        for version in VERSIONS {
            for format in FORMATS {
                let params = params(lat, lon, radius, all, version, format);
                let (status, content_type, body) = fetch(&params, &catalog);
                assert_eq!(status, 200, "{params:?}");
                assert_eq!(content_type, format.content_type());
                let parsed = parse_data_query(&body, &params).unwrap_or_else(|e| panic!("{params:?}: {e}"));
                assert_eq!(parsed, expected(&params, &catalog), "{params:?}");
            }
        }
    }
}

#[test]
fn datasets_without_a_station_are_null_with_a_warning() {
    let catalog = Catalog::synthetic();
    for format in FORMATS {
        let params = params(0.0, -140.0, 100, false, QueryVersion::V1, format);
        let parsed = parse_data_query(&fetch(&params, &catalog).2, &params).unwrap();
        let codes: Vec<&str> = parsed.closest.iter().map(|(code, _)| code.as_str()).collect();
        assert_eq!(codes, ["tmy2", "tmy3", "intl", "satdb"]);
        assert!(parsed.closest_station("tmy2").is_none() && parsed.closest_station("intl").is_none());
        assert!(parsed.closest_station("satdb").is_some(), "open water still has grid nodes");
        assert_eq!(
            parsed.warnings,
            [
                "No tmy2 data found for lat=0.0 lon=-140.0",
                "No tmy3 data found for lat=0.0 lon=-140.0",
                "No intl data found for lat=0.0 lon=-140.0"
            ]
        );
    }
    let xml = fetch(&params(0.0, -140.0, 100, false, QueryVersion::V1, Format::Xml), &catalog).2;
    assert!(String::from_utf8(xml).unwrap().contains("<tmy2 nil=\"true\"/>"));
}

#[test]
fn all_stations_are_listed_nearest_first_in_v1_only() {
    let catalog = Catalog::synthetic();
    let v1 = params(40.0, -105.0, 100, true, QueryVersion::V1, Format::Json);
    let result = parse_data_query(&fetch(&v1, &catalog).2, &v1).unwrap();
    let all = result.all_stations.as_ref().expect("v1 all=1 lists stations");
    assert!(all.len() > 20);
    assert!(all.windows(2).all(|pair| pair[0].distance <= pair[1].distance));
    assert!(all.iter().all(|s| s.dataset.is_some() && s.distance <= 160_935));
    for (code, closest) in &result.closest {
        let first = all.iter().find(|s| s.dataset.as_deref() == Some(code.as_str()));
        assert_eq!(first, closest.as_ref(), "closest {code} is the nearest listed");
    }
    let xml = fetch(&DataQueryParams { format: Format::Xml, ..v1 }, &catalog).2;
    assert!(String::from_utf8(xml).unwrap().contains("<all-stations type=\"array\"><all-station>"));

    let v2 = DataQueryParams { version: QueryVersion::V2, ..v1 };
    let result = parse_data_query(&fetch(&v2, &catalog).2, &v2).unwrap();
    assert!(result.all_stations.is_none());
}

#[test]
fn v2_echoes_the_key_but_the_parser_drops_it() {
    let catalog = Catalog::synthetic();
    for version in VERSIONS {
        let params = params(40.0, -105.0, 100, false, version, Format::Json);
        let body = fetch(&params, &catalog).2;
        let raw: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let echoed = raw["inputs"].get("api_key").and_then(|k| k.as_str());
        assert_eq!(echoed, (version == QueryVersion::V2).then_some(KEY));
        assert_eq!(raw["metadata"], serde_json::json!({}));
        assert!(raw["version"].is_string());
        let parsed = parse_data_query(&body, &params).unwrap();
        assert!(!parsed.inputs.contains_key("api_key"));
        assert_eq!(parsed.inputs["lat"], "40");
    }
}

#[test]
fn v2_records_add_source_and_satdb_country() {
    let catalog = Catalog::synthetic();
    let v2 = params(40.0, -105.0, 100, false, QueryVersion::V2, Format::Json);
    let result = parse_data_query(&fetch(&v2, &catalog).2, &v2).unwrap();
    let satdb = result.closest_station("satdb").unwrap();
    assert_eq!(satdb.country.as_deref(), Some("United States"));
    assert!(satdb.resolution.is_some());
    assert!(result
        .closest
        .iter()
        .flat_map(|(_, s)| s)
        .all(|s| s.weather_data_source.as_deref().is_some_and(|source| source.contains("synthetic"))));
    assert!(result.closest_station("tmy3").unwrap().country.is_none());
    let error = satdb.v6_file_id().unwrap_err();
    assert!(error.contains("v1 ids work only with the v6 estimator"), "{error}");

    let v1 = DataQueryParams { version: QueryVersion::V1, ..v2 };
    let result = parse_data_query(&fetch(&v1, &catalog).2, &v1).unwrap();
    let tmy3 = result.closest_station("tmy3").unwrap();
    assert!(tmy3.weather_data_source.is_none() && tmy3.country.is_none());
    let file_id = tmy3.v6_file_id().unwrap();
    assert_eq!(catalog.station_by_id(file_id).unwrap().v1_id, file_id);
}

#[test]
fn invalid_requests_get_422_with_every_problem() {
    let catalog = Catalog::synthetic();
    let query: Vec<(String, String)> =
        [("lat", "95"), ("lon", "abc"), ("radius", "0"), ("all", "1")].map(|(k, v)| (k.into(), v.into())).to_vec();
    for format in FORMATS {
        let reply = data_query_reply(QueryVersion::V1, format, &query, KEY, &catalog);
        assert_eq!(reply.status, 422);
        let expected_format = if format == Format::Csv { Format::Json } else { format };
        assert_eq!(reply.content_type, expected_format.content_type());
        let params = params(0.0, 0.0, 0, false, QueryVersion::V1, format);
        let parsed = parse_data_query(&reply.body, &params).unwrap();
        assert_eq!(
            parsed.errors,
            [
                "lat must be a number between -90 and 90 (got 95)",
                "lon must be a number between -180 and 180 (got \"abc\")",
                "all=1 needs a radius greater than 0: give radius between 1 and 2000 miles, or use all=0",
            ]
        );
        assert!(parsed.closest.is_empty());
        assert_eq!(parsed.inputs["lat"], "95");
    }
    let missing = data_query_reply(QueryVersion::V2, Format::Json, &[], KEY, &catalog);
    let raw: serde_json::Value = serde_json::from_slice(&missing.body).unwrap();
    assert_eq!(raw["errors"][0], "lat is required: give a number between -90 and 90");
    assert_eq!(raw["errors"][1], "lon is required: give a number between -180 and 180");
}

#[test]
fn client_validation_matches_the_service() {
    let raw = RawDataQuery { lat: 40.5.into(), lon: (-105i64).into(), all: true.into(), ..RawDataQuery::default() };
    let params = validate_data_query(&raw).unwrap();
    assert_eq!(
        params.query_pairs(),
        [("lat", "40.5".into()), ("lon", "-105".into()), ("radius", "100".into()), ("all", "1".into())]
    );
}

#[test]
fn the_station_table_has_one_typed_row_per_station() {
    use arrow_array::{Array, BooleanArray, Int64Array, StringArray};
    use arrow_schema::DataType;
    let catalog = Catalog::synthetic();
    let v1 = params(40.0, -105.0, 100, true, QueryVersion::V1, Format::Json);
    let result = parse_data_query(&fetch(&v1, &catalog).2, &v1).unwrap();
    let batch = stations_to_record_batch(&result).unwrap();
    assert_eq!(batch.num_rows(), result.all_stations.as_ref().unwrap().len());
    assert_eq!(batch.num_rows(), station_rows(&result).len());
    let schema = batch.schema();
    assert_eq!(schema.field_with_name("distance").unwrap().data_type(), &DataType::Int64);
    assert_eq!(schema.field_with_name("distance").unwrap().metadata()["unit"], "m");
    assert_eq!(schema.field_with_name("lat").unwrap().data_type(), &DataType::Float64);
    let closest = batch.column_by_name("closest").unwrap().as_any().downcast_ref::<BooleanArray>().unwrap();
    assert_eq!(closest.true_count(), result.closest.iter().filter(|(_, s)| s.is_some()).count());
    let datasets = batch.column_by_name("dataset").unwrap().as_any().downcast_ref::<StringArray>().unwrap();
    let resolution = batch.column_by_name("resolution").unwrap().as_any().downcast_ref::<Int64Array>().unwrap();
    for row in 0..batch.num_rows() {
        assert_eq!(resolution.is_null(row), datasets.value(row) != "satdb");
    }
    assert_eq!(batch.column_by_name("country").unwrap().null_count(), batch.num_rows());
}

#[test]
fn real_v1_body_with_all_stations_parses() {
    let params = params(40.0, -105.0, 50, true, QueryVersion::V1, Format::Json);
    let result = parse_data_query(include_bytes!("../../data/data_query_v1_all.json"), &params).unwrap();
    assert_eq!(result.version.as_deref(), Some("1.3.1"));
    assert_eq!(result.warnings, ["No intl data found for lat=40.0 lon=-105.0"]);
    let codes: Vec<&str> = result.closest.iter().map(|(code, _)| code.as_str()).collect();
    assert_eq!(codes, ["tmy2", "tmy3", "intl", "nsrdb"]);
    let tmy2 = result.closest_station("tmy2").unwrap();
    assert_eq!((tmy2.id.as_str(), tmy2.timezone, tmy2.elevation, tmy2.distance), ("0-94018", -7.0, 1689, 24977));
    assert_eq!(tmy2.v6_file_id(), Ok("0-94018"));
    assert_eq!(result.closest_station("nsrdb").unwrap().resolution, Some(4));
    let all = result.all_stations.as_ref().unwrap();
    let datasets: Vec<&str> = all.iter().filter_map(|s| s.dataset.as_deref()).collect();
    assert_eq!(datasets, ["nsrdb", "nsrdb", "tmy3", "tmy2", "tmy3"]);
    let batch = stations_to_record_batch(&result).unwrap();
    assert_eq!(batch.num_rows(), 5);
}

#[test]
fn real_v2_body_parses_without_the_key() {
    let params = params(40.0, -105.0, 0, false, QueryVersion::V2, Format::Json);
    let result = parse_data_query(include_bytes!("../../data/data_query_v2_radius0.json"), &params).unwrap();
    assert!(!result.inputs.contains_key("api_key"));
    assert_eq!(result.inputs["radius"], "0");
    assert!(result.all_stations.is_none());
    let intl = result.closest_station("intl").unwrap();
    assert_eq!((intl.id.as_str(), intl.city.as_str(), intl.distance), ("2-26110-tm3", "YELLOWKNIFE", 2495062));
    assert_eq!(intl.weather_data_source.as_deref(), Some("PVWatts International"));
    let nsrdb = result.closest_station("nsrdb").unwrap();
    assert_eq!(nsrdb.country.as_deref(), Some("United States"));
    assert!(nsrdb.v6_file_id().is_err());
    assert_eq!(stations_to_record_batch(&result).unwrap().num_rows(), 4);
}

#[test]
fn old_v1_body_keeps_the_perez_dataset() {
    let params = params(40.0, -105.0, 100, false, QueryVersion::V1, Format::Json);
    let result = parse_data_query(include_bytes!("../../data/data_query_v1_perez.json"), &params).unwrap();
    let perez = result.closest_station("perez").unwrap();
    assert_eq!(
        (perez.city.as_str(), perez.resolution, perez.dataset.as_deref()),
        ("satellite data", Some(10), Some("perez"))
    );
}

#[test]
fn numbers_given_as_text_or_floats_are_accepted() {
    let body = br#"{"version":"1.0","outputs":{"tmy2":{"id":94018,"lat":"40.0167","lon":"-105.25",
        "timezone":"5.5","elevation":1689.6,"distance":"24977","resolution":""}}}"#;
    let params = params(40.0, -105.0, 100, false, QueryVersion::V1, Format::Json);
    let station = parse_data_query(body, &params).unwrap().closest_station("tmy2").cloned().unwrap();
    assert_eq!((station.id.as_str(), station.lat, station.timezone), ("94018", 40.0167, 5.5));
    assert_eq!((station.elevation, station.distance, station.resolution), (1690, 24977, None));
    assert_eq!((station.city.as_str(), station.state.as_str()), ("", ""));
}

#[test]
fn malformed_bodies_are_errors_not_panics() {
    let json = params(40.0, -105.0, 100, false, QueryVersion::V1, Format::Json);
    let xml = DataQueryParams { format: Format::Xml, ..json };
    let csv = DataQueryParams { format: Format::Csv, ..json };
    assert!(parse_data_query(b"not json", &json).is_err());
    assert!(parse_data_query(b"[1,2]", &json).is_err());
    assert!(parse_data_query(br#"{"outputs":{"tmy2":{"id":"0-1"}}}"#, &json).is_err());
    assert!(parse_data_query(br#"{"outputs":{"tmy2":7}}"#, &json).is_err());
    assert!(parse_data_query(b"<response><outputs>", &xml).is_err());
    assert!(parse_data_query(b"", &csv).is_err());
    assert!(parse_data_query(b"dataset,id,lat\ntmy2,0-1,north\n", &csv).is_err());
    assert!(parse_data_query(
        b"dataset,closest,id,lat,lon,timezone,elevation,distance\ntmy2,maybe,0-1,1,2,3,4,5\n",
        &csv
    )
    .is_err());
}
