//! The occupancy guard: which sessions running `claude` processes hold, from a fake process table
//! and a fake /proc tree; unknown = occupied.

use std::fs;
use std::path::{Path, PathBuf};

use corral_engine::occupancy::{
    FixedProcesses, OccupancySnapshot, ProcTree, ProcessInfo, ProcessSource, SystemProcesses,
};
use corral_engine::paths::encode_path;

const S1: &str = "11111111-1111-4111-8111-111111111111";
const S2: &str = "22222222-2222-4222-8222-222222222222";

fn proc(pid: u32, cmd: &[&str], cwd: Option<&str>) -> ProcessInfo {
    ProcessInfo {
        pid,
        name: cmd.first().map(|c| c.rsplit('/').next().unwrap().to_owned()).unwrap_or_default(),
        cmd: cmd.iter().map(|s| (*s).to_owned()).collect(),
        cwd: cwd.map(PathBuf::from),
        exe: None,
        exited: false,
        parent: None,
    }
}

fn snap(procs: Vec<ProcessInfo>) -> OccupancySnapshot {
    OccupancySnapshot::capture(&FixedProcesses(Ok(procs)))
}

#[test]
fn resume_forms_hold_exactly_their_session() {
    for cmd in [
        vec!["claude", "--resume", S1],
        vec!["claude", format!("--resume={S1}").leak()],
        vec!["/usr/local/bin/claude", "-r", S1, "--model", "opus"],
        vec!["claude", "--session-id", S1],
        vec!["claude", format!("--session-id={S1}").leak()],
        vec!["node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js", "--resume", S1],
    ] {
        let s = snap(vec![proc(10, &cmd, Some("/home/u/app"))]);
        assert!(s.check(S1, Some("/home/u/app"), None).is_some(), "{cmd:?}");
        // A second conversation of the same folder stays free.
        assert_eq!(s.check(S2, Some("/home/u/app"), None), None, "{cmd:?}");
        assert!(s.unknown.is_none());
    }
}

#[test]
fn continue_picker_and_plain_claude_hold_every_session_of_their_folder() {
    for cmd in [
        vec!["claude", "--continue"],
        vec!["claude", "-c"],
        vec!["claude", "--resume"],
        vec!["claude"],
        vec!["claude", "-p", "summarize"],
    ] {
        let s = snap(vec![proc(11, &cmd, Some("/home/u/app"))]);
        let why = s.check(S1, Some("/home/u/app"), None);
        assert!(why.as_deref().unwrap_or("").contains("11"), "{cmd:?}: {why:?}");
        // Matched by folder name too, when the transcript records no cwd.
        assert!(s.check(S2, None, Some(&encode_path("/home/u/app"))).is_some(), "{cmd:?}");
        // Another folder is free.
        assert_eq!(s.check(S1, Some("/home/u/other"), Some("-home-u-other")), None, "{cmd:?}");
    }
}

#[test]
fn other_programs_and_the_desktop_app_hold_nothing() {
    let s = snap(vec![
        proc(1, &["bash"], Some("/home/u/app")),
        proc(2, &["vim", "claude"], Some("/home/u/app")),
        proc(3, &["/Applications/Claude.app/Contents/MacOS/Claude"], Some("/home/u/app")),
        proc(4, &["claude-monitor", "--resume", S1], None),
    ]);
    assert_eq!(s.check(S1, Some("/home/u/app"), None), None, "{s:?}");
    assert!(s.unknown.is_none());
}

#[test]
fn unknown_is_occupied() {
    let s = OccupancySnapshot::capture(&FixedProcesses(Err("permission denied".into())));
    let why = s.check(S1, Some("/anywhere"), None).unwrap();
    assert!(why.contains("unknown") && why.contains("permission denied"), "{why}");
    // A folder-wide claude process whose cwd cannot be read: anything may be in use.
    let s = snap(vec![proc(7, &["claude", "--continue"], None)]);
    assert!(s.check(S1, Some("/anywhere"), None).unwrap().contains('7'));
    // ... but a process that names its session needs no cwd.
    let s = snap(vec![proc(8, &["claude", "--resume", S2], None)]);
    assert!(s.unknown.is_none());
    assert_eq!(s.check(S1, Some("/anywhere"), None), None);
    assert!(s.check(S2, None, None).is_some());
}

