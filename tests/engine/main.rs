//! Engine integration tests: one binary, one module per area.

mod adoptions;
mod attribution;
mod cli;
mod discovery;
mod fleet;
mod metadata;
mod paths;
mod support;
mod synthetic;
mod transcript;
