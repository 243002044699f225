//! Import: place transcripts into an agent's folder (with an adoption record) or back into the
//! Claude home, as a pure plan first and a journaled, undoable run second.
//!
//! `plan_import` writes nothing at all — no folders, no caches, no metadata. `apply` creates a run
//! (see [`crate::runs`]) on its first change, journals every file and record before creating it,
//! backs up whatever it could destroy or replace, and never lets one bad file abort the run.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::adoption_store::{self, AdoptionRecord};
use crate::attribution::{self, AttributionIndex, JobCache};
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::fault::fault_point;
use crate::model::Attribution;
use crate::occupancy::OccupancySnapshot;
use crate::paths::cwd_text;
use crate::paths::{encode_path, projects_dir, validate_session_id};
use crate::placement::{
    PlaceOutcome, PlacedAs, PlacementFs, PlacementMode, RealFs, copy_new, place,
};
use crate::runs::{
    EntryKind, EntryState, JournalEntry, MAX_COMPANION_DEPTH, RunWriter, check_backup_root,
};
use crate::time::iso;
use crate::transcript::facts::read_facts;

pub use crate::model::{ImportSkip, ImportTarget, SkipReason};

/// One transcript the plan will place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlannedPlacement {
    pub session_id: String,
    /// What people call the session (custom title › AI title › summary › first prompt), so the
    /// preview can show more than an id.
    #[serde(default)]
    pub name: Option<String>,
    pub from: String,
    pub to: String,
    /// The cwd the transcript records (written into the adoption record).
    pub source_cwd: Option<String>,
    /// The transcript already is in its destination folder: only the record is written.
    pub record_only: bool,
    /// For copy/link: a `claude` process may be writing this session (see the occupancy guard).
    pub warning: Option<String>,
    /// Files of the session's own folder (`<sid>/subagents/agent-*.jsonl`, their `.meta.json`,
    /// tool results), relative to `<sid>/` with `/` separators: they travel with the transcript.
    #[serde(default)]
    pub companions: Vec<String>,
}

/// The plan: what `apply` would do, computed without writing anything.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportPlan {
    pub target: ImportTarget,
    pub mode: PlacementMode,
    pub placements: Vec<PlannedPlacement>,
    pub skipped: Vec<ImportSkip>,
    /// Set when the process table could not be read (every session counted as occupied).
    pub occupancy_unknown: Option<String>,
}

/// One transcript an applied run placed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PlacedItem {
    pub session_id: String,
    pub from: String,
    pub to: String,
    /// `None` in a dry run.
    pub placed_as: Option<PlacedAs>,
    /// The adoption record written (agent targets).
    pub record: Option<String>,
    pub warning: Option<String>,
    /// Companion files (subagent transcripts…) placed with it.
    #[serde(default)]
    #[ts(type = "number")]
    pub companions: u64,
}

/// The result of an import (applied, or a dry run with `runId: null`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// `None` when nothing was written (dry run, or nothing to place).
    pub run_id: Option<String>,
    pub run_dir: Option<String>,
    pub placed: Vec<PlacedItem>,
    pub skipped: Vec<ImportSkip>,
    /// The run stopped early on request; what was done before is a normal, undoable run.
    pub cancelled: bool,
    pub dry_run: bool,
}

/// Sent before each placement; the callback returns `false` to cancel (between files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportProgress {
    #[ts(type = "number")]
    pub done: u64,
    #[ts(type = "number")]
    pub total: u64,
    pub session_id: String,
}

impl ImportPlan {
    /// The plan shown as a report of a dry run (`runId: null`).
    pub fn dry_run_report(&self) -> ImportReport {
        ImportReport {
            run_id: None,
            run_dir: None,
            placed: self
                .placements
                .iter()
                .map(|p| PlacedItem {
                    session_id: p.session_id.clone(),
                    from: p.from.clone(),
                    to: p.to.clone(),
                    placed_as: None,
                    record: None,
                    warning: p.warning.clone(),
                    companions: p.companions.len() as u64,
                })
                .collect(),
            skipped: self.skipped.clone(),
            cancelled: false,
            dry_run: true,
        }
    }
}

