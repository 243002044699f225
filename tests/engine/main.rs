//! Engine integration tests: one binary, one module per area.

mod adoption;
mod adoptions;
mod attribution;
mod cli;
mod companions;
mod corpus;
mod crash;
mod discovery;
mod fleet;
mod import;
mod jsonl;
mod metadata;
mod occupancy;
mod paths;
mod placement;
mod runs;
mod support;
mod synthetic;
mod transcript;
