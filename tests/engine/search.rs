//! Full-text search: every query form and filter on the fixture home, incremental updates after
//! append / rewrite / delete, a damaged index, and two writers at once.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use corral_engine::catalog::PageAt;
use corral_engine::model::Role;
use corral_engine::search::{SearchIndex, SearchOptions, SearchResults, UpdateOptions};
use corral_engine::{Catalog, CatalogConfig, Error};

use crate::home::{Home, sid};

pub fn user(session: &str, cwd: &str, uuid: &str, text: &str) -> String {
    serde_json::json!({
        "type": "user", "uuid": uuid, "sessionId": session, "cwd": cwd, "isSidechain": false,
        "timestamp": "2026-11-30T09:00:00.000Z",
        "message": {"role": "user", "content": text}
    })
    .to_string()
}

fn assistant(
    session: &str,
    cwd: &str,
    uuid: &str,
    text: &str,
    tool: Option<(&str, &str)>,
) -> String {
    let mut content = vec![serde_json::json!({"type": "text", "text": text})];
    if let Some((id, command)) = tool {
        content.push(serde_json::json!({
            "type": "tool_use", "id": id, "name": "Bash",
            "input": {"command": command, "description": "Search the source"}
        }));
    }
    serde_json::json!({
        "type": "assistant", "uuid": uuid, "sessionId": session, "cwd": cwd, "isSidechain": false,
        "timestamp": "2026-11-30T09:00:05.000Z",
        "message": {"role": "assistant", "model": "claude-opus-4-5", "content": content}
    })
    .to_string()
}

fn tool_result(
    session: &str,
    cwd: &str,
    uuid: &str,
    id: &str,
    output: &str,
    error: bool,
) -> String {
    serde_json::json!({
        "type": "user", "uuid": uuid, "sessionId": session, "cwd": cwd, "isSidechain": false,
        "timestamp": "2026-11-30T09:00:09.000Z",
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "is_error": error, "content": output}
        ]},
        "toolUseResult": {"stdout": output, "stderr": ""}
    })
    .to_string()
}

fn append(path: &Path, lines: &[String]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}

fn ids(r: &SearchResults) -> BTreeSet<String> {
    r.sessions.iter().map(|s| s.session_id.clone()).collect()
}

fn set(short: &[&str]) -> BTreeSet<String> {
    short.iter().map(|s| sid(s)).collect()
}

fn search(index: &SearchIndex, catalog: &Catalog, q: &str) -> SearchResults {
    index.search(catalog, q, SearchOptions::default()).unwrap_or_else(|e| panic!("{q}: {e}"))
}

fn wait(wait: Duration) -> UpdateOptions {
    UpdateOptions { wait, ..UpdateOptions::default() }
}

fn update(index: &SearchIndex, catalog: &Catalog) -> corral_engine::search::IndexReport {
    index.update(catalog, wait(Duration::from_secs(5)), &mut |_| {}).unwrap()
}

/// The fixture home with words of our own in d1 (scratch, native), a1 (alpha, schedule) and a1's
/// subagent.
fn words_home() -> Home {
    let home = Home::new();
    let (d1, a1) = (sid("d1"), sid("a1"));
    append(
        &home.transcript("-home-u-scratch", "d1"),
        &[
            user(&d1, "/home/u/scratch", "u-d1-1", "Please fix the Zeppelin cache, CRÈME style"),
            assistant(
                &d1,
                "/home/u/scratch",
                "a-d1-2",
                "Looking at main.rs now",
                Some(("toolu_1", "grep -rn needleword src/main.rs")),
            ),
            tool_result(
                &d1,
                "/home/u/scratch",
                "u-d1-3",
                "toolu_1",
                "permission denied: needleword",
                true,
            ),
        ],
    );
    let alpha = "/home/u/projects/alpha";
    append(
        &home.transcript("-home-u-projects-alpha", "a1"),
        &[
            user(&a1, alpha, "u-a1-1", "Zeppelin launch checklist"),
            assistant(&a1, alpha, "a-a1-2", "東京タワーで会いましょう", None),
        ],
    );
    let subagents =
        home.transcript("-home-u-projects-alpha", "a1").with_extension("").join("subagents");
    let sub = std::fs::read_dir(&subagents)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let mut line: serde_json::Value =
        serde_json::from_str(&user(&a1, alpha, "u-sub-1", "subagent found the quokkaword"))
            .unwrap();
    line["isSidechain"] = true.into();
    append(&sub, &[line.to_string()]);
    home
}

#[test]
fn every_query_form_and_filter_finds_what_it_should() {
    let home = words_home();
    let catalog = home.catalog();
    let index = SearchIndex::open(&home.data).unwrap();
    let report = update(&index, &catalog);
    assert!(report.files_indexed >= 10 && report.messages_added > 20, "{report:?}");
    let (a1, d1) = (set(&["a1"]), set(&["d1"]));
    let both = set(&["a1", "d1"]);
    let cases: &[(&str, &BTreeSet<String>)] = &[
        ("zeppelin", &both),
        ("ZEPPELIN", &both),
        ("\"zeppelin cache\"", &d1),
        ("\"cache zeppelin\"", &BTreeSet::new()),
        ("zeppelin -cache", &a1),
        ("zepp*", &both),
        ("creme", &d1),
        ("crème", &d1),
        ("café", &set(&["e3"])),
        ("main.rs", &d1),
        ("needleword tool:bash", &d1),
        ("needleword is:error", &d1),
        ("zeppelin role:user", &both),
        ("zeppelin role:assistant", &BTreeSet::new()),
        ("zeppelin agent:alpha", &a1),
        ("zeppelin origin:schedule", &a1),
        ("zeppelin origin:native", &d1),
        ("zeppelin dir:scratch", &d1),
        ("東京", &a1),
        ("タワー", &a1),
        ("京都", &BTreeSet::new()),
        ("zeppelin after:2030-01-01", &BTreeSet::new()),
        ("zeppelin before:2026-12-01", &both),
        ("quokkaword", &a1),
        ("https://example.com/zeppelin", &BTreeSet::new()),
    ];
    for (q, want) in cases {
        assert_eq!(&ids(&search(&index, &catalog, q)), *want, "query {q}");
    }

    let r = search(&index, &catalog, "\"zeppelin cache\"");
    let hit = &r.sessions[0].hits[0];
    assert_eq!((hit.uuid.as_str(), hit.role), ("u-d1-1", Role::User));
    assert_eq!(hit.timestamp.as_deref(), Some("2026-11-30T09:00:00.000Z"));
    let marked: Vec<&str> =
        hit.snippet_parts.iter().filter(|p| p.hit).map(|p| p.text.as_str()).collect();
    assert_eq!(marked, ["Zeppelin", "cache"]);
    assert_eq!((r.total_sessions, r.total_matches), (1, 1));

    let r = search(&index, &catalog, "needleword is:error");
    let hits = &r.sessions[0].hits;
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert_eq!((hits[0].uuid.as_str(), hits[0].tool_name.as_deref()), ("u-d1-3", Some("Bash")));

    // The result is indexed once, though Claude repeats it in toolUseResult.
    let r = search(&index, &catalog, "permission denied");
    assert_eq!(r.total_matches, 1, "{r:?}");

    let r = search(&index, &catalog, "zepp*");
    assert!(r.sessions.iter().all(|s| s.hits[0].snippet_parts.iter().any(|p| p.hit)), "{r:?}");

    // The viewer opens a hit where it is: the page around its line holds its uuid.
    let opened = catalog.page(&sid("d1"), None, PageAt::Around(hits[0].offset), 50).unwrap();
    // A result is shown inside its call's message: found by the call's id.
    let call = hits[0].tool_use_id.as_deref();
    assert_eq!(call, Some("toolu_1"));
    let shown = opened.messages.iter().any(|m| {
        m.tool_call.as_ref().and_then(|c| c.tool_use_id.as_deref()) == call
            && m.tool_call.as_ref().is_some_and(|c| c.is_error)
    });
    assert!(shown, "{opened:?}");

    let r = search(&index, &catalog, "quokkaword");
    let hit = &r.sessions[0].hits[0];
    assert!(hit.agent_id.is_some(), "a subagent's hit names it: {hit:?}");
    let opened =
        catalog.page(&sid("a1"), hit.agent_id.as_deref(), PageAt::Around(hit.offset), 50).unwrap();
    assert!(opened.messages.iter().any(|m| m.uuid.as_deref() == Some("u-sub-1")), "{opened:?}");

    // Names rank high: a1's custom name, with no message saying "renamed".
    let r = search(&index, &catalog, "renamed");
    assert_eq!(ids(&r), a1);
    assert!(r.sessions[0].name_match && r.sessions[0].hits.is_empty(), "{r:?}");
    // A session filter holds for names matches too.
    assert_eq!(search(&index, &catalog, "renamed dir:scratch").total_sessions, 0);
    assert_eq!(ids(&search(&index, &catalog, "renamed dir:alpha")), a1);
    // The working directory is searchable too.
    assert!(ids(&search(&index, &catalog, "scratch")).contains(&sid("d1")));

    // Find in one transcript: every match in file order, with the words to mark.
    let d1_path = home.transcript("-home-u-scratch", "d1");
    let found = index.find_in_transcript(&d1_path, "needleword", 100).unwrap();
    assert_eq!(found.total, 2, "{found:?}");
    assert!(found.matches[0].offset < found.matches[1].offset);
    assert_eq!(found.matches[1].uuid, "u-d1-3");
    assert!(found.matches.iter().all(|m| m.tool_use_id.as_deref() == Some("toolu_1")), "{found:?}");
    let found = index.find_in_transcript(&d1_path, "zepp* role:user", 100).unwrap();
    assert_eq!((found.total, found.terms.as_slice()), (1, ["zeppelin".to_owned()].as_slice()));
    assert_eq!(index.find_in_transcript(&d1_path, "quokkaword", 100).unwrap().total, 0);

    for bad in ["\"open", "role:robot", "after:someday", "a*"] {
        match index.search(&catalog, bad, SearchOptions::default()) {
            Err(Error::Query(e)) => assert!(!e.is_empty()),
            other => panic!("{bad}: {other:?}"),
        }
    }
    assert_eq!(search(&index, &catalog, "   ").total_sessions, 0);
    let long = "zeppelin ".repeat(30);
    assert_eq!(ids(&search(&index, &catalog, &long)), both);

    // A search summarizes only the sessions it shows (ranking the others from their
    // transcripts' facts): each as the listing summarizes it.
    let listed = catalog.listed_sessions().unwrap();
    let mut named = 0;
    for q in ["zeppelin", "renamed", "scratch", "needleword", "quokkaword", "zeppelin dir:alpha"] {
        for s in search(&index, &catalog, q).sessions {
            let l = listed.iter().find(|l| l.session_id == s.session_id).unwrap();
            let shown = (&s.custom_name, &s.auto_name, &s.agent_name, &s.working_directory);
            assert_eq!(shown, (&l.custom_name, &l.auto_name, &l.agent_name, &l.working_directory));
            named += usize::from(s.custom_name.is_some());
        }
    }
    assert!(named > 0);
}

