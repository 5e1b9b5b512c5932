//! The PV engines' integration tests against the reference implementation's outputs, one test
//! binary for both engines: `pvwatts_reference` (v5) and `pvwatts_v8_reference` (v8).

mod pvwatts_reference;
mod pvwatts_v8_reference;
