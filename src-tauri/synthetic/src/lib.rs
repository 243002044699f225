//! Synthetic Claude homes for benchmarks and tests.
//!
//! [`generate`] writes a realistic, deterministic (same seed → same bytes and mtimes) Claude home:
//! N sessions across M project folders with the modern line mix (bookkeeping first lines,
//! streamed assistant chunks sharing `message.id`, tool_use/tool_result pairs with
//! `toolUseResult`, thinking, attachments, progress and system lines, titles at random
//! positions, `isMeta` lines), nested and flat subagent files, a few empty, damaged,
//! sidechain-only and summary-only files, a realistic size distribution with configurable huge
//! files and one multi-megabyte line, and — given a fleet dir — a herdctl fleet with its
//! `.herdctl` state (job files, platform bindings, adoption records).
//!
//! The generator never writes into an existing non-empty Claude home or fleet, and creates every
//! file exclusively (nothing is ever overwritten).

use std::collections::HashSet;
use std::fs::{File, FileTimes, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::Serialize;

use corral_engine::error::{Error, Result};
use corral_engine::paths::encode_path;

mod fleet;
mod plan;
mod rng;
mod session;
mod text;
mod writer;

use fleet::*;
use plan::*;
use rng::*;
use session::*;
use text::*;
use writer::*;

/// Bumped whenever the generator's output for a given spec changes (cached corpora are keyed by it).
pub const GENERATOR_VERSION: u32 = 4;

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

/// 2026-06-01T00:00:00Z, the default time of the newest generated session.
const DEFAULT_NEWEST_MS: i64 = 1_780_272_000_000;

/// What to generate. Build one with [`SyntheticSpec::new`] and adjust fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntheticSpec {
    pub seed: u64,
    /// Main transcripts (`<encoded-cwd>/<uuid>.jsonl`), special ones included.
    pub sessions: usize,
    /// Project folders under `projects/` (at most `sessions`).
    pub folders: usize,
    /// Approximate total bytes of all transcripts (main, subagent and flat agent files).
    pub target_bytes: u64,
    /// How many sessions are huge, and how big each is.
    pub huge_files: usize,
    pub huge_file_bytes: u64,
    /// One session carries one line of this many bytes (a pasted image); 0 for none.
    pub long_line_bytes: u64,
    /// `job-*.yaml` files written when a fleet dir is given.
    pub jobs: usize,
    /// Percent of sessions in agent folders claimed by jobs.
    pub job_claim_percent: u32,
    /// Special files (counted in `sessions`).
    pub empty_files: usize,
    pub damaged_files: usize,
    pub sidechain_only_files: usize,
    pub summary_only_files: usize,
    /// Percent of modern sessions with subagent files.
    pub subagent_percent: u32,
    /// Time of the newest session (Unix ms), and how far back sessions go.
    pub newest_ms: i64,
    pub span_days: u32,
}

impl SyntheticSpec {
    /// A spec with defaults scaled to the corpus: ~25 sessions per folder, a few huge files
    /// (two of 120 MB at ≥ 1 GB), one 6 MB line at ≥ 100 MB, and half as many jobs as sessions.
    pub fn new(seed: u64, sessions: usize, target_bytes: u64) -> Self {
        let (huge_files, huge_file_bytes) =
            if target_bytes >= 1024 * MIB { (2, 120 * MIB) } else { (0, 0) };
        let long_line_bytes = if target_bytes >= 100 * MIB {
            6 * MIB
        } else if target_bytes >= 4 * MIB {
            256 * KIB
        } else {
            0
        };
        let specials = |per: usize, min: usize| (sessions / per).max(min).min(sessions / 6);
        Self {
            seed,
            sessions,
            folders: (sessions / 25).max(1).min(sessions.max(1)),
            target_bytes,
            huge_files,
            huge_file_bytes,
            long_line_bytes,
            jobs: sessions / 2,
            job_claim_percent: 70,
            empty_files: specials(500, 1),
            damaged_files: specials(400, 2),
            sidechain_only_files: specials(300, 1),
            summary_only_files: specials(500, 1),
            subagent_percent: 20,
            newest_ms: DEFAULT_NEWEST_MS,
            span_days: 180,
        }
    }
}

/// A generated file that is not an ordinary session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpecialFile {
    /// `empty`, `damaged-truncated-tail`, `damaged-garbage-line`, `damaged-invalid-utf8`,
    /// `damaged-nul-run`, `sidechain-only`, `summary-only`, `huge`, `long-line`.
    pub kind: String,
    pub session_id: String,
    pub path: PathBuf,
    pub bytes: u64,
}

impl SpecialFile {
    pub fn is_damaged(&self) -> bool {
        self.kind.starts_with("damaged")
    }
}

