//! Resuming a session in a terminal: the guarded command (`claude --resume <id>` in the
//! session's working directory), the terminal that runs it, and the check that it started.
//!
//! The guard is the occupancy rule narrowed as seed 002's resume: refused when a process already
//! resumes this id, when a folder-wide process (`--continue`, the picker, no flag) runs in its
//! folder (which conversation that one is on cannot be known), or when the process table or a
//! working directory cannot be read. A process in the folder on another `--resume` id does not
//! block. No shell string is ever built from session data: the command is an argument vector,
//! the working directory is checked to be absolute and to exist, and a terminal gets the vector
//! as its own arguments (or a person's template, split into words, with `{cwd}` and `{command}`
//! replaced by whole arguments).
//!
//! A start is verified, not assumed: a terminal accepting a command proves nothing, so
//! [`wait_started`] looks (bounded) for a process resuming this very id — by id, not by folder,
//! since another conversation may already run in that folder.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use ts_rs::TS;

use crate::error::{Error, Result};
use crate::model::SessionSummary;
use crate::occupancy::{OccupancySnapshot, ProcessSource};

/// How long [`wait_started`] looks for the resumed process by default.
pub const START_TIMEOUT: Duration = Duration::from_secs(5);

/// The command that resumes a session: run `program args…` in `cwd` with `env` set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ResumeCommand {
    /// The session.
    pub session_id: String,
    /// The program to run (`claude`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// The folder to run it in.
    pub cwd: String,
    /// `CLAUDE_CONFIG_DIR` when the Claude home is not the default one.
    pub env: Vec<(String, String)>,
    /// The session's own working directory is gone: this resumes from the fallback folder.
    pub from_fallback: bool,
    /// The command as a person would type it (for showing and copying only; never run).
    pub display: String,
}

/// Where a resume runs when the session's own folder is gone (the person asked for it).
#[derive(Debug, Clone, Copy)]
pub struct Fallback<'a>(pub Option<&'a Path>);

/// Plans resuming `session`: the guard against `snapshot`, the working directory, the command.
/// `claude_home` is the home the session lives in and `default_home` the one `claude` uses on
/// its own (`CLAUDE_CONFIG_DIR` is set when they differ).
pub fn plan_resume(
    session: &SessionSummary,
    snapshot: &OccupancySnapshot,
    claude_home: &Path,
    default_home: Option<&Path>,
    fallback: Fallback<'_>,
) -> Result<ResumeCommand> {
    let id = crate::paths::validate_session_id(&session.session_id)?;
    if let Some(reason) =
        snapshot.check(id, Some(&session.working_directory), Some(&session.encoded_path))
    {
        return Err(Error::Refused(format!("not resumed: {reason}")));
    }
    let wd = &session.working_directory;
    let usable = crate::paths::is_absolute_cwd(wd) && Path::new(wd).is_dir();
    let (cwd, from_fallback) = match (usable, fallback.0) {
        (true, _) => (PathBuf::from(wd), false),
        (false, Some(dir)) if dir.is_absolute() && dir.is_dir() => (dir.to_path_buf(), true),
        (false, _) => {
            return Err(Error::InvalidInput(format!(
                "its working directory {wd:?} is not there any more; resume it from your home \
                 folder instead"
            )));
        }
    };
    let same_home = default_home.is_some_and(|d| same_path(d, claude_home));
    let env = if same_home {
        Vec::new()
    } else {
        vec![("CLAUDE_CONFIG_DIR".to_owned(), claude_home.display().to_string())]
    };
    let args = vec!["--resume".to_owned(), id.to_owned()];
    let display = display(&cwd, &env, "claude", &args);
    Ok(ResumeCommand {
        session_id: id.to_owned(),
        program: "claude".to_owned(),
        args,
        cwd: cwd.display().to_string(),
        env,
        from_fallback,
        display,
    })
}

fn same_path(a: &Path, b: &Path) -> bool {
    a == b
        || std::fs::canonicalize(a)
            .ok()
            .zip(std::fs::canonicalize(b).ok())
            .is_some_and(|(x, y)| x == y)
}