/// Who owns a session, in words (the shared wording of [`attribution::describe_owner`]).
pub fn describe_owner(a: &Attribution) -> String {
    attribution::describe_owner(a)
}

/// The agent's transcript folder: `<claude home>/projects/<encode(working dir)>`.
pub(crate) fn agent_folder(catalog: &Catalog, agent: &str) -> Result<PathBuf> {
    let fleet = catalog.fleet().ok_or(Error::NoFleet)?;
    let a = fleet.agent(agent).ok_or_else(|| Error::UnknownAgent(agent.to_owned()))?;
    let wd = a.working_directory.as_ref().ok_or_else(|| {
        Error::InvalidInput(format!("agent {agent:?} has no working directory to import into"))
    })?;
    Ok(projects_dir(catalog.claude_home()).join(encode_path(&cwd_text(wd))))
}

/// A file found among the sources.
struct Candidate {
    path: PathBuf,
}

const MAX_DEPTH: usize = 6;

fn file_label(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

fn skip(
    path: &Path,
    session_id: String,
    reason: SkipReason,
    detail: impl Into<String>,
) -> ImportSkip {
    ImportSkip {
        session_id,
        path: Some(path.display().to_string()),
        reason,
        detail: detail.into(),
        owned_by: None,
    }
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

/// How `apply` touches the filesystem and re-checks occupancy.
pub struct ApplyOptions<'a> {
    pub fs: &'a dyn PlacementFs,
    /// A fresh snapshot to re-check moves against just before each one (the plan's own decision
    /// stands when `None`).
    pub occupancy: Option<&'a OccupancySnapshot>,
    /// The clock that stamps when the run finished (the start is the `now` given to apply).
    pub clock: fn() -> DateTime<Utc>,
}

impl Default for ApplyOptions<'_> {
    fn default() -> Self {
        Self { fs: &RealFs, occupancy: None, clock: Utc::now }
    }
}

/// Applies a plan on the real filesystem. See [`apply_with`].
pub fn apply(
    catalog: &Catalog,
    plan: &ImportPlan,
    now: DateTime<Utc>,
    progress: &mut dyn FnMut(ImportProgress) -> bool,
) -> Result<ImportReport> {
    apply_with(catalog, plan, now, &ApplyOptions::default(), progress)
}

/// Checks one planned placement against what the target allows (a plan may come from outside).
fn validate(
    p: &PlannedPlacement,
    projects: &Path,
    agent_dir: Option<&Path>,
) -> std::result::Result<(), String> {
    let sid = validate_session_id(&p.session_id).map_err(|e| e.to_string())?;
    let file = format!("{sid}.jsonl");
    let to = Path::new(&p.to);
    let from = Path::new(&p.from);
    if !from.is_absolute() {
        return Err("the source is not an absolute path".to_owned());
    }
    if from.file_name().and_then(|n| n.to_str()) != Some(file.as_str()) {
        return Err(format!("the source is not named {file}"));
    }
    if to.file_name().and_then(|n| n.to_str()) != Some(file.as_str()) {
        return Err(format!("the destination is not named {file}"));
    }
    let folder = to.parent().ok_or("the destination has no folder")?;
    match agent_dir {
        Some(dir) if folder != dir => {
            Err(format!("the destination is not in the agent's folder {}", dir.display()))
        }
        Some(_) => Ok(()),
        None => {
            let single = folder.file_name().is_some_and(|n| {
                let n = n.to_string_lossy();
                !n.is_empty() && n != "." && n != ".."
            });
            if folder.parent() == Some(projects) && single {
                Ok(())
            } else {
                Err(format!("the destination is not a folder of {}", projects.display()))
            }
        }
    }
}

