//! Engine integration tests: one binary, one module per area.
// Test code may unwrap, index, panic and print: a failure should stop the test right there. A
// scenario test may run long: it reads top to bottom as the story it checks.
#![allow(
    clippy::cast_precision_loss,
    clippy::cloned_ref_to_slice_refs,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::too_many_lines,
    clippy::print_stdout,
    clippy::type_complexity,
    clippy::unused_self,
    clippy::unwrap_used,
    dead_code
)]

mod adopt;
mod adoption_store;
mod architecture;
mod attribution;
mod companions;
mod corpus;
mod cost;
mod crash;
mod desktop;
mod desktop_restore;
mod discovery;
mod export;
mod fleet;
mod home;
mod import;
mod jsonl;
mod live;
mod metadata;
mod names;
mod occupancy;
mod paths;
mod placement;
mod quarantine;
mod reliability;
mod reopen;
mod runs;
mod search;
mod search_bounds;
mod storage;
mod streamed_listing;
mod support;
mod synthetic;
mod transcript;
mod watch;
mod world;
