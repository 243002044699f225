//! Live sessions: the state of each session from the process table (fake `claude` processes
//! with and without `--resume <id>` / `--continue`) and the end of its transcript, in a Claude
//! home laid out as the real one.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use corral_engine::live::{LiveNow, LiveState, LiveStatus, live_now_in, live_states_in};
use corral_engine::occupancy::{FixedProcesses, ProcessInfo, TableUnreadable};
use corral_engine::{Catalog, CatalogConfig};

use crate::home::sid;

struct Claude {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    data: PathBuf,
}

const ASK: &str = r#"{"type":"tool_use","id":"toolu_ask","name":"AskUserQuestion","input":{"questions":[{"question":"Which database?","options":[{"label":"Postgres"}]}]}}"#;

impl Claude {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("claude");
        let data = tmp.path().join("data");
        fs::create_dir_all(home.join("projects")).unwrap();
        Self { _tmp: tmp, home, data }
    }

    /// A transcript in `cwd`'s folder: a `permission-mode` line, a prompt, then `tail` (the
    /// assistant content blocks of the last turn, or a user prompt when `None`), written
    /// `ago` seconds before now.
    fn session(&self, short: &str, cwd: &str, tail: Option<&str>, ago: u64) -> PathBuf {
        let id = sid(short);
        let folder = self.home.join("projects").join(cwd.replace('/', "-"));
        fs::create_dir_all(&folder).unwrap();
        let line = |kind: &str, uuid: &str, parent: &str, message: String| {
            format!(
                r#"{{"type":"{kind}","uuid":"{uuid}","parentUuid":{parent},"sessionId":"{id}","cwd":"{cwd}","timestamp":"2026-11-30T10:00:0{}.000Z","message":{message}}}"#,
                uuid.len() % 10
            )
        };
        let mut lines = vec![
            format!(
                r#"{{"type":"permission-mode","permissionMode":"default","sessionId":"{id}"}}"#
            ),
            line("user", "u1", "null", r#"{"role":"user","content":"Set up the service"}"#.into()),
        ];
        match tail {
            Some(blocks) => lines.push(line(
                "assistant",
                "a1",
                r#""u1""#,
                format!(
                    r#"{{"id":"msg_1","role":"assistant","model":"claude-opus-4-5","content":[{blocks}],"stop_reason":null}}"#
                ),
            )),
            None => lines.push(line("user", "u2", r#""u1""#, r#"{"role":"user","content":"and add tests"}"#.into())),
        }
        let path = folder.join(format!("{id}.jsonl"));
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        let when = SystemTime::now() - Duration::from_secs(ago);
        fs::File::options().write(true).open(&path).unwrap().set_modified(when).unwrap();
        path
    }

    fn catalog(&self) -> Catalog {
        Catalog::open(CatalogConfig {
            claude_home: self.home.clone(),
            fleet_file: None,
            state_dir: Some(self.state_dir()),
            data_dir: self.data.clone(),
        })
        .unwrap()
    }

    /// herdctl's state dir, beside the home.
    fn state_dir(&self) -> PathBuf {
        self.home.parent().unwrap().join("state")
    }

    /// An Agent View record, `<home>/jobs/<name>/state.json`.
    fn agent_job(&self, name: &str, json: &str) {
        let dir = self.home.join("jobs").join(name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("state.json"), json).unwrap();
    }

    fn states(&self, table: Result<Vec<ProcessInfo>, TableUnreadable>) -> Vec<LiveStatus> {
        live_states_in(&self.catalog(), &FixedProcesses(table), chrono::Utc::now()).unwrap()
    }

    fn now(&self, table: Result<Vec<ProcessInfo>, TableUnreadable>) -> LiveNow {
        live_now_in(&self.catalog(), &FixedProcesses(table), chrono::Utc::now()).unwrap()
    }
}

fn claude(pid: u32, args: &[&str], cwd: &str) -> ProcessInfo {
    crate::support::claude_process(pid, Some(std::path::Path::new(cwd)), args)
}

fn of<'a>(states: &'a [LiveStatus], short: &str) -> &'a LiveStatus {
    states
        .iter()
        .find(|s| s.session_id == sid(short))
        .unwrap_or_else(|| panic!("{short}: {states:?}"))
}