/// Applies a plan: journals, backs up and places each transcript, writes adoption records
/// (ownership re-checked right before each), and reports. A run that places nothing leaves no
/// run directory. Refuses (`Error::Refused`) a backup root inside the Claude home or state dir.
pub fn apply_with(
    catalog: &Catalog,
    plan: &ImportPlan,
    now: DateTime<Utc>,
    opts: &ApplyOptions<'_>,
    progress: &mut dyn FnMut(ImportProgress) -> bool,
) -> Result<ImportReport> {
    let mut applier = Applier::new(catalog, plan, now, opts)?;
    let mut report = ImportReport {
        run_id: None,
        run_dir: None,
        placed: Vec::new(),
        skipped: plan.skipped.clone(),
        cancelled: false,
        dry_run: false,
    };
    let total = plan.placements.len() as u64;
    for (i, p) in plan.placements.iter().enumerate() {
        if !progress(ImportProgress { done: i as u64, total, session_id: p.session_id.clone() }) {
            report.cancelled = true;
            break;
        }
        match applier.apply_one(p, i)? {
            Ok(item) => report.placed.push(item),
            Err(skipped) => report.skipped.push(skipped),
        }
    }
    applier.finish(report, now)
}

/// One applied run: what `apply_with` knows across placements, and the run it opens on its first
/// change.
struct Applier<'a> {
    catalog: &'a Catalog,
    plan: &'a ImportPlan,
    now: DateTime<Utc>,
    opts: &'a ApplyOptions<'a>,
    root: PathBuf,
    projects: PathBuf,
    agent: Option<(String, PathBuf)>,
    run: Option<RunWriter>,
    cache: JobCache,
}

impl<'a> Applier<'a> {
    fn new(
        catalog: &'a Catalog,
        plan: &'a ImportPlan,
        now: DateTime<Utc>,
        opts: &'a ApplyOptions<'a>,
    ) -> Result<Self> {
        let claude_home = catalog.claude_home();
        let root = check_backup_root(catalog.data_dir(), claude_home, catalog.state_dir())?;
        let agent = match &plan.target {
            ImportTarget::Agent { name } => Some((name.clone(), agent_folder(catalog, name)?)),
            ImportTarget::ClaudeHome => None,
        };
        Ok(Self {
            catalog,
            plan,
            now,
            opts,
            root,
            projects: projects_dir(claude_home),
            agent,
            run: None,
            cache: JobCache::default(),
        })
    }

    /// Re-checks, places and records one planned placement. The outer error is a journal
    /// failure, which stops the run.
    fn apply_one(&mut self, p: &PlannedPlacement, i: usize) -> Result<Outcome<PlacedItem>> {
        let from = Path::new(&p.from);
        let to = Path::new(&p.to);
        if let Err(skipped) = self.recheck(p, from) {
            return Ok(Err(skipped));
        }
        let (mode, fs_ops, state_dir) = (self.plan.mode, self.opts.fs, self.catalog.state_dir());
        let w = self.writer()?;
        let mut item = PlacedItem {
            session_id: p.session_id.clone(),
            from: p.from.clone(),
            to: p.to.clone(),
            placed_as: None,
            record: None,
            warning: p.warning.clone(),
            companions: 0,
        };
        if p.record_only {
            w.push(entry(
                EntryKind::File,
                p,
                p.to.clone(),
                Some(p.from.clone()),
                None,
                EntryState::Done,
            ))?;
            if let Some(last) = w.journal.entries.last_mut() {
                last.placed_as = Some(PlacedAs::RecordOnly);
            }
            w.save()?;
            item.placed_as = Some(PlacedAs::RecordOnly);
        } else {
            match place_one(w, mode, fs_ops, p, i, from, to)? {
                Ok(how) => item.placed_as = Some(how),
                Err(s) => return Ok(Err(s)),
            }
            if !p.companions.is_empty() {
                let (placed, problems) = place_companions(w, mode, fs_ops, p, i, from, to)?;
                item.companions = placed;
                if !problems.is_empty() {
                    let note = format!(
                        "{} of {} files of its folder were not placed: {}",
                        problems.len(),
                        p.companions.len(),
                        problems.join("; ")
                    );
                    item.warning =
                        Some(item.warning.take().map_or(note.clone(), |w| format!("{w}; {note}")));
                }
            }
        }
        if let Some((name, _)) = &self.agent {
            let w = self.run.as_mut().ok_or_else(no_run)?;
            match write_record(w, &mut self.cache, state_dir, name, p, i, self.now)? {
                Ok(path) => item.record = path,
                Err(mut s) => {
                    if !p.record_only {
                        s.detail = format!(
                            "{}; the transcript was placed at {} (undo run {} removes it)",
                            s.detail, p.to, w.journal.run_id
                        );
                    }
                    return Ok(Err(s));
                }
            }
        }
        Ok(Ok(item))
    }

