//! What the service documents fix, in one place that everything else reads: the routes of every
//! endpoint (`routes`), the per-key request limits (`limits`) and the vocabularies
//! (`vocabulary`).

#![cfg_attr(
    not(test),
    deny(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_possible_wrap, clippy::indexing_slicing)
)]
pub mod limits;
pub mod routes;
pub mod vocabulary;