#[test]
fn a_rewritten_process_title_counts_as_folder_wide() {
    // Node may overwrite argv with the process title: name "claude", command line "claude".
    let p = ProcessInfo {
        pid: 5,
        name: "claude".into(),
        cmd: vec![],
        cwd: Some("/w".into()),
        exe: None,
        exited: false,
        parent: None,
    };
    let s = snap(vec![p]);
    assert!(s.check(S1, Some("/w"), None).is_some());
}

#[cfg(unix)]
fn fake_proc(root: &Path, pid: u32, args: &[&str], cwd: Option<&Path>) {
    let d = root.join(pid.to_string());
    fs::create_dir_all(&d).unwrap();
    let mut cmdline = Vec::new();
    for a in args {
        cmdline.extend_from_slice(a.as_bytes());
        cmdline.push(0);
    }
    fs::write(d.join("cmdline"), cmdline).unwrap();
    fs::write(d.join("comm"), format!("{}\n", args[0].rsplit('/').next().unwrap())).unwrap();
    if let Some(c) = cwd {
        std::os::unix::fs::symlink(c, d.join("cwd")).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn a_fake_proc_tree_is_read_like_proc() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("proc");
    fake_proc(&root, 100, &["claude", "--resume", S1], Some(Path::new("/home/u/a")));
    fake_proc(&root, 101, &["claude", "-c"], Some(Path::new("/home/u/b")));
    fake_proc(&root, 102, &["sleep", "100"], Some(Path::new("/home/u/a")));
    fs::create_dir_all(root.join("self")).unwrap();
    let procs = ProcTree { root: root.clone() }.processes().unwrap();
    assert_eq!(procs.len(), 3);
    let s = OccupancySnapshot::capture(&ProcTree { root: root.clone() });
    assert!(s.check(S1, Some("/home/u/a"), None).is_some());
    assert!(s.check(S2, Some("/home/u/a"), None).is_none());
    assert!(s.check(S2, Some("/home/u/b"), None).is_some());
    // A claude process whose cwd link is missing (unreadable) makes everything occupied.
    fake_proc(&root, 103, &["claude"], None);
    let s = OccupancySnapshot::capture(&ProcTree { root: root.clone() });
    assert!(s.unknown.as_deref().unwrap_or("").contains("103"), "{s:?}");
    // An unreadable table is unknown.
    let s = OccupancySnapshot::capture(&ProcTree { root: tmp.path().join("absent") });
    assert!(s.unknown.is_some());
    assert!(s.check(S2, Some("/x"), None).is_some());

    // The desktop app, known by its executable (`exe`, a link in /proc, a file in fake trees).
    use corral_engine::desktop::{AppState, app_state};
    assert_eq!(app_state(&ProcTree { root: root.clone() }), AppState::Closed);
    fake_proc(&root, 104, &["Claude"], None);
    std::fs::write(root.join("104/exe"), "/Applications/Claude.app/Contents/MacOS/Claude\n")
        .unwrap();
    let AppState::Running { processes } = app_state(&ProcTree { root: root.clone() }) else {
        panic!("the app runs")
    };
    assert_eq!(processes.iter().map(|p| p.pid).collect::<Vec<_>>(), vec![104]);
    assert!(app_state(&ProcTree { root: tmp.path().join("absent") }).blocks_writes());
}

#[test]
fn the_real_process_table_is_readable_and_lists_this_process() {
    let procs = SystemProcesses.processes().expect("the process table of this machine");
    assert!(procs.iter().any(|p| p.pid == std::process::id()));
    // Capturing it never panics, whatever runs on this machine.
    let _ = OccupancySnapshot::capture(&SystemProcesses);
}

proptest::proptest! {
    /// Any command line, name and cwd: capturing and checking never panics, and a process that
    /// names a session with `--resume <id>` always holds it.
    #[test]
    fn any_process_table_is_handled(
        cmd in proptest::collection::vec("[-a-z=./ 0-9]{0,12}", 0..6),
        name in "[a-zA-Z.]{0,8}",
        cwd in proptest::option::of("/[a-z/]{0,10}"),
    ) {
        let p = ProcessInfo { pid: 1, name, cmd: cmd.clone(), cwd: cwd.clone().map(PathBuf::from), exe: None, exited: false, parent: None };
        let s = OccupancySnapshot::capture(&FixedProcesses(Ok(vec![p])));
        let _ = s.check(S1, cwd.as_deref(), None);
        let mut with_resume = vec!["claude".to_owned()];
        with_resume.extend(cmd.into_iter().filter(|a| !a.starts_with('-') && !a.contains("--")));
        with_resume.extend(["--resume".to_owned(), S1.to_owned()]);
        let p = ProcessInfo { pid: 2, name: "claude".into(), cmd: with_resume, cwd: None, exe: None, exited: false, parent: None };
        let s = OccupancySnapshot::capture(&FixedProcesses(Ok(vec![p])));
        proptest::prop_assert!(s.check(S1, None, None).is_some());
    }
}

/// The class "flags that change which file the client writes": `--fork-session` copies the
/// resumed (or continued) session into a new one the command line does not name, so every
/// session of its folder counts as held, the resumed one too; `--session-id` names the file
/// written whatever else is given. Before: `claude --resume X --fork-session` was taken as
/// writing X only, so the new session read as free and a second writer could be opened on it.
#[test]
fn flags_that_choose_another_file_hold_what_the_client_writes() {
    const S3: &str = "33333333-3333-4333-8333-333333333333";
    let app = Some("/home/u/app");
    for cmd in [
        vec!["claude", "--resume", S1, "--fork-session"],
        vec!["claude", "--fork-session", "-r", S1],
        vec!["claude", format!("--resume={S1}").leak(), "--fork-session", "-p", "go on"],
    ] {
        let s = snap(vec![proc(12, &cmd, app)]);
        assert!(s.check(S1, app, None).is_some(), "{cmd:?}: the resumed session");
        let why = s.check(S2, app, None).unwrap_or_default();
        assert!(why.contains("12") && why.contains("fork"), "{cmd:?}: the new session: {why}");
        assert_eq!(s.check(S2, Some("/home/u/other"), None), None, "{cmd:?}: another folder");
    }
    let s = snap(vec![proc(13, &["claude", "--continue", "--fork-session"], app)]);
    assert!(s.check(S2, app, None).is_some());
    // `--session-id` names the file, even when another session is resumed or forked into it.
    for cmd in [
        vec!["claude", "--resume", S1, "--fork-session", "--session-id", S3],
        vec!["claude", format!("--session-id={S3}").leak(), "--resume", S1, "--fork-session"],
    ] {
        let s = snap(vec![proc(14, &cmd, app)]);
        assert!(s.check(S3, app, None).is_some(), "{cmd:?}");
        assert_eq!(s.check(S2, app, None), None, "{cmd:?}: the folder's others stay free");
    }
}

/// The class "process states": an exited `claude` not yet reaped (a zombie: no command line, no
/// folder) holds nothing and makes nothing unknown; a stopped one (Ctrl+Z) still holds its
/// session. Read the same from a fake `/proc` tree's `stat` (a name may hold `)`). Before: one
/// zombie made every session "unknown" and blocked every resume and move.
#[cfg(unix)]
#[test]
fn a_zombie_holds_nothing_and_a_stopped_claude_still_holds_its_session() {
    let zombie = ProcessInfo {
        pid: 20,
        name: "claude".into(),
        cmd: Vec::new(),
        cwd: None,
        exe: None,
        exited: true,
        parent: None,
    };
    let stopped = proc(21, &["claude", "--resume", S1], Some("/home/u/app"));
    let s = snap(vec![zombie.clone(), stopped]);
    assert_eq!(s.unknown, None, "a zombie is no unknown");
    assert!(s.check(S1, Some("/home/u/app"), None).is_some(), "the stopped one holds S1");
    assert_eq!(s.check(S2, Some("/home/u/app"), None), None);
    assert!(
        snap(vec![ProcessInfo { exited: false, ..zombie }]).unknown.is_some(),
        "alive: unknown"
    );

    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let app = tmp.path().join("app");
    fs::create_dir_all(&app).unwrap();
    for (pid, args, stat) in [
        (30, vec!["claude"], "30 (claude) Z 1 30 30 0"),
        (31, vec!["claude", "--resume", S1], "31 (claude) T 1 31 31 0"),
        (32, vec!["claude", "--resume", S2], "32 (a) Z (b) S 1 32 32 0"),
        (33, vec!["claude"], "33 (claude) X 1 33 33 0"),
    ] {
        fake_proc(
            &root,
            pid,
            &args,
            if stat.contains(" Z ") || stat.contains(" X ") { None } else { Some(&app) },
        );
        fs::write(root.join(pid.to_string()).join("stat"), stat).unwrap();
    }
    let procs = ProcTree { root: root.clone() }.processes().unwrap();
    let exited: Vec<u32> = procs.iter().filter(|p| p.exited).map(|p| p.pid).collect();
    assert_eq!(exited.len(), 2, "{procs:?}");
    assert!(exited.contains(&30) && exited.contains(&33));
    let s = OccupancySnapshot::capture(&ProcTree { root });
    assert_eq!(s.unknown, None);
    let app = app.to_string_lossy().into_owned();
    assert!(s.check(S1, Some(&app), None).is_some());
    assert!(s.check(S2, Some(&app), None).is_some(), "a name holding `) Z` is no zombie");
}

/// Claude Code 2.1.332 starts short-lived copies of itself (same command line, same folder)
/// while it answers; the conformance run against the real client saw Corral name such a copy as
/// the session's process. A copy is folded into its parent; a `claude` its parent started with
/// another command (a `claude -p` run from a tool) holds what it says. The parent is read from a
/// fake `/proc` tree's `stat` too. Before: both 40 and 41 were holders, 41 named first.
#[cfg(unix)]
#[test]
fn a_copy_claude_starts_of_itself_is_folded_into_the_process_a_person_started() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let app = tmp.path().join("app");
    fs::create_dir_all(&app).unwrap();
    for (pid, args, stat) in [
        (41, vec!["claude"], "41 (claude) S 40 41 41 0"),
        (40, vec!["claude"], "40 (claude) S 1 40 40 0"),
        (42, vec!["claude", "--resume", S2], "42 (claude) S 40 42 42 0"),
    ] {
        fake_proc(&root, pid, &args, Some(&app));
        fs::write(root.join(pid.to_string()).join("stat"), stat).unwrap();
    }
    let procs = ProcTree { root: root.clone() }.processes().unwrap();
    let parent = |pid| procs.iter().find(|p| p.pid == pid).unwrap().parent;
    assert_eq!((parent(40), parent(41), parent(42)), (Some(1), Some(40), Some(40)));
    let s = OccupancySnapshot::capture(&ProcTree { root });
    let mut pids: Vec<u32> = s.holders.iter().map(|h| h.pid).collect();
    pids.sort_unstable();
    assert_eq!(pids, [40, 42]);
    let app = app.to_string_lossy().into_owned();
    let holder = s.holder_of(S1, Some(&app), None).unwrap();
    assert_eq!(holder.pid, 40);
}