    /// What may have changed since the plan: its shape (a plan may come from anywhere), a
    /// process that opened the session (moves), and the session's owner (into an agent).
    fn recheck(&mut self, p: &PlannedPlacement, from: &Path) -> Outcome<()> {
        let fail =
            |reason: SkipReason, detail: String| skip(from, p.session_id.clone(), reason, detail);
        let agent_dir = self.agent.as_ref().map(|(_, d)| d.as_path());
        validate(p, &self.projects, agent_dir).map_err(|d| fail(SkipReason::PlacementFailed, d))?;
        if self.plan.mode == PlacementMode::Move
            && !p.record_only
            && let Some(reason) = self.opts.occupancy.and_then(|o| {
                let facts = read_facts(from).ok();
                let folder = from
                    .parent()
                    .and_then(Path::file_name)
                    .map(|n| n.to_string_lossy().into_owned());
                o.check(
                    &p.session_id,
                    facts.as_ref().and_then(|f| f.cwd.as_deref()),
                    folder.as_deref(),
                )
            })
        {
            return Err(fail(SkipReason::Occupied, reason));
        }
        if let Some((name, _)) = &self.agent {
            let state_dir = self.catalog.state_dir();
            let (index, _) =
                AttributionIndex::build_for_session(state_dir, &mut self.cache, &p.session_id);
            let attr = index.get(&p.session_id);
            if !attribution::can_agent_adopt(&attr, name) {
                let mut s = fail(SkipReason::AttributedToRun, describe_owner(&attr));
                s.owned_by = attr.agent_name;
                return Err(s);
            }
        }
        Ok(())
    }

    /// The run, created on the first change.
    fn writer(&mut self) -> Result<&mut RunWriter> {
        if self.run.is_none() {
            let c = self.catalog;
            self.run = Some(RunWriter::create(
                &self.root,
                self.now,
                c.claude_home(),
                c.state_dir(),
                self.plan.target.clone(),
                self.plan.mode,
            )?);
        }
        self.run.as_mut().ok_or_else(no_run)
    }

    /// Closes the run: one that created nothing leaves nothing behind; otherwise its journal
    /// records the outcome.
    fn finish(self, mut report: ImportReport, now: DateTime<Utc>) -> Result<ImportReport> {
        let Some(mut w) = self.run else { return Ok(report) };
        self.catalog.invalidate(&[]);
        // Nothing was created when every entry found its destination taken, or only noted a
        // transcript already in place whose record was already there.
        let untouched =
            w.journal.entries.iter().all(|e| {
                e.state == EntryState::Skipped || e.placed_as == Some(PlacedAs::RecordOnly)
            });
        if untouched {
            w.discard();
        } else {
            w.journal.skipped = report.skipped.clone();
            w.journal.finished_at = Some(iso((self.opts.clock)().max(now)));
            w.journal.cancelled = report.cancelled;
            w.save()?;
            report.run_id = Some(w.journal.run_id.clone());
            report.run_dir = Some(w.dir.display().to_string());
        }
        Ok(report)
    }
}

fn no_run() -> Error {
    Error::io("the run journal is not open", io::Error::other("no run"))
}

fn entry(
    kind: EntryKind,
    p: &PlannedPlacement,
    path: String,
    from: Option<String>,
    backup: Option<String>,
    state: EntryState,
) -> JournalEntry {
    JournalEntry {
        kind,
        session_id: p.session_id.clone(),
        path,
        from,
        backup,
        state,
        placed_as: None,
        agent_name: None,
        adopted_at: None,
        detail: None,
        backup_size: None,
        backup_sha256: None,
        identity: None,
    }
}

type Outcome<T> = std::result::Result<T, ImportSkip>;