/// Sessions that match alike are ranked newest first: by their last message's time, else (with
/// no time in the transcript) by the file's.
#[test]
fn equal_matches_rank_the_newest_session_first() {
    let (tmp, catalog, folder) = bare_home();
    let at = |short: &str, time: Option<&str>| {
        let id = sid(short);
        let mut line: serde_json::Value =
            serde_json::from_str(&user(&id, "/w/app", "u1", "first prompt with rankword")).unwrap();
        match time {
            Some(t) => line["timestamp"] = t.into(),
            None => drop(line.as_object_mut().unwrap().remove("timestamp")),
        }
        let path = folder.join(format!("{id}.jsonl"));
        std::fs::write(&path, format!("{line}\n")).unwrap();
        path
    };
    at("71", Some("2026-01-05T09:00:00.000Z"));
    at("72", Some("2026-11-30T09:00:00.000Z"));
    let untimed = at("73", None);
    let day = Duration::from_secs(86_400);
    // 2026-03-01: between the others.
    let old = std::time::SystemTime::UNIX_EPOCH + day * 20_513;
    std::fs::File::options().append(true).open(&untimed).unwrap().set_modified(old).unwrap();
    let index = SearchIndex::open(&tmp.path().join("data")).unwrap();
    update(&index, &catalog);
    let order = |r: &SearchResults| -> Vec<String> {
        r.sessions.iter().map(|s| s.session_id.clone()).collect()
    };
    assert_eq!(order(&search(&index, &catalog, "rankword")), [sid("72"), sid("73"), sid("71")]);
    // Alike when a filter on sessions ranks them from their summaries.
    let filtered = search(&index, &catalog, "rankword dir:app");
    assert_eq!(order(&filtered), [sid("72"), sid("73"), sid("71")]);
}

/// A word in a session's working directory (searched apart from messages, as names are) ranks
/// it above a newer session that only says the word.
#[test]
fn a_working_directory_match_outranks_a_newer_message() {
    let (tmp, catalog, folder) = bare_home();
    let projects = folder.parent().unwrap().to_path_buf();
    // Each says `texts` as prompts; the first prompt is its automatic name.
    let write = |folder: &Path, short: &str, cwd: &str, texts: &[&str], time: &str| {
        std::fs::create_dir_all(folder).unwrap();
        let id = sid(short);
        let mut out = String::new();
        for (n, text) in texts.iter().enumerate() {
            let mut line: serde_json::Value =
                serde_json::from_str(&user(&id, cwd, &format!("u{n}"), text)).unwrap();
            line["timestamp"] = time.into();
            out.push_str(&format!("{line}\n"));
        }
        std::fs::write(folder.join(format!("{id}.jsonl")), out).unwrap();
    };
    let (old, new) = ("2026-01-05T09:00:00.000Z", "2026-11-30T09:00:00.000Z");
    write(&projects.join("-w-dirword"), "81", "/w/dirword", &["nothing to see"], old);
    write(&folder, "82", "/w/app", &["a question", "please look at dirword"], new);
    let index = SearchIndex::open(&tmp.path().join("data")).unwrap();
    update(&index, &catalog);
    let r = search(&index, &catalog, "dirword");
    let order: Vec<&str> = r.sessions.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(order, [sid("81"), sid("82")], "{r:?}");
    assert!(r.sessions[0].name_match && r.sessions[0].hits.is_empty(), "{r:?}");
    assert!(!r.sessions[1].name_match && r.sessions[1].matches == 1, "{r:?}");
    // A filter on messages leaves the working directory out.
    assert_eq!(ids(&search(&index, &catalog, "dirword role:user")), set(&["82"]));
}

/// A filter that every match passes leaves the ranking as it was: filters narrow, they do not
/// score.
#[test]
fn filters_every_match_passes_leave_the_ranking_alone() {
    let (tmp, catalog, folder) = bare_home();
    // Sessions that say the word once, newest, to often, oldest: close calls for the ranking.
    for (n, (says, day)) in [(1, 28), (2, 20), (4, 12), (8, 4)].into_iter().enumerate() {
        let id = sid(&format!("9{n}"));
        let mut out = String::new();
        let texts = std::iter::once("a question".to_owned())
            .chain((0..says).map(|i| format!("about filterword, the {i}th time")));
        for (i, text) in texts.enumerate() {
            let mut line: serde_json::Value =
                serde_json::from_str(&user(&id, "/w/app", &format!("u{i}"), &text)).unwrap();
            line["timestamp"] = format!("2026-11-{day:02}T09:00:00.000Z").into();
            out.push_str(&format!("{line}\n"));
        }
        std::fs::write(folder.join(format!("{id}.jsonl")), out).unwrap();
    }
    let index = SearchIndex::open(&tmp.path().join("data")).unwrap();
    update(&index, &catalog);
    let order = |q: &str| -> Vec<String> {
        search(&index, &catalog, q).sessions.into_iter().map(|s| s.session_id).collect()
    };
    let plain = order("filterword");
    assert_eq!(plain.len(), 4);
    for filtered in ["role:user", "after:2000-01-01", "before:2100-01-01", "dir:app", "-nowhere"] {
        assert_eq!(order(&format!("filterword {filtered}")), plain, "{filtered}");
    }
}

