//! A folder's git state (branch, uncommitted changes, ahead/behind), read so that nothing the
//! repository says is run.
//!
//! A repository's own configuration is written by whoever wrote the repository: a planted
//! `core.fsmonitor` is a command `git status` runs, a `filter.<driver>.clean` with a matching
//! `.gitattributes` is a command it runs on a changed file, and a submodule's configuration is
//! read by the `git status` it starts there. So `git` runs with `--no-optional-locks` (it never
//! writes the index), `core.fsmonitor` and `core.hooksPath` emptied, every filter driver the
//! configuration names emptied (read first with `git config`, which runs nothing), submodules
//! ignored, no terminal prompt, and a bound on its time: a git that hangs (a stale network
//! mount, a huge tree) is killed with everything it started, and the state reads as unreadable.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use ts_rs::TS;

/// How long one folder's git may take.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(3);
/// Folders read at once.
const AT_ONCE: usize = 4;
/// Output kept from git's stderr (for the reason shown).
const STDERR_KEPT: usize = 4096;

/// What git says about a folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum GitState {
    /// The folder is in no git repository.
    NotARepository,
    /// The folder is in a repository.
    #[serde(rename_all = "camelCase")]
    Repository {
        /// The branch checked out (`None`: a detached HEAD).
        branch: Option<String>,
        /// The upstream branch, when one is set.
        upstream: Option<String>,
        /// Commits not on the upstream.
        ahead: u32,
        /// Upstream commits not here.
        behind: u32,
        /// Tracked files changed (staged or not, conflicts too).
        changed: u32,
        /// Files git does not track (ignored ones aside).
        untracked: u32,
    },
    /// Git could not say (it is missing, it timed out, the repository is refused or broken).
    Unreadable {
        /// Why, in words.
        why: String,
    },
}

/// The git program and its bound.
#[derive(Debug, Clone)]
pub struct Git {
    /// The program (`git`, looked up on `PATH`, or an absolute path).
    pub program: PathBuf,
    /// How long one folder may take.
    pub timeout: Duration,
}

impl Default for Git {
    fn default() -> Self {
        Self { program: PathBuf::from("git"), timeout: GIT_TIMEOUT }
    }
}

/// The state of each of `dirs` (in order), a few read at once.
pub fn git_states(git: &Git, dirs: &[PathBuf]) -> Vec<GitState> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut out: Vec<Option<GitState>> = vec![None; dirs.len()];
    let results = std::sync::Mutex::new(&mut out);
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE.min(dirs.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(dir) = dirs.get(i) else { break };
                    let state = git_state(git, dir);
                    if let Ok(mut r) = results.lock()
                        && let Some(slot) = r.get_mut(i)
                    {
                        *slot = Some(state);
                    }
                }
            });
        }
    });
    out.into_iter()
        .map(|s| s.unwrap_or_else(|| GitState::Unreadable { why: "not read".to_owned() }))
        .collect()
}

/// The state of `dir` (see the module's notes for what is never run).
pub fn git_state(git: &Git, dir: &Path) -> GitState {
    let deadline = Instant::now() + git.timeout;
    let filters = match run(git, dir, &config_args(), deadline) {
        Ok(Output { status: Some(0), stdout, .. }) => filter_settings(&stdout),
        // `git config --get-regexp` exits 1 when nothing matches.
        Ok(Output { status: Some(1), .. }) => Vec::new(),
        Ok(out) => return failed(&out),
        Err(why) => return GitState::Unreadable { why },
    };
    // `-c name=` cannot empty a setting whose name holds `=` (git would split it there).
    if filters.iter().any(|n| n.contains('=')) {
        return GitState::Unreadable {
            why: "its configuration names a filter that cannot be switched off, so git was not \
                  asked"
                .to_owned(),
        };
    }
    let mut args = Vec::new();
    for name in &filters {
        args.push("-c".to_owned());
        args.push(format!("{name}="));
    }
    args.extend(
        [
            "status",
            "--porcelain=v2",
            "--branch",
            "--ignore-submodules=all",
            "--untracked-files=normal",
        ]
        .map(str::to_owned),
    );
    match run(git, dir, &args, deadline) {
        Ok(Output { status: Some(0), stdout, .. }) => parse_status(&stdout),
        Ok(out) => failed(&out),
        Err(why) => GitState::Unreadable { why },
    }
}

fn config_args() -> Vec<String> {
    ["config", "-z", "--name-only", "--get-regexp", r"^filter\."].map(str::to_owned).to_vec()
}

/// The filter settings that run a program (`filter.<driver>.clean`, `.smudge`, `.process`),
/// from `git config -z --name-only` output.
fn filter_settings(out: &[u8]) -> Vec<String> {
    out.split(|&b| b == 0)
        .filter_map(|n| std::str::from_utf8(n).ok())
        .map(|n| n.trim().to_owned())
        .filter(|n| {
            let lower = n.to_ascii_lowercase();
            lower.ends_with(".clean") || lower.ends_with(".smudge") || lower.ends_with(".process")
        })
        .collect()
}