/// Journals, backs up (moves) and places one transcript. The outer error is a journal failure,
/// which stops the run (nothing may be created that the journal does not know).
#[allow(clippy::too_many_arguments)]
fn place_one(
    w: &mut RunWriter,
    mode: PlacementMode,
    fs_ops: &dyn PlacementFs,
    p: &PlannedPlacement,
    i: usize,
    from: &Path,
    to: &Path,
) -> Result<Outcome<PlacedAs>> {
    let sid = p.session_id.clone();
    let fail = |reason: SkipReason, detail: String| Err(skip(from, sid.clone(), reason, detail));
    let real_from = match fs::canonicalize(from) {
        Ok(r) => r,
        Err(e) => return Ok(fail(SkipReason::Unreadable, e.to_string())),
    };
    // The destination folder: journaled before it is created, so undo can remove it again.
    if let Some(folder) = to.parent()
        && let Err(detail) = ensure_folder(w, p, folder, "destination folder")?
    {
        return Ok(fail(SkipReason::PlacementFailed, detail));
    }
    // Each backup keeps its own file name (`backup/<n>/<sid>.jsonl`), so a backup folder can
    // itself be imported again and every session keeps its id.
    let backup = (mode == PlacementMode::Move).then(|| format!("{i:05}/{sid}.jsonl"));
    let step = JournaledFile { kind: EntryKind::File, from: &real_from, to, backup };
    Ok(match step.place(w, mode, fs_ops, p)? {
        Placing::Placed(how) => Ok(how),
        Placing::BackupTaken(bk) => fail(
            SkipReason::PlacementFailed,
            format!("cannot back up the source: {} exists", bk.display()),
        ),
        Placing::BackupFailed(e) => {
            fail(SkipReason::PlacementFailed, format!("cannot back up the source: {e}"))
        }
        Placing::DestinationExists => fail(
            SkipReason::DestinationExists,
            format!("{} already exists; nothing was written", to.display()),
        ),
        Placing::Failed(e) => fail(SkipReason::PlacementFailed, format!("{}: {e}", mode.as_str())),
    })
}

/// One file to place under the journal: the transcript, or a companion of it.
struct JournaledFile<'a> {
    kind: EntryKind,
    /// The source, resolved.
    from: &'a Path,
    to: &'a Path,
    /// Name inside `backup/` (a move backs the source up first).
    backup: Option<String>,
}

/// How placing one journaled file ended (the journal entry already says so).
enum Placing {
    Placed(PlacedAs),
    /// The backup's name was already taken (at this path): nothing was placed.
    BackupTaken(PathBuf),
    BackupFailed(io::Error),
    DestinationExists,
    Failed(io::Error),
}

impl JournaledFile<'_> {
    /// Journals the file before anything is created, backs the source up for a move, places it
    /// and records the outcome. The outer error is a journal failure, which stops the run.
    fn place(
        self,
        w: &mut RunWriter,
        mode: PlacementMode,
        fs_ops: &dyn PlacementFs,
        p: &PlannedPlacement,
    ) -> Result<Placing> {
        let idx = w.push(entry(
            self.kind,
            p,
            self.to.display().to_string(),
            Some(self.from.display().to_string()),
            self.backup.clone(),
            EntryState::Intended,
        ))?;
        if let Some(name) = &self.backup {
            let bk = w.backup_dir().join(name);
            let made = bk
                .parent()
                .map_or(Ok(()), fs::create_dir_all)
                .and_then(|()| copy_new(self.from, &bk));
            match made {
                Ok(true) => {
                    if let Some(parent) = bk.parent() {
                        crate::atomic_write::sync_dir(parent);
                    }
                    crate::atomic_write::sync_dir(&w.backup_dir());
                    w.record_backup(idx, &bk)?;
                }
                Ok(false) => {
                    w.set(idx, EntryState::Failed, None, Some("backup name taken".into()))?;
                    return Ok(Placing::BackupTaken(bk));
                }
                Err(e) => {
                    w.set(idx, EntryState::Failed, None, Some(e.to_string()))?;
                    return Ok(Placing::BackupFailed(e));
                }
            }
            fault_point("move: source backed up");
        }
        let placed = place(fs_ops, mode, self.from, self.to, &w.journal.run_id);
        fault_point("placed, journal not yet updated");
        Ok(match placed {
            Ok(PlaceOutcome::Placed(how)) => {
                w.set(idx, EntryState::Done, Some(how), None)?;
                w.record_identity(idx);
                Placing::Placed(how)
            }
            Ok(PlaceOutcome::DestinationExists) => {
                w.set(idx, EntryState::Skipped, None, Some("destination exists".into()))?;
                Placing::DestinationExists
            }
            Err(e) => {
                w.set(idx, EntryState::Failed, None, Some(e.to_string()))?;
                Placing::Failed(e)
            }
        })
    }
}

