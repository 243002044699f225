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
            state_dir: None,
            data_dir: self.data.clone(),
        })
        .unwrap()
    }

    fn states(&self, table: Result<Vec<ProcessInfo>, TableUnreadable>) -> Vec<LiveStatus> {
        live_states_in(&self.catalog(), &FixedProcesses(table), chrono::Utc::now()).unwrap()
    }

    fn now(&self, table: Result<Vec<ProcessInfo>, TableUnreadable>) -> LiveNow {
        live_now_in(&self.catalog(), &FixedProcesses(table), chrono::Utc::now()).unwrap()
    }
}

fn claude(pid: u32, args: &[&str], cwd: &str) -> ProcessInfo {
    let mut cmd = vec!["claude".to_owned()];
    cmd.extend(args.iter().map(|a| (*a).to_owned()));
    ProcessInfo { pid, name: "claude".into(), cmd, cwd: Some(cwd.into()), exe: None }
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