fn bare_home() -> (tempfile::TempDir, Catalog, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let claude = tmp.path().join("claude");
    let folder = claude.join("projects").join("-w-app");
    std::fs::create_dir_all(&folder).unwrap();
    let catalog = Catalog::open(CatalogConfig {
        claude_home: claude,
        fleet_file: None,
        state_dir: None,
        data_dir: tmp.path().join("data"),
    })
    .unwrap();
    (tmp, catalog, folder)
}

/// Writes a one-prompt session `short` saying `word` into `folder`; returns its path.
fn session_saying(folder: &Path, short: &str, word: &str) -> PathBuf {
    let id = sid(short);
    let path = folder.join(format!("{id}.jsonl"));
    std::fs::write(&path, first_lines(&id, word).join("\n") + "\n").unwrap();
    path
}

fn first_lines(id: &str, word: &str) -> Vec<String> {
    vec![
        r#"{"type":"permission-mode","permissionMode":"default"}"#.to_owned(),
        user(id, "/w/app", "u1", &format!("first prompt with {word}")),
    ]
}

/// After a file was replaced: the next update reads it whole, the `gone` words leave and
/// `present` is found once.
fn read_again(index: &SearchIndex, catalog: &Catalog, gone: &[&str], present: &str) {
    catalog.invalidate(&[]);
    let r = update(index, catalog);
    assert_eq!(r.files_indexed, 1, "{r:?}");
    for word in gone {
        assert_eq!(search(index, catalog, word).total_matches, 0, "{word}");
    }
    assert_eq!(search(index, catalog, present).total_matches, 1, "{present}");
}

/// Overwrites `path` at `at` with `bytes` (same length, in place), then sets its modification
/// time back to `mtime` when given, as `rsync --inplace -t` does. Written again until the
/// change time moves (a coarse clock may not tick between two quick writes).
fn edit_in_place(path: &Path, at: u64, bytes: &[u8], mtime: Option<std::time::SystemTime>) {
    use std::io::{Seek, SeekFrom};
    use std::os::unix::fs::MetadataExt;
    let before = std::fs::metadata(path).unwrap();
    loop {
        let mut f = std::fs::File::options().write(true).open(path).unwrap();
        f.seek(SeekFrom::Start(at)).unwrap();
        f.write_all(bytes).unwrap();
        if let Some(t) = mtime {
            f.set_modified(t).unwrap();
        }
        drop(f);
        let after = std::fs::metadata(path).unwrap();
        if (after.ctime(), after.ctime_nsec()) != (before.ctime(), before.ctime_nsec()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A redacted secret leaves the index wherever it was in the file and however it was written:
/// at the first line, in the middle, just before the indexed end; at the same size with the
/// modification time kept, moved, or with lines appended in the same change. Nothing a search
/// answers or prints holds it afterwards.
#[test]
#[cfg(unix)]
fn an_edit_in_place_anywhere_is_seen() {
    let (tmp, catalog, folder) = bare_home();
    let index = SearchIndex::open(&tmp.path().join("data")).unwrap();
    let mut round = 0;
    for line in [1usize, 20, 39] {
        for (keep_time, then_append) in [(true, false), (false, false), (false, true)] {
            round += 1;
            let id = sid(&format!("{:02}", 60 + round));
            let path = folder.join(format!("{id}.jsonl"));
            let (secret, redacted) = (format!("secretxq{round:02}"), format!("redactxq{round:02}"));
            let lines: Vec<String> = (0..40)
                .map(|i| {
                    let word = if i == line { secret.as_str() } else { "fillerword" };
                    user(&id, "/w/app", &format!("u{i}"), &format!("line {i:02} says {word} here"))
                })
                .collect();
            std::fs::write(&path, lines.join("\n") + "\n").unwrap();
            catalog.invalidate(&[]);
            update(&index, &catalog);
            assert_eq!(search(&index, &catalog, &secret).total_matches, 1, "round {round}");

            let text = std::fs::read(&path).unwrap();
            let at = text.windows(secret.len()).position(|w| w == secret.as_bytes()).unwrap();
            assert!(text.len() - at > 1024 || line == 39, "round {round}: well before the end");
            let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
            edit_in_place(&path, at as u64, redacted.as_bytes(), keep_time.then_some(mtime));
            if then_append {
                append(&path, &[user(&id, "/w/app", "u99", "appended omegaword")]);
            }
            if keep_time {
                assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
                assert_eq!(std::fs::metadata(&path).unwrap().len(), text.len() as u64);
            }
            catalog.invalidate(&[]);
            let r = update(&index, &catalog);
            assert_eq!(r.files_indexed, 1, "round {round}: read again from the start: {r:?}");
            assert_eq!(search(&index, &catalog, &secret).total_matches, 0, "round {round}");
            assert_eq!(search(&index, &catalog, &redacted).total_matches, 1, "round {round}");
            let fillers = search(&index, &catalog, "fillerword says");
            let printed = serde_json::to_string(&fillers).unwrap();
            assert!(!printed.contains(&secret), "round {round}: {printed}");
            if then_append {
                assert_eq!(search(&index, &catalog, "omegaword").total_sessions, 1);
            }
            std::fs::remove_file(&path).unwrap();
        }
    }
}

#[test]
fn appends_rewrites_and_deletes_reach_the_index() {
    let (tmp, catalog, folder) = bare_home();
    let id = sid("51");
    let path = folder.join(format!("{id}.jsonl"));
    std::fs::write(&path, first_lines(&id, "alphaword").join("\n") + "\n").unwrap();
    let index = SearchIndex::open(&tmp.path().join("data")).unwrap();
    let r = update(&index, &catalog);
    assert_eq!((r.files_indexed, r.sessions), (1, 1), "{r:?}");
    assert_eq!(ids(&search(&index, &catalog, "alphaword")), BTreeSet::from([id.clone()]));
    assert_eq!(index.indexed_sessions(), 1);

    let r = update(&index, &catalog);
    assert_eq!((r.files_indexed, r.files_appended, r.messages_added), (0, 0, 0), "{r:?}");

    // An append is read from where the last update stopped; a line still being written waits.
    append(&path, &[assistant(&id, "/w/app", "a2", "second answer with betaword", None)]);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"{\"type\":\"user\",\"mess")
        .unwrap();
    let r = update(&index, &catalog);
    assert_eq!((r.files_indexed, r.files_appended, r.messages_added), (0, 1, 1), "{r:?}");
    assert_eq!(search(&index, &catalog, "betaword").total_sessions, 1);
    assert_eq!(search(&index, &catalog, "alphaword").total_matches, 1, "not indexed twice");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"age\":{\"content\":\"pending gammaword\"},\"uuid\":\"u3\"}\n")
        .unwrap();
    let r = update(&index, &catalog);
    assert_eq!((r.files_appended, r.messages_added), (1, 1), "{r:?}");
    assert_eq!(search(&index, &catalog, "gammaword").sessions[0].hits[0].uuid, "u3");

    // A rewrite (same size or not) is read again from the start; the old words leave.
    let tmp_path = path.with_extension("tmp");
    std::fs::write(&tmp_path, first_lines(&id, "deltaword").join("\n") + "\n").unwrap();
    std::fs::rename(&tmp_path, &path).unwrap();
    read_again(&index, &catalog, &["alphaword", "betaword"], "deltaword");

    // A truncated file (rewritten in place, shorter) is read again too.
    std::fs::write(&path, first_lines(&id, "iotaw").join("\n") + "\n").unwrap();
    read_again(&index, &catalog, &["deltaword"], "iotaw");

    // Rewritten in place and longer: the index compares the bytes before its old end, so this
    // is no append either. (The listing itself takes it for one and keeps the old names until the
    // file changes again, so only the messages are checked here.)
    std::fs::write(&path, first_lines(&id, "kappawordlonger").join("\n") + "\n").unwrap();
    let r = update(&index, &catalog);
    assert_eq!(r.files_indexed, 1, "{r:?}");
    assert_eq!(search(&index, &catalog, "iotaw").total_matches, 0);
    assert_eq!(search(&index, &catalog, "kappawordlonger").total_matches, 1);

    // Another file renamed into place with the same size and time: only its identity says it
    // is not the file the index read.
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&tmp_path, first_lines(&id, "lambdawordlonge").join("\n") + "\n").unwrap();
    std::fs::File::options().write(true).open(&tmp_path).unwrap().set_modified(mtime).unwrap();
    assert_eq!(
        std::fs::metadata(&tmp_path).unwrap().len(),
        std::fs::metadata(&path).unwrap().len()
    );
    std::fs::rename(&tmp_path, &path).unwrap();
    read_again(&index, &catalog, &["kappawordlonger"], "lambdawordlonge");

    // A removed session leaves the index.
    std::fs::remove_file(&path).unwrap();
    catalog.invalidate(&[]);
    let r = update(&index, &catalog);
    assert_eq!(r.files_removed, 1, "{r:?}");
    assert_eq!(search(&index, &catalog, "lambdawordlonge").total_sessions, 0);
    assert_eq!(index.indexed_sessions(), 0);
}

