//! Session attribution: job records, then platform bindings, then adoption records, then native.
//! The ownership predicates live here, once, and every caller uses them.
//!
//! CONTRACT (owned by the fleet/attribution developer).
//!
//! Sources (herdctl `state/session-attribution.ts`):
//! 1. `jobs/job-*.yaml` (only names starting `job-` and ending `.yaml`): `session_id` →
//!    `{agent, trigger_type}`, read incrementally through a [`JobCache`] keyed by file name with
//!    mtime and size. Two jobs claiming one session: the newest `started_at` wins (compared as
//!    instants when both parse, an unparseable time loses to a parseable one), ties go to the
//!    greater job `id` — the same answer whatever order the files are read in.
//! 2. `{discord,slack,web}-sessions/*.yaml` (versions 1, 2 and 3 share one shape): every
//!    `channels.*.sessionId` → `(platform, agentName)`, with `agentName` read from inside the
//!    file. Platforms are read in the order discord, slack, web and files in name order; a later
//!    claim replaces an earlier one (herdctl's `Map.set`).
//! 3. `adopted-sessions/*.yaml` through [`crate::adoption_store::read_all`].
//!
//! Lookup: job › platform (origin = platform) › adopted › native with no agent. Malformed files
//! are warnings, never fatal; missing folders are fine.
//!
//! Leniency compared with herdctl's zod schemas: a job needs only `agent`, `trigger_type` and
//! `started_at` (plus `id`, else the file name stands in); an unknown `trigger_type` folds into
//! `native` like `manual`. A platform channel's `lastMessageAt` is optional.

use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::UNIX_EPOCH;

use chrono::{DateTime, Utc};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::adoption_store::AdoptionRecord;
use crate::files::Unusable;
use crate::model::{Attribution, Origin, Warning};

/// The platforms whose bindings are read, in reading order.
pub const PLATFORMS: [&str; 3] = ["discord", "slack", "web"];

/// Incremental cache of parsed job files, keyed by file name with its mtime and size
/// (job files are immutable once written). Serializable so Corral can persist it in its data dir.
/// Use one cache per state dir: entries are keyed by file name only. herdctl keys on `mtimeMs`
/// alone; the size is checked too, so a rewrite within one coarse mtime tick is still noticed
/// unless it keeps the exact size.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct JobCache {
    entries: HashMap<String, CachedJob>,
}

impl JobCache {
    /// Number of job files remembered.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No job file is remembered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct CachedJob {
    mtime_ns: i128,
    size: u64,
    job: Option<JobClaim>,
    /// Why the file was not usable, re-reported on every build while it stays unchanged.
    #[serde(default)]
    problem: Option<String>,
}

/// What attribution needs from one job record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobClaim {
    /// The job id (its file name).
    pub id: String,
    /// The qualified name of the agent that ran it.
    pub agent: String,
    /// What started it (`schedule`, `web`, `manual`, …), as written.
    pub trigger_type: String,
    /// The session it ran, when it got that far.
    pub session_id: Option<String>,
    /// When it started, as written.
    pub started_at: String,
    /// `pending|running|completed|failed|cancelled` as written (what the live view shows of it).
    #[serde(default)]
    pub status: Option<String>,
    /// What the job cost by its own record (`usage.total_cost_usd`), in pico-dollars.
    #[serde(default)]
    pub cost: Option<crate::pricing::Pico>,
}

/// What one [`AttributionIndex::build`] did with the job folder (observable for tests and logs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobScanStats {
    /// `job-*.yaml` files present.
    pub files: usize,
    /// Files read and parsed in this build (new or changed).
    pub parsed: usize,
    /// Files whose cached result was reused without reading them.
    pub reused: usize,
    /// Cache entries dropped because their file is gone.
    pub dropped: usize,
}

/// Session id → attribution, built from a state dir.
#[derive(Debug, Clone, Default)]
pub struct AttributionIndex {
    jobs: HashMap<String, JobClaim>,
    platforms: HashMap<String, (String, String)>,
    adoptions: HashMap<String, AdoptionRecord>,
    stats: JobScanStats,
}

impl AttributionIndex {
    /// Reads `jobs/job-*.yaml` (through `cache`, re-parsing only changed files),
    /// `{discord,slack,web}-sessions/*.yaml` and `adopted-sessions/*.yaml`. Malformed files are
    /// skipped with a warning; missing folders are fine.
    pub fn build(state_dir: &Path, cache: &mut JobCache) -> (Self, Vec<Warning>) {
        let mut warnings = Vec::new();
        let (jobs, stats) = build_job_index(&state_dir.join("jobs"), cache, &mut warnings);
        let platforms = build_platform_index(state_dir, &mut warnings);
        let (records, adoption_warnings) = crate::adoption_store::read_all(state_dir);
        warnings.extend(adoption_warnings);
        let adoptions = records.into_iter().map(|r| (r.session_id.clone(), r)).collect();
        (Self { jobs, platforms, adoptions, stats }, warnings)
    }

