//! sunflux: the Rust core. Pure-Rust modules know nothing of Python; only `python/` does.
//!
//! No code path may panic on what a user or a server gives sunflux. Clippy holds the crate to
//! that outside tests (no `unwrap`, `expect`, `panic!`, `unreachable!`, no duration from unchecked
//! seconds — see clippy.toml), and the modules that read data from outside — `transport`,
//! `services`, `formats`, `python` — also to no lossy numeric casts and no indexing that can
//! panic. `tests/python/project/test_project.py` runs clippy.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented,
        clippy::disallowed_methods
    )
)]

pub mod calendar;
pub mod error;
pub mod files;
pub mod formats;
pub mod geodesy;
pub mod places;
pub mod limits;
pub mod embedded;
pub mod optimizer;
pub mod python;
pub mod pvwatts;
pub mod redact;
pub mod runtime;
pub mod services;
pub mod spec;
pub mod transport;
pub mod wind;