#[test]
fn a_damaged_index_is_rebuilt_not_believed() {
    let (tmp, catalog, folder) = bare_home();
    session_saying(&folder, "52", "zetaword");
    let data = tmp.path().join("data");
    {
        let index = SearchIndex::open(&data).unwrap();
        update(&index, &catalog);
        assert_eq!(search(&index, &catalog, "zetaword").total_sessions, 1);
    }
    let dir = data.join(corral_engine::search::INDEX_DIR);
    // Garbage where the commit's metadata was.
    std::fs::write(dir.join("meta.json"), b"{not json").unwrap();
    let index = SearchIndex::open(&data).unwrap();
    assert_eq!(index.indexed_sessions(), 0, "nothing is believed from a damaged index");
    assert_eq!(search(&index, &catalog, "zetaword").total_sessions, 0);
    update(&index, &catalog);
    assert_eq!(search(&index, &catalog, "zetaword").total_sessions, 1);
    drop(index);

    // Segment files gone (a crashed or interrupted cleanup): rebuilt as well.
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "idx" || x == "store") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let index = SearchIndex::open(&data).unwrap();
    update(&index, &catalog);
    assert_eq!(search(&index, &catalog, "zetaword").total_sessions, 1);

    // The state beside the commit (which files it holds, how far each was read): one or two
    // files, never a pile. Without it the commit still answers (its fingerprint says the files
    // are as indexed), but the next change reads every file again: nothing is trusted.
    let states = || -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("state-"))
            .collect();
        v.sort();
        v
    };
    session_saying(&folder, "55", "zetaword");
    catalog.invalidate(&[]);
    update(&index, &catalog);
    let now = states();
    assert!((1..=2).contains(&now.len()), "{now:?}");
    for p in &now {
        std::fs::remove_file(p).unwrap();
    }
    drop(index);
    let index = SearchIndex::open(&data).unwrap();
    assert_eq!(update(&index, &catalog).files_unchanged, 2);
    assert_eq!(search(&index, &catalog, "zetaword").total_sessions, 2);
    append(
        &folder.join(format!("{}.jsonl", sid("55"))),
        &[user(&sid("55"), "/w/app", "u9", "omegaword")],
    );
    catalog.invalidate(&[]);
    let r = update(&index, &catalog);
    assert_eq!(r.files_indexed, 2, "read again from the start: {r:?}");
    assert_eq!(search(&index, &catalog, "zetaword").total_sessions, 2);
    assert_eq!(search(&index, &catalog, "omegaword").total_sessions, 1);
    assert_eq!(update(&index, &catalog).files_unchanged, 2);
}

/// Every entry of a folder, recursively, with its bytes' hash (what "left as it was" means).
fn tree_of(dir: &Path) -> std::collections::BTreeMap<PathBuf, String> {
    crate::support::hash_tree(dir)
}

/// A built index of one session saying `word`, in `<tmp>/data`.
fn built_index(word: &str) -> (tempfile::TempDir, Catalog, PathBuf) {
    let (tmp, catalog, folder) = bare_home();
    session_saying(&folder, "56", word);
    let data = tmp.path().join("data");
    let index = SearchIndex::open(&data).unwrap();
    update(&index, &catalog);
    assert_eq!(search(&index, &catalog, word).total_sessions, 1);
    (tmp, catalog, data)
}

fn copy_flat(from: &Path, to: &Path, skip: &[&str]) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if !skip.iter().any(|s| name == *s) {
            std::fs::copy(e.path(), to.join(&name)).unwrap();
        }
    }
}

/// The class "Corral deletes what is not its own": a folder goes only by its exact name *and*
/// a proof inside it that Corral made it (its marker, or for an older Corral's index a
/// `meta.json` with Corral's schema), and only when it holds nothing Corral did not write.
/// Before the fix, opening the index removed every `search-v*` folder but its own and removed
/// an unopenable `search-v3` whole.
#[test]
fn opening_the_index_removes_only_what_corral_can_prove_it_made() {
    let (_tmp, catalog, data) = built_index("ownword");
    let v3 = data.join(corral_engine::search::INDEX_DIR);
    let marker = corral_engine::owned::MARKER;
    assert!(data.join(marker).is_file(), "the data dir is claimed before anything is written");
    assert!(v3.join(marker).is_file(), "the index folder is marked as Corral's");

    // An older Corral's index of another format: exact name, Corral's schema, no marker.
    copy_flat(&v3, &data.join("search-v1"), &[marker]);
    // A person's folders beside it: prefixes, a look-alike name, a look-alike with foreign files,
    // an old format's name holding Corral's files *and* theirs, a folder inside one.
    let theirs = [
        ("search-vault/secret.txt", "keep me"),
        ("search-v3-notes/meta.json", "{}"),
        ("search-v0/junk/x", "x"),
        ("search-v2/notes.txt", "mine"),
        ("search-v2/meta.json", "{not json"),
        ("searchv2/a", "a"),
    ];
    for (path, text) in theirs {
        let p = data.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    copy_flat(&v3, &data.join("search-v2"), &[marker, "meta.json"]);
    let before: Vec<_> = ["search-vault", "search-v3-notes", "search-v0", "search-v2", "searchv2"]
        .iter()
        .map(|n| (n, tree_of(&data.join(n))))
        .collect();

    let index = SearchIndex::open(&data).unwrap();
    assert_eq!(search(&index, &catalog, "ownword").total_sessions, 1);
    assert!(!data.join("search-v1").exists(), "the old format Corral can prove it made is gone");
    for (name, tree) in &before {
        assert_eq!(&tree_of(&data.join(name)), tree, "{name} is left as it was");
    }
    drop(index);

    // An unopenable `search-v3` that is not Corral's: refused, untouched.
    std::fs::rename(&v3, data.join("set-aside")).unwrap();
    std::fs::create_dir(&v3).unwrap();
    std::fs::write(v3.join("thesis.tex"), "\\documentclass{article}").unwrap();
    std::fs::write(v3.join("meta.json"), "{not json").unwrap();
    let theirs = tree_of(&v3);
    let e = SearchIndex::open(&data).err().expect("a folder Corral did not make is refused");
    assert_eq!(e.kind(), corral_engine::ErrorKind::Refused, "{e}");
    assert!(e.to_string().contains("thesis.tex"), "the error says what is there: {e}");
    assert_eq!(tree_of(&v3), theirs);

    // Corral's own index, damaged, with a file of someone else's dropped in: refused too.
    std::fs::remove_dir_all(&v3).unwrap();
    std::fs::rename(data.join("set-aside"), &v3).unwrap();
    std::fs::write(v3.join("meta.json"), "{not json").unwrap();
    std::fs::write(v3.join("my-notes.txt"), "notes").unwrap();
    let theirs = tree_of(&v3);
    let e = SearchIndex::open(&data).err().expect("a damaged index holding a stranger is kept");
    assert_eq!(e.kind(), corral_engine::ErrorKind::Refused, "{e}");
    assert_eq!(tree_of(&v3), theirs);
    std::fs::remove_file(v3.join("my-notes.txt")).unwrap();
    let index = SearchIndex::open(&data).unwrap();
    update(&index, &catalog);
    assert_eq!(search(&index, &catalog, "ownword").total_sessions, 1, "without it: rebuilt");
    drop(index);

    // An older Corral's `search-v3` (no marker): proven by its schema, kept and marked.
    std::fs::remove_file(v3.join(marker)).unwrap();
    let index = SearchIndex::open(&data).unwrap();
    assert_eq!(search(&index, &catalog, "ownword").total_sessions, 1, "its documents are kept");
    assert!(v3.join(marker).is_file());
    drop(index);

    // A data dir whose marker another program wrote is not Corral's to write into.
    std::fs::write(data.join(marker), "{\"owner\":\"someone\"}").unwrap();
    let e = SearchIndex::open(&data).err().expect("a foreign marker is refused");
    assert_eq!(e.kind(), corral_engine::ErrorKind::Refused, "{e}");
}

/// Processes opening a new data dir's index at once all succeed: each sees the data dir's and the
/// index folder's markers whole or not at all, and a folder another one just created is theirs to
/// use.
#[test]
fn first_opens_of_a_new_data_dir_at_once_all_succeed() {
    for round in 0..10 {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let barrier = std::sync::Barrier::new(4);
        std::thread::scope(|s| {
            for _ in 0..4 {
                let (data, barrier) = (&data, &barrier);
                s.spawn(move || {
                    barrier.wait();
                    if let Err(e) = SearchIndex::open(data) {
                        panic!("round {round}: {e}");
                    }
                });
            }
        });
    }
}

/// The class "special files reached without the one opener": a FIFO or a link to a device at any
/// name tantivy opens itself (its metadata, its lock files, a segment) or at Corral's own files in
/// the index folder. Opening, updating and searching finish, and the word is found. Before the
/// fix, a FIFO there hung `search` forever and a link to `/dev/zero` grew it by gigabytes.
#[cfg(unix)]
#[test]
fn special_files_anywhere_in_the_index_folder_never_hang_or_flood_a_search() {
    let (tmp, catalog, data) = built_index("fifoword");
    let v3 = data.join(corral_engine::search::INDEX_DIR);
    let segment = std::fs::read_dir(&v3)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with(".idx"))
        .unwrap();
    let state = std::fs::read_dir(&v3)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("state-"))
        .unwrap();
    let pristine = tmp.path().join("pristine");
    copy_flat(&v3, &pristine, &[]);
    let names = [
        "meta.json",
        ".managed.json",
        ".tantivy-writer.lock",
        ".tantivy-meta.lock",
        &segment,
        &state,
    ];
    let catalog = std::sync::Arc::new(catalog);
    for name in names {
        for special in ["fifo", "/dev/zero", "/dev/urandom"] {
            // Before opening, and after (an index already open meets it on its next update).
            for when in ["before", "after"] {
                std::fs::remove_dir_all(&v3).unwrap();
                copy_flat(&pristine, &v3, &[]);
                let (data, catalog, v3) = (data.clone(), catalog.clone(), v3.clone());
                let target = v3.join(name);
                let place = move || {
                    let _ = std::fs::remove_file(&target);
                    if special == "fifo" {
                        let ok = std::process::Command::new("mkfifo").arg(&target).status();
                        assert!(ok.unwrap().success());
                    } else {
                        std::os::unix::fs::symlink(special, &target).unwrap();
                    }
                };
                let what = format!("{special} as {name}, {when} opening");
                let found = crate::support::within(30, &what.clone(), move || {
                    if when == "before" {
                        place();
                    }
                    let index = SearchIndex::open(&data).unwrap();
                    if when == "after" {
                        place();
                    }
                    catalog.invalidate(&[]);
                    let _ = index.update(&catalog, wait(Duration::from_secs(1)), &mut |_| {});
                    // Whatever the open index made of it, a fresh open answers.
                    drop(index);
                    let index = SearchIndex::open(&data).unwrap();
                    let _ = index.update(&catalog, wait(Duration::from_secs(1)), &mut |_| {});
                    index
                        .search(&catalog, "fifoword", SearchOptions::default())
                        .map(|r| r.total_sessions)
                });
                assert_eq!(found.ok(), Some(1), "{what}");
            }
        }
    }
}

