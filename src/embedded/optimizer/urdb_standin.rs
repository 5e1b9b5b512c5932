//! A loopback stand-in for the Utility Rate Database API (`GET /utility_rates?version=…&
//! format=json&detail=full&getpage=<label>` or `&ratesforutility=<name>`, answering
//! `{"items": [rate, …]}` with full rate objects; an unknown label gives no items). It serves a
//! few **synthetic** rates of a made-up utility, each saying so in its name and description,
//! so that resolving `urdb_label` can be tested offline. No real rate is copied here.
//!
//! With `any_label` (for conformance runs on real scenarios), every well-formed label that is
//! not in the catalogue is answered with one of the synthetic rates (chosen by a hash of the
//! label), relabelled and named as a stand-in for that label.

use serde_json::{json, Value};

use crate::embedded::reply::ServiceReply;

/// The made-up utility of every synthetic rate.
pub const SYNTHETIC_UTILITY: &str = "Sunflux Synthetic Utility";

/// Labels of the catalogue, in order.
pub const SYNTHETIC_LABELS: [&str; 5] =
    ["5fa1e0000000000000000001", "5fa1e0000000000000000002", "5fa1e0000000000000000003", "5fa1e0000000000000000004", "5fa1e0000000000000000005"];

fn months_of(hours_by_month: impl Fn(usize) -> [u32; 24]) -> Value {
    json!((0..12).map(hours_by_month).collect::<Vec<_>>())
}

/// Weekday periods of a summer-peaking TOU: 0 off-peak, 1 mid-peak (08–12, 18–22), 2 peak
/// (12–18), peaks only June–September; weekends off-peak.
fn tou_weekday(month: usize) -> [u32; 24] {
    std::array::from_fn(|hour| match (hour, (5..9).contains(&month)) {
        (12..=17, true) => 2,
        (8..=11 | 18..=21, _) => 1,
        _ => 0,
    })
}

fn rate(index: usize, name: &str, description: &str, mut fields: Value) -> Value {
    let Some(object) = fields.as_object_mut() else {
        return fields;
    };
    object.insert("label".into(), json!(SYNTHETIC_LABELS[index]));
    object.insert("name".into(), json!(format!("{name} (synthetic, sunflux stand-in)")));
    object.insert("utility".into(), json!(SYNTHETIC_UTILITY));
    object.insert("description".into(), json!(format!("Synthetic rate served by the sunflux stand-in for tests; not a real tariff. {description}")));
    object.insert("sector".into(), json!("Commercial"));
    object.insert("startdate".into(), json!(1_577_836_800 + 86_400 * index as i64));
    object.insert("uri".into(), json!(""));
    fields
}

/// The synthetic catalogue.
pub fn catalogue() -> Vec<Value> {
    let flat = |period: u32| months_of(move |_| [period; 24]);
    vec![
        rate(0, "Flat energy with monthly demand", "One energy rate, a flat monthly demand charge, a fixed charge per month.", json!({
            "energyweekdayschedule": flat(0), "energyweekendschedule": flat(0),
            "energyratestructure": [[{"rate": 0.11, "unit": "kWh"}]],
            "flatdemandstructure": [[{"rate": 12.0}]], "flatdemandmonths": vec![0; 12],
            "fixedchargefirstmeter": 25.0, "fixedchargeunits": "$/month",
        })),
        rate(1, "Summer TOU with tiered TOU demand", "Three energy periods, TOU demand with rising tiers, flat demand, a daily fixed charge and a monthly minimum.", json!({
            "energyweekdayschedule": months_of(tou_weekday), "energyweekendschedule": flat(0),
            "energyratestructure": [[{"rate": 0.08, "unit": "kWh"}], [{"rate": 0.12, "unit": "kWh"}], [{"rate": 0.24, "adj": 0.01, "unit": "kWh"}]],
            "demandweekdayschedule": months_of(tou_weekday), "demandweekendschedule": flat(0),
            "demandratestructure": [[{"rate": 0.0}], [{"rate": 4.0}], [{"rate": 9.0, "max": 150.0}, {"rate": 14.0}]],
            "flatdemandstructure": [[{"rate": 6.0}]], "flatdemandmonths": vec![0; 12],
            "fixedchargefirstmeter": 1.5, "fixedchargeunits": "$/day",
            "mincharge": 40.0, "minchargeunits": "$/month",
        })),
        rate(2, "Declining block energy", "Energy in two blocks whose second block is cheaper (a tier whose price falls with use).", json!({
            "energyweekdayschedule": flat(0), "energyweekendschedule": flat(0),
            "energyratestructure": [[{"rate": 0.14, "max": 20000.0, "unit": "kWh"}, {"rate": 0.10, "unit": "kWh"}]],
            "flatdemandstructure": [[{"rate": 8.0}]], "flatdemandmonths": vec![0; 12],
        })),
        rate(3, "Demand with lookback", "Flat demand in two seasons with a 60 % lookback over the 11 months before.", json!({
            "energyweekdayschedule": flat(0), "energyweekendschedule": flat(0),
            "energyratestructure": [[{"rate": 0.09, "unit": "kWh"}]],
            "flatdemandstructure": [[{"rate": 9.0}], [{"rate": 13.0}]], "flatdemandmonths": [0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0],
            "lookbackpercent": 0.6, "lookbackrange": 11,
        })),
        rate(4, "Net billing TOU", "Two energy periods with export (sell) rates and a yearly minimum.", json!({
            "energyweekdayschedule": months_of(|m| std::array::from_fn(|h| u32::from((16..21).contains(&h) && (4..10).contains(&m)))),
            "energyweekendschedule": flat(0),
            "energyratestructure": [[{"rate": 0.13, "sell": 0.04, "unit": "kWh"}], [{"rate": 0.31, "sell": 0.09, "unit": "kWh"}]],
            "mincharge": 300.0, "minchargeunits": "$/year",
        })),
    ]
}