/// `cd -- '<dir>' && [VAR='…'] claude --resume <id>`, each value single-quoted.
fn display(cwd: &Path, env: &[(String, String)], program: &str, args: &[String]) -> String {
    let q = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut out = format!("cd -- {} && ", q(&cwd.display().to_string()));
    for (k, v) in env {
        out.push_str(&format!("{k}={} ", q(v)));
    }
    out.push_str(program);
    for a in args {
        out.push(' ');
        out.push_str(a);
    }
    out
}

/// A terminal to run the command in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Terminal {
    /// A person's template: words (split on whitespace, never by a shell), where `{cwd}` is the
    /// working directory and `{command}` the whole command, each as its own argument(s).
    Template(String),
    /// A known terminal program by name (`gnome-terminal`, `konsole`, `xterm`, …; on macOS
    /// `Terminal` and `iTerm`, driven through `osascript`).
    Named(String),
}

impl Terminal {
    /// A person's choice, as typed in Settings: a template when it has a `{command}` word, else
    /// one program (a name or a path). Checked here, so a choice that cannot work is refused
    /// when it is made, not at the first resume.
    pub fn parse(text: &str) -> Result<Self> {
        let text = text.trim();
        if text.is_empty() || text.contains('\0') || text.len() > 1024 {
            return Err(Error::InvalidInput(
                "a terminal is a program name or a template of at most 1024 characters".to_owned(),
            ));
        }
        let program = text.split_whitespace().next().unwrap_or_default();
        if !Path::new(program).is_absolute() && program.contains(['/', '\\']) {
            return Err(Error::InvalidInput(RELATIVE_PROGRAM.to_owned()));
        }
        let t = if text.split_whitespace().any(|w| w == "{command}") {
            Self::Template(text.to_owned())
        } else if text.split_whitespace().count() == 1 {
            Self::Named(text.to_owned())
        } else {
            return Err(Error::InvalidInput(
                "a terminal with arguments is a template: put {command} where the command goes \
                 (and {cwd} where its folder goes), e.g. `alacritty --working-directory {cwd} -e \
                 {command}`"
                    .to_owned(),
            ));
        };
        let probe = ResumeCommand {
            session_id: String::new(),
            program: "claude".to_owned(),
            args: Vec::new(),
            cwd: "/".to_owned(),
            env: Vec::new(),
            from_fallback: false,
            display: String::new(),
        };
        terminal_argv(&t, &probe)?;
        Ok(t)
    }
}

/// The terminals a resume tries: only the person's choice when there is one (a chosen terminal
/// that fails is reported, never swapped for another), else [`default_terminals`].
pub fn terminals_to_try(chosen: Option<&str>, env_terminal: Option<&str>) -> Result<Vec<Terminal>> {
    match chosen.filter(|c| !c.trim().is_empty()) {
        Some(c) => Ok(vec![Terminal::parse(c)?]),
        None => Ok(default_terminals(env_terminal)),
    }
}

/// The terminal programs this platform knows, in the order they are tried.
pub fn known_terminals() -> &'static [&'static str] {
    if cfg!(windows) {
        &["wt.exe", "powershell.exe"]
    } else if cfg!(target_os = "macos") {
        &["Terminal", "iTerm"]
    } else {
        &[
            "x-terminal-emulator",
            "gnome-terminal",
            "konsole",
            "xfce4-terminal",
            "kitty",
            "alacritty",
            "wezterm",
            "foot",
            "xterm",
        ]
    }
}

/// The [`known_terminals`] found in the folders of `path_var` (`$PATH`), for Settings to offer.
/// macOS's are applications, not programs on `$PATH`: they are always offered.
pub fn installed_terminals(path_var: Option<&std::ffi::OsStr>) -> Vec<String> {
    if cfg!(target_os = "macos") {
        return known_terminals().iter().map(|t| (*t).to_owned()).collect();
    }
    let dirs: Vec<PathBuf> =
        path_var.map(|p| std::env::split_paths(p).collect()).unwrap_or_default();
    known_terminals()
        .iter()
        .filter(|t| dirs.iter().any(|d| is_program(&d.join(t))))
        .map(|t| (*t).to_owned())
        .collect()
}

