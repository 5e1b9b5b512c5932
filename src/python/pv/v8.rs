//! Binding of the PV estimator v8 (the live service's current estimator): validated client-side
//! like v6, answered in the same `PvEstimate` shape.

use pyo3::prelude::*;

use crate::python::client::PyTransport;
use crate::python::pending::PyPendingCall;
use crate::python::convert::raw_value;
use super::{estimate_call, raw_estimate};
use crate::error::Error;
use crate::services::pv_estimator::v8::{validate_estimate_v8, RawEstimateV8, RawV8Inputs};
use crate::transport::Endpoint;

/// Validates (every problem at once), estimates with v8 and parses.
///
/// Returns a `PyPendingCall` of `PyPvEstimate`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (client, system_capacity, module_type, losses, array_type, tilt, azimuth, lat=None, lon=None, file_id=None, dataset=None, radius=None, timeframe=None, dc_ac_ratio=None, gcr=None, inv_eff=None, bifaciality=None, albedo=None, use_wf_albedo=None, soiling=None, en_snowloss=None, format=None, callback=None, trace=false))]
pub fn pv_estimate_v8(
    client: &PyTransport,
    system_capacity: &Bound<'_, PyAny>,
    module_type: &Bound<'_, PyAny>,
    losses: &Bound<'_, PyAny>,
    array_type: &Bound<'_, PyAny>,
    tilt: &Bound<'_, PyAny>,
    azimuth: &Bound<'_, PyAny>,
    lat: Option<&Bound<'_, PyAny>>,
    lon: Option<&Bound<'_, PyAny>>,
    file_id: Option<&Bound<'_, PyAny>>,
    dataset: Option<&Bound<'_, PyAny>>,
    radius: Option<&Bound<'_, PyAny>>,
    timeframe: Option<&Bound<'_, PyAny>>,
    dc_ac_ratio: Option<&Bound<'_, PyAny>>,
    gcr: Option<&Bound<'_, PyAny>>,
    inv_eff: Option<&Bound<'_, PyAny>>,
    bifaciality: Option<&Bound<'_, PyAny>>,
    albedo: Option<&Bound<'_, PyAny>>,
    use_wf_albedo: Option<&Bound<'_, PyAny>>,
    soiling: Option<&Bound<'_, PyAny>>,
    en_snowloss: Option<&Bound<'_, PyAny>>,
    format: Option<&Bound<'_, PyAny>>,
    callback: Option<&Bound<'_, PyAny>>,
    trace: bool,
) -> PyResult<PyPendingCall> {
    let raw = RawEstimateV8 {
        base: raw_estimate(&[
            Some(system_capacity), Some(module_type), Some(losses), Some(array_type), Some(tilt), Some(azimuth), lat, lon, file_id,
            dataset, radius, timeframe, dc_ac_ratio, gcr, inv_eff, format, callback,
        ]),
        options: RawV8Inputs {
            bifaciality: raw_value(bifaciality),
            albedo: raw_value(albedo),
            use_wf_albedo: raw_value(use_wf_albedo),
            soiling: raw_value(soiling),
            en_snowloss: raw_value(en_snowloss),
        },
    };
    let params = validate_estimate_v8(&raw).map_err(|problems| client.error(Error::Parameter(problems)))?;
    let query = params.query_pairs().into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    let endpoint = Endpoint::PvEstimatorV8 { format: params.format.suffix().to_owned() };
    Ok(client.pending(estimate_call(client, endpoint, query, params.format, trace)))
}
