//! `fixtures/home-basic` copied into a temp dir, shared by the engine tests and the CLI tests.

use std::path::{Path, PathBuf};

use corral_engine::{Catalog, CatalogConfig};

use crate::support::fixture_copy;

/// `000000XX-0000-4000-8000-0000000000XX`
pub fn sid(short: &str) -> String {
    let n = u64::from_str_radix(short, 16).unwrap();
    format!("{n:08x}-0000-4000-8000-{n:012x}")
}

pub struct Home {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub data: PathBuf,
}

impl Home {
    pub fn new() -> Self {
        let (tmp, root) = fixture_copy("home-basic");
        let data = tmp.path().join("data");
        Self { _tmp: tmp, root, data }
    }
    pub fn claude(&self) -> PathBuf {
        self.root.join("claude")
    }
    pub fn state(&self) -> PathBuf {
        self.root.join("fleet/.herdctl")
    }
    pub fn catalog(&self) -> Catalog {
        self.catalog_with_data(&self.data)
    }
    /// A catalog of the same home with its own data dir (a fresh index: a cold listing).
    pub fn catalog_with_data(&self, data: &Path) -> Catalog {
        Catalog::open(CatalogConfig {
            claude_home: self.claude(),
            fleet_file: Some(self.root.join("fleet/herdctl.yaml")),
            state_dir: None,
            data_dir: data.to_path_buf(),
        })
        .unwrap()
    }
    pub fn catalog_without_fleet(&self) -> Catalog {
        Catalog::open(CatalogConfig {
            claude_home: self.claude(),
            fleet_file: None,
            state_dir: None,
            data_dir: self.data.clone(),
        })
        .unwrap()
    }
    pub fn transcript(&self, folder: &str, short: &str) -> PathBuf {
        self.claude().join("projects").join(folder).join(format!("{}.jsonl", sid(short)))
    }
}
