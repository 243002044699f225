//! Engine integration tests: one binary, one module per area.

mod cli;
mod discovery;
mod paths;
mod support;
mod transcript;
mod jsonl;
mod fleet;
mod attribution;
mod metadata;
mod adoptions;
mod synthetic;
mod import;
mod placement;
mod runs;
mod adoption;
mod occupancy;
mod crash;
mod corpus;
