//! The occupancy guard: which sessions a running `claude` process may be writing to.
//!
//! A `claude` process is found by its name or its command line (`claude`, `claude.exe`, or node
//! running `…/claude-code/cli.js`). What it holds is read from its arguments and working directory:
//!
//! - `--resume <id>`, `--resume=<id>`, `-r <id>`, `--session-id <id>` (and `=<id>`): it holds that
//!   session, and only that one — other sessions of the same folder stay free (several
//!   conversations of one repository may run side by side). `--session-id` wins: it names the
//!   file written even when another session is resumed into it.
//! - `--fork-session` (with `--resume <id>` or `--continue`): it copies the session into a new one
//!   whose id its command line does not say, so it holds the resumed session *and* every session
//!   of its folder.
//! - An exited process not yet reaped (a zombie) holds nothing; a stopped one (Ctrl+Z) holds what
//!   its command line says (it writes again when continued).
//! - `--continue` / `-c`, `--resume` without an id (the picker), **or no session flag at all**:
//!   it holds *every* session whose working directory is the process's working directory. Which
//!   one it is on cannot be known: `--continue` picks the newest, and a plain interactive `claude`
//!   can switch to any session of its folder with `/resume`. Claude Code may also overwrite its
//!   own process title, which erases the arguments — so "no flag seen" must count as "any session
//!   here" rather than "none".
//!
//! Unknown counts as occupied: if the process table cannot be read, or a folder-wide process's
//! working directory cannot be read, every session is occupied and the reason says so. A needless
//! skip costs a line of output; a second writer on one transcript costs the conversation.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::paths::encode_path;

/// One process as the guard needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessInfo {
    /// The process id.
    pub pid: u32,
    /// The short process name (`comm` on Linux).
    pub name: String,
    /// The command line, program first.
    pub cmd: Vec<String>,
    /// The working directory; `None` when it cannot be read.
    pub cwd: Option<PathBuf>,
    /// The executable's path; `None` when it cannot be read.
    #[serde(default)]
    pub exe: Option<PathBuf>,
    /// It has exited and waits to be reaped (a zombie; state `Z` or `X`): it writes nothing and
    /// holds no session. A stopped process (`T`, Ctrl+Z) has not exited: it writes again when
    /// continued.
    #[serde(default)]
    pub exited: bool,
    /// The parent process; `None` when unknown.
    #[serde(default)]
    pub parent: Option<u32>,
}

/// Why the process table could not be read (every session then counts as possibly in use).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TableUnreadable(pub String);

impl From<&str> for TableUnreadable {
    fn from(why: &str) -> Self {
        Self(why.to_owned())
    }
}

/// Where the process table comes from (the real system, or a fake table in tests).
pub trait ProcessSource {
    /// Every process, or an error saying why the table cannot be read.
    fn processes(&self) -> Result<Vec<ProcessInfo>, TableUnreadable>;
}

/// The real process table, through the `sysinfo` crate (Linux, macOS, Windows).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemProcesses;

impl ProcessSource for SystemProcesses {
    fn processes(&self) -> Result<Vec<ProcessInfo>, TableUnreadable> {
        use sysinfo::{ProcessRefreshKind, ProcessesToUpdate, System, UpdateKind};
        let mut sys = System::new()
            .map_err(|e| TableUnreadable(format!("cannot open the process table: {e}")))?;
        sys.refresh_processes_specifics(
            ProcessesToUpdate::All,
            true,
            ProcessRefreshKind::nothing()
                .with_cmd(UpdateKind::Always)
                .with_cwd(UpdateKind::Always)
                .with_exe(UpdateKind::Always),
        );
        let own = sysinfo::get_current_pid().map_err(|e| {
            TableUnreadable(format!("cannot identify this process in the process table: {e}"))
        })?;
        // A table that does not even list this process was not read.
        if !sys.processes().contains_key(&own) {
            return Err(
                "the process table does not list this very process, so it was not read".into()
            );
        }
        Ok(sys
            .processes()
            .values()
            .map(|p| ProcessInfo {
                pid: p.pid().as_u32(),
                name: p.name().to_string_lossy().into_owned(),
                cmd: p.cmd().iter().map(|a| a.to_string_lossy().into_owned()).collect(),
                cwd: p.cwd().map(Path::to_path_buf),
                exe: p.exe().map(Path::to_path_buf),
                exited: matches!(
                    p.status(),
                    sysinfo::ProcessStatus::Zombie | sysinfo::ProcessStatus::Dead
                ),
                parent: p.parent().map(sysinfo::Pid::as_u32),
            })
            .collect())
    }
}