/// The program a terminal word names, as an absolute path: an absolute path as it is, a bare name
/// looked up in the absolute folders of `path_var` (`$PATH`; a relative or empty entry is
/// skipped). A relative path (`./term`, `bin/term`) is refused: the terminal starts in the
/// session's folder, which the transcript chooses, so it would run whatever is there.
pub fn resolve_program(
    program: &str,
    path_var: Option<&std::ffi::OsStr>,
) -> std::result::Result<PathBuf, String> {
    let p = Path::new(program);
    if p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    if program.contains(['/', '\\']) {
        return Err(RELATIVE_PROGRAM.to_owned());
    }
    let names: Vec<String> = if cfg!(windows) && p.extension().is_none() {
        vec![format!("{program}.exe"), program.to_owned()]
    } else {
        vec![program.to_owned()]
    };
    path_var
        .map(std::env::split_paths)
        .into_iter()
        .flatten()
        .filter(|d| d.is_absolute())
        .flat_map(|d| names.iter().map(move |n| d.join(n)))
        .find(|c| is_program(c))
        .ok_or_else(|| "not found in the folders of PATH".to_owned())
}

const RELATIVE_PROGRAM: &str = "a terminal program is a name found on PATH or an absolute path, \
     never a relative path (it would run from the session's folder)";

