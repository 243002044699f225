//! Planning an import: expanding the sources into candidates and classifying each, writing
//! nothing.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::attribution::{self, AttributionIndex, JobCache};
use crate::catalog::Catalog;
use crate::error::Result;
use crate::occupancy::OccupancySnapshot;
use crate::paths::{encode_path, projects_dir, validate_session_id};
use crate::placement::PlacementMode;
use crate::transcript::facts::read_facts;

use super::companions::companions_of;
use super::{ImportPlan, Outcome, PlannedPlacement, agent_folder, describe_owner, skip};
use crate::model::{ImportSkip, ImportTarget, SkipReason};

/// A file found among the sources.
struct Candidate {
    path: PathBuf,
}

const MAX_DEPTH: usize = 6;

fn file_label(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Expands the sources into candidate files (sorted per folder) and not-a-transcript skips.
fn collect(sources: &[PathBuf], out: &mut Vec<Candidate>, skipped: &mut Vec<ImportSkip>) {
    for src in sources {
        match fs::metadata(src) {
            Ok(m) if m.is_dir() => walk(src, 0, out, skipped),
            Ok(_) => consider_file(src, out, skipped),
            Err(e) => {
                skipped.push(skip(src, file_label(src), SkipReason::Unreadable, e.to_string()));
            }
        }
    }
}

fn consider_file(path: &Path, out: &mut Vec<Candidate>, skipped: &mut Vec<ImportSkip>) {
    if path.extension().is_some_and(|e| e == "jsonl") {
        out.push(Candidate { path: path.to_path_buf() });
    } else {
        skipped.push(skip(
            path,
            file_label(path),
            SkipReason::NotATranscript,
            "not a .jsonl transcript file",
        ));
    }
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<Candidate>, skipped: &mut Vec<ImportSkip>) {
    let mut entries: Vec<fs::DirEntry> = match fs::read_dir(dir) {
        Ok(rd) => rd.flatten().collect(),
        Err(e) => {
            skipped.push(skip(dir, file_label(dir), SkipReason::Unreadable, e.to_string()));
            return;
        }
    };
    entries.sort_by_key(fs::DirEntry::file_name);
    let names: HashSet<String> =
        entries.iter().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(ty) = entry.file_type() else {
            skipped.push(skip(&path, name, SkipReason::Unreadable, "cannot read the file type"));
            continue;
        };
        if ty.is_dir() {
            // `<sid>/` beside `<sid>.jsonl` (subagents, tool results) belongs to that session.
            if name == "subagents" || names.contains(&format!("{name}.jsonl")) {
                continue;
            }
            // `.git`, `.Trash`, …: one line for the folder rather than one per file in it.
            if name.starts_with('.') {
                skipped.push(skip(
                    &path,
                    name,
                    SkipReason::NotATranscript,
                    "a hidden folder; not searched",
                ));
                continue;
            }
            if depth + 1 < MAX_DEPTH {
                walk(&path, depth + 1, out, skipped);
            } else {
                skipped.push(skip(
                    &path,
                    name,
                    SkipReason::NotATranscript,
                    format!("folder nested more than {MAX_DEPTH} levels deep; not searched"),
                ));
            }
        } else if ty.is_symlink() && fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
            skipped.push(skip(
                &path,
                name,
                SkipReason::NotATranscript,
                "a symbolic link to a folder; not followed",
            ));
        } else {
            consider_file(&path, out, skipped);
        }
    }
}

/// Plans an import. Pure: reads the sources, the Claude home and the state dir; writes nothing.
/// Each candidate file is classified on its own: a placement, or a skip with its reason.
pub fn plan_import(
    catalog: &Catalog,
    target: &ImportTarget,
    sources: &[PathBuf],
    mode: PlacementMode,
    occupancy: &OccupancySnapshot,
) -> Result<ImportPlan> {
    let mut plan = ImportPlan {
        target: target.clone(),
        mode,
        placements: Vec::new(),
        skipped: Vec::new(),
        occupancy_unknown: occupancy.unknown.clone(),
    };
    let mut candidates = Vec::new();
    collect(sources, &mut candidates, &mut plan.skipped);
    let mut planner = Planner::new(catalog, target, mode, occupancy)?;
    for c in candidates {
        match planner.classify(&c.path) {
            Ok(Some(placement)) => plan.placements.push(placement),
            Ok(None) => {} // the same file named twice
            Err(skipped) => plan.skipped.push(skipped),
        }
    }
    Ok(plan)
}