/// A process table given as data (tests, or a table captured elsewhere).
#[derive(Debug, Clone)]
pub struct FixedProcesses(pub Result<Vec<ProcessInfo>, TableUnreadable>);

impl ProcessSource for FixedProcesses {
    fn processes(&self) -> Result<Vec<ProcessInfo>, TableUnreadable> {
        self.0.clone()
    }
}

/// A `/proc`-like tree: `<root>/<pid>/cmdline` (NUL-separated arguments), `<root>/<pid>/comm`
/// (name, optional) and `<root>/<pid>/cwd` (a symlink, or for fake trees a file holding the
/// path). Pointed at `/proc` it reads the real Linux table; tests point it at a temp folder.
#[derive(Debug, Clone)]
pub struct ProcTree {
    /// The tree root (`/proc` for the real table).
    pub root: PathBuf,
}

impl ProcessSource for ProcTree {
    fn processes(&self) -> Result<Vec<ProcessInfo>, TableUnreadable> {
        let entries = std::fs::read_dir(&self.root).map_err(|e| {
            TableUnreadable(format!("cannot read the process table {}: {e}", self.root.display()))
        })?;
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            let dir = entry.path();
            // A process that exits while we read it simply is not there any more.
            let Ok(raw) = std::fs::read(dir.join("cmdline")) else { continue };
            let cmd: Vec<String> = raw
                .split(|&b| b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            let name = std::fs::read_to_string(dir.join("comm"))
                .map(|s| s.trim_end().to_owned())
                .unwrap_or_default();
            let (cwd, exe) = (link_or_text(&dir.join("cwd")), link_or_text(&dir.join("exe")));
            let stat = std::fs::read(dir.join("stat")).unwrap_or_default();
            let (exited, parent) = (exited_state(&stat), parent_pid(&stat));
            out.push(ProcessInfo { pid, name, cmd, cwd, exe, exited, parent });
        }
        Ok(out)
    }
}

/// Whether a `/proc/<pid>/stat` line says the process has exited: the state letter after the
/// name's closing parenthesis (the name may itself hold `)`) is `Z` (zombie) or `X`/`x` (dead).
fn exited_state(stat: &[u8]) -> bool {
    let state = after_name(stat).and_then(|rest| rest.iter().find(|b| !b.is_ascii_whitespace()));
    matches!(state, Some(b'Z' | b'X' | b'x'))
}

/// The parent's pid from a `/proc/<pid>/stat` line: the field after the state letter.
fn parent_pid(stat: &[u8]) -> Option<u32> {
    let rest = std::str::from_utf8(after_name(stat)?).ok()?;
    rest.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// What follows the process name in a `/proc/<pid>/stat` line: after the name's last closing
/// parenthesis (the name may itself hold `)`).
fn after_name(stat: &[u8]) -> Option<&[u8]> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    stat.get(close + 1..)
}

/// A `/proc` link (`cwd`, `exe`), or for fake trees a file holding the path.
fn link_or_text(path: &Path) -> Option<PathBuf> {
    match std::fs::read_link(path) {
        Ok(p) => Some(p),
        Err(_) => std::fs::read_to_string(path)
            .ok()
            .map(|s| PathBuf::from(s.trim_end_matches(['\n', '\r'])))
            .filter(|p| !p.as_os_str().is_empty()),
    }
}

/// The holders less each one whose parent is a `claude` process holding exactly the same: Claude
/// Code starts short-lived copies of itself (same command line, same folder) while it works, and
/// the process a person started is the one to name. Nothing is lost: the parent holds it all.
fn without_helpers(holders: Vec<(Holder, Option<u32>)>) -> Vec<Holder> {
    let same = |a: &Holder, b: &Holder| {
        a.session_id == b.session_id && a.folder_wide == b.folder_wide && a.cwd == b.cwd
    };
    let by_pid: BTreeMap<u32, &Holder> = holders.iter().map(|(h, _)| (h.pid, h)).collect();
    let helper = |h: &Holder, parent: Option<u32>| {
        parent
            .and_then(|p| by_pid.get(&p))
            .is_some_and(|parent| parent.pid != h.pid && same(parent, h))
    };
    let keep: Vec<bool> = holders.iter().map(|(h, parent)| !helper(h, *parent)).collect();
    holders.into_iter().zip(keep).filter_map(|((h, _), keep)| keep.then_some(h)).collect()
}