#[test]
fn each_state_comes_from_the_process_table_and_the_transcript() {
    let c = Claude::new();
    c.session("1", "/w/app", Some(ASK), 3600); // resumed, its question unanswered for an hour
    c.session("2", "/w/app", Some(r#"{"type":"text","text":"Done: all green."}"#), 10);
    c.session("3", "/w/web", None, 2); // the newest of its folder, a prompt just written
    c.session("4", "/w/web", Some(r#"{"type":"text","text":"Done."}"#), 7200);
    c.session("5", "/w/api", Some(r#"{"type":"text","text":"Done."}"#), 5);
    c.session(
        "6",
        "/w/cli",
        Some(r#"{"type":"text","text":"Should I also update the docs?"}"#),
        9000,
    );
    let table = vec![
        claude(101, &["--resume", &sid("1")], "/w/app"),
        claude(102, &["-r", &sid("2")], "/w/app"),
        claude(103, &["--continue"], "/w/web"),
        claude(104, &[], "/w/cli"), // no flag: any session of its folder
        ProcessInfo {
            pid: 105,
            name: "bash".into(),
            cmd: vec!["bash".into()],
            cwd: Some("/w/api".into()),
            exe: None,
            exited: false,
            parent: None,
        },
    ];
    let shown = c.now(Ok(table.clone()));
    assert_eq!(shown.sessions.len(), 4, "what the window gets: only the live ones: {shown:?}");
    assert_eq!(shown.unknown, None);
    let states = c.states(Ok(table));
    assert_eq!(states.len(), 6, "{states:?}");
    let s1 = of(&states, "1");
    assert_eq!((s1.state, s1.pid), (LiveState::Waiting, Some(101)), "{s1:?}");
    assert!(s1.why.contains("resumes it") && s1.why.contains("question"), "{s1:?}");
    assert_eq!(of(&states, "2").state, LiveState::Idle, "{:?}", of(&states, "2"));
    let s3 = of(&states, "3");
    assert_eq!((s3.state, s3.pid), (LiveState::Running, Some(103)), "{s3:?}");
    let s4 = of(&states, "4");
    assert_eq!((s4.state, s4.pid), (LiveState::NotRunning, None), "{s4:?}");
    assert!(s4.why.contains("newer session"), "{s4:?}");
    assert_eq!(
        of(&states, "5").state,
        LiveState::NotRunning,
        "a shell in the folder is not claude"
    );
    // A plain `claude` in a folder whose newest session asked, hours ago: still waiting (an hour
    // without a write proves only that nothing is working), and said to be a guess.
    let s6 = of(&states, "6");
    assert_eq!(s6.state, LiveState::Waiting, "{s6:?}");
    assert!(s6.why.contains("cannot be told"), "{s6:?}");
}

/// `claude --resume X --fork-session` writes a new session Y of its folder: Y, the newest, is
/// the one it is on (never "not running", which would invite a second writer), X is left as
/// "a newer session". A zombie `claude` (exited, not reaped) changes nothing. Before: Y read
/// not-running and one zombie made every session unknown.
#[test]
fn a_forked_resume_is_on_its_new_session_and_a_zombie_on_none() {
    let c = Claude::new();
    c.session("1", "/w/app", Some(r#"{"type":"text","text":"Done."}"#), 3600);
    c.session("2", "/w/app", None, 2); // the fork, a prompt just written
    let zombie = ProcessInfo {
        pid: 99,
        name: "claude".into(),
        cmd: Vec::new(),
        cwd: None,
        exe: None,
        exited: true,
        parent: None,
    };
    let table = vec![claude(201, &["--resume", &sid("1"), "--fork-session"], "/w/app"), zombie];
    let states = c.states(Ok(table.clone()));
    let fork = of(&states, "2");
    assert_eq!((fork.state, fork.pid), (LiveState::Running, Some(201)), "{fork:?}");
    let resumed = of(&states, "1");
    assert_eq!(resumed.state, LiveState::NotRunning, "{resumed:?}");
    assert!(resumed.why.contains("newer session"), "{resumed:?}");
    assert_eq!(c.now(Ok(table)).unknown, None, "a zombie makes nothing unknown");
}

#[test]
fn a_tool_call_without_a_result_is_running_while_the_file_moves_then_waiting() {
    let c = Claude::new();
    let bash =
        r#"{"type":"tool_use","id":"toolu_b","name":"Bash","input":{"command":"cargo test"}}"#;
    c.session("1", "/w/app", Some(bash), 1);
    c.session("2", "/w/app", Some(bash), 600);
    let table = vec![
        claude(1, &["--resume", &sid("1")], "/w/app"),
        claude(2, &["--resume", &sid("2")], "/w/app"),
    ];
    let states = c.states(Ok(table));
    assert_eq!(of(&states, "1").state, LiveState::Running, "{states:?}");
    let s2 = of(&states, "2");
    assert_eq!(s2.state, LiveState::Waiting, "{s2:?}");
    assert!(s2.why.contains("permission"), "{s2:?}");
}

#[test]
fn an_unreadable_table_is_unknown_never_not_running() {
    let c = Claude::new();
    c.session("1", "/w/app", None, 1);
    let states = c.states(Err(TableUnreadable("no /proc".into())));
    assert_eq!(states[0].state, LiveState::Unknown);
    assert!(states[0].why.contains("no /proc"));
    let shown = c.now(Err(TableUnreadable("no /proc".into())));
    assert!(shown.sessions.is_empty() && shown.unknown.is_some_and(|u| u.contains("no /proc")));
    // A folder-wide process whose working directory cannot be read is as good as no table.
    let mut blind = claude(9, &["--continue"], "/");
    blind.cwd = None;
    let states = c.states(Ok(vec![blind]));
    assert_eq!(states[0].state, LiveState::Unknown, "{states:?}");
}

#[test]
fn what_a_job_says_is_shown_beside_the_measurement_never_instead_of_it() {
    let c = Claude::new();
    let done = r#"{"type":"text","text":"Done."}"#;
    for short in ["1", "2", "3", "4", "5", "6"] {
        c.session(short, &format!("/w/s{short}"), Some(done), 30);
    }
    // Claude Code's background agents. 1: blocked on its owner, and a process is on it.
    c.agent_job(
        "a1b2c3d4",
        &format!(
            r#"{{"sessionId":"{}","state":"blocked","tempo":"blocked","extra":{{"kept":1}}}}"#,
            sid("1")
        ),
    );
    // 2: says working, but no process is on it: shown, and still not running.
    c.agent_job("e5f6a7b8", &format!(r#"{{"session_id":"{}","state":"working"}}"#, sid("2")));
    // 3: finished: says nothing about now.
    c.agent_job("c0ffee00", &format!(r#"{{"sessionId":"{}","state":"done"}}"#, sid("3")));
    // Damaged and hostile records are passed over: broken JSON, a FIFO, a folder as state.json,
    // a record naming no session, a session id that is not one.
    c.agent_job("broken", "{not json");
    c.agent_job("noid", r#"{"state":"working"}"#);
    c.agent_job("badid", r#"{"sessionId":"../../etc","state":"working"}"#);
    fs::create_dir_all(c.home.join("jobs/dir/state.json")).unwrap();
    #[cfg(unix)]
    {
        fs::create_dir_all(c.home.join("jobs/fifo")).unwrap();
        let fifo = c.home.join("jobs/fifo/state.json");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    }
    // A record in a folder named by the session id, with no id inside.
    c.agent_job(&sid("6"), r#"{"state":"working","tempo":"active"}"#);
    // herdctl: 4's job is running (no process visible: it may be in a container), 5's finished.
    let jobs = c.state_dir().join("jobs");
    fs::create_dir_all(&jobs).unwrap();
    let job = |id: &str, session: &str, status: &str| {
        fs::write(
            jobs.join(format!("{id}.yaml")),
            format!("id: {id}\nagent: alpha\ntrigger_type: schedule\nstatus: {status}\nsession_id: {session}\nstarted_at: \"2026-11-30T10:00:00Z\"\n"),
        )
        .unwrap();
    };
    job("job-2026-11-30-aaaaaa", &sid("4"), "running");
    job("job-2026-11-30-bbbbbb", &sid("5"), "completed");

    let table = vec![claude(11, &["--resume", &sid("1")], "/w/s1")];
    let states = c.states(Ok(table.clone()));
    let s1 = of(&states, "1");
    assert_eq!(s1.state, LiveState::Waiting, "blocked on its owner: {s1:?}");
    assert!(
        s1.why.contains("resumes it") && s1.why.contains("background agent a1b2c3d4 says blocked"),
        "{s1:?}"
    );
    let s2 = of(&states, "2");
    assert_eq!(s2.state, LiveState::NotRunning, "a record proves no process: {s2:?}");
    assert!(s2.job.as_ref().is_some_and(|j| j.active && j.state == "working"), "{s2:?}");
    assert!(s2.why.contains("no claude process"), "{s2:?}");
    assert_eq!(of(&states, "3").job.as_ref().map(|j| j.active), Some(false));
    let s4 = of(&states, "4");
    assert_eq!(s4.state, LiveState::NotRunning, "{s4:?}");
    assert!(s4.why.contains("herdctl job job-2026-11-30-aaaaaa says running"), "{s4:?}");
    assert!(of(&states, "5").job.is_none(), "a finished herdctl job says nothing about now");
    assert!(of(&states, "6").job.as_ref().is_some_and(|j| j.state == "working"));

    // The window gets the sessions a process is on and those a job says are going.
    let shown = c.now(Ok(table));
    let mut ids: Vec<_> = shown.sessions.iter().map(|s| s.session_id.clone()).collect();
    ids.sort();
    assert_eq!(ids, [sid("1"), sid("2"), sid("4"), sid("6")], "{shown:?}");
}

/// What a running `claude` says of its own session (`<home>/sessions/<pid>.json`, as 2.1.332
/// writes it): the real client sometimes shows a question before it writes the question's line
/// (after a queued prompt; `tests/conformance`), so the transcript ends with the prompt while the
/// client's record says `waiting`. That word makes the session waiting; a record whose pid is no
/// `claude` in the table, or that names another pid, says nothing; `busy` never makes a finished
/// turn running. Before: session 1 read "running" while a question waited.
#[test]
fn a_running_claude_s_own_record_says_when_it_waits_on_you() {
    let c = Claude::new();
    let done = r#"{"type":"text","text":"Done."}"#;
    c.session("1", "/w/a", None, 40);
    c.session("2", "/w/b", Some(done), 40);
    c.session("3", "/w/c", None, 40);
    let sessions = c.home.join("sessions");
    fs::create_dir_all(&sessions).unwrap();
    let record = |pid: u32, short: &str, status: &str| {
        fs::write(
            sessions.join(format!("{pid}.json")),
            format!(
                r#"{{"pid":{pid},"sessionId":"{}","cwd":"/w","status":"{status}","waitingFor":"input needed","kind":"interactive"}}"#,
                sid(short)
            ),
        )
        .unwrap();
    };
    record(11, "1", "waiting");
    record(12, "2", "busy");
    // 13 is no process of the table: its record (left by a crashed claude) says nothing.
    record(13, "3", "waiting");
    fs::write(
        sessions.join("14.json"),
        format!(r#"{{"pid":99,"sessionId":"{}","status":"waiting"}}"#, sid("3")),
    )
    .unwrap();
    fs::write(sessions.join("15.json"), "{not json").unwrap();
    let table = vec![
        claude(11, &["--resume", &sid("1")], "/w/a"),
        claude(12, &["--resume", &sid("2")], "/w/b"),
        claude(14, &["--resume", &sid("3")], "/w/c"),
        claude(15, &[], "/w/elsewhere"),
    ];
    let states = c.states(Ok(table));
    let s1 = of(&states, "1");
    assert_eq!(s1.state, LiveState::Waiting, "{s1:?}");
    assert!(s1.why.contains("claude process 11 says waiting (input needed)"), "{s1:?}");
    let s2 = of(&states, "2");
    assert_eq!(s2.state, LiveState::Idle, "busy never makes a finished turn running: {s2:?}");
    let s3 = of(&states, "3");
    assert_eq!(s3.state, LiveState::Running, "a record of another pid says nothing: {s3:?}");
    assert_eq!(s3.job, None);
}