/// Creates `folder` and every missing folder above it, each journaled before it is created (top
/// first), so undo can remove them all again. `Ok(Err(_))`: it could not be created, or something
/// that is not a real folder (a file, a symbolic link) is in the way: Corral never places through
/// a link, and the listing does not follow one either.
fn ensure_folder(
    w: &mut RunWriter,
    p: &PlannedPlacement,
    folder: &Path,
    what: &str,
) -> Result<std::result::Result<(), String>> {
    let mut missing = Vec::new();
    for level in folder.ancestors() {
        match fs::symlink_metadata(level) {
            Ok(m) if m.is_dir() => break,
            Ok(m) if m.file_type().is_symlink() && level == folder => {
                return Ok(Err(format!(
                    "{} is a symbolic link; Corral places nothing through a link",
                    folder.display()
                )));
            }
            // A link higher up (a linked Claude home) is the user's own layout: followed.
            Ok(_) if level != folder && fs::metadata(level).is_ok_and(|m| m.is_dir()) => break,
            Ok(_) => {
                return Ok(Err(format!("{} is in the way and is not a folder", level.display())));
            }
            Err(_) => missing.push(level.to_path_buf()),
        }
    }
    for level in missing.iter().rev() {
        let mut e = entry(
            EntryKind::Folder,
            p,
            level.display().to_string(),
            None,
            None,
            EntryState::Intended,
        );
        e.detail = Some(what.into());
        let idx = w.push(e)?;
        if let Err(err) = fs::create_dir(level) {
            w.set(idx, EntryState::Failed, None, Some(err.to_string()))?;
            return Ok(Err(format!("cannot create {}: {err}", level.display())));
        }
        if let Some(parent) = level.parent() {
            crate::atomic_write::sync_dir(parent);
        }
        w.set(idx, EntryState::Done, None, None)?;
    }
    Ok(Ok(()))
}

/// Most companion files one session may bring along (a guard against a runaway folder).
const MAX_COMPANIONS: usize = 10_000;

/// The files under `<folder of transcript>/<sid>/` (regular files only; symbolic links and
/// anything deeper than `MAX_COMPANION_DEPTH` are left out), as `/`-separated relative paths.
fn companions_of(transcript: &Path, sid: &str) -> Vec<String> {
    fn walk(dir: &Path, rel: &str, depth: usize, out: &mut Vec<String>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        let mut entries: Vec<fs::DirEntry> = rd.flatten().collect();
        entries.sort_by_key(fs::DirEntry::file_name);
        for e in entries {
            if out.len() >= MAX_COMPANIONS {
                return;
            }
            let Some(name) = e.file_name().to_str().map(str::to_owned) else { continue };
            let here = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            match e.file_type() {
                Ok(t) if t.is_file() => out.push(here),
                Ok(t) if t.is_dir() && depth < MAX_COMPANION_DEPTH => {
                    walk(&e.path(), &here, depth + 1, out);
                }
                _ => {}
            }
        }
    }
    let Some(dir) = transcript.parent().map(|d| d.join(sid)) else { return Vec::new() };
    if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    walk(&dir, "", 1, &mut out);
    out
}

