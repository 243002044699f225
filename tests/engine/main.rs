//! Engine integration tests: one binary, one module per area.

mod support;
mod cli;
mod discovery;
mod paths;