#[test]
fn a_second_writer_waits_then_reads_the_last_commit() {
    let (tmp, catalog, folder) = bare_home();
    session_saying(&folder, "53", "etaword");
    let data = tmp.path().join("data");
    let first = SearchIndex::open(&data).unwrap();
    update(&first, &catalog);
    session_saying(&folder, "54", "thetaword");
    catalog.invalidate(&[]);
    let (holding, release) = (mpsc::channel::<()>(), mpsc::channel::<()>());
    std::thread::scope(|s| {
        let (tx, rx) = (holding.0, release.1);
        // Dropped if an assertion below fails, so that the writer ends too.
        let release = release.0;
        let (first, catalog) = (&first, &catalog);
        let writer = s.spawn(move || {
            let mut told = false;
            first
                .update(catalog, wait(Duration::ZERO), &mut |_| {
                    if !told {
                        told = true;
                        tx.send(()).unwrap();
                        rx.recv().unwrap();
                    }
                })
                .unwrap()
        });
        holding.1.recv().unwrap();
        // A second index (another process's view) cannot take the writer...
        let second = SearchIndex::open(&data).unwrap();
        let r = second.update(catalog, wait(Duration::from_millis(200)), &mut |_| {}).unwrap();
        assert!(r.busy, "{r:?}");
        // ...but answers from the last commit.
        assert_eq!(search(&second, catalog, "etaword").total_sessions, 1);
        assert_eq!(search(&second, catalog, "thetaword").total_sessions, 0);
        release.send(()).unwrap();
        let r = writer.join().unwrap();
        assert!(!r.busy && r.files_indexed == 1, "{r:?}");
        assert_eq!(search(&second, catalog, "thetaword").total_sessions, 1);
    });
}

/// A search while another process builds the index answers from what it has committed so far
/// and says so: `complete` is false and `indexedSessions` counts the sessions read (their names
/// come last), against `listedSessions`. Before the first commit there is nothing complete
/// either; after the build, everything is.
#[test]
fn a_search_during_a_build_says_it_is_partial() {
    let (tmp, catalog, folder) = bare_home();
    for n in 0..200 {
        session_saying(&folder, &format!("{:x}", 0x100 + n), "commonword");
    }
    let data = tmp.path().join("data");
    let builder = SearchIndex::open(&data).unwrap();
    let before = search(&builder, &catalog, "commonword");
    assert!(!before.complete && before.indexed_sessions == 0, "{before:?}");
    assert_eq!(before.listed_sessions, 200);

    let opts = UpdateOptions { commit_every: Some(Duration::ZERO), ..wait(Duration::from_secs(5)) };
    let (holding, release) = (mpsc::channel::<()>(), mpsc::channel::<()>());
    std::thread::scope(|s| {
        let (tx, rx) = (holding.0, release.1);
        // Dropped if an assertion below fails, so that the build ends too.
        let release = release.0;
        let (builder, catalog) = (&builder, &catalog);
        let build = s.spawn(move || {
            let mut calls = 0;
            builder
                .update(catalog, opts, &mut |p| {
                    calls += 1;
                    // The first report is made before anything is read; the second after the
                    // first files were, and committed.
                    if calls == 2 {
                        assert!(p.done > 0 && p.done < p.total, "{p:?}");
                        tx.send(()).unwrap();
                        rx.recv().unwrap();
                    }
                })
                .unwrap()
        });
        holding.1.recv().unwrap();
        let other = SearchIndex::open(&data).unwrap();
        let r = search(&other, catalog, "commonword");
        assert!(!r.complete, "{r:?}");
        assert!(r.indexed_sessions > 0 && r.indexed_sessions < 200, "{}", r.indexed_sessions);
        assert_eq!((r.total_sessions, r.listed_sessions), (r.indexed_sessions, 200));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(
            (json["complete"].as_bool(), json["listedSessions"].as_u64()),
            (Some(false), Some(200))
        );
        release.send(()).unwrap();
        build.join().unwrap();
        let r = search(&other, catalog, "commonword");
        assert!(r.complete, "{r:?}");
        assert_eq!((r.indexed_sessions, r.total_sessions, r.listed_sessions), (200, 200, 200));
    });
}