/// FNV-1a of a text (chooses the stand-in rate of a label outside the catalogue).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3))
}

fn is_label(text: &str) -> bool {
    text.len() == 24 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The answer to one query (decoded pairs).
pub fn reply(pairs: &[(String, String)], any_label: bool) -> ServiceReply {
    let get = |name: &str| pairs.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let catalogue = catalogue();
    let items: Vec<Value> = if let Some(label) = get("getpage") {
        match catalogue.iter().find(|rate| rate["label"] == label) {
            Some(rate) => vec![rate.clone()],
            None if any_label && is_label(label) => {
                let mut stand_in = catalogue[(fnv1a(label) % catalogue.len() as u64) as usize].clone();
                let name = stand_in["name"].as_str().unwrap_or_default().to_string();
                stand_in["label"] = json!(label);
                stand_in["name"] = json!(format!("{name} standing in for URDB label {label}"));
                vec![stand_in]
            }
            None => Vec::new(),
        }
    } else if let Some(utility) = get("ratesforutility") {
        if utility == SYNTHETIC_UTILITY || any_label {
            catalogue
                .into_iter()
                .map(|mut rate| {
                    rate["utility"] = json!(utility);
                    rate
                })
                .collect()
        } else {
            Vec::new()
        }
    } else {
        return ServiceReply::json(400, &json!({"error": {"code": "INVALID_REQUEST", "message": "give getpage=<label> or ratesforutility=<utility name>"}}));
    };
    ServiceReply::json(200, &json!({"items": items}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optimizer::tariff::read_urdb;

    fn query(pairs: &[(&str, &str)]) -> Value {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        serde_json::from_slice(&reply(&pairs, false).body).unwrap()
    }

    #[test]
    fn every_synthetic_rate_reads_and_says_it_is_synthetic() {
        for rate in catalogue() {
            assert!(rate["name"].as_str().unwrap().contains("synthetic"));
            read_urdb(&rate, 2017, 1).unwrap_or_else(|e| panic!("{}: {e}", rate["name"]));
        }
    }

    #[test]
    fn labels_and_utilities_are_looked_up() {
        assert_eq!(query(&[("getpage", SYNTHETIC_LABELS[1])])["items"][0]["label"], SYNTHETIC_LABELS[1]);
        assert_eq!(query(&[("getpage", "5ed6c1a15457a3367add15ae")])["items"], json!([]));
        assert_eq!(query(&[("ratesforutility", SYNTHETIC_UTILITY)])["items"].as_array().unwrap().len(), 5);
        let pairs = vec![("getpage".to_string(), "5ed6c1a15457a3367add15ae".to_string())];
        let stand_in: Value = serde_json::from_slice(&reply(&pairs, true).body).unwrap();
        assert_eq!(stand_in["items"][0]["label"], "5ed6c1a15457a3367add15ae");
        assert!(stand_in["items"][0]["name"].as_str().unwrap().contains("standing in for URDB label"));
    }
}