    /// Like [`AttributionIndex::build`], but reads only `session_id`'s adoption record: what a
    /// write site needs to re-check one session's owner right before it writes, without
    /// re-reading every record (which made a large import quadratic). Lookups of `session_id` give
    /// the same answer as a full build.
    pub fn build_for_session(
        state_dir: &Path,
        cache: &mut JobCache,
        session_id: &str,
    ) -> (Self, Vec<Warning>) {
        let mut warnings = Vec::new();
        let (jobs, stats) = build_job_index(&state_dir.join("jobs"), cache, &mut warnings);
        let platforms = build_platform_index(state_dir, &mut warnings);
        let mut adoptions = HashMap::new();
        match crate::adoption_store::read(state_dir, session_id) {
            Ok(Some(r)) if r.session_id == session_id => {
                adoptions.insert(r.session_id.clone(), r);
            }
            Ok(_) => {}
            Err(e) => warnings.push(Warning {
                path: crate::adoption_store::store_dir(state_dir).display().to_string(),
                message: e.to_string(),
            }),
        }
        (Self { jobs, platforms, adoptions, stats }, warnings)
    }

    /// job › platform › adopted › native.
    pub fn get(&self, session_id: &str) -> Attribution {
        if let Some(job) = self.jobs.get(session_id) {
            return Attribution {
                origin: Origin::from_trigger_type(&job.trigger_type),
                agent_name: Some(job.agent.clone()),
                trigger_type: Some(job.trigger_type.clone()),
            };
        }
        if let Some((platform, agent)) = self.platforms.get(session_id) {
            return Attribution {
                origin: Origin::from_trigger_type(platform),
                agent_name: Some(agent.clone()),
                trigger_type: None,
            };
        }
        if let Some(record) = self.adoptions.get(session_id) {
            return Attribution {
                origin: Origin::Adopted,
                agent_name: Some(record.agent_name.clone()),
                trigger_type: None,
            };
        }
        Attribution::native()
    }

    /// The adoption record of a session, if any (whether or not it takes effect).
    pub fn adoption(&self, session_id: &str) -> Option<&AdoptionRecord> {
        self.adoptions.get(session_id)
    }

    /// The job that won the claim on a session, if any.
    pub fn job(&self, session_id: &str) -> Option<&JobClaim> {
        self.jobs.get(session_id)
    }

    /// Every session's winning job claim.
    pub fn jobs(&self) -> impl Iterator<Item = (&str, &JobClaim)> {
        self.jobs.iter().map(|(sid, claim)| (sid.as_str(), claim))
    }

    /// The platform binding of a session (`(platform, agentName)`), if any.
    pub fn platform(&self, session_id: &str) -> Option<(&str, &str)> {
        self.platforms.get(session_id).map(|(p, a)| (p.as_str(), a.as_str()))
    }

    /// Every session id known to any source, sorted.
    pub fn session_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self
            .jobs
            .keys()
            .chain(self.platforms.keys())
            .chain(self.adoptions.keys())
            .map(String::as_str)
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        ids.sort_unstable();
        ids
    }

    /// What this build did with the job folder.
    pub fn job_stats(&self) -> JobScanStats {
        self.stats
    }

    /// Number of distinct session ids known to any source.
    pub fn len(&self) -> usize {
        self.session_ids().len()
    }

    /// No source knows any session.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn build_job_index(
    jobs_dir: &Path,
    cache: &mut JobCache,
    warnings: &mut Vec<Warning>,
) -> (HashMap<String, JobClaim>, JobScanStats) {
    let mut stats = JobScanStats::default();
    let entries = match std::fs::read_dir(jobs_dir) {
        Ok(e) => e,
        Err(e) => {
            if e.kind() != std::io::ErrorKind::NotFound {
                warnings.push(Warning::new(jobs_dir, format!("cannot list job records: {e}")));
            }
            stats.dropped = cache.entries.len();
            cache.entries.clear();
            return (HashMap::new(), stats);
        }
    };
    // Stat (relative to the open folder) and parse what changed on every core: a fleet keeps
    // thousands of job records, and a listing must not wait for them one by one.
    let candidates: Vec<std::fs::DirEntry> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name().to_str().is_some_and(|n| n.starts_with("job-") && n.ends_with(".yaml"))
        })
        .collect();
    let seen: Vec<(String, Option<CachedJob>)> =
        candidates.par_iter().filter_map(|entry| look_at_job(entry, cache)).collect();
    let mut present = HashSet::new();
    for (name, parsed) in seen {
        stats.files += 1;
        present.insert(name.clone());
        match parsed {
            None => stats.reused += 1,
            Some(job) => {
                stats.parsed += 1;
                cache.entries.insert(name, job);
            }
        }
    }
    let before = cache.entries.len();
    cache.entries.retain(|name, _| present.contains(name));
    stats.dropped = before - cache.entries.len();

    (claims_by_session(jobs_dir, cache, warnings), stats)
}

