//! # corral-engine
//!
//! Everything Corral knows about Claude Code sessions, with no UI and no Tauri: it discovers
//! transcripts under a Claude home, reads them with bounded memory, attributes each one to the
//! herdctl agent that owns it, names them, and (in later modules) adopts and places them safely.
//!
//! The engine is synchronous and takes its inputs explicitly (paths, the current time).
//! Mutations are planned first (a pure, previewable plan) and then applied (a report).

// Every public item says what it is: the engine is read by the shell, the CLI and its tests.
#![deny(missing_docs)]

// Foundations: they depend only on one another, never on a module further down.
pub mod atomic_write;
pub mod error;
pub mod fault;
pub mod files;
pub mod jsonl;
pub mod model;
pub mod owned;
pub mod paths;
pub mod pricing;
pub mod printable;
pub mod stable_hash;
pub mod time;

// Reading: transcripts, the fleet, herdctl's state, Corral's index.
pub mod adoption_store;
pub mod attribution;
pub mod claude_settings;
pub mod desktop;
pub mod fleet;
pub mod index;
pub mod job_states;
pub mod metadata;
pub mod names;
pub mod occupancy;
pub mod transcript;

// The facade every caller uses, then the mutations built on it:
// commands → plan/apply (`import`, `adopt`) → journal (`runs`) → placement → files.
pub mod adopt;

// Live updates: which transcript folders changed (plain callbacks; the app forwards them).
pub mod catalog;
pub mod claude_titles;
pub mod costs;
pub mod export;
pub mod format_survey;
pub mod import;
pub mod live;
pub mod lost_questions;
pub mod moving;
pub mod placement;
pub mod quarantine;
pub mod renames;
pub mod reopen;
pub mod resume;
pub mod runs;
pub mod search;
pub mod storage;
pub mod watch;

pub use catalog::{
    Catalog, CatalogConfig, ListOptions, Listing, ListingSoFar, ScanObserver, ScanProgress,
    SessionDetails,
};
pub use error::{Error, ErrorKind, ErrorPayload, Result};
