//! The import world shared by the engine tests and the CLI tests: a Claude home, a fleet with
//! agents alpha and beta, a data dir and an export folder, all in one temp dir, with helpers to
//! write transcripts and records and to snapshot a tree byte for byte.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};
use corral_engine::import::{
    self, ApplyOptions, ImportPlan, ImportReport, ImportTarget, SkipReason, apply_with, plan_import,
};
use corral_engine::occupancy::OccupancySnapshot;
use corral_engine::paths::encode_path;
use corral_engine::placement::{PlacementFs, PlacementMode};
use corral_engine::{Catalog, CatalogConfig};
use serde_json::json;

// ------------------------------------------------------------------------------------------
// The test world: a Claude home, a fleet with its state dir, a data dir and an export folder.

pub const ALPHA_WD: &str = "/home/u/projects/alpha";
pub const BETA_WD: &str = "/home/u/proj";

pub struct World {
    pub tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub fleet_file: PathBuf,
    pub state: PathBuf,
    pub data: PathBuf,
    pub export: PathBuf,
}

pub fn sid(n: u32) -> String {
    format!("{n:08x}-0000-4000-8000-{n:012x}")
}

pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 20, 0, 0).unwrap()
}

/// A modern transcript: bookkeeping first, then a real prompt and an answer.
pub fn transcript(id: &str, cwd: &str, prompt: &str, sidechain: bool) -> String {
    let lines = [
        json!({"type":"permission-mode","permissionMode":"default","sessionId":id}),
        json!({"parentUuid":null,"isSidechain":sidechain,"userType":"external","cwd":cwd,
               "sessionId":id,"version":"2.1.76","gitBranch":"main","type":"user",
               "message":{"role":"user","content":prompt},
               "uuid":format!("u-{id}"),"timestamp":"2026-03-04T10:00:01.037Z"}),
        json!({"parentUuid":format!("u-{id}"),"isSidechain":sidechain,"userType":"external",
               "cwd":cwd,"sessionId":id,"version":"2.1.76","gitBranch":"main","type":"assistant",
               "message":{"id":format!("msg-{id}"),"type":"message","role":"assistant",
                          "model":"claude-opus-4-5","content":[{"type":"text","text":"Done."}],
                          "usage":{"input_tokens":10,"output_tokens":5}},
               "requestId":format!("req-{id}"),"uuid":format!("a-{id}"),
               "timestamp":"2026-03-04T10:00:05.000Z"}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

impl World {
    pub fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let home = root.join("claude");
        let fleet_dir = root.join("fleet");
        let state = fleet_dir.join(".herdctl");
        let data = root.join("data");
        let export = root.join("export");
        fs::create_dir_all(home.join("projects")).unwrap();
        fs::create_dir_all(fleet_dir.join("agents")).unwrap();
        fs::create_dir_all(state.join("jobs")).unwrap();
        fs::create_dir_all(&export).unwrap();
        fs::write(
            fleet_dir.join("herdctl.yaml"),
            "version: 1\nfleet:\n  name: home\nagents:\n  - path: ./agents/alpha.yaml\n  - path: ./agents/beta.yaml\n",
        )
        .unwrap();
        fs::write(
            fleet_dir.join("agents/alpha.yaml"),
            format!("name: alpha\nworking_directory: {ALPHA_WD}\n"),
        )
        .unwrap();
        fs::write(
            fleet_dir.join("agents/beta.yaml"),
            format!("name: beta\nworking_directory: {BETA_WD}\n"),
        )
        .unwrap();
        World { fleet_file: fleet_dir.join("herdctl.yaml"), tmp, root, home, state, data, export }
    }

    pub fn catalog(&self) -> Catalog {
        Catalog::open(CatalogConfig {
            claude_home: self.home.clone(),
            fleet_file: Some(self.fleet_file.clone()),
            state_dir: None,
            data_dir: self.data.clone(),
        })
        .unwrap()
    }

    /// `<claude home>/projects/<encode(cwd)>`.
    pub fn folder_of(&self, cwd: &str) -> PathBuf {
        self.home.join("projects").join(encode_path(cwd))
    }

    pub fn alpha_folder(&self) -> PathBuf {
        self.folder_of(ALPHA_WD)
    }

    /// Writes a session transcript `<dir>/<id>.jsonl` and returns its path.
    pub fn session(&self, dir: &Path, id: &str, cwd: &str, sidechain: bool) -> PathBuf {
        fs::create_dir_all(dir).unwrap();
        let p = dir.join(format!("{id}.jsonl"));
        fs::write(&p, transcript(id, cwd, &format!("Prompt of {id}"), sidechain)).unwrap();
        p
    }

    /// A herdctl job record claiming `id` for `agent`.
    pub fn job(&self, job_suffix: &str, agent: &str, trigger: &str, id: &str) {
        let name = format!("job-2026-11-20-{job_suffix}");
        fs::write(
            self.state.join("jobs").join(format!("{name}.yaml")),
            format!(
                "id: {name}\nagent: {agent}\ntrigger_type: {trigger}\nstatus: completed\nsession_id: {id}\nstarted_at: \"2026-11-20T09:00:00Z\"\n"
            ),
        )
        .unwrap();
    }

    /// An adoption record written the way herdctl writes it.
    pub fn adoption_record(&self, id: &str, agent: &str) {
        let dir = self.state.join("adopted-sessions");
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join(format!("{id}.yaml")),
            format!("version: 1\nsessionId: {id}\nagentName: {agent}\nadoptedAt: 2026-11-01T10:00:00.000Z\nsourceCwd: /home/u/scratch\n"),
        )
        .unwrap();
    }

    pub fn plan(
        &self,
        target: &ImportTarget,
        sources: &[PathBuf],
        mode: PlacementMode,
    ) -> ImportPlan {
        plan_import(&self.catalog(), target, sources, mode, &OccupancySnapshot::nobody()).unwrap()
    }

    pub fn apply(&self, plan: &ImportPlan, fs_ops: &dyn PlacementFs) -> ImportReport {
        let opts = ApplyOptions { fs: fs_ops, ..ApplyOptions::default() };
        apply_with(&self.catalog(), plan, now(), &opts, &mut |_| true).unwrap()
    }

    /// Everything but the data dir (runs and backups live there).
    pub fn user_tree(&self) -> Tree {
        let mut t = tree(&self.home);
        for (k, v) in tree(&self.state) {
            t.insert(format!("state/{k}"), v);
        }
        for (k, v) in tree(&self.export) {
            t.insert(format!("export/{k}"), v);
        }
        t
    }
}

pub fn alpha() -> ImportTarget {
    ImportTarget::Agent { name: "alpha".into() }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
}

pub type Tree = BTreeMap<String, Node>;

/// Every path under `root` with its bytes (or link target): a byte-for-byte snapshot.
pub fn tree(root: &Path) -> Tree {
    fn walk(root: &Path, dir: &Path, out: &mut Tree) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            let ty = e.file_type().unwrap();
            if ty.is_symlink() {
                out.insert(rel, Node::Link(fs::read_link(&p).unwrap()));
            } else if ty.is_dir() {
                out.insert(rel, Node::Dir);
                walk(root, &p, out);
            } else {
                out.insert(rel, Node::File(fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Tree::new();
    walk(root, root, &mut out);
    out
}

/// The files of a backup folder: (relative path, bytes).
pub fn backup_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    tree(dir)
        .into_iter()
        .filter_map(|(k, n)| match n {
            Node::File(b) => Some((k, b)),
            _ => None,
        })
        .collect()
}

pub fn reasons(r: &[import::ImportSkip]) -> Vec<(String, SkipReason)> {
    r.iter().map(|s| (s.session_id.clone(), s.reason)).collect()
}
