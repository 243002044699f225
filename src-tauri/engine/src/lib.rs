//! # corral-engine
//!
//! Everything Corral knows about Claude Code sessions, with no UI and no Tauri: it discovers
//! transcripts under a Claude home, reads them with bounded memory, attributes each one to the
//! herdctl agent that owns it, names them, and (in later modules) adopts and places them safely.
//!
//! The engine is synchronous and takes its inputs explicitly (paths, the current time).
//! Mutations are planned first (a pure, previewable plan) and then applied (a report).

pub mod adoptions;
pub mod atomic_write;
pub mod attribution;
pub mod catalog;
pub mod error;
pub mod files;
pub mod fleet;
pub mod index;
pub mod jsonl;
pub mod metadata;
pub mod model;
pub mod names;
pub mod paths;
pub mod transcript;

pub use catalog::{Catalog, CatalogConfig, ListOptions, Listing, SessionDetails};
pub use error::{Error, ErrorKind, ErrorPayload, Result};
pub mod adoption;
pub mod import;
pub mod occupancy;
pub mod placement;
pub mod runs;
pub mod synthetic;