fn failed(out: &Output) -> GitState {
    let text = String::from_utf8_lossy(&out.stderr);
    if text.contains("not a git repository") {
        return GitState::NotARepository;
    }
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("no reason given").trim();
    let code = out.status.map_or("a signal".to_owned(), |c| format!("code {c}"));
    GitState::Unreadable { why: format!("git stopped with {code}: {first}") }
}

/// `git status --porcelain=v2 --branch` read: the `# branch.*` headers and a count of entries.
fn parse_status(out: &[u8]) -> GitState {
    let (mut branch, mut upstream, mut ahead, mut behind, mut changed, mut untracked) =
        (None, None, 0u32, 0u32, 0u32, 0u32);
    for line in out.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        if let Some(head) = text.strip_prefix("# branch.head ") {
            branch = (head != "(detached)").then(|| head.to_owned());
        } else if let Some(up) = text.strip_prefix("# branch.upstream ") {
            upstream = Some(up.to_owned());
        } else if let Some(ab) = text.strip_prefix("# branch.ab ") {
            let mut words = ab.split(' ');
            let count = |w: Option<&str>| {
                w.and_then(|w| w.get(1..)).and_then(|n| n.parse().ok()).unwrap_or(0)
            };
            ahead = count(words.next());
            behind = count(words.next());
        } else if text.starts_with("1 ") || text.starts_with("2 ") || text.starts_with("u ") {
            changed = changed.saturating_add(1);
        } else if text.starts_with("? ") {
            untracked = untracked.saturating_add(1);
        }
    }
    GitState::Repository { branch, upstream, ahead, behind, changed, untracked }
}

struct Output {
    /// The exit code; `None` when a signal ended it.
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs `git <safe options> -C dir args…` until `deadline`; `Err` says why it gave no answer.
fn run(git: &Git, dir: &Path, args: &[String], deadline: Instant) -> Result<Output, String> {
    let mut cmd = Command::new(&git.program);
    cmd.args(["--no-optional-locks", "-c", "core.fsmonitor=", "-c"])
        .arg(format!("core.hooksPath={}", null_device()))
        .args(["-c", "core.untrackedCache=false", "-c", "protocol.allow=never"])
        .arg("-C")
        .arg(dir)
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("LC_ALL", "C")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "git is not installed (or not on PATH)".to_owned(),
        _ => format!("cannot run git: {e}"),
    })?;
    let stdout = child.stdout.take().map(|o| reader(o, usize::MAX));
    let stderr = child.stderr.take().map(|e| reader(e, STDERR_KEPT));
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status.code(),
            Ok(None) if Instant::now() >= deadline => {
                kill(&mut child);
                return Err(format!("git did not answer within {} s", git.timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => {
                kill(&mut child);
                return Err(format!("cannot wait for git: {e}"));
            }
        }
    };
    let join = |h: Option<std::thread::JoinHandle<Vec<u8>>>| {
        h.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    Ok(Output { status, stdout: join(stdout), stderr: join(stderr) })
}

/// Reads a pipe to its end in a thread, keeping at most `keep` bytes.
fn reader(mut pipe: impl Read + Send + 'static, keep: usize) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = pipe.read(&mut buf) {
            let Some(chunk) = buf.get(..n).filter(|_| n > 0) else { break };
            let room = keep.saturating_sub(kept.len()).min(chunk.len());
            kept.extend_from_slice(chunk.get(..room).unwrap_or_default());
        }
        kept
    })
}

/// Ends git and whatever it started (its process group on Unix), and reaps it.
fn kill(child: &mut Child) {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "macos", target_os = "ios"))]
    if let Some(group) = i32::try_from(child.id()).ok().and_then(rustix::process::Pid::from_raw) {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn null_device() -> &'static str {
    if cfg!(windows) { "NUL" } else { "/dev/null" }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn porcelain_v2_is_read_into_counts() {
        let out = b"# branch.oid 1234\n# branch.head main\n# branch.upstream origin/main\n\
# branch.ab +2 -3\n1 .M N... 100644 100644 100644 a b f.txt\n2 R. N... 1 2 3 a b R100 n\to\n\
u UU N... 1 2 3 4 a b c x\n? new.txt\n? other\n! ignored\n";
        assert_eq!(
            parse_status(out),
            GitState::Repository {
                branch: Some("main".into()),
                upstream: Some("origin/main".into()),
                ahead: 2,
                behind: 3,
                changed: 3,
                untracked: 2,
            }
        );
        let detached = parse_status(b"# branch.oid 1234\n# branch.head (detached)\n");
        assert!(matches!(detached, GitState::Repository { branch: None, ahead: 0, .. }));
        assert_eq!(
            filter_settings(
                b"filter.lfs.clean\0filter.lfs.smudge\0filter.lfs.required\0filter.x.Process\0"
            ),
            ["filter.lfs.clean", "filter.lfs.smudge", "filter.x.Process"]
        );
    }
}