#[test]
fn the_background_indexer_reports_progress_and_answers_new_requests() {
    let (tmp, catalog, folder) = bare_home();
    session_saying(&folder, "55", "iotaword");
    let index = std::sync::Arc::new(SearchIndex::open(&tmp.path().join("data")).unwrap());
    let (tx, rx) = mpsc::channel();
    let indexer = corral_engine::search::Indexer::start(index.clone(), move |s| {
        let _ = tx.send(s.clone());
    });
    let catalog = std::sync::Arc::new(catalog);
    indexer.request(catalog.clone());
    let wait_idle = |rx: &mpsc::Receiver<corral_engine::search::IndexStatus>| loop {
        let s = rx.recv_timeout(Duration::from_secs(20)).expect("a status");
        if !s.building {
            return s;
        }
    };
    let idle = wait_idle(&rx);
    assert_eq!((idle.indexed, idle.error.as_deref(), idle.busy), (1, None, false), "{idle:?}");
    assert_eq!(search(&index, &catalog, "iotaword").total_sessions, 1);
    session_saying(&folder, "56", "kappaword");
    catalog.invalidate(&[]);
    indexer.request(catalog.clone());
    let idle = wait_idle(&rx);
    assert_eq!(idle.indexed, 2, "{idle:?}");
    assert_eq!(indexer.status().indexed, 2);
    assert_eq!(search(&index, &catalog, "kappaword").total_sessions, 1);
    drop(indexer);
}

#[test]
fn a_match_past_the_stored_excerpt_still_gets_its_snippet() {
    let (tmp, catalog, folder) = bare_home();
    let id = sid("57");
    let filler = "lorem ipsum dolor ".repeat(400);
    let lines = [
        r#"{"type":"permission-mode","permissionMode":"default"}"#.to_owned(),
        user(&id, "/w/app", "u1", &format!("{filler} and finally the lambdaword")),
    ];
    std::fs::write(folder.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    let index = SearchIndex::open(&tmp.path().join("data")).unwrap();
    update(&index, &catalog);
    let r = search(&index, &catalog, "lambdaword");
    let hit = &r.sessions[0].hits[0];
    let marked: Vec<&str> =
        hit.snippet_parts.iter().filter(|p| p.hit).map(|p| p.text.as_str()).collect();
    assert_eq!(marked, ["lambdaword"], "{hit:?}");
    assert!(hit.snippet.len() < 1000, "a snippet, not the whole message");
}

/// A session that asked a question (`AskUserQuestion`) at `asked` and got the desktop app's
/// rejection at `rejected`, then optionally a prompt from its owner.
fn asked_and_rejected(
    folder: &Path,
    short: &str,
    question: &str,
    rejected: &str,
    then: Option<&str>,
) {
    let id = sid(short);
    let call = format!("toolu_{short}");
    let mut lines = vec![
        r#"{"type":"permission-mode","permissionMode":"default"}"#.to_owned(),
        user(&id, "/w/app", &format!("{short}-u1"), "set up the service"),
        serde_json::json!({
            "type": "assistant", "uuid": format!("{short}-a1"), "sessionId": id, "cwd": "/w/app",
            "timestamp": "2026-09-16T20:00:00.000Z",
            "message": {"role": "assistant", "content": [
                {"type": "text", "text": "One thing first."},
                {"type": "tool_use", "id": call, "name": "AskUserQuestion", "input": {"questions": [
                    {"question": question, "header": "Choice", "multiSelect": false,
                     "options": [{"label": "A", "description": "a"}, {"label": "B", "description": "b"}]}
                ]}}
            ]}
        })
        .to_string(),
        serde_json::json!({
            "type": "user", "uuid": format!("{short}-r"), "sessionId": id, "cwd": "/w/app",
            "timestamp": rejected,
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "is_error": true,
                "content": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."}]}
        })
        .to_string(),
    ];
    if let Some(text) = then {
        lines.push(user(&id, "/w/app", &format!("{short}-u2"), text));
    }
    std::fs::write(folder.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
}

/// No silent cap on lost questions: 20 rejections in one session (more than the first look's 16
/// per session) and 501 sessions with one each (more than its 500) are all found, with their
/// text. Before: the newest rejections past 16 per session and every session past 500 were
/// dropped without a word.
#[test]
fn every_lost_question_is_found_however_many_there_are() {
    let (_tmp, catalog, folder) = bare_home();
    for n in 0..501u32 {
        let short = format!("{:x}", 0x1000 + n);
        asked_and_rejected(
            &folder,
            &short,
            &format!("Question of {short}?"),
            "2026-09-16T22:52:10.120Z",
            None,
        );
    }
    let id = sid("2000");
    let mut lines = vec![user(&id, "/w/app", "m-u0", "many questions")];
    for q in 0..20 {
        let call = format!("toolu_many_{q}");
        lines.push(
            serde_json::json!({"type":"assistant","uuid":format!("m-a{q}"),"sessionId":id,
                "cwd":"/w/app","timestamp":format!("2026-09-17T10:{q:02}:00.000Z"),
                "message":{"role":"assistant","content":[{"type":"tool_use","id":call,
                "name":"AskUserQuestion","input":{"questions":[{"question":format!("Many {q}?"),
                "header":"C","multiSelect":false,"options":[{"label":"A","description":"a"}]}]}}]}})
            .to_string(),
        );
        lines.push(
            serde_json::json!({"type":"user","uuid":format!("m-r{q}"),"sessionId":id,
                "cwd":"/w/app","timestamp":format!("2026-09-17T10:{q:02}:01.000Z"),
                "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":call,
                "is_error":true,"content":"The user doesn't want to proceed with this tool use."}]}})
            .to_string(),
        );
    }
    std::fs::write(folder.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    let data = catalog.data_dir().to_path_buf();
    let index = SearchIndex::open(&data).unwrap();
    update(&index, &catalog);
    let found = corral_engine::lost_questions::lost_questions(&index, &catalog).unwrap();
    let many: BTreeSet<&str> =
        found.iter().filter(|q| q.session_id == id).map(|q| q.question.as_str()).collect();
    assert_eq!(many.len(), 20, "{many:?}");
    assert!(many.contains("Many 19?"), "the newest too");
    let sessions: BTreeSet<&str> = found.iter().map(|q| q.session_id.as_str()).collect();
    assert_eq!(sessions.len(), 502);
}

#[test]
fn questions_rejected_by_a_quit_are_found_with_their_text() {
    let (_tmp, catalog, folder) = bare_home();
    // Two sessions rejected in the same second (a quit); one of them was talked to afterwards.
    asked_and_rejected(
        &folder,
        "71",
        "Which database should the service use?",
        "2026-09-16T22:52:10.120Z",
        None,
    );
    asked_and_rejected(
        &folder,
        "72",
        "Deploy to staging first?",
        "2026-09-16T22:52:10.870Z",
        Some("go on"),
    );
    // A rejection of its own, answered by the owner: not likely a quit.
    asked_and_rejected(
        &folder,
        "73",
        "Keep the old API?",
        "2026-09-15T08:00:00.000Z",
        Some("no, I meant yes"),
    );
    // A rejected command is not a question.
    let bash = sid("74");
    std::fs::write(
        folder.join(format!("{bash}.jsonl")),
        [
            user(&bash, "/w/app", "74-u", "clean up"),
            assistant(&bash, "/w/app", "74-a", "Removing.", Some(("toolu_74", "rm -rf build"))),
            tool_result(
                &bash,
                "/w/app",
                "74-r",
                "toolu_74",
                "The user doesn't want to proceed with this tool use.",
                true,
            ),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    // Asked twice and rejected twice (the owner answered between; the second quit followed).
    asked_and_rejected(
        &folder,
        "75",
        "Use the cache?",
        "2026-09-14T10:00:00.000Z",
        Some("again please"),
    );
    let twice = sid("75");
    append(
        &folder.join(format!("{twice}.jsonl")),
        &[
            serde_json::json!({
                "type": "assistant", "uuid": "75-a2", "sessionId": twice, "cwd": "/w/app",
                "timestamp": "2026-09-14T11:00:00.000Z",
                "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_75b", "name": "AskUserQuestion",
                     "input": {"questions": [{"question": "Use the cache after all?", "options": []}]}}
                ]}
            })
            .to_string(),
            serde_json::json!({
                "type": "user", "uuid": "75-r2", "sessionId": twice, "cwd": "/w/app",
                "timestamp": "2026-09-14T12:00:00.000Z",
                "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_75b",
                    "is_error": true, "content": "The user doesn't want to proceed with this tool use."}]}
            })
            .to_string(),
        ],
    );
    let index = SearchIndex::open(&catalog.data_dir().join("idx")).unwrap();
    update(&index, &catalog);
    let all = corral_engine::lost_questions::lost_questions(&index, &catalog).unwrap();
    let (found, twice_found): (Vec<_>, Vec<_>) =
        all.into_iter().partition(|q| q.session_id != twice);
    let got: Vec<(String, bool, bool)> = twice_found
        .iter()
        .map(|q| (q.question.clone(), q.owner_spoke_after, q.likely_quit))
        .collect();
    assert_eq!(
        got,
        vec![
            ("Use the cache after all?".to_owned(), false, true),
            ("Use the cache?".to_owned(), true, false),
        ],
        "each rejection of one transcript with its own question"
    );
    let got: Vec<(String, String, u64, bool)> = found
        .iter()
        .map(|q| (q.session_id.clone(), q.question.clone(), q.same_second, q.likely_quit))
        .collect();
    assert_eq!(
        got,
        vec![
            (sid("72"), "Deploy to staging first?".to_owned(), 2, true),
            (sid("71"), "Which database should the service use?".to_owned(), 2, true),
            (sid("73"), "Keep the old API?".to_owned(), 1, false),
        ],
        "newest rejection first"
    );
    assert!(
        found[0].owner_spoke_after && !found[1].owner_spoke_after && found[2].owner_spoke_after
    );
    assert_eq!(found[1].asked_at.as_deref(), Some("2026-09-16T20:00:00.000Z"));
}

