//! `corral-cli` as a process: its commands on the fixture home, and the faults only a process
//! shows (concurrent writers, relative paths, terminal escapes). The fixture modules are the
//! engine tests' own.
// Test code may unwrap, index, panic and print: a failure should stop the test right there.
#![allow(
    clippy::cast_precision_loss,
    clippy::cloned_ref_to_slice_refs,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::print_stdout,
    clippy::type_complexity,
    clippy::unused_self,
    clippy::unwrap_used,
    dead_code
)]

#[path = "../engine/home.rs"]
mod home;
#[path = "../engine/support.rs"]
mod support;
#[path = "../engine/world.rs"]
mod world;

mod cleanup;
mod commands;
mod desktop;
mod reliability;
mod search;
mod status;
