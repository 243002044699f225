//! Loading a herdctl fleet (`herdctl.yaml`) as herdctl does: agents referenced by path,
//! sub-fleets, dot-qualified names, `working_directory` as a string or `{root}`, `docker.enabled`.
//!
//! CONTRACT (owned by the fleet/attribution developer).

use std::path::{Path, PathBuf};

use crate::error::Result;

/// One agent of a fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// `fleetPath.join(".") + "." + name`; a root agent's qualified name is its bare name.
    pub qualified_name: String,
    pub name: String,
    pub fleet_path: Vec<String>,
    /// Absolute working directory (default: the agent file's folder).
    pub working_directory: Option<PathBuf>,
    pub docker: bool,
    pub config_file: PathBuf,
}

/// A loaded fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fleet {
    /// The root fleet file.
    pub file: PathBuf,
    pub name: Option<String>,
    pub agents: Vec<Agent>,
}

impl Fleet {
    /// Loads a fleet file and everything it references. Malformed files are a
    /// [`crate::Error::FleetConfig`] naming the file.
    pub fn load(file: &Path) -> Result<Fleet> {
        Ok(Fleet { file: file.to_path_buf(), name: None, agents: Vec::new() })
    }

    /// `<fleet dir>/.herdctl`.
    pub fn state_dir(&self) -> PathBuf {
        self.file.parent().unwrap_or_else(|| Path::new(".")).join(".herdctl")
    }

    pub fn agent(&self, qualified_name: &str) -> Option<&Agent> {
        self.agents.iter().find(|a| a.qualified_name == qualified_name)
    }
}