/// What planning knows besides each candidate: the target, the stores, and what the candidates
/// before it already took.
struct Planner<'a> {
    /// The agent and its transcript folder (`None`: into the Claude home).
    agent_dest: Option<(&'a str, PathBuf)>,
    projects: PathBuf,
    /// A throwaway attribution index: planning must not write the persisted cache.
    index: AttributionIndex,
    /// Folders a move or link must not alter, with what they are.
    protected: [(PathBuf, &'static str); 2],
    mode: PlacementMode,
    occupancy: &'a OccupancySnapshot,
    seen_sources: HashSet<PathBuf>,
    taken: HashSet<PathBuf>,
}

impl<'a> Planner<'a> {
    fn new(
        catalog: &Catalog,
        target: &'a ImportTarget,
        mode: PlacementMode,
        occupancy: &'a OccupancySnapshot,
    ) -> Result<Self> {
        let agent_dest = match target {
            ImportTarget::Agent { name } => Some((name.as_str(), agent_folder(catalog, name)?)),
            ImportTarget::ClaudeHome => None,
        };
        let (index, _warnings) =
            AttributionIndex::build(catalog.state_dir(), &mut JobCache::default());
        Ok(Self {
            agent_dest,
            projects: projects_dir(catalog.claude_home()),
            index,
            protected: [
                (crate::runs::runs_root(catalog.data_dir()), "Corral's backups"),
                (catalog.state_dir().to_path_buf(), "the herdctl state dir"),
            ],
            mode,
            occupancy,
            seen_sources: HashSet::new(),
            taken: HashSet::new(),
        })
    }

    /// One candidate: where it goes, or why not (`Ok(None)`: a file already seen).
    fn classify(&mut self, path: &Path) -> Outcome<Option<PlannedPlacement>> {
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let Ok(sid) = validate_session_id(&stem).map(str::to_owned) else {
            return Err(skip(
                path,
                file_label(path),
                SkipReason::NotATranscript,
                "the file name is not a session id",
            ));
        };
        let no = |reason: SkipReason, detail: String| skip(path, sid.clone(), reason, detail);
        let real = fs::canonicalize(path).map_err(|e| no(SkipReason::Unreadable, e.to_string()))?;
        if !self.seen_sources.insert(real.clone()) {
            return Ok(None);
        }
        let facts = read_facts(path).map_err(|e| no(SkipReason::Unreadable, e.to_string()))?;
        if !facts.has_messages {
            return Err(no(
                SkipReason::NotATranscript,
                "no user or assistant message in it".into(),
            ));
        }
        if facts.is_sidechain {
            let why = "a subagent (sidechain) transcript, not a session";
            return Err(no(SkipReason::Sidechain, why.into()));
        }
        let source_folder = real.parent().map(Path::to_path_buf);
        let source_folder_name = source_folder
            .as_deref()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned());
        let dest_dir = match &self.agent_dest {
            Some((agent, dir)) => self.check_adoptable(path, &sid, agent).map(|()| dir.clone())?,
            None => {
                self.home_folder(path, &sid, facts.cwd.as_deref(), source_folder_name.as_deref())?
            }
        };
        if fs::symlink_metadata(&dest_dir).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(no(
                SkipReason::PlacementFailed,
                format!(
                    "{} is a symbolic link; Corral places nothing through a link (and does not \
                     list linked folders)",
                    dest_dir.display()
                ),
            ));
        }
        let to = dest_dir.join(format!("{sid}.jsonl"));
        let in_place = source_folder.is_some()
            && source_folder == fs::canonicalize(&dest_dir).ok()
            && real.file_name() == to.file_name();
        if in_place && self.agent_dest.is_none() {
            let why = "already in its Claude home folder";
            return Err(no(SkipReason::DestinationExists, why.into()));
        }
        if !in_place {
            self.check_placeable(path, &real, &to).map_err(|(r, d)| no(r, d))?;
        }
        if !self.taken.insert(to.clone()) {
            let why = "another source of this import places the same session there";
            return Err(no(SkipReason::DestinationExists, why.into()));
        }
        let occupied =
            self.occupancy.check(&sid, facts.cwd.as_deref(), source_folder_name.as_deref());
        if let (Some(reason), PlacementMode::Move, false) = (&occupied, self.mode, in_place) {
            return Err(no(SkipReason::Occupied, reason.clone()));
        }
        let companions = if in_place { Vec::new() } else { companions_of(path, &sid) };
        Ok(Some(PlannedPlacement {
            name: facts.auto_name(),
            // Absolute, so the journal names one place whatever folder undo runs from.
            from: crate::paths::absolute(path).display().to_string(),
            to: to.display().to_string(),
            source_cwd: facts.cwd.clone(),
            record_only: in_place,
            warning: occupied,
            companions,
            session_id: sid,
        }))
    }

    /// Into an agent: refused when the session is adopted already or attributed through a run.
    fn check_adoptable(&self, path: &Path, sid: &str, agent: &str) -> Outcome<()> {
        if let Some(rec) = self.index.adoption(sid) {
            let mut s = skip(
                path,
                sid.to_owned(),
                SkipReason::AlreadyAdopted,
                format!("adopted by {} at {}", rec.agent_name, rec.adopted_at),
            );
            s.owned_by = Some(rec.agent_name.clone());
            return Err(s);
        }
        let attr = self.index.get(sid);
        if attribution::is_unattributed(&attr) {
            return Ok(());
        }
        let owner = attr.agent_name.clone();
        let detail = if owner.as_deref() == Some(agent) {
            format!("already this agent's session ({})", describe_owner(&attr))
        } else {
            describe_owner(&attr)
        };
        let mut s = skip(path, sid.to_owned(), SkipReason::AttributedToRun, detail);
        s.owned_by = owner;
        Err(s)
    }

    /// Into the Claude home: the folder of the cwd the transcript records (or, with none, the
    /// encoded folder it already sits in); a relative cwd is no destination.
    fn home_folder(
        &self,
        path: &Path,
        sid: &str,
        cwd: Option<&str>,
        source_folder_name: Option<&str>,
    ) -> Outcome<PathBuf> {
        let unknown = |detail: String| skip(path, sid.to_owned(), SkipReason::Unreadable, detail);
        let folder = match (cwd, source_folder_name) {
            (Some(cwd), _) if !crate::paths::is_absolute_cwd(cwd) => {
                return Err(unknown(format!(
                    "the transcript records the working directory {cwd:?}, which is not an \
                     absolute path, so its Claude home folder is unknown"
                )));
            }
            (Some(cwd), _) => encode_path(cwd),
            (None, Some(f)) if f.starts_with('-') => f.to_owned(),
            _ => {
                return Err(unknown(
                    "the transcript records no working directory, so its Claude home folder \
                     is unknown"
                        .into(),
                ));
            }
        };
        Ok(self.projects.join(folder))
    }

    /// A placement that is not in place: the destination must be free, a move may not take a
    /// symbolic link, and a move or link may not alter a backup or herdctl's own state (a copy
    /// is fine).
    fn check_placeable(
        &self,
        path: &Path,
        real: &Path,
        to: &Path,
    ) -> std::result::Result<(), (SkipReason, String)> {
        if fs::symlink_metadata(to).is_ok() {
            return Err((
                SkipReason::DestinationExists,
                format!("{} already exists", to.display()),
            ));
        }
        let mode = self.mode;
        if mode == PlacementMode::Move
            && fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
        {
            let why = "a symbolic link cannot be moved safely; use copy or link";
            return Err((SkipReason::PlacementFailed, why.into()));
        }
        if mode != PlacementMode::Copy
            && let Some(what) = self
                .protected
                .iter()
                .find_map(|(dir, what)| crate::paths::is_same_or_inside(real, dir).then_some(*what))
        {
            let why = format!("it lies in {what}, which {} would alter; use copy", mode.as_str());
            return Err((SkipReason::PlacementFailed, why));
        }
        Ok(())
    }
}