/// One listed job record: its name, and its parsed form unless the cache's copy is still fresh
/// (same mtime and size). `None`: it vanished since it was listed, or is not a regular file.
fn look_at_job(entry: &std::fs::DirEntry, cache: &JobCache) -> Option<(String, Option<CachedJob>)> {
    let name = entry.file_name().to_str()?.to_owned();
    let meta = match entry.file_type() {
        Ok(t) if t.is_symlink() => std::fs::metadata(entry.path()),
        Ok(_) => entry.metadata(),
        Err(e) => Err(e),
    };
    let meta = meta.ok().filter(std::fs::Metadata::is_file)?;
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| match t.duration_since(UNIX_EPOCH) {
            Ok(d) => i128::try_from(d.as_nanos()).ok(),
            Err(e) => i128::try_from(e.duration().as_nanos()).ok().map(|n| -n),
        })
        .unwrap_or(0);
    let size = meta.len();
    let fresh = cache.entries.get(&name).is_some_and(|c| c.mtime_ns == mtime_ns && c.size == size);
    let parsed = (!fresh).then(|| {
        let (job, problem) = match read_job(&entry.path(), &name) {
            Ok(job) => (Some(job), None),
            Err(reason) => (None, Some(reason.to_string())),
        };
        CachedJob { mtime_ns, size, job, problem }
    });
    Some((name, parsed))
}

/// The winning claim per session over the cached job records, assembled in file-name order so
/// the result and the warnings are deterministic; each unusable record is a warning.
fn claims_by_session(
    jobs_dir: &Path,
    cache: &JobCache,
    warnings: &mut Vec<Warning>,
) -> HashMap<String, JobClaim> {
    let mut names: Vec<&String> = cache.entries.keys().collect();
    names.sort();
    let mut index: HashMap<String, JobClaim> = HashMap::new();
    for name in names {
        let Some(cached) = cache.entries.get(name) else { continue };
        if let Some(problem) = &cached.problem {
            warnings
                .push(Warning::new(&jobs_dir.join(name), format!("job record skipped: {problem}")));
        }
        let Some(job) = &cached.job else { continue };
        let Some(sid) = job.session_id.as_deref().filter(|s| !s.is_empty()) else { continue };
        match index.get(sid) {
            Some(current) if claim_order(current, job) != Ordering::Less => {}
            _ => {
                index.insert(sid.to_owned(), job.clone());
            }
        }
    }
    index
}

/// Orders two claims on one session: the greater one wins. Newest `started_at` (as instants when
/// both parse; a parseable time beats an unparseable one; two unparseable ones compare as
/// strings), then the greater job id. A total order, so the winner never depends on read order.
pub fn claim_order(a: &JobClaim, b: &JobClaim) -> Ordering {
    let ta = parse_time(&a.started_at);
    let tb = parse_time(&b.started_at);
    let by_time = match (ta, tb) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => a.started_at.cmp(&b.started_at),
    };
    by_time.then_with(|| a.id.cmp(&b.id))
}

fn parse_time(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s).ok().map(|t| t.with_timezone(&Utc))
}

/// A job file as written by herdctl (only the fields attribution needs; the rest is ignored).
#[derive(Deserialize)]
struct RawJob {
    id: Option<String>,
    agent: Option<String>,
    trigger_type: Option<String>,
    session_id: Option<String>,
    started_at: Option<String>,
    status: Option<String>,
    #[serde(default)]
    usage: Option<RawUsage>,
}

/// A job's `usage`, as far as its cost goes: any other shape (or a cost that is no number) is
/// no cost, never an unreadable job.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawUsage {
    Usage {
        #[serde(default)]
        total_cost_usd: Option<f64>,
    },
    Other(serde::de::IgnoredAny),
}

