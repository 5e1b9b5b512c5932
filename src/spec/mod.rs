//! What the service documents fix, in one place that everything else reads: the routes of every
//! endpoint (`routes`) and the vocabularies (`vocabulary`). The spec's request limits are
//! `limits::request_rates`, beside sunflux's own caps.

#![cfg_attr(
    not(test),
    deny(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_possible_wrap, clippy::indexing_slicing)
)]
pub mod routes;
pub mod vocabulary;