/// One generated session (for callers that want to touch it afterwards).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub session_id: String,
    pub path: PathBuf,
    pub cwd: String,
    pub bytes: u64,
    pub last_message_ms: i64,
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateReport {
    pub seed: u64,
    pub claude_home: PathBuf,
    pub fleet_file: Option<PathBuf>,
    pub state_dir: Option<PathBuf>,
    /// Main transcripts written (special ones included).
    pub sessions: usize,
    pub folders: usize,
    pub subagent_files: usize,
    pub flat_agent_files: usize,
    /// Bytes of every transcript (main + subagent + flat agent).
    pub transcript_bytes: u64,
    pub largest_file_bytes: u64,
    pub agents: usize,
    pub job_files: usize,
    /// Sessions a job record names.
    pub job_claimed_sessions: usize,
    pub platform_binding_files: usize,
    pub platform_sessions: usize,
    pub adoption_records: usize,
    pub special: Vec<SpecialFile>,
    /// The session with the latest last message.
    pub newest_session: Option<SessionRef>,
    pub elapsed_ms: u64,
}

/// Parses `2G`, `200M`, `512K`, `1.5G`, `123` (bytes; binary multiples).
pub fn parse_size(text: &str) -> Result<u64> {
    let t = text.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let mult = match c.to_ascii_uppercase() {
                'K' => KIB,
                'M' => MIB,
                'G' => 1024 * MIB,
                'T' => 1024 * 1024 * MIB,
                'B' => 1,
                _ => return Err(Error::InvalidInput(format!("unknown size suffix in {text:?}"))),
            };
            (t.get(..i).unwrap_or(""), mult)
        }
        _ => (t, 1),
    };
    let value: f64 = num
        .trim()
        .parse()
        .map_err(|_| Error::InvalidInput(format!("cannot read size {text:?} (try 2G, 200M)")))?;
    if !value.is_finite() || value < 0.0 {
        return Err(Error::InvalidInput(format!("size {text:?} must be positive")));
    }
    Ok((value * mult as f64) as u64)
}

// ---------------------------------------------------------------------------------------------
// The whole home

fn ensure_empty_dir(dir: &Path, what: &str) -> Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                Err(Error::Refused(format!(
                    "{what} {} is not empty; the generator only writes into a new or empty folder",
                    dir.display()
                )))
            } else {
                Ok(())
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io_at("read", dir, e)),
    }
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io_at("create", dir, e))
}

/// Writes a synthetic Claude home at `claude_home` (its `projects/` must be absent or empty)
/// and, given `fleet_dir`, a herdctl fleet there (`herdctl.yaml`, agent files and `.herdctl/`
/// state). Deterministic: the same spec writes the same bytes and mtimes.
pub fn generate(
    spec: &SyntheticSpec,
    claude_home: &Path,
    fleet_dir: Option<&Path>,
) -> Result<GenerateReport> {
    let started = Instant::now();
    let projects = corral_engine::paths::projects_dir(claude_home);
    prepare(&projects, fleet_dir)?;

    let mut rng = Rng::new(spec.seed);
    let folder_count = spec.folders.clamp(1, spec.sessions.max(1));
    let folders = make_folders(&mut rng.fork(), folder_count, &projects);
    for (i, f) in folders.iter().enumerate() {
        create_dir(&f.dir)?;
        side_files(spec, i, &f.dir)?;
    }
    let plans = make_plans(spec, &mut rng.fork(), &folders);
    let filler = Filler::new(spec.seed);

    let outcomes: Vec<Result<SessionOutcome>> = plans
        .par_iter()
        .map(|p| match folders.get(p.folder) {
            Some(f) => write_session(p, f, &filler),
            None => Err(Error::InvalidInput("synthetic plan names a missing folder".into())),
        })
        .collect();

    let Gathered { tally, special, newest, done } = gather(&plans, &folders, outcomes)?;

    let mut report = GenerateReport {
        seed: spec.seed,
        claude_home: claude_home.to_path_buf(),
        fleet_file: None,
        state_dir: None,
        sessions: plans.len(),
        folders: folders.len(),
        subagent_files: tally.subagent_files,
        flat_agent_files: tally.flat_agent_files,
        transcript_bytes: tally.bytes,
        largest_file_bytes: tally.largest,
        agents: 0,
        job_files: 0,
        job_claimed_sessions: 0,
        platform_binding_files: 0,
        platform_sessions: 0,
        adoption_records: 0,
        special,
        newest_session: newest,
        elapsed_ms: 0,
    };
    if let Some(f) = fleet_dir {
        write_fleet(spec, &mut rng.fork(), f, &folders, &done, &mut report)?;
    }
    report.elapsed_ms = started.elapsed().as_millis() as u64;
    Ok(report)
}