/// A subagent's prompt line for session `id` saying `word`.
fn sidechain_line(id: &str, uuid: &str, word: &str) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(&user(id, "/w/app", uuid, &format!("subagent task {word}"))).unwrap();
    v["isSidechain"] = serde_json::Value::Bool(true);
    v["agentId"] = serde_json::Value::String(uuid.to_owned());
    v.to_string() + "\n"
}

/// Sets `dir`'s modification time a minute back (older than the moment in which a folder's
/// read is not yet trusted).
fn age(dir: &Path) {
    let old = std::time::SystemTime::now() - Duration::from_secs(60);
    std::fs::File::open(dir).unwrap().set_modified(old).unwrap();
}

#[test]
fn subagent_folders_are_remembered_across_processes_and_their_changes_seen() {
    let (tmp, catalog, folder) = bare_home();
    let data = tmp.path().join("data");
    let id = sid("61");
    session_saying(&folder, "61", "mainword");
    let nested = folder.join(&id).join("subagents");
    let run = nested.join("workflows").join("run-1");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(nested.join("agent-a1.jsonl"), sidechain_line(&id, "s1", "nestedword")).unwrap();
    std::fs::write(run.join("agent-w1.jsonl"), sidechain_line(&id, "w1", "flowword")).unwrap();
    std::fs::write(folder.join("agent-f1.jsonl"), sidechain_line(&id, "f1", "flatword")).unwrap();
    for d in [&folder, &folder.join(&id), &nested, &nested.join("workflows"), &run] {
        age(d);
    }
    let index = SearchIndex::open(&data).unwrap();
    let r = update(&index, &catalog);
    assert_eq!((r.files_indexed, r.sessions), (4, 1), "{r:?}");
    for w in ["mainword", "nestedword", "flowword", "flatword"] {
        assert_eq!(ids(&search(&index, &catalog, w)), BTreeSet::from([id.clone()]), "{w}");
    }
    assert!(data.join("search-v3").join("folders.bin").is_file());

    // A new process (index and catalog opened again) finds the same files through what the
    // first remembered: nothing is read again.
    drop(index);
    let catalog = Catalog::open(catalog.config().clone()).unwrap();
    let index = SearchIndex::open(&data).unwrap();
    let r = update(&index, &catalog);
    assert_eq!((r.files_indexed, r.files_appended, r.files_unchanged), (0, 0, 4), "{r:?}");

    // A run added to a remembered folder, a new workflow run and a flat file removed are seen
    // (their folders' times moved).
    std::fs::write(nested.join("agent-a2.jsonl"), sidechain_line(&id, "s2", "laterword")).unwrap();
    let run2 = nested.join("workflows").join("run-2");
    std::fs::create_dir_all(&run2).unwrap();
    std::fs::write(run2.join("agent-w2.jsonl"), sidechain_line(&id, "w2", "secondflow")).unwrap();
    std::fs::remove_file(folder.join("agent-f1.jsonl")).unwrap();
    catalog.invalidate(&[]);
    let r = update(&index, &catalog);
    assert_eq!((r.files_indexed, r.files_removed), (2, 1), "{r:?}");
    assert_eq!(search(&index, &catalog, "laterword").total_sessions, 1);
    assert_eq!(search(&index, &catalog, "secondflow").total_sessions, 1);
    assert_eq!(search(&index, &catalog, "flatword").total_sessions, 0);

    // A subagent's transcript appended to is read from where it stopped (its folder's time
    // does not move), and one replaced by a file of the same size and time is read again whole:
    // the update decides from the stamps its fingerprint took, identity included.
    let line = sidechain_line(&id, "s3", "appendedword");
    append(&nested.join("agent-a1.jsonl"), &[line.trim_end().to_owned()]);
    catalog.invalidate(&[]);
    let r = update(&index, &catalog);
    assert_eq!((r.files_indexed, r.files_appended, r.messages_added), (0, 1, 1), "{r:?}");
    let found = search(&index, &catalog, "appendedword");
    assert_eq!(found.sessions[0].hits[0].agent_id.as_deref(), Some("a1"), "{found:?}");
    assert_eq!(search(&index, &catalog, "nestedword").total_matches, 1, "not indexed twice");
    let a2 = nested.join("agent-a2.jsonl");
    let mtime = std::fs::metadata(&a2).unwrap().modified().unwrap();
    let tmp_a2 = nested.join("agent-a2.tmp");
    std::fs::write(&tmp_a2, sidechain_line(&id, "s2", "laterwore")).unwrap();
    std::fs::File::options().write(true).open(&tmp_a2).unwrap().set_modified(mtime).unwrap();
    let len = |p: &Path| std::fs::metadata(p).unwrap().len();
    assert_eq!(len(&tmp_a2), len(&a2));
    std::fs::rename(&tmp_a2, &a2).unwrap();
    catalog.invalidate(&[]);
    let r = update(&index, &catalog);
    assert_eq!((r.files_indexed, r.files_appended), (1, 0), "{r:?}");
    assert_eq!(search(&index, &catalog, "laterword").total_sessions, 0);
    assert_eq!(search(&index, &catalog, "laterwore").total_sessions, 1);

    // What is remembered is a cache: damaged, it is read again from the folders.
    std::fs::write(data.join("search-v3").join("folders.bin"), b"not what was written").unwrap();
    let index = SearchIndex::open(&data).unwrap();
    let r = update(&index, &catalog);
    assert_eq!((r.files_indexed, r.files_unchanged), (0, 5), "{r:?}");
    assert_eq!(search(&index, &catalog, "nestedword").total_sessions, 1);
}