/// What one `claude` process holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Holder {
    /// The process id.
    pub pid: u32,
    /// The session named on its command line (`--resume`, `-r`, `--session-id`).
    pub session_id: Option<String>,
    /// Holds every session of its working directory (`--continue`, the picker, no flag).
    pub folder_wide: bool,
    /// Its working directory, when it could be read.
    pub cwd: Option<PathBuf>,
    /// The flag that decided it, for messages (`--continue`, `--resume <id>`, `no session flag`).
    pub how: String,
}

/// The running `claude` processes at one moment, and the questions the guard asks of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OccupancySnapshot {
    /// Set when the table could not be read well enough: then every session is occupied.
    pub unknown: Option<String>,
    /// Every running `claude` process and what it holds.
    pub holders: Vec<Holder>,
}

impl OccupancySnapshot {
    /// No `claude` process at all (every session free).
    pub fn nobody() -> Self {
        Self::default()
    }

    /// Every session occupied, for `reason`.
    pub fn unknown(reason: impl Into<String>) -> Self {
        Self { unknown: Some(reason.into()), holders: Vec::new() }
    }

    /// Reads `source` once and keeps what the `claude` processes in it hold.
    pub fn capture(source: &dyn ProcessSource) -> Self {
        let processes = match source.processes() {
            Ok(p) => p,
            Err(reason) => return Self::unknown(reason.0),
        };
        let mut holders = Vec::new();
        let mut unreadable = BTreeMap::new();
        for p in &processes {
            // An exited process (not yet reaped) writes nothing: its empty command line and
            // unreadable folder must not make every session "unknown".
            if p.exited {
                continue;
            }
            let Some(args) = claude_args(p) else { continue };
            let holder = holder_from_args(p, args);
            if holder.folder_wide && holder.cwd.is_none() {
                unreadable.insert(p.pid, holder.how.clone());
            }
            holders.push((holder, p.parent));
        }
        let holders = without_helpers(holders);
        let unknown = (!unreadable.is_empty()).then(|| {
            let pids: Vec<String> = unreadable.keys().map(u32::to_string).collect();
            format!(
                "the working directory of claude process {} cannot be read, so any session may be in use",
                pids.join(", ")
            )
        });
        Self { unknown, holders }
    }

    /// Why the session is occupied, or `None` when it is free. `transcript_cwd` is the cwd the
    /// transcript records; `folder_name` the name of the projects folder holding it (so a session
    /// without a recorded cwd is still matched by its folder).
    pub fn check(
        &self,
        session_id: &str,
        transcript_cwd: Option<&str>,
        folder_name: Option<&str>,
    ) -> Option<String> {
        if let Some(reason) = &self.unknown {
            return Some(format!("occupancy unknown, treated as occupied: {reason}"));
        }
        let h = self.holder_of(session_id, transcript_cwd, folder_name)?;
        Some(match (&h.session_id, &h.cwd) {
            (Some(_), _) | (None, None) => {
                format!("claude process {} holds this session ({})", h.pid, h.how)
            }
            (None, Some(cwd)) => format!(
                "claude process {} runs in {} ({}), so it may be on this session",
                h.pid,
                cwd.display(),
                h.how
            ),
        })
    }

    /// The process that holds the session: one resuming this very id first, else a folder-wide
    /// one running in its folder (see [`check`](Self::check) for the arguments). Ignores
    /// [`unknown`](Self::unknown): the caller decides what an unreadable table means.
    pub fn holder_of(
        &self,
        session_id: &str,
        transcript_cwd: Option<&str>,
        folder_name: Option<&str>,
    ) -> Option<&Holder> {
        if let Some(h) = self.holders.iter().find(|h| h.session_id.as_deref() == Some(session_id)) {
            return Some(h);
        }
        self.holders.iter().filter(|h| h.folder_wide).find(|h| {
            let Some(cwd) = &h.cwd else { return false };
            transcript_cwd.is_some_and(|t| same_dir(Path::new(t), cwd))
                || folder_name.is_some_and(|f| f == encode_path(&cwd.to_string_lossy()))
        })
    }
}