/// A companion's relative path as plain path parts, or `None` if it is anything else (a plan
/// may come from outside).
fn companion_rel(rel: &str) -> Option<PathBuf> {
    let parts: Vec<&str> = rel.split('/').collect();
    let plain = parts.iter().all(|part| {
        !part.is_empty()
            && *part != "."
            && *part != ".."
            && !part.contains(['\\', '\0'])
            && Path::new(part).components().count() == 1
            && matches!(Path::new(part).components().next(), Some(std::path::Component::Normal(_)))
    });
    (plain && (1..=MAX_COMPANION_DEPTH).contains(&parts.len()))
        .then(|| parts.iter().collect::<PathBuf>())
}

/// Places the files of `<sid>/` next to the placed transcript, each journaled (and, for a move,
/// backed up) before it is created, exactly like the transcript. A file whose destination is
/// taken is left alone. Returns how many were placed and what went wrong with the others.
#[allow(clippy::too_many_arguments)]
fn place_companions(
    w: &mut RunWriter,
    mode: PlacementMode,
    fs_ops: &dyn PlacementFs,
    p: &PlannedPlacement,
    i: usize,
    from: &Path,
    to: &Path,
) -> Result<(u64, Vec<String>)> {
    let sid = p.session_id.as_str();
    let (Some(src_root), Some(dest_root)) =
        (from.parent().map(|d| d.join(sid)), to.parent().map(|d| d.join(sid)))
    else {
        return Ok((0, vec!["the transcript has no folder".into()]));
    };
    let mut placed = 0;
    let mut problems = Vec::new();
    'files: for rel_text in &p.companions {
        let Some(rel) = companion_rel(rel_text) else {
            problems.push(format!("{rel_text:?} is not a plain relative path"));
            continue;
        };
        let src = src_root.join(&rel);
        let dest = dest_root.join(&rel);
        let real_src = match fs::symlink_metadata(&src) {
            Ok(m) if m.is_file() => match fs::canonicalize(&src) {
                Ok(r) => r,
                Err(e) => {
                    problems.push(format!("{rel_text}: {e}"));
                    continue;
                }
            },
            Ok(_) => {
                problems.push(format!("{rel_text}: not a regular file"));
                continue;
            }
            Err(e) => {
                problems.push(format!("{rel_text}: {e}"));
                continue;
            }
        };
        // Folders from `<sid>/` down to the file's own, each journaled before it is created.
        let mut folder = dest_root.clone();
        let mut folders = vec![folder.clone()];
        for part in rel.parent().into_iter().flat_map(Path::components) {
            folder = folder.join(part);
            folders.push(folder.clone());
        }
        for f in &folders {
            if let Err(detail) = ensure_folder(w, p, f, "session folder")? {
                problems.push(format!("{rel_text}: {detail}"));
                continue 'files;
            }
        }
        let backup = (mode == PlacementMode::Move).then(|| format!("{i:05}/{sid}/{rel_text}"));
        let step = JournaledFile { kind: EntryKind::Companion, from: &real_src, to: &dest, backup };
        match step.place(w, mode, fs_ops, p)? {
            Placing::Placed(_) => placed += 1,
            Placing::BackupTaken(_) => {
                problems.push(format!("{rel_text}: its backup name is taken"));
            }
            Placing::BackupFailed(e) => {
                problems.push(format!("{rel_text}: cannot back it up: {e}"));
            }
            Placing::DestinationExists => {
                problems.push(format!("{rel_text}: already at the destination (kept as it is)"));
            }
            Placing::Failed(e) => problems.push(format!("{rel_text}: {e}")),
        }
    }
    Ok((placed, problems))
}