/// Plain filler text safe inside a YAML double-quoted scalar.
fn filler_line(rng: &mut Rng, len: usize) -> String {
    const PLAIN: &[&str] = &[
        "review",
        "the",
        "open",
        "pull",
        "requests",
        "and",
        "summarise",
        "failures",
        "in",
        "nightly",
        "build",
        "report",
        "traffic",
        "for",
        "last",
        "24",
        "hours",
        "triage",
        "issues",
    ];
    let mut s = String::with_capacity(len + 16);
    while s.len() < len {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(rng.pick_str(PLAIN));
    }
    s
}

/// Refuses a Claude home or fleet that already holds something; creates the projects folder.
fn prepare(projects: &Path, fleet_dir: Option<&Path>) -> Result<()> {
    ensure_empty_dir(projects, "the Claude projects folder")?;
    if let Some(f) = fleet_dir {
        if f.join("herdctl.yaml").exists() {
            return Err(Error::Refused(format!(
                "{} already holds a herdctl.yaml; the generator never overwrites a fleet",
                f.display()
            )));
        }
        ensure_empty_dir(&f.join(".herdctl"), "the herdctl state folder")?;
    }
    create_dir(projects)?;
    Ok(())
}

/// Files that live next to transcripts but are not sessions, in some folders.
fn side_files(spec: &SyntheticSpec, i: usize, dir: &Path) -> Result<()> {
    // Files that live next to transcripts but are not sessions.
    match i % 10 {
        3 => write_new_with_mtime(
            &dir.join("sessions-index.json"),
            b"{\"version\":1,\"entries\":[]}\n",
            spec.newest_ms,
        )?,
        4 => {
            let memory = dir.join("memory");
            create_dir(&memory)?;
            write_new_with_mtime(
                &memory.join("MEMORY.md"),
                b"# Memory\n\n- Prefer small commits.\n",
                spec.newest_ms,
            )?;
        }
        _ => {}
    }
    Ok(())
}

/// What the sessions written add up to.
struct Gathered<'a> {
    tally: Tally,
    special: Vec<SpecialFile>,
    newest: Option<SessionRef>,
    /// Each session with the time of its last message (for the fleet's records).
    done: Vec<(&'a Plan, i64)>,
}

/// Adds up the written sessions: sizes, the special files, the newest ordinary session.
fn gather<'a>(
    plans: &'a [Plan],
    folders: &[Folder],
    outcomes: Vec<Result<SessionOutcome>>,
) -> Result<Gathered<'a>> {
    let mut tally = Tally::default();
    let mut special = Vec::new();
    let mut newest: Option<SessionRef> = None;
    let mut done = Vec::with_capacity(plans.len());
    for (plan, outcome) in plans.iter().zip(outcomes) {
        let o = outcome?;
        tally.add(o.tally);
        let path = folders
            .get(plan.folder)
            .map(|f| f.dir.join(format!("{}.jsonl", plan.session_id)))
            .unwrap_or_default();
        if let Some(kind) = plan.kind.special_name() {
            special.push(SpecialFile {
                kind: kind.to_owned(),
                session_id: plan.session_id.clone(),
                path: path.clone(),
                bytes: o.main_bytes,
            });
        }
        let is_candidate = matches!(plan.kind, Kind::Normal);
        if is_candidate && newest.as_ref().is_none_or(|n| o.last_ms > n.last_message_ms) {
            newest = Some(SessionRef {
                session_id: plan.session_id.clone(),
                path,
                cwd: plan.cwd.clone(),
                bytes: o.main_bytes,
                last_message_ms: o.last_ms,
            });
        }
        done.push((plan, o.last_ms));
    }
    Ok(Gathered { tally, special, newest, done })
}

/// What [`append_turns`] added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Appended {
    pub bytes: u64,
    pub last_message_ms: i64,
}

/// Appends realistic turns (about `bytes`) to an existing transcript, as a running Claude Code
/// would, starting at `start_ms`, and sets the file's mtime to the last appended message.
pub fn append_turns(
    path: &Path,
    session_id: &str,
    cwd: &str,
    bytes: u64,
    seed: u64,
    start_ms: i64,
) -> Result<Appended> {
    let file =
        OpenOptions::new().append(true).open(path).map_err(|e| Error::io_at("open", path, e))?;
    let filler = Filler::new(seed);
    let mut rng = Rng::new(seed);
    let ctx = Ctx {
        session_id: session_id.to_owned(),
        cwd: cwd.to_owned(),
        era: Era::New,
        version: "2.1.141",
        model: "claude-opus-4-7",
        branch: "main",
        sidechain: false,
        agent_id: None,
        folder: path.parent().map(Path::to_path_buf).unwrap_or_default(),
        allow_subagents: false,
    };
    let out = BufWriter::with_capacity(256 * KIB as usize, file);
    let mut w = TranscriptWriter::new(out, rng.fork(), &filler, ctx, start_ms, 16 * KIB);
    while w.written < bytes {
        let len = w.rng.log_uniform(15, 800);
        w.turn(len)?;
    }
    let (written, last) = w.close(path)?;
    Ok(Appended { bytes: written, last_message_ms: last })
}