/// A file that can be run: on Unix a regular file (links followed) with an execute bit.
fn is_program(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The command's words: on Unix `env K=V …` first when it sets variables, since many terminals
/// start the command from a server process that does not inherit the launcher's environment.
fn command_words(cmd: &ResumeCommand) -> Vec<String> {
    let mut words = Vec::new();
    if cfg!(unix) && !cmd.env.is_empty() {
        words.push("env".to_owned());
        words.extend(cmd.env.iter().map(|(k, v)| format!("{k}={v}")));
    }
    words.push(cmd.program.clone());
    words.extend(cmd.args.iter().cloned());
    words
}

/// The AppleScript that opens Terminal or iTerm on a command given as its arguments: the
/// folder, then the command's words, each quoted by AppleScript's `quoted form of` (the values
/// are never spliced into the script).
fn mac_script(app: &str) -> String {
    let tell = if app.eq_ignore_ascii_case("iterm") || app.eq_ignore_ascii_case("iterm2") {
        "tell application \"iTerm\"\nactivate\nset w to (create window with default profile)\n\
         tell current session of w to write text c\nend tell"
    } else {
        "tell application \"Terminal\"\nactivate\ndo script c\nend tell"
    };
    format!(
        "on run argv\nset c to \"cd \" & quoted form of (item 1 of argv) & \" &&\"\n\
         repeat with i from 2 to count of argv\nset c to c & \" \" & quoted form of (item i of argv)\n\
         end repeat\n{tell}\nend run"
    )
}

/// Whether `word` can stand in a PowerShell command line as it is (letters, digits, `-_.`).
fn plain_word(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
}

/// The argument vector that opens `terminal` running `cmd` (program first).
pub fn terminal_argv(terminal: &Terminal, cmd: &ResumeCommand) -> Result<Vec<String>> {
    let command = command_words(cmd);
    match terminal {
        Terminal::Template(t) => {
            let mut out = Vec::new();
            let mut has_command = false;
            for word in t.split_whitespace() {
                match word {
                    "{command}" => {
                        has_command = true;
                        out.extend(command.iter().cloned());
                    }
                    "{cwd}" => out.push(cmd.cwd.clone()),
                    w => out.push(w.to_owned()),
                }
            }
            let first = t.split_whitespace().next();
            if !has_command || first.is_none_or(|p| p == "{command}" || p == "{cwd}") {
                return Err(Error::InvalidInput(
                    "a terminal template names its program first and has a {command} word"
                        .to_owned(),
                ));
            }
            Ok(out)
        }
        Terminal::Named(name) => {
            let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
            if matches!(base, "Terminal" | "iTerm" | "iTerm2") {
                let mut out = vec!["osascript".to_owned(), "-e".to_owned()];
                out.push(mac_script(base));
                out.push(cmd.cwd.clone());
                out.extend(command);
                return Ok(out);
            }
            if matches!(base, "powershell.exe" | "powershell" | "pwsh" | "pwsh.exe") {
                // PowerShell takes one command line: only words that need no quoting go in it
                // (the program and `--resume <uuid>`); its folder is the process's own.
                if let Some(w) = command.iter().find(|w| !plain_word(w)) {
                    return Err(Error::InvalidInput(format!(
                        "{name} cannot be given {w:?} safely; choose Windows Terminal"
                    )));
                }
                return Ok(vec![
                    name.clone(),
                    "-NoExit".to_owned(),
                    "-Command".to_owned(),
                    command.join(" "),
                ]);
            }
            let mut out = vec![name.clone()];
            match base {
                "gnome-terminal" | "kgx" | "ptyxis" => {
                    out.extend([
                        "--working-directory".to_owned(),
                        cmd.cwd.clone(),
                        "--".to_owned(),
                    ]);
                }
                "konsole" => out.extend(["--workdir".to_owned(), cmd.cwd.clone(), "-e".to_owned()]),
                "xfce4-terminal" => {
                    out.extend([
                        "--working-directory".to_owned(),
                        cmd.cwd.clone(),
                        "-x".to_owned(),
                    ]);
                }
                "wt" | "wt.exe" => out.extend(["-d".to_owned(), cmd.cwd.clone()]),
                // These take the command after their own flags; the working directory is the
                // process's own (set by the launcher).
                "kitty" | "foot" => {}
                "wezterm" => out.extend([
                    "start".to_owned(),
                    "--cwd".to_owned(),
                    cmd.cwd.clone(),
                    "--".to_owned(),
                ]),
                // x-terminal-emulator, xterm, urxvt and whatever $TERMINAL names: `-e`.
                _ => out.push("-e".to_owned()),
            }
            out.extend(command);
            Ok(out)
        }
    }
}

/// The terminals tried in order when none is chosen: `$TERMINAL`, then the platform's.
pub fn default_terminals(env_terminal: Option<&str>) -> Vec<Terminal> {
    let mut out: Vec<Terminal> = env_terminal
        .filter(|t| !t.trim().is_empty())
        .map(|t| Terminal::Named(t.trim().to_owned()))
        .into_iter()
        .collect();
    out.extend(known_terminals().iter().map(|t| Terminal::Named((*t).to_owned())));
    out
}

/// Opens the first terminal of `terminals` that starts, running `cmd` (its working directory and
/// environment set on the process, the command passed as arguments). Returns the program used.
pub fn launch(terminals: &[Terminal], cmd: &ResumeCommand) -> Result<String> {
    let mut tried = Vec::new();
    let path_var = std::env::var_os("PATH");
    for t in terminals {
        let argv = terminal_argv(t, cmd)?;
        let Some((program, rest)) = argv.split_first() else { continue };
        let exe = match resolve_program(program, path_var.as_deref()) {
            Ok(exe) => exe,
            Err(why) => {
                tried.push(format!("{program}: {why}"));
                continue;
            }
        };
        let mut c = std::process::Command::new(exe);
        // The terminal is its own program: it inherits none of this process's streams.
        c.args(rest)
            .current_dir(&cmd.cwd)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        for (k, v) in &cmd.env {
            c.env(k, v);
        }
        match c.spawn() {
            Ok(mut child) => {
                // Reaped when the terminal (often only a launcher) exits: never a zombie.
                std::thread::spawn(move || child.wait());
                return Ok(program.clone());
            }
            Err(e) => tried.push(format!("{program}: {e}")),
        }
    }
    Err(Error::InvalidInput(if tried.is_empty() {
        "no terminal is known on this platform: choose one in Settings, or copy the command"
            .to_owned()
    } else {
        format!("no terminal could be opened ({}); choose one in Settings", tried.join("; "))
    }))
}

/// What a resume did: the command, the terminal it opened, and whether `claude` started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ResumeOutcome {
    /// The command run.
    pub command: ResumeCommand,
    /// The terminal it opened in.
    pub terminal: String,
    /// A `claude` process was seen on the session within the wait.
    pub started: bool,
    /// That process, when one was seen.
    pub pid: Option<u32>,
    /// Why it did not start.
    pub reason: Option<String>,
}

/// [`plan_resume`] for the listed session `session_id` of `catalog`, from one look at
/// `processes` (`from_home`: resume from the home folder when its own folder is gone).
pub fn plan_in(
    catalog: &crate::catalog::Catalog,
    session_id: &str,
    from_home: bool,
    processes: &dyn ProcessSource,
) -> Result<ResumeCommand> {
    let session = catalog.session(session_id)?;
    let snapshot = OccupancySnapshot::capture(processes);
    let home = crate::paths::home_dir();
    let default_home = crate::paths::default_claude_home();
    plan_resume(
        &session,
        &snapshot,
        catalog.claude_home(),
        default_home.as_deref(),
        Fallback(home.as_deref().filter(|_| from_home)),
    )
}