/// Re-checks ownership and writes the adoption record (backing up one it replaces).
/// `Ok(Ok(None))`: this agent's record was already there and is kept as it is.
fn write_record(
    w: &mut RunWriter,
    cache: &mut JobCache,
    state_dir: &Path,
    agent: &str,
    p: &PlannedPlacement,
    i: usize,
    now: DateTime<Utc>,
) -> Result<Outcome<Option<String>>> {
    let from = Path::new(&p.from);
    let sid = p.session_id.clone();
    let fail = |reason: SkipReason, detail: String, owner: Option<String>| {
        let mut s = skip(from, sid.clone(), reason, detail);
        s.owned_by = owner;
        Err(s)
    };
    // The adoption folder (and the state dir above it) is journaled before it is created, so
    // undo can remove it again; the store stays locked from the ownership check to the write.
    let store = adoption_store::store_dir(state_dir);
    if let Err(detail) = ensure_folder(w, p, &store, "adoption store")? {
        return Ok(fail(SkipReason::RecordFailed, detail, None));
    }
    let _one_writer = match adoption_store::lock(state_dir) {
        Ok(l) => l,
        Err(e) => return Ok(fail(SkipReason::RecordFailed, e.to_string(), None)),
    };
    // Ownership, immediately before the write.
    let (index, _) = AttributionIndex::build_for_session(state_dir, cache, &sid);
    let attr = index.get(&sid);
    if !attribution::can_agent_adopt(&attr, agent) {
        let owner = attr.agent_name.clone();
        return Ok(fail(
            SkipReason::RecordFailed,
            format!("now attributed elsewhere: {}", describe_owner(&attr)),
            owner,
        ));
    }
    let path = match adoption_store::record_path(state_dir, &sid) {
        Ok(p) => p,
        Err(e) => return Ok(fail(SkipReason::RecordFailed, e.to_string(), None)),
    };
    let existing = match crate::files::read_bounded_if_present(&path, crate::fleet::MAX_YAML_BYTES)
    {
        Ok(existing) => existing,
        Err(e) => {
            let why = format!("cannot read {}: {e}", path.display());
            return Ok(fail(SkipReason::RecordFailed, why, None));
        }
    };
    let mut backup = None;
    if let Some(bytes) = &existing {
        let parsed = std::str::from_utf8(bytes)
            .ok()
            .and_then(|t| serde_saphyr::from_str::<AdoptionRecord>(t).ok());
        if parsed.as_ref().is_some_and(|r| r.agent_name == agent && r.session_id == sid) {
            return Ok(Ok(None));
        }
        let name = format!("{i:05}/{sid}.yaml");
        let bk = w.backup_dir().join(&name);
        if let Some(parent) = bk.parent()
            && let Err(e) = fs::create_dir_all(parent)
        {
            return Ok(fail(
                SkipReason::RecordFailed,
                format!("cannot back up the old record: {e}"),
                None,
            ));
        }
        match crate::atomic_write::create_exclusive(&bk, bytes) {
            Ok(true) => crate::atomic_write::sync_dir(&w.backup_dir()),
            Ok(false) => {
                return Ok(fail(
                    SkipReason::RecordFailed,
                    format!("cannot back up the old record: {} exists", bk.display()),
                    None,
                ));
            }
            Err(e) => {
                return Ok(fail(
                    SkipReason::RecordFailed,
                    format!("cannot back up the old record: {e}"),
                    None,
                ));
            }
        }
        backup = Some(name);
    }
    let record = AdoptionRecord {
        version: 1,
        session_id: sid.clone(),
        agent_name: agent.to_owned(),
        adopted_at: iso(now),
        source_cwd: p.source_cwd.clone(),
    };
    let backup_sha = backup
        .as_ref()
        .and(existing.as_deref())
        .map(|b| (b.len() as u64, crate::files::sha256_hex(b)));
    let mut e =
        entry(EntryKind::Record, p, path.display().to_string(), None, backup, EntryState::Intended);
    if let Some((size, sha)) = backup_sha {
        e.backup_size = Some(size);
        e.backup_sha256 = Some(sha);
    }
    e.agent_name = Some(record.agent_name.clone());
    e.adopted_at = Some(record.adopted_at.clone());
    let idx = w.push(e)?;
    match adoption_store::write(state_dir, &record) {
        Ok(()) => {
            fault_point("record written, journal not yet updated");
            w.set(idx, EntryState::Done, None, None)?;
            w.record_identity(idx);
            Ok(Ok(Some(path.display().to_string())))
        }
        Err(err) => {
            w.set(idx, EntryState::Failed, None, Some(err.to_string()))?;
            Ok(fail(SkipReason::RecordFailed, err.to_string(), None))
        }
    }
}