/// The remembered folder reads of two processes saved at once, and a FIFO where the file should
/// be: the update never blocks, never fails, and what is left on disk is one whole file that the
/// next process uses (shown by a change hidden from it: a file added to a folder whose time is
/// put back is not seen until the folder's time moves).
#[cfg(unix)]
#[test]
fn remembered_folder_reads_survive_two_savers_and_a_fifo() {
    let (tmp, catalog, folder) = bare_home();
    let data = tmp.path().join("data");
    let id = sid("62");
    session_saying(&folder, "62", "mainword");
    let nested = folder.join(&id).join("subagents");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(nested.join("agent-a1.jsonl"), sidechain_line(&id, "s1", "nestedword")).unwrap();
    for d in [&folder, &folder.join(&id), &nested] {
        age(d);
    }
    let file = data.join("search-v3").join("folders.bin");
    update(&SearchIndex::open(&data).unwrap(), &catalog);

    // A FIFO in its place is neither opened for reading (which would block) nor kept.
    std::fs::remove_file(&file).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&file).status().unwrap().success());
    let index = SearchIndex::open(&data).unwrap();
    let r = update(&index, &catalog);
    assert_eq!((r.files_indexed, r.files_unchanged), (0, 2), "{r:?}");
    assert!(std::fs::symlink_metadata(&file).unwrap().is_file(), "the FIFO is replaced");

    // Two processes with nothing remembered save at once, five times over.
    for _ in 0..5 {
        std::fs::remove_file(&file).unwrap();
        let (a, b) = (SearchIndex::open(&data).unwrap(), SearchIndex::open(&data).unwrap());
        let barrier = std::sync::Barrier::new(2);
        std::thread::scope(|s| {
            for index in [&a, &b] {
                let (barrier, catalog) = (&barrier, &catalog);
                s.spawn(move || {
                    barrier.wait();
                    let r = update(index, catalog);
                    assert_eq!(r.files_unchanged, 2, "{r:?}");
                });
            }
        });
    }
    let names: Vec<String> = std::fs::read_dir(data.join("search-v3"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("folders.bin"))
        .collect();
    assert_eq!(names, vec!["folders.bin".to_owned()], "no temp file is left behind");

    // The next process reads the folders through what was saved.
    let before = std::fs::metadata(&nested).unwrap().modified().unwrap();
    std::fs::write(nested.join("agent-a2.jsonl"), sidechain_line(&id, "s2", "hiddenword")).unwrap();
    std::fs::File::open(&nested).unwrap().set_modified(before).unwrap();
    let index = SearchIndex::open(&data).unwrap();
    catalog.invalidate(&[]);
    update(&index, &catalog);
    assert_eq!(search(&index, &catalog, "hiddenword").total_sessions, 0, "the saved read is used");
    age(&nested);
    catalog.invalidate(&[]);
    update(&index, &catalog);
    assert_eq!(search(&index, &catalog, "hiddenword").total_sessions, 1);
}

/// Sets a file's modification time `hours` back.
fn age_hours(path: &Path, hours: u64) {
    let old = std::time::SystemTime::now() - Duration::from_secs(hours * 3600);
    std::fs::File::options().append(true).open(path).unwrap().set_modified(old).unwrap();
}

/// A search's update takes a session's subagent transcripts as remembered only while they and
/// its main transcript had been left alone for an hour when they were looked at, and the main
/// transcript is unchanged since; an update that trusts nothing sees everything.
#[test]
fn settled_sessions_are_trusted_until_they_run_again() {
    let (tmp, catalog, folder) = bare_home();
    let data = tmp.path().join("data");
    let id = sid("63");
    let main = session_saying(&folder, "63", "mainword");
    let nested = folder.join(&id).join("subagents");
    std::fs::create_dir_all(&nested).unwrap();
    let agent = nested.join("agent-a1.jsonl");
    std::fs::write(&agent, sidechain_line(&id, "s1", "alphaword")).unwrap();
    for d in [&folder, &folder.join(&id), &nested] {
        age(d);
    }
    let trusting = UpdateOptions { trust_quiet: true, ..wait(Duration::from_secs(5)) };
    let trusted_update = |index: &SearchIndex| {
        catalog.invalidate(&[]);
        index.update(&catalog, trusting, &mut |_| {}).unwrap()
    };
    let found = |index: &SearchIndex, w: &str| search(index, &catalog, w).total_sessions;
    let index = SearchIndex::open(&data).unwrap();

    // A session whose main transcript was written moments ago is not settled, though its
    // subagent has been left alone: the subagent's append is found.
    age_hours(&agent, 2);
    trusted_update(&index);
    append(&agent, &[sidechain_line(&id, "s2", "freshword")]);
    trusted_update(&index);
    assert_eq!(found(&index, "freshword"), 1);

    // Left alone for two hours, the session is quiet once looked at; an append to the subagent
    // alone (which a session that is not running never makes) is then not looked for.
    age_hours(&main, 2);
    age_hours(&agent, 2);
    trusted_update(&index);
    append(&agent, &[sidechain_line(&id, "s3", "hiddenword")]);
    let r = trusted_update(&index);
    assert_eq!((r.files_appended, found(&index, "hiddenword")), (0, 0), "{r:?}");
    // ... also by the next process, through what was saved; but an update that trusts nothing
    // finds it.
    let index = SearchIndex::open(&data).unwrap();
    trusted_update(&index);
    assert_eq!(found(&index, "hiddenword"), 0, "the saved memory is used");
    catalog.invalidate(&[]);
    assert_eq!(update(&index, &catalog).files_appended, 1);
    assert_eq!(found(&index, "hiddenword"), 1);

    // Quiet again; its session then runs (its main transcript is written first): the trust
    // ends, and the subagent's new lines are found.
    age_hours(&agent, 2);
    trusted_update(&index);
    append(&agent, &[sidechain_line(&id, "s4", "resumedword")]);
    assert_eq!(found(&index, "resumedword"), 0);
    append(&main, &[user(&id, "/w/app", "u9", "go on")]);
    age_hours(&main, 2);
    let r = trusted_update(&index);
    assert_eq!(r.files_appended, 2, "{r:?}");
    assert_eq!(found(&index, "resumedword"), 1);

    // Its folders are not looked at either: a subagent file added to a settled session (which
    // only its run makes) or one a person removes is seen by an update that trusts nothing.
    age_hours(&agent, 2);
    trusted_update(&index);
    std::fs::write(nested.join("agent-a2.jsonl"), sidechain_line(&id, "s5", "newword")).unwrap();
    age_hours(&nested.join("agent-a2.jsonl"), 2);
    age(&nested);
    assert_eq!(trusted_update(&index).files_indexed, 0);
    catalog.invalidate(&[]);
    assert_eq!(update(&index, &catalog).files_indexed, 1);
    assert_eq!(found(&index, "newword"), 1);
    std::fs::remove_file(&agent).unwrap();
    age(&nested);
    assert_eq!(trusted_update(&index).files_removed, 0);
    catalog.invalidate(&[]);
    assert_eq!(update(&index, &catalog).files_removed, 1);
    assert_eq!(found(&index, "alphaword"), 0);

    // A session with a subagent written within the hour when it was looked at is not settled,
    // however old its main transcript: the run's next lines are found.
    let agent2 = nested.join("agent-a2.jsonl");
    append(&agent2, &[sidechain_line(&id, "s6", "runningword")]);
    catalog.invalidate(&[]);
    assert_eq!(update(&index, &catalog).files_appended, 1);
    append(&agent2, &[sidechain_line(&id, "s7", "stillword")]);
    trusted_update(&index);
    assert_eq!(found(&index, "stillword"), 1);
}

/// Find goes through matches in the order the viewer shows them: a tool's result sits with its
/// call. With two calls made together, a match in the first call's result comes before one in
/// the second call's input, though its line comes later in the file.
#[test]
fn find_lists_a_result_at_its_call_not_at_its_later_line() {
    let (_tmp, catalog, folder) = bare_home();
    let id = sid("3000");
    let line = |v: serde_json::Value| v.to_string();
    let call = |uuid: &str, tool: &str, command: &str| {
        line(serde_json::json!({"type":"assistant","uuid":uuid,"sessionId":id,"cwd":"/w/app",
            "timestamp":"2026-09-17T10:00:00.000Z","message":{"role":"assistant","content":[
            {"type":"tool_use","id":tool,"name":"Bash","input":{"command":command}}]}}))
    };
    let result = |uuid: &str, tool: &str, out: &str| {
        line(serde_json::json!({"type":"user","uuid":uuid,"sessionId":id,"cwd":"/w/app",
            "timestamp":"2026-09-17T10:00:01.000Z","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":tool,"content":out}]}}))
    };
    let lines = [
        user(&id, "/w/app", "p", "run both"),
        call("a", "toolu_A", "ls"),
        call("b", "toolu_B", "echo zebraword in the second call"),
        result("ra", "toolu_A", "zebraword in the first result"),
        result("rb", "toolu_B", "done"),
    ];
    let path = folder.join(format!("{id}.jsonl"));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let index = SearchIndex::open(catalog.data_dir()).unwrap();
    update(&index, &catalog);
    let found = index.find_in_transcript(&path, "zebraword", 100).unwrap();
    let order: Vec<(&str, bool)> =
        found.matches.iter().map(|m| (m.uuid.as_str(), m.display_offset < m.offset)).collect();
    assert_eq!(order, [("ra", true), ("b", false)], "{found:?}");
    let call_a = lines[..1].iter().map(|l| l.len() as u64 + 1).sum::<u64>();
    assert_eq!(found.matches[0].display_offset, call_a, "the result sits at its call's line");
}
