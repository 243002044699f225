//! Reopening recent work: which folders are offered (by the time of the last real prompt or
//! answer, never the file's time), what is left out and why, each folder's state from the
//! process table, Remote Control names, git read without running what a repository plants, and
//! a batch of starts that are guarded again, verified, spaced and cancellable.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use corral_engine::occupancy::{FixedProcesses, ProcessInfo, ProcessSource, TableUnreadable};
use corral_engine::reopen::{
    self, FolderState, Git, GitState, LeftOutReason, RecentWork, ReopenChoice, StartResult,
    StartSettings,
};
use corral_engine::resume::Terminal;
use corral_engine::{Catalog, CatalogConfig};

use crate::home::sid;
use crate::support::claude_process as claude;

fn now() -> DateTime<Utc> {
    "2026-12-07T12:00:00Z".parse().unwrap()
}

/// A Claude home with work folders beside it, all in a temp dir.
struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl World {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let home = root.join("claude");
        fs::create_dir_all(home.join("projects")).unwrap();
        Self { _tmp: tmp, root, home }
    }

    /// A work folder (created).
    fn folder(&self, rel: &str) -> PathBuf {
        let d = self.root.join("work").join(rel);
        fs::create_dir_all(&d).unwrap();
        d
    }

    /// A conversation in `cwd` whose last prompt and answer are `hours_ago` before [`now`],
    /// written by `entrypoint`; its file's time is now (as after a restart).
    fn conversation(&self, short: &str, cwd: &Path, hours_ago: i64, entrypoint: Option<&str>) {
        let id = sid(short);
        let cwd = cwd.to_str().unwrap();
        let folder = self.home.join("projects").join(corral_engine::paths::encode_path(cwd));
        fs::create_dir_all(&folder).unwrap();
        let at = corral_engine::time::iso(now() - chrono::Duration::hours(hours_ago));
        let ep = entrypoint.map(|e| format!(r#","entrypoint":"{e}""#)).unwrap_or_default();
        let cwd_json = serde_json::to_string(cwd).unwrap();
        let lines = [
            format!(
                r#"{{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"{id}","cwd":{cwd_json},"timestamp":"{at}"{ep},"message":{{"role":"user","content":"work on {short}"}}}}"#
            ),
            format!(
                r#"{{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"{id}","cwd":{cwd_json},"timestamp":"{at}"{ep},"message":{{"id":"m1","role":"assistant","content":[{{"type":"text","text":"done"}}]}}}}"#
            ),
            // What a dying process appends: no prompt, no answer.
            format!(r#"{{"type":"custom-title","customTitle":"{short} work","sessionId":"{id}"}}"#),
        ];
        fs::write(folder.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    }

    fn catalog(&self) -> Catalog {
        Catalog::open(CatalogConfig {
            claude_home: self.home.clone(),
            fleet_file: None,
            state_dir: Some(self.root.join("state")),
            data_dir: self.root.join("data"),
        })
        .unwrap()
    }

    fn recent(&self, processes: &dyn ProcessSource, every_surface: bool) -> RecentWork {
        reopen::recent_work_in(&self.catalog(), processes, 21, every_surface, None, now()).unwrap()
    }
}

fn nobody() -> FixedProcesses {
    FixedProcesses(Ok(Vec::new()))
}

#[test]
fn recent_means_the_last_prompt_or_answer_and_each_folder_offers_its_newest() {
    let w = World::new();
    let (app, lib, old) = (w.folder("app"), w.folder("lib"), w.folder("old"));
    w.conversation("a1", &app, 30, Some("cli"));
    w.conversation("a2", &app, 2, Some("cli"));
    w.conversation("a3", &app, 10, None); // before Claude Code recorded its entrypoint
    w.conversation("b1", &lib, 5, Some("cli"));
    // Its file was written just now, but nothing was said in 30 days: not recent.
    w.conversation("c1", &old, 24 * 30, Some("cli"));
    let recent = w.recent(&nobody(), false);
    let rows: Vec<(&str, &str, u32)> = recent
        .rows
        .iter()
        .map(|r| (r.folder.as_str(), r.session_id.as_str(), r.conversations))
        .collect();
    let (a2, b1) = (sid("a2"), sid("b1"));
    assert_eq!(
        rows,
        [(app.to_str().unwrap(), a2.as_str(), 3), (lib.to_str().unwrap(), b1.as_str(), 1)]
    );
    assert!(recent.rows.iter().all(|r| r.state == FolderState::Free && r.why.is_none()));
    assert_eq!(recent.rows[0].name, "a2 work");
    assert!(recent.left_out.is_empty(), "{:?}", recent.left_out);
    assert_eq!(recent.since, "2026-11-16T12:00:00.000Z");
    let narrow = reopen::recent_work_in(&w.catalog(), &nobody(), 0, false, None, now()).unwrap();
    assert!(narrow.rows.is_empty());
}

#[test]
fn gone_folders_scratch_workspaces_and_print_runs_are_left_out_and_named() {
    let w = World::new();
    let gone = w.folder("gone");
    let printed = w.folder("printed");
    let both = w.folder("both");
    let store = w.root.join("Claude").join("claude-code-sessions");
    let scratch = w.root.join("Claude").join("scratch-workspaces").join("acct").join("org");
    fs::create_dir_all(&scratch).unwrap();
    w.conversation("a1", &gone, 1, Some("cli"));
    fs::remove_dir(&gone).unwrap();
    w.conversation("b1", &printed, 2, Some("sdk-cli"));
    w.conversation("c1", &scratch, 3, Some("cli"));
    w.conversation("d1", &both, 4, Some("claude-desktop"));
    // A folder with a -p run and an older interactive conversation offers the interactive one.
    w.conversation("e1", &both, 6, Some("cli"));
    w.conversation("e2", &both, 1, Some("sdk-ts"));
    let catalog = w.catalog();
    let recent =
        reopen::recent_work_in(&catalog, &nobody(), 21, false, Some(&store), now()).unwrap();
    assert_eq!(recent.rows.len(), 1);
    assert_eq!(recent.rows[0].session_id, sid("e1"));
    let left: Vec<(String, LeftOutReason)> =
        recent.left_out.iter().map(|l| (l.session_id.clone(), l.reason)).collect();
    assert_eq!(
        left,
        [
            (sid("a1"), LeftOutReason::FolderGone),
            (sid("b1"), LeftOutReason::NotInteractive),
            (sid("c1"), LeftOutReason::DesktopScratch),
        ]
    );
    assert!(recent.left_out[1].why.contains("claude -p"), "{}", recent.left_out[1].why);
    // Every surface: the -p run, the scratch workspace and the desktop conversation are offered;
    // a gone folder never is.
    let all = reopen::recent_work_in(&catalog, &nobody(), 21, true, Some(&store), now()).unwrap();
    let ids: Vec<&str> = all.rows.iter().map(|r| r.session_id.as_str()).collect();
    assert_eq!(ids, [sid("e2"), sid("b1"), sid("c1")]);
    assert_eq!(all.left_out.len(), 1);
}

#[test]
fn a_folder_is_occupied_by_a_process_there_or_on_its_conversation_and_unknown_when_unreadable() {
    let w = World::new();
    let (a, b, c, d) = (w.folder("a"), w.folder("b"), w.folder("c"), w.folder("d"));
    for (short, f) in [("a1", &a), ("b1", &b), ("c1", &c), ("d1", &d)] {
        w.conversation(short, f, 1, Some("cli"));
    }
    let table = FixedProcesses(Ok(vec![
        claude(10, Some(&a), &["--continue"]),
        claude(11, Some(Path::new("/elsewhere")), &["--resume", &sid("b1")]),
        // Another conversation of c: several of one repository may run side by side.
        claude(12, Some(&c), &["--resume", &sid("c0")]),
        claude(13, Some(&d), &[]),
    ]));
    let states: Vec<(FolderState, Option<String>)> =
        w.recent(&table, false).rows.iter().map(|r| (r.state, r.why.clone())).collect();
    assert_eq!(states.len(), 4);
    let by = |f: &Path| {
        let r = w.recent(&table, false);
        let row = r.rows.iter().find(|r| Path::new(&r.folder) == f).unwrap().clone();
        (row.state, row.why.unwrap_or_default())
    };
    assert!(matches!(by(&a), (FolderState::Occupied, why) if why.contains("--continue")));
    assert!(matches!(by(&b), (FolderState::Occupied, why) if why.contains("holds this session")));
    assert_eq!(by(&c).0, FolderState::Free);
    assert!(matches!(by(&d), (FolderState::Occupied, why) if why.contains("no session flag")));
    // A folder-wide process whose folder cannot be read, or no table at all: unknown.
    let blind = FixedProcesses(Ok(vec![claude(20, None, &["--continue"])]));
    assert!(w.recent(&blind, false).rows.iter().all(|r| r.state == FolderState::Unknown));
    let none = FixedProcesses(Err(TableUnreadable("no /proc".into())));
    let rows = w.recent(&none, false).rows;
    assert!(rows.iter().all(|r| r.state == FolderState::Unknown
        && r.why.as_deref().is_some_and(|w| w.contains("no /proc"))));
}

#[test]
fn remote_names_come_from_the_folder_and_are_unique_among_two_hundred_rows() {
    let w = World::new();
    let mut made = 0;
    for parent in ["one", "two"] {
        for i in 0..100 {
            let name =
                if i == 0 { "App $(rm -rf ~)\n\u{1b}[31m".to_owned() } else { format!("app {i}") };
            let f = w.folder(&format!("{parent}/{name}"));
            w.conversation(&format!("{:x}", 0x1000 + made), &f, 1 + made, Some("cli"));
            made += 1;
        }
    }
    let recent = w.recent(&nobody(), false);
    assert_eq!(recent.rows.len(), 200);
    let names: std::collections::BTreeSet<&str> =
        recent.rows.iter().map(|r| r.remote_name.as_str()).collect();
    assert_eq!(names.len(), 200, "unique");
    assert!(names.contains("app-rm-rf-31m") && names.contains("two-app-rm-rf-31m"), "{names:?}");
    assert!(names.iter().all(|n| n.len() <= 40
        && !n.starts_with('-')
        && n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')));
}

#[test]
fn trust_is_read_from_claude_codes_settings_including_a_trusted_folder_above() {
    let w = World::new();
    let (inner, other) = (w.folder("trusted/inner"), w.folder("other"));
    w.conversation("a1", &inner, 1, Some("cli"));
    w.conversation("b1", &other, 2, Some("cli"));
    let trusted_root = w.root.join("work").join("trusted");
    let settings = serde_json::json!({
        "projects": { trusted_root.to_str().unwrap(): { "hasTrustDialogAccepted": true } }
    });
    fs::write(w.home.join(".claude.json"), settings.to_string()).unwrap();
    let trust: Vec<Option<bool>> =
        w.recent(&nobody(), false).rows.iter().map(|r| r.trusted).collect();
    assert_eq!(trust, [Some(true), Some(false)]);
    fs::write(w.home.join(".claude.json"), "{ not json").unwrap();
    assert!(w.recent(&nobody(), false).rows.iter().all(|r| r.trusted.is_none()));
}

/// A repository with a planted `core.fsmonitor`, a planted `clean` filter on every file and a
/// changed file of the same size (git must read it): the state is read, nothing planted runs.
#[cfg(unix)]
#[test]
fn git_state_is_read_without_running_what_the_repository_plants() {
    let w = World::new();
    let repo = w.folder("repo");
    let marker = w.root.join("planted-ran");
    let git = |args: &[&str]| {
        let out =
            std::process::Command::new("git").arg("-C").arg(&repo).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&["init", "-q", "-b", "main"]);
    fs::write(repo.join("file.txt"), "aaaa\n").unwrap();
    git(&["add", "file.txt"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one"]);
    let touch = format!("touch '{}'", marker.display());
    git(&["config", "core.fsmonitor", &format!("{touch}; false")]);
    git(&["config", "filter.evil.clean", &format!("{touch}; cat")]);
    git(&["config", "filter.evil.process", &touch]);
    fs::write(repo.join(".gitattributes"), "* filter=evil\n").unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    fs::write(repo.join("file.txt"), "bbbb\n").unwrap();
    let state = reopen::git_state(&Git::default(), &repo);
    assert_eq!(
        state,
        GitState::Repository {
            branch: Some("main".into()),
            upstream: None,
            ahead: 0,
            behind: 0,
            changed: 1,
            untracked: 1,
        }
    );
    assert!(!marker.exists(), "a planted command ran");
    // The plant is real: git as usually run does run it.
    let _ = std::process::Command::new("git").arg("-C").arg(&repo).arg("status").output();
    assert!(marker.exists(), "the plant is one git runs");
    // Not a repository; a filter whose name cannot be switched off.
    let plain = w.folder("plain");
    assert_eq!(reopen::git_state(&Git::default(), &plain), GitState::NotARepository);
    git(&["config", "filter.a=b.clean", &touch]);
    assert!(matches!(reopen::git_state(&Git::default(), &repo),
        GitState::Unreadable { why } if why.contains("filter")));
}

/// A git that hangs (and leaves a child holding its output) is ended within its bound, with
/// what it started; a missing git says so.
#[cfg(unix)]
#[test]
fn a_hanging_git_is_bounded_and_a_missing_one_named() {
    let w = World::new();
    let fake = w.root.join("git");
    crate::support::write_program(&fake, "#!/bin/sh\nsleep 30 &\nsleep 30\n");
    let git = Git { program: fake, timeout: Duration::from_millis(500) };
    let dirs: Vec<PathBuf> = (0..6).map(|i| w.folder(&format!("r{i}"))).collect();
    let started = Instant::now();
    let states = reopen::git_states(&git, &dirs);
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(states.len(), 6);
    assert!(
        states
            .iter()
            .all(|s| matches!(s, GitState::Unreadable { why } if why.contains("did not answer")))
    );
    let missing = Git { program: w.root.join("no-git"), timeout: Duration::from_secs(1) };
    assert!(matches!(reopen::git_state(&missing, &dirs[0]),
        GitState::Unreadable { why } if why.contains("not installed")));
}

/// A process table made from a fake terminal's log: every `claude --resume <id>` the terminal
/// was asked to run shows as a process in the folder it was given.
struct Launched {
    log: PathBuf,
    extra: Vec<ProcessInfo>,
}

impl ProcessSource for Launched {
    fn processes(&self) -> Result<Vec<ProcessInfo>, TableUnreadable> {
        let text = fs::read_to_string(&self.log).unwrap_or_default();
        let mut out = self.extra.clone();
        for (i, entry) in text.split('\u{1e}').filter(|e| !e.is_empty()).enumerate() {
            let words: Vec<&str> = entry.split('\0').filter(|w| !w.is_empty()).collect();
            let (cwd, cmd) = (words[0], &words[1..]);
            // A start asked for in a folder named "never" does not come up.
            if cwd.ends_with("never") {
                continue;
            }
            let at = cmd.iter().position(|w| *w == "claude").unwrap();
            let args: Vec<&str> = cmd.iter().skip(at + 1).copied().collect();
            out.push(claude(100 + u32::try_from(i).unwrap(), Some(Path::new(cwd)), &args));
        }
        Ok(out)
    }
}

#[cfg(unix)]
#[test]
fn a_batch_is_guarded_again_verified_by_id_and_cancellable() {
    let w = World::new();
    let names = ["it's $(touch pwned)", "held", "never", "fine"];
    let folders: Vec<PathBuf> = names.iter().map(|n| w.folder(n)).collect();
    for (i, f) in folders.iter().enumerate() {
        w.conversation(&format!("a{i}"), f, 1 + i64::try_from(i).unwrap(), Some("cli"));
    }
    let log = w.root.join("terminal.log");
    let term = w.root.join("fake-term");
    crate::support::write_program(
        &term,
        &format!(
            "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\" >> '{0}'; done\nprintf '\\036' >> '{0}'\n",
            log.display()
        ),
    );
    let terminals = [Terminal::Template(format!("{} {{cwd}} {{command}}", term.display()))];
    // "held" gets a --continue process after the rows were shown.
    let processes =
        Launched { log: log.clone(), extra: vec![claude(9, Some(&folders[1]), &["--continue"])] };
    let cancel = AtomicBool::new(false);
    let untrusted = folders[3].to_str().unwrap().to_owned();
    let trusted = move |f: &str| Some(f != untrusted);
    let settings = StartSettings {
        terminals: &terminals,
        processes: &processes,
        timeout: Duration::from_millis(1500),
        spacing: Duration::from_millis(50),
        remote_control: true,
        trusted: &trusted,
        cancel: &cancel,
    };
    let chosen: Vec<ReopenChoice> = (0..4)
        .map(|i| ReopenChoice {
            session_id: sid(&format!("a{i}")),
            remote_name: Some(if i == 0 { "-x".into() } else { format!("f{i}") }),
        })
        .collect();
    let mut seen = Vec::new();
    let report =
        reopen::reopen_in(&w.catalog(), &chosen, &settings, &mut |o, i| seen.push((i, o.result)))
            .unwrap();
    let results: Vec<StartResult> = report.rows.iter().map(|r| r.result).collect();
    assert_eq!(
        results,
        [
            StartResult::Started,
            StartResult::Skipped,
            StartResult::FailedToStart,
            StartResult::Started
        ]
    );
    assert_eq!((report.started, report.failed, report.skipped), (2, 1, 1));
    assert_eq!(seen.len(), 4);
    assert!(report.rows[1].why.as_deref().unwrap().contains("--continue"));
    assert!(report.rows[2].why.as_deref().unwrap().contains("did not start"));
    assert!(report.rows[3].why.as_deref().unwrap().contains("trust"));
    assert!(report.rows[0].why.is_none());
    // The hostile folder reached the terminal as one whole argument; a name that would read as
    // an option was dropped, a good one passed.
    let text = fs::read_to_string(&log).unwrap();
    let entries: Vec<Vec<&str>> =
        text.split('\u{1e}').filter(|e| !e.is_empty()).map(|e| e.split('\0').collect()).collect();
    assert_eq!(entries.len(), 3, "held was not started");
    assert_eq!(entries[0][0], folders[0].to_str().unwrap());
    assert!(!entries[0].contains(&"--remote-control"));
    assert!(entries[2].windows(2).any(|p| p == ["--remote-control", "f3"]), "{:?}", entries[2]);
    assert!(!w.root.join("work").join("pwned").exists());
    // Cancelled first: nothing is tried.
    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    let none = reopen::reopen_in(&w.catalog(), &chosen, &settings, &mut |_, _| {}).unwrap();
    assert!(none.cancelled);
    assert!(none.rows.iter().all(|r| r.result == StartResult::NotTried));
}