fn read_job(path: &Path, file_name: &str) -> std::result::Result<JobClaim, Unusable> {
    let raw: RawJob = crate::fleet::read_yaml_file(path)?;
    let agent =
        raw.agent.filter(|a| !a.is_empty()).ok_or_else(|| Unusable::shape("it has no `agent`"))?;
    let trigger_type = raw
        .trigger_type
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Unusable::shape("it has no `trigger_type`"))?;
    let started_at = raw
        .started_at
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Unusable::shape("it has no `started_at`"))?;
    let id = raw
        .id
        .filter(|i| !i.is_empty())
        .unwrap_or_else(|| file_name.strip_suffix(".yaml").unwrap_or(file_name).to_owned());
    let status = raw.status.filter(|s| !s.is_empty());
    let cost = match raw.usage {
        Some(RawUsage::Usage { total_cost_usd: Some(usd) }) if usd.is_finite() && usd >= 0.0 => {
            Some(crate::pricing::pico(usd))
        }
        _ => None,
    };
    Ok(JobClaim { id, agent, trigger_type, session_id: raw.session_id, started_at, status, cost })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPlatformFile {
    version: u32,
    agent_name: String,
    channels: BTreeMap<String, RawChannel>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawChannel {
    session_id: String,
    #[serde(default)]
    #[allow(dead_code)]
    last_message_at: Option<String>,
}

fn build_platform_index(
    state_dir: &Path,
    warnings: &mut Vec<Warning>,
) -> HashMap<String, (String, String)> {
    let mut index = HashMap::new();
    for platform in PLATFORMS {
        let dir = state_dir.join(format!("{platform}-sessions"));
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                if e.kind() != std::io::ErrorKind::NotFound {
                    warnings
                        .push(Warning::new(&dir, format!("cannot list {platform} bindings: {e}")));
                }
                continue;
            }
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .filter(|n| n.ends_with(".yaml") && !n.starts_with('.'))
            .collect();
        names.sort();
        for name in names {
            let path = dir.join(&name);
            match read_platform_file(&path) {
                Ok(file) => {
                    for channel in file.channels.into_values() {
                        if channel.session_id.is_empty() {
                            continue;
                        }
                        index.insert(
                            channel.session_id,
                            (platform.to_owned(), file.agent_name.clone()),
                        );
                    }
                }
                Err(reason) => warnings.push(Warning::new(
                    &path,
                    format!("{platform} session binding skipped: {reason}"),
                )),
            }
        }
    }
    index
}

fn read_platform_file(path: &Path) -> std::result::Result<RawPlatformFile, Unusable> {
    let file: RawPlatformFile = crate::fleet::read_yaml_file(path)?;
    if !(1..=3).contains(&file.version) {
        let why = format!("unsupported version {} (herdctl writes 1, 2 or 3)", file.version);
        return Err(Unusable::Shape(why));
    }
    if file.agent_name.is_empty() {
        return Err(Unusable::shape("agentName is empty"));
    }
    Ok(file)
}

/// Will this session appear under `agent`? (`None` matches unattributed sessions.)
pub fn is_owned_by_agent(a: &Attribution, agent: Option<&str>) -> bool {
    a.agent_name.as_deref() == agent
}

/// Does nobody own this session?
pub fn is_unattributed(a: &Attribution) -> bool {
    a.origin == crate::model::Origin::Native && a.agent_name.is_none()
}

/// What attribution would resolve to after `agent` adopted the session.
pub fn attribution_after_adoption_by(a: &Attribution, agent: &str) -> Attribution {
    if a.origin == crate::model::Origin::Adopted || a.agent_name.is_none() {
        Attribution {
            origin: crate::model::Origin::Adopted,
            agent_name: Some(agent.to_owned()),
            trigger_type: None,
        }
    } else {
        a.clone()
    }
}

/// Would an adoption record by `agent` take effect?
pub fn can_agent_adopt(a: &Attribution, agent: &str) -> bool {
    is_owned_by_agent(&attribution_after_adoption_by(a, agent), Some(agent))
}

/// Who owns a session, in words for skip and refusal details: `origin "web" (agent alpha)`,
/// `origin "schedule" via trigger "schedule" (agent team.gamma)`, or `nobody (native)`.
pub fn describe_owner(a: &Attribution) -> String {
    match &a.agent_name {
        None => format!("nobody (origin \"{}\")", a.origin),
        Some(agent) => match &a.trigger_type {
            Some(t) if t != a.origin.as_str() => {
                format!("origin \"{}\" via trigger \"{t}\" (agent {agent})", a.origin)
            }
            _ => format!("origin \"{}\" (agent {agent})", a.origin),
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn job_scalars_that_look_like_numbers_or_dates_read_as_strings() {
        let raw: RawJob = crate::fleet::parse_yaml(
            "id: job-2024-01-19-abc123\nagent: 123\ntrigger_type: manual\nsession_id: 12345\nstarted_at: 2024-01-19T09:00:00Z\n",
        )
        .unwrap();
        assert_eq!(raw.agent.as_deref(), Some("123"));
        assert_eq!(raw.session_id.as_deref(), Some("12345"));
        assert_eq!(raw.started_at.as_deref(), Some("2024-01-19T09:00:00Z"));
        let raw: RawJob =
            crate::fleet::parse_yaml("agent: a\ntrigger_type: web\nsession_id: ~\nstarted_at: x\n")
                .unwrap();
        assert_eq!(raw.session_id, None);
    }
}