/// Plans, opens the first of `terminals` that starts, and waits (bounded) for `claude` to
/// resume the session.
pub fn resume_in(
    catalog: &crate::catalog::Catalog,
    session_id: &str,
    from_home: bool,
    terminals: &[Terminal],
    processes: &dyn ProcessSource,
) -> Result<ResumeOutcome> {
    let command = plan_in(catalog, session_id, from_home, processes)?;
    let terminal = launch(terminals, &command)?;
    let started = wait_started(processes, &command.session_id, START_TIMEOUT);
    Ok(ResumeOutcome {
        terminal,
        started: started.is_ok(),
        pid: started.as_ref().ok().copied(),
        reason: started.err(),
        command,
    })
}

/// Whether it started: looks (every 100 ms, up to `timeout`) for a `claude` process resuming
/// `session_id`. `Err` says why it did not.
pub fn wait_started(
    processes: &dyn ProcessSource,
    session_id: &str,
    timeout: Duration,
) -> std::result::Result<u32, String> {
    let deadline = Instant::now() + timeout;
    loop {
        let snapshot = OccupancySnapshot::capture(processes);
        if let Some(h) =
            snapshot.holders.iter().find(|h| h.session_id.as_deref() == Some(session_id))
        {
            return Ok(h.pid);
        }
        if Instant::now() >= deadline {
            return Err(match snapshot.unknown {
                Some(why) => format!("did not start, as far as can be told: {why}"),
                None => format!(
                    "did not start: no claude process resumed it within {} s (is `claude` on the \
                     terminal's PATH?)",
                    timeout.as_secs()
                ),
            });
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    /// The class "a program chosen by where the session is": a relative program (in a template
    /// or named alone) is refused when it is chosen and when it would be started, a bare name is
    /// found only in absolute PATH folders (a `.` or empty entry — the session's folder — is
    /// skipped), and an absolute path is used as it is. Before, `./term {command}` ran `term`
    /// from the session's folder, which the transcript chooses.
    #[cfg(unix)]
    #[test]
    fn a_terminal_program_is_absolute_or_found_in_an_absolute_path_folder() {
        use std::os::unix::fs::PermissionsExt;
        for text in ["./term {command}", "bin/term -e {command}", "./term", "../x/term"] {
            let e = Terminal::parse(text).unwrap_err().to_string();
            assert!(e.contains("never a relative path"), "{text}: {e}");
        }
        assert!(Terminal::parse("/usr/bin/xterm -e {command}").is_ok());
        assert!(Terminal::parse("alacritty -e {command}").is_ok());
        let session = tempfile::tempdir().unwrap();
        let bin = tempfile::tempdir().unwrap();
        for dir in [session.path(), bin.path()] {
            let term = dir.join("term");
            std::fs::write(&term, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&term, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        // The session's folder first on PATH as a relative entry (from this process's folder),
        // then `.` and an empty entry.
        let cwd = std::env::current_dir().unwrap();
        let mut relative = PathBuf::new();
        for _ in cwd.components().skip(1) {
            relative.push("..");
        }
        relative.push(session.path().strip_prefix("/").unwrap());
        assert!(relative.join("term").is_file(), "the relative entry reaches the session");
        let path =
            std::env::join_paths([relative.as_path(), Path::new("."), Path::new(""), bin.path()])
                .unwrap();
        assert_eq!(resolve_program("term", Some(&path)).unwrap(), bin.path().join("term"));
        let only_relative = std::env::join_paths([relative.as_path(), Path::new(".")]).unwrap();
        assert!(resolve_program("term", Some(&only_relative)).is_err());
        assert!(resolve_program("./term", Some(&path)).unwrap_err().contains("relative"));
        let abs = session.path().join("term");
        assert_eq!(resolve_program(abs.to_str().unwrap(), None).unwrap(), abs);
        // Started through `launch`, a relative program never runs (the marker stays absent).
        let marker = session.path().join("ran");
        std::fs::write(
            session.path().join("evil"),
            format!("#!/bin/sh\ntouch {}\n", marker.display()),
        )
        .unwrap();
        let evil = session.path().join("evil");
        std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut c = cmd();
        c.cwd = session.path().display().to_string();
        let e = launch(&[Terminal::Template("./evil {command}".into())], &c).unwrap_err();
        assert!(e.to_string().contains("relative"), "{e}");
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(!marker.exists());
    }

    fn cmd() -> ResumeCommand {
        ResumeCommand {
            session_id: "s1".into(),
            program: "claude".into(),
            args: vec!["--resume".into(), "s1".into()],
            cwd: "/w/it's here".into(),
            env: vec![],
            from_fallback: false,
            display: String::new(),
        }
    }

    fn session(dir: &Path) -> SessionSummary {
        let wd = dir.display().to_string();
        SessionSummary {
            session_id: "0000aaaa-0000-4000-8000-00000000aaaa".into(),
            encoded_path: crate::paths::encode_path(&wd),
            working_directory: wd,
            transcript_path: String::new(),
            mtime: String::new(),
            origin: crate::model::Origin::Native,
            agent_name: None,
            resumable: true,
            not_resumable_reason: None,
            custom_name: None,
            auto_name: None,
            preview: None,
            git_branch: None,
            claude_code_version: None,
            entrypoint: None,
            first_message_at: None,
            last_message_at: None,
            message_count: 0,
            size_bytes: 0,
            rewound_prompts: 0,
            tokens: Default::default(),
            cost: None,
            continued_from: None,
            continued_in: None,
            pending: false,
        }
    }

    fn holder(pid: u32, id: Option<&str>, cwd: &Path) -> crate::occupancy::Holder {
        crate::occupancy::Holder {
            pid,
            session_id: id.map(Into::into),
            folder_wide: id.is_none(),
            cwd: Some(cwd.to_path_buf()),
            how: if id.is_some() { "--resume".into() } else { "--continue".into() },
        }
    }

    #[test]
    fn the_guard_blocks_this_id_and_folder_wide_processes_but_not_other_ids() {
        let dir = tempfile::tempdir().unwrap();
        let s = session(dir.path());
        let home = Path::new("/h/.claude");
        let plan = |holders| {
            let snap = OccupancySnapshot { unknown: None, holders };
            plan_resume(&s, &snap, home, Some(home), Fallback(None))
        };
        let ok = plan(vec![holder(1, Some("0000bbbb-0000-4000-8000-00000000bbbb"), dir.path())])
            .unwrap();
        assert_eq!(ok.args, ["--resume", s.session_id.as_str()]);
        assert!(ok.env.is_empty(), "the default home needs no CLAUDE_CONFIG_DIR");
        let e = plan(vec![holder(2, Some(&s.session_id), Path::new("/elsewhere"))]).unwrap_err();
        assert!(e.to_string().contains("holds this session"), "{e}");
        let e = plan(vec![holder(3, None, dir.path())]).unwrap_err();
        assert!(e.to_string().contains("may be on this session"), "{e}");
        let unknown = OccupancySnapshot::unknown("no /proc");
        assert!(plan_resume(&s, &unknown, home, Some(home), Fallback(None)).is_err());
        let other = plan_resume(
            &s,
            &OccupancySnapshot::nobody(),
            home,
            Some(Path::new("/x")),
            Fallback(None),
        );
        assert_eq!(other.unwrap().env, [("CLAUDE_CONFIG_DIR".to_owned(), "/h/.claude".to_owned())]);
    }

    #[test]
    fn a_chosen_terminal_is_checked_when_chosen_and_is_the_only_one_tried() {
        assert_eq!(Terminal::parse(" kitty ").unwrap(), Terminal::Named("kitty".into()));
        assert_eq!(
            Terminal::parse("foot -D {cwd} {command}").unwrap(),
            Terminal::Template("foot -D {cwd} {command}".into())
        );
        for bad in ["", "  ", "alacritty -e", "{command}", "a\0b", &"x".repeat(2000)] {
            assert!(Terminal::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            terminals_to_try(Some("xterm"), Some("kitty")).unwrap(),
            [Terminal::Named("xterm".into())]
        );
        let auto = terminals_to_try(None, Some("kitty")).unwrap();
        assert_eq!(auto[0], Terminal::Named("kitty".into()), "$TERMINAL first");
        assert!(auto.len() > 1);
        assert!(terminals_to_try(Some("bad -x"), None).is_err());
    }

    #[test]
    fn installed_terminals_are_the_known_ones_on_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let first = known_terminals()[0];
        std::fs::write(dir.path().join(first), "").unwrap();
        std::fs::write(dir.path().join("not-a-terminal"), "").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path, m: u32| {
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
            };
            mode(&dir.path().join(first), 0o755);
            // A terminal's name on a file that cannot be run is not an installed terminal.
            let second = known_terminals()[1];
            std::fs::write(dir.path().join(second), "").unwrap();
            mode(&dir.path().join(second), 0o644);
        }
        let found = installed_terminals(Some(dir.path().as_os_str()));
        if cfg!(target_os = "macos") {
            assert_eq!(found.len(), known_terminals().len());
        } else {
            assert_eq!(found, [first]);
            assert!(installed_terminals(None).is_empty());
        }
    }

    #[test]
    fn terminals_get_the_command_as_arguments_never_as_a_shell_string() {
        let named = |t: &str| terminal_argv(&Terminal::Named(t.into()), &cmd()).unwrap();
        assert_eq!(
            named("gnome-terminal"),
            [
                "gnome-terminal",
                "--working-directory",
                "/w/it's here",
                "--",
                "claude",
                "--resume",
                "s1"
            ]
        );
        assert_eq!(
            named("konsole"),
            ["konsole", "--workdir", "/w/it's here", "-e", "claude", "--resume", "s1"]
        );
        assert_eq!(named("xterm"), ["xterm", "-e", "claude", "--resume", "s1"]);
        let t = Terminal::Template("my-term --dir {cwd} --run {command}".into());
        assert_eq!(
            terminal_argv(&t, &cmd()).unwrap(),
            ["my-term", "--dir", "/w/it's here", "--run", "claude", "--resume", "s1"]
        );
        assert!(terminal_argv(&Terminal::Template("my-term".into()), &cmd()).is_err());
        // A home that is not the default travels in the command (`env`) on Unix: a terminal's
        // server process does not inherit the launcher's environment.
        let mut other_home = cmd();
        other_home.env = vec![("CLAUDE_CONFIG_DIR".into(), "/h/it's".into())];
        let argv = terminal_argv(&Terminal::Named("xterm".into()), &other_home).unwrap();
        if cfg!(unix) {
            assert_eq!(
                argv,
                ["xterm", "-e", "env", "CLAUDE_CONFIG_DIR=/h/it's", "claude", "--resume", "s1"]
            );
        }
        // macOS: the script is fixed; the folder and the words are its arguments.
        let mac = terminal_argv(&Terminal::Named("Terminal".into()), &cmd()).unwrap();
        assert_eq!(mac[0], "osascript");
        assert!(mac[2].contains("quoted form of") && !mac[2].contains("it's"), "{mac:?}");
        assert_eq!(mac[3..], ["/w/it's here", "claude", "--resume", "s1"]);
        let iterm = terminal_argv(&Terminal::Named("iTerm".into()), &cmd()).unwrap();
        assert!(iterm[2].contains("\"iTerm\""));
        // PowerShell gets one command line, so only words that need no quoting.
        assert_eq!(
            terminal_argv(&Terminal::Named("powershell.exe".into()), &cmd()).unwrap(),
            ["powershell.exe", "-NoExit", "-Command", "claude --resume s1"]
        );
        let mut odd = cmd();
        odd.args = vec!["--resume".into(), "x; rm -rf ~".into()];
        assert!(terminal_argv(&Terminal::Named("powershell.exe".into()), &odd).is_err());
        assert!(terminal_argv(&Terminal::Template("{command}".into()), &cmd()).is_err());
        assert_eq!(
            display(
                Path::new("/w/it's"),
                &[("CLAUDE_CONFIG_DIR".into(), "/h/.c".into())],
                "claude",
                &["--resume".into(), "x".into()]
            ),
            r"cd -- '/w/it'\''s' && CLAUDE_CONFIG_DIR='/h/.c' claude --resume x"
        );
    }
}