fn same_dir(a: &Path, b: &Path) -> bool {
    let trim = |p: &Path| {
        let s = p.to_string_lossy().into_owned();
        let t = s.trim_end_matches(['/', '\\']);
        if t.is_empty() { s } else { t.to_owned() }
    };
    trim(a) == trim(b)
}

fn base_name(arg: &str) -> &str {
    arg.rsplit(['/', '\\']).next().unwrap_or(arg)
}

fn is_claude_program(arg: &str) -> bool {
    matches!(base_name(arg), "claude" | "claude.exe")
}

fn is_claude_script(arg: &str) -> bool {
    let a = arg.replace('\\', "/");
    a.contains("claude-code/") && (a.ends_with("/cli.js") || a.ends_with("/cli.mjs"))
}

/// The arguments after the program if `p` is a Claude Code CLI process, else `None`.
/// Case-sensitive on purpose: the desktop app is `Claude`, and it holds no CLI transcript.
fn claude_args(p: &ProcessInfo) -> Option<&[String]> {
    if let Some(first) = p.cmd.first()
        && is_claude_program(first)
    {
        return Some(p.cmd.get(1..).unwrap_or(&[]));
    }
    if let Some(i) = p.cmd.iter().position(|a| is_claude_script(a)) {
        return Some(p.cmd.get(i + 1..).unwrap_or(&[]));
    }
    if is_claude_program(&p.name) {
        // The name says claude but the command line does not (a rewritten process title):
        // the arguments are unknown, which the caller treats as "any session of its folder".
        return Some(&[]);
    }
    None
}

fn looks_like_id(s: &str) -> bool {
    !s.is_empty() && !s.starts_with('-')
}

fn holder_from_args(p: &ProcessInfo, args: &[String]) -> Holder {
    let mut session_id = None;
    let mut explicit_id = None;
    let mut fork = false;
    let mut wide_flag: Option<&str> = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let next = args.get(i + 1).filter(|n| looks_like_id(n));
        match arg.as_str() {
            "--resume" | "-r" => match next {
                Some(id) => {
                    session_id = Some(id.clone());
                    i += 1;
                }
                None => wide_flag = Some("--resume without an id"),
            },
            "--session-id" => {
                if let Some(id) = next {
                    explicit_id = Some(id.clone());
                    i += 1;
                }
            }
            "--continue" | "-c" => wide_flag = Some("--continue"),
            "--fork-session" => fork = true,
            // Everything after `--` is a prompt, not a flag.
            "--" => break,
            other => {
                if let Some(id) = other.strip_prefix("--resume=").filter(|v| !v.is_empty()) {
                    session_id = Some(id.to_owned());
                } else if let Some(id) =
                    other.strip_prefix("--session-id=").filter(|v| !v.is_empty())
                {
                    explicit_id = Some(id.to_owned());
                }
            }
        }
        i += 1;
    }
    // Which file it writes: `--session-id` names it (whatever else is given); `--fork-session`
    // copies the resumed (or continued) session into a new one whose id the command line does not
    // say, so it may be on any session of its folder, the resumed one counted too.
    let (session_id, folder_wide, how) = match (explicit_id, session_id, wide_flag) {
        (Some(id), _, _) => {
            let how = format!("--session-id {id}");
            (Some(id), false, how)
        }
        (None, resumed, _) if fork => {
            let how = match &resumed {
                Some(id) => format!("--resume {id} --fork-session: a new session of its folder"),
                None => "--fork-session: a new session of its folder".to_owned(),
            };
            (resumed, true, how)
        }
        (None, resumed, Some(flag)) => (resumed, true, flag.to_owned()),
        (None, Some(id), None) => {
            let how = format!("--resume {id}");
            (Some(id), false, how)
        }
        (None, None, None) => {
            (None, true, "no session flag; it may be on any session of its folder".to_owned())
        }
    };
    Holder { pid: p.pid, session_id, folder_wide, cwd: p.cwd.clone(), how }
}
