//! Command-level tests: the real command table on Tauri's mock runtime, invoked over IPC exactly
//! as the UI does (origin `tauri://localhost`), against a copy of `fixtures/e2e-home`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::needless_pass_by_value
)]

mod bindings;
mod commands;
mod import;
mod support;
mod units;
mod watcher;
