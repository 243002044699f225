//! The synthetic corpus generator: deterministic, the requested counts, realistic line shapes,
//! readable by the facts scanner (`corral-cli generate` is tested with the CLI).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use corral_engine::ErrorKind;
use corral_engine::paths::encode_path;
use corral_engine::transcript::facts::scan_file;
use corral_synthetic::{
    GenerateReport, SyntheticSpec, append_turns, generate as generate_home, parse_size,
};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

fn tiny_spec(seed: u64) -> SyntheticSpec {
    let mut s = SyntheticSpec::new(seed, 30, 3 * MIB);
    s.folders = 6;
    s.huge_files = 1;
    s.huge_file_bytes = 600 * KIB;
    s.long_line_bytes = 300 * KIB;
    s.jobs = 40;
    s.empty_files = 1;
    s.damaged_files = 4;
    s.sidechain_only_files = 1;
    s.summary_only_files = 1;
    s.subagent_percent = 60;
    s
}

/// The generated transcripts that hold no message (empty, or a summary only).
fn message_less(r: &GenerateReport) -> BTreeSet<PathBuf> {
    r.special
        .iter()
        .filter(|s| s.kind == "empty" || s.kind == "summary-only")
        .map(|s| s.path.clone())
        .collect()
}

fn gen_tiny(seed: u64) -> (tempfile::TempDir, GenerateReport) {
    let tmp = tempfile::tempdir().unwrap();
    let report = generate_home(
        &tiny_spec(seed),
        &tmp.path().join("claude"),
        Some(&tmp.path().join("fleet")),
    )
    .unwrap();
    (tmp, report)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

/// Relative path → (content hash, length, mtime in ns) for every file below `root`.
fn tree(root: &Path) -> BTreeMap<PathBuf, (u64, u64, u128)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, (u64, u64, u128)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                walk(root, &p, out);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                let mtime = e.metadata().unwrap().modified().unwrap();
                let ns = mtime.duration_since(UNIX_EPOCH).unwrap().as_nanos();
                out.insert(
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    (fnv1a(&bytes), bytes.len() as u64, ns),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Main transcripts: `<uuid>.jsonl` directly under a project folder.
fn main_transcripts(claude: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for folder in std::fs::read_dir(claude.join("projects")).unwrap() {
        for f in std::fs::read_dir(folder.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_file() && name.ends_with(".jsonl") && !name.starts_with("agent-") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn files_named(root: &Path, pred: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if pred(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn lines(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(<[u8]>::to_vec).collect()
}

#[test]
fn same_seed_writes_identical_trees_and_another_seed_does_not() {
    let (a, ra) = gen_tiny(42);
    let (b, rb) = gen_tiny(42);
    let (c, _) = gen_tiny(43);
    let (ta, tb, tc) = (tree(a.path()), tree(b.path()), tree(c.path()));
    assert!(ta.len() > 100, "expected a real tree, got {} files", ta.len());
    let differing: Vec<_> = ta
        .keys()
        .chain(tb.keys())
        .filter(|k| ta.get(*k) != tb.get(*k))
        .map(|k| (k, ta.get(k), tb.get(k)))
        .collect();
    assert!(
        differing.is_empty(),
        "same seed must write the same paths, bytes and mtimes: {differing:?}"
    );
    assert_ne!(ta, tc);
    assert_eq!(ra.transcript_bytes, rb.transcript_bytes);
    assert_eq!(
        ra.special,
        rb.special
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.path = a.path().join(s.path.strip_prefix(b.path()).unwrap());
                s
            })
            .collect::<Vec<_>>()
    );
}

#[test]
fn writes_the_requested_counts_and_special_files() {
    let (tmp, r) = gen_tiny(7);
    let claude = tmp.path().join("claude");
    let mains = main_transcripts(&claude);
    assert_eq!(r.sessions, 30);
    assert_eq!(mains.len(), 30);
    assert_eq!(std::fs::read_dir(claude.join("projects")).unwrap().count(), 6);
    assert_eq!(r.folders, 6);

    let subagents = files_named(&claude, &|p| {
        p.parent().and_then(Path::file_name).is_some_and(|n| n == "subagents")
            && p.extension().is_some_and(|e| e == "jsonl")
    });
    assert_eq!(subagents.len(), r.subagent_files);
    assert!(r.subagent_files > 0, "expected nested subagent files");
    for s in &subagents {
        assert!(s.with_extension("meta.json").is_file(), "{} has no .meta.json", s.display());
        // <sid>/subagents/agent-*.jsonl: the session folder names a main transcript.
        let sid_dir = s.parent().unwrap().parent().unwrap();
        assert!(sid_dir.with_extension("jsonl").is_file());
    }
    let flat = files_named(&claude, &|p| {
        p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("agent-"))
            && p.parent().and_then(Path::file_name).is_some_and(|n| n != "subagents")
            && p.extension().is_some_and(|e| e == "jsonl")
    });
    assert_eq!(flat.len(), r.flat_agent_files);
    // Non-transcript files next to transcripts (listing must skip them).
    let others = files_named(&claude, &|p| {
        p.file_name().is_some_and(|n| n == "sessions-index.json" || n == "MEMORY.md")
    });
    assert_eq!(others.len(), 2);

    let kinds: BTreeMap<&str, usize> = r.special.iter().fold(BTreeMap::new(), |mut m, s| {
        *m.entry(s.kind.as_str()).or_default() += 1;
        m
    });
    assert_eq!(kinds.get("empty"), Some(&1));
    assert_eq!(kinds.get("huge"), Some(&1));
    assert_eq!(kinds.get("long-line"), Some(&1));
    assert_eq!(kinds.get("sidechain-only"), Some(&1));
    assert_eq!(kinds.get("summary-only"), Some(&1));
    assert_eq!(r.special.iter().filter(|s| s.is_damaged()).count(), 4);
    for s in &r.special {
        let len = std::fs::metadata(&s.path).unwrap().len();
        assert_eq!(len, s.bytes, "{}", s.kind);
        match s.kind.as_str() {
            "empty" => assert_eq!(len, 0),
            "huge" => assert!(len >= 600 * KIB, "huge file is {len} bytes"),
            "long-line" => {
                let longest = lines(&s.path).iter().map(Vec::len).max().unwrap();
                assert!(longest as u64 >= 300 * KIB, "longest line {longest}");
            }
            _ => {}
        }
    }
    // The total lands near the target (log-uniform draws are scaled to it).
    let total: u64 = files_named(&claude, &|p| p.extension().is_some_and(|e| e == "jsonl"))
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    assert_eq!(total, r.transcript_bytes);
    assert!(total > 2 * MIB && total < 6 * MIB, "total {total}");

    // The fleet.
    let jobs = files_named(&tmp.path().join("fleet/.herdctl/jobs"), &|p| {
        p.extension().is_some_and(|e| e == "yaml")
    });
    assert_eq!(jobs.len(), 40);
    assert_eq!(r.job_files, 40);
    assert!(r.agents >= 5, "agents {}", r.agents);
    assert!(r.job_claimed_sessions > 0);
}

#[test]
fn every_line_parses_except_in_damaged_files_and_shapes_are_realistic() {
    let (tmp, r) = gen_tiny(11);
    let claude = tmp.path().join("claude");
    let damaged: BTreeSet<PathBuf> =
        r.special.iter().filter(|s| s.is_damaged()).map(|s| s.path.clone()).collect();
    let all = files_named(&claude, &|p| p.extension().is_some_and(|e| e == "jsonl"));
    let mut ids_per_message: HashMap<String, usize> = HashMap::new();
    let mut types: BTreeSet<String> = BTreeSet::new();
    let mut titles = 0;
    for path in &all {
        let is_main = main_transcripts(&claude).contains(path);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let mut bad = 0;
        let mut last_ts: Option<String> = None;
        for line in lines(path) {
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(&line) else {
                bad += 1;
                continue;
            };
            let ty = v["type"].as_str().unwrap().to_owned();
            if ty == "custom-title" || ty == "ai-title" {
                titles += 1;
            }
            if ty == "assistant" {
                *ids_per_message
                    .entry(v["message"]["id"].as_str().unwrap().to_owned())
                    .or_default() += 1;
            }
            if let Some(sid) = v["sessionId"].as_str()
                && is_main
            {
                assert_eq!(sid, stem, "main file lines carry their own session id");
            }
            if !is_main {
                // Subagent lines: sidechain, parent's session id, an agent id.
                if ty == "user" || ty == "assistant" {
                    assert_eq!(v["isSidechain"], serde_json::Value::Bool(true));
                    assert!(v["agentId"].is_string());
                    let parent = v["sessionId"].as_str().unwrap();
                    assert!(
                        main_transcripts(&claude).iter().any(|m| m.file_stem().unwrap() == parent)
                    );
                }
            }
            if (ty == "user" || ty == "assistant")
                && let Some(ts) = v["timestamp"].as_str()
            {
                last_ts = Some(last_ts.map_or(ts.to_owned(), |l| l.max(ts.to_owned())));
            }
            types.insert(ty);
        }
        if damaged.contains(path) {
            assert!(bad >= 1, "{} should be damaged", path.display());
        } else {
            assert_eq!(bad, 0, "{} has unparseable lines", path.display());
        }
        // The mtime follows the last message.
        if let Some(ts) = last_ts {
            let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
            let ms = mtime.duration_since(UNIX_EPOCH).unwrap().as_millis() as i64;
            let last = chrono::DateTime::parse_from_rfc3339(&ts).unwrap().timestamp_millis();
            assert!(
                ms >= last && ms - last < 1_000,
                "{}: mtime {ms} vs last message {last}",
                path.display()
            );
        }
    }
    for t in [
        "user",
        "assistant",
        "system",
        "progress",
        "attachment",
        "permission-mode",
        "file-history-snapshot",
        "queue-operation",
        "summary",
        "last-prompt",
    ] {
        assert!(types.contains(t), "no {t} line generated; got {types:?}");
    }
    assert!(titles > 0);
    assert!(ids_per_message.values().any(|n| *n >= 3), "streamed chunks share message.id");
}

#[test]
fn project_folders_are_the_encoded_cwds() {
    let (tmp, _) = gen_tiny(5);
    for path in main_transcripts(&tmp.path().join("claude")) {
        let folder = path.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
        let cwd = lines(&path).iter().find_map(|l| {
            serde_json::from_slice::<serde_json::Value>(l).ok()?["cwd"].as_str().map(str::to_owned)
        });
        if let Some(cwd) = cwd {
            assert_eq!(encode_path(&cwd), folder, "{}", path.display());
        }
    }
}

#[test]
fn facts_scanner_finds_messages_in_every_non_empty_main_transcript() {
    let (tmp, r) = gen_tiny(3);
    let no_messages = message_less(&r);
    let mut checked = 0;
    for path in main_transcripts(&tmp.path().join("claude")) {
        let facts = scan_file(&path, None).unwrap().scanner.facts();
        if no_messages.contains(&path) {
            assert!(!facts.has_messages, "{}", path.display());
        } else {
            assert!(facts.has_messages, "{} has no messages per the scanner", path.display());
            assert!(facts.message_count > 0);
            checked += 1;
        }
    }
    assert_eq!(checked, 28);
}

#[test]
fn generator_refuses_a_non_empty_home_and_leaves_it_alone() {
    let (tmp, _) = gen_tiny(9);
    let before = tree(tmp.path());
    let err = generate_home(&tiny_spec(9), &tmp.path().join("claude"), None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    let fresh = tmp.path().join("other-claude");
    let err = generate_home(&tiny_spec(9), &fresh, Some(&tmp.path().join("fleet"))).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Refused);
    let mut after = tree(tmp.path());
    after.retain(|p, _| !p.starts_with("other-claude"));
    assert_eq!(before, after);
}

#[test]
fn append_turns_adds_parseable_lines_and_moves_the_mtime() {
    let (tmp, r) = gen_tiny(21);
    let s = r.newest_session.clone().unwrap();
    let before = std::fs::metadata(&s.path).unwrap().len();
    let later = s.last_message_ms + 60_000;
    let added = append_turns(&s.path, &s.session_id, &s.cwd, 200 * KIB, 99, later).unwrap();
    let after = std::fs::metadata(&s.path).unwrap();
    assert_eq!(after.len(), before + added.bytes);
    assert!(added.bytes >= 200 * KIB);
    for l in lines(&s.path) {
        serde_json::from_slice::<serde_json::Value>(&l).unwrap();
    }
    let mtime = after.modified().unwrap().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64;
    assert!(mtime >= added.last_message_ms && added.last_message_ms > later);
    drop(tmp);
}

#[test]
fn parse_size_reads_suffixes() {
    assert_eq!(parse_size("2G").unwrap(), 2 * 1024 * MIB);
    assert_eq!(parse_size("200M").unwrap(), 200 * MIB);
    assert_eq!(parse_size("512k").unwrap(), 512 * KIB);
    assert_eq!(parse_size("1.5G").unwrap(), 1536 * MIB);
    assert_eq!(parse_size("123").unwrap(), 123);
    assert!(parse_size("12X").is_err());
    assert!(parse_size("-1M").is_err());
    assert!(parse_size("").is_err());
}

#[test]
fn generated_fleet_loads_and_its_agents_work_in_generated_folders() {
    let (tmp, r) = gen_tiny(13);
    let fleet = corral_engine::fleet::Fleet::load(r.fleet_file.as_ref().unwrap()).unwrap();
    assert_eq!(fleet.agents.len(), r.agents);
    assert!(fleet.agents.iter().any(|a| a.qualified_name.starts_with("team.")));
    let projects = tmp.path().join("claude/projects");
    for a in &fleet.agents {
        let wd = a.working_directory.as_ref().unwrap().to_string_lossy().into_owned();
        assert!(projects.join(encode_path(&wd)).is_dir(), "agent {} works in {wd}", a.name);
    }
    // Job records: herdctl's id pattern; claimed sessions exist.
    let sessions: BTreeSet<String> = main_transcripts(&tmp.path().join("claude"))
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut claimed = 0;
    for job in files_named(&tmp.path().join("fleet/.herdctl/jobs"), &|p| {
        p.extension().is_some_and(|e| e == "yaml")
    }) {
        let text = std::fs::read_to_string(&job).unwrap();
        let v: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
        let id = v["id"].as_str().unwrap();
        let b = id.as_bytes();
        assert!(
            id.len() == 21
                && id.starts_with("job-")
                && b[8] == b'-'
                && b[11] == b'-'
                && b[14] == b'-'
        );
        assert!(b[15..].iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()), "{id}");
        assert_eq!(job.file_stem().unwrap().to_string_lossy(), id);
        if let Some(sid) = v["session_id"].as_str()
            && sessions.contains(sid)
        {
            claimed += 1;
        }
    }
    assert_eq!(claimed, r.job_claimed_sessions);
}

#[test]
fn catalog_lists_every_generated_session_and_attributes_job_claims() {
    let (tmp, r) = gen_tiny(17);
    let catalog = corral_engine::Catalog::open(corral_engine::CatalogConfig {
        claude_home: tmp.path().join("claude"),
        fleet_file: r.fleet_file.clone(),
        state_dir: None,
        data_dir: tmp.path().join("corral-data"),
    })
    .unwrap();
    let listing = catalog
        .all_sessions(corral_engine::ListOptions { limit: None, include_temp: true })
        .unwrap();
    let listed: HashMap<String, corral_engine::model::SessionSummary> = listing
        .groups
        .iter()
        .flat_map(|g| g.sessions.iter().cloned())
        .map(|s| (s.session_id.clone(), s))
        .collect();
    // Everything but the empty, summary-only and sidechain-only files is a session.
    let not_sessions: BTreeSet<&str> = r
        .special
        .iter()
        .filter(|s| matches!(s.kind.as_str(), "empty" | "summary-only" | "sidechain-only"))
        .map(|s| s.session_id.as_str())
        .collect();
    assert_eq!(not_sessions.len(), 3);
    assert_eq!(listed.len(), r.sessions - not_sessions.len());
    for id in &not_sessions {
        assert!(!listed.contains_key(*id), "{id} should not be listed");
    }
    // A job record outranks everything: each claimed session shows the job's agent.
    let mut checked = 0;
    for job in files_named(&tmp.path().join("fleet/.herdctl/jobs"), &|p| {
        p.extension().is_some_and(|e| e == "yaml")
    }) {
        let v: serde_json::Value =
            serde_saphyr::from_str(&std::fs::read_to_string(&job).unwrap()).unwrap();
        if let Some(sid) = v["session_id"].as_str()
            && let Some(s) = listed.get(sid)
        {
            assert_eq!(s.agent_name.as_deref(), v["agent"].as_str(), "session {sid}");
            checked += 1;
        }
    }
    assert_eq!(checked, r.job_claimed_sessions);
    assert!(checked > 0);
    // Sizes and message times come from the files.
    let newest = r.newest_session.as_ref().unwrap();
    let s = &listed[&newest.session_id];
    assert_eq!(s.size_bytes, newest.bytes);
    let last = chrono::DateTime::parse_from_rfc3339(s.last_message_at.as_deref().unwrap()).unwrap();
    assert_eq!(last.timestamp_millis(), newest.last_message_ms);
}

#[test]
fn viewer_reads_every_generated_transcript_whole_and_by_pages() {
    use corral_engine::transcript::messages::{read_page, read_transcript};
    let (tmp, r) = gen_tiny(29);
    let no_messages = message_less(&r);
    for path in main_transcripts(&tmp.path().join("claude")) {
        let sid = path.file_stem().unwrap().to_string_lossy().into_owned();
        let whole = read_transcript(&path, &sid, "/x").unwrap();
        let page = read_page(&path, None, 20).unwrap();
        if no_messages.contains(&path) {
            assert!(whole.messages.is_empty(), "{}", path.display());
            continue;
        }
        assert!(!whole.messages.is_empty(), "{} shows no messages", path.display());
        assert!(!page.messages.is_empty(), "{} has an empty newest page", path.display());
        // The newest page ends with the transcript's last message.
        assert_eq!(page.messages.last().unwrap().uuid, whole.messages.last().unwrap().uuid);
    }
}

#[test]
fn resumed_scans_equal_full_scans_after_appends() {
    let (tmp, r) = gen_tiny(31);
    let mut checked = 0;
    for (i, path) in main_transcripts(&tmp.path().join("claude")).iter().enumerate() {
        if r.special.iter().any(|s| &s.path == path) {
            continue;
        }
        let first = scan_file(path, None).unwrap();
        let sid = path.file_stem().unwrap().to_string_lossy().into_owned();
        let cwd = first.scanner.facts().cwd.unwrap_or_else(|| "/home/dev".into());
        let mtime = std::fs::metadata(path).unwrap().modified().unwrap();
        let after = mtime.duration_since(UNIX_EPOCH).unwrap().as_millis() as i64 + 60_000;
        append_turns(path, &sid, &cwd, 30 * KIB, 1000 + i as u64, after).unwrap();
        let resumed = scan_file(path, Some((first.offset, first.scanner))).unwrap();
        let full = scan_file(path, None).unwrap();
        assert_eq!(resumed.offset, full.offset, "{}", path.display());
        assert_eq!(resumed.scanner.facts(), full.scanner.facts(), "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 20, "checked {checked}");
}

fn list_by_id(
    claude: &Path,
    fleet: Option<&Path>,
    data: &Path,
) -> BTreeMap<String, corral_engine::model::SessionSummary> {
    let catalog = corral_engine::Catalog::open(corral_engine::CatalogConfig {
        claude_home: claude.to_path_buf(),
        fleet_file: fleet.map(Path::to_path_buf),
        state_dir: None,
        data_dir: data.to_path_buf(),
    })
    .unwrap();
    crate::support::sessions_by_id(&catalog, true)
}

#[test]
fn indexed_listing_equals_a_cold_listing_after_appends_truncations_deletions_and_replacements() {
    let (tmp, r) = gen_tiny(37);
    let claude = tmp.path().join("claude");
    let fleet = r.fleet_file.clone();
    let data = tmp.path().join("data");
    let before = list_by_id(&claude, fleet.as_deref(), &data);
    assert_eq!(before.len(), 27);

    let mains: Vec<PathBuf> = main_transcripts(&claude)
        .into_iter()
        .filter(|p| !r.special.iter().any(|s| &s.path == p))
        .collect();
    let later = r.newest_session.as_ref().unwrap().last_message_ms + 3_600_000;
    // Appends to three sessions.
    for (i, p) in mains.iter().take(3).enumerate() {
        let sid = p.file_stem().unwrap().to_string_lossy().into_owned();
        append_turns(p, &sid, "/home/dev/appended", 20 * KIB, 500 + i as u64, later).unwrap();
    }
    // A truncation mid-line.
    let t = &mains[3];
    let len = std::fs::metadata(t).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(t).unwrap().set_len(len / 2).unwrap();
    // A deletion.
    std::fs::remove_file(&mains[4]).unwrap();
    // Same-size replacements: in place (same inode) and by rename (new inode), new mtimes.
    for (k, p) in mains.iter().skip(5).take(2).enumerate() {
        let mut bytes = std::fs::read(p).unwrap();
        let at = memchr::memmem::find(&bytes, b"\"content\":\"").unwrap() + 11;
        bytes[at] = if bytes[at] == b'Q' { b'R' } else { b'Q' };
        if k == 0 {
            std::fs::write(p, &bytes).unwrap();
        } else {
            let tmp_path = p.with_extension("tmp");
            std::fs::write(&tmp_path, &bytes).unwrap();
            std::fs::rename(&tmp_path, p).unwrap();
        }
        let f = std::fs::File::options().write(true).open(p).unwrap();
        f.set_times(std::fs::FileTimes::new().set_modified(
            UNIX_EPOCH + std::time::Duration::from_millis(later as u64 + 1_000 * k as u64),
        ))
        .unwrap();
    }
    let indexed = list_by_id(&claude, fleet.as_deref(), &data);
    let cold = list_by_id(&claude, fleet.as_deref(), &tmp.path().join("fresh-data"));
    assert_eq!(cold.len(), 26, "one session deleted");
    assert_eq!(indexed, cold, "the index must give what a cold scan gives");
    assert_ne!(indexed, before);

    // A corrupted index (every file, every shard) is rebuilt, never trusted.
    let mut corrupted = 0;
    for e in std::fs::read_dir(data.join("index")).unwrap() {
        let p = e.unwrap().path();
        let files = if p.is_dir() {
            std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()).collect()
        } else {
            vec![p]
        };
        for f in files {
            std::fs::write(f, b"{\"format\":1,\"entries\":{\"x\":").unwrap();
            corrupted += 1;
        }
    }
    assert!(corrupted > 5, "the index has one shard per folder");
    assert_eq!(list_by_id(&claude, fleet.as_deref(), &data), cold);
}
