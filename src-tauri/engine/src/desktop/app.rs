//! Whether the desktop app is running. Its store may only be written with the app closed (it keeps
//! the sidebars in memory and writes them back), so a restore checks first — and a process table
//! that cannot be read counts as "running".
//!
//! The app's processes are found by their executable's path, never by name (`pgrep` was measured
//! to miss the main process on macOS, and the Claude Code CLI is also called `claude`):
//! - macOS: inside `Claude.app/Contents/`, case-sensitive (the CLI ships a lower-case
//!   `claude.app`), except `Contents/Helpers/chrome-native-host`, the browser extension's host,
//!   which a browser keeps alive after the app quits. Any other helper of the bundle counts, so an
//!   unknown new one keeps the check on the safe side.
//! - Windows: inside an `AnthropicClaude\` install or the Store's `WindowsApps\Claude_…` package
//!   (not `claude.exe` elsewhere: that is the CLI).
//! - Linux (community packages): inside a `claude-desktop/` folder, `/opt/Claude/`, or an
//!   executable named `claude-desktop`.

use std::path::Path;

use serde::Serialize;
use ts_rs::TS;

use crate::occupancy::{ProcessInfo, ProcessSource};

/// What the process table says about the desktop app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase", tag = "state")]
#[ts(rename = "DesktopAppState")]
pub enum AppState {
    /// No process of the app is running.
    Closed,
    /// These processes belong to it.
    Running {
        /// Its processes.
        processes: Vec<AppProcess>,
    },
    /// The table could not be read (treated as running).
    Unknown {
        /// Why the table could not be read.
        reason: String,
    },
}

/// One process of the app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopAppProcess")]
pub struct AppProcess {
    /// The process id.
    pub pid: u32,
    /// Its executable.
    pub path: String,
}

impl AppState {
    /// Whether the store must be left alone now (running, or not known to be closed).
    pub fn blocks_writes(&self) -> bool {
        !matches!(self, Self::Closed)
    }
}

/// Reads the process table once.
pub fn app_state(source: &dyn ProcessSource) -> AppState {
    match source.processes() {
        Err(e) => AppState::Unknown { reason: e.to_string() },
        Ok(table) => {
            let processes: Vec<AppProcess> = table
                .iter()
                .filter_map(|p| {
                    let path = program(p)?;
                    is_app(&path).then_some(AppProcess { pid: p.pid, path })
                })
                .collect();
            if processes.is_empty() { AppState::Closed } else { AppState::Running { processes } }
        }
    }
}

/// The executable's path, else the command line's program.
fn program(p: &ProcessInfo) -> Option<String> {
    p.exe
        .as_deref()
        .map(|e| e.to_string_lossy().into_owned())
        .or_else(|| p.cmd.first().cloned())
        .filter(|s| !s.is_empty())
}

/// Whether an executable path is one of the desktop app's.
pub fn is_app(path: &str) -> bool {
    const BUNDLE: &str = "/Claude.app/Contents/";
    if let Some(i) = path.find(BUNDLE) {
        return path.get(i + BUNDLE.len()..) != Some("Helpers/chrome-native-host");
    }
    let lower = path.to_ascii_lowercase().replace('/', "\\");
    if lower.contains("\\anthropicclaude\\") || lower.contains("\\windowsapps\\claude_") {
        return true;
    }
    path.contains("/claude-desktop/")
        || path.starts_with("/opt/Claude/")
        || Path::new(path).file_name().is_some_and(|n| n == "claude-desktop")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]
    use super::*;
    use crate::occupancy::FixedProcesses;

    fn p(pid: u32, exe: Option<&str>, cmd: &[&str]) -> ProcessInfo {
        ProcessInfo {
            pid,
            name: String::new(),
            cmd: cmd.iter().map(|s| (*s).to_owned()).collect(),
            cwd: None,
            exe: exe.map(Into::into),
            exited: false,
            parent: None,
        }
    }

    #[test]
    fn the_app_is_known_by_its_path_and_nothing_else() {
        for app in [
            "/Applications/Claude.app/Contents/MacOS/Claude",
            "/Applications/Claude.app/Contents/Frameworks/Claude Helper (Renderer).app/Contents/MacOS/Claude Helper (Renderer)",
            "/Applications/Claude.app/Contents/Helpers/some-new-helper",
            "/Users/a/Applications/Claude.app/Contents/MacOS/Claude",
            r"C:\Users\a\AppData\Local\AnthropicClaude\app-0.9.3\claude.exe",
            r"C:\Program Files\WindowsApps\Claude_1.0.0.0_x64__pzs8sxrjxfjjc\app\Claude.exe",
            "/usr/lib/claude-desktop/claude-desktop",
            "/opt/Claude/claude",
            "/usr/bin/claude-desktop",
        ] {
            assert!(is_app(app), "{app}");
        }
        for not_app in [
            "/Applications/Claude.app/Contents/Helpers/chrome-native-host",
            "/Users/a/.local/share/claude/versions/2.1.114/claude.app/Contents/MacOS/claude",
            "/Users/a/.local/bin/claude",
            r"C:\Users\a\.local\bin\claude.exe",
            "/usr/bin/node",
            "/home/a/src/claude-desktop-notes.txt",
        ] {
            assert!(!is_app(not_app), "{not_app}");
        }
    }

    #[test]
    fn running_closed_and_unknown() {
        let table = |procs| FixedProcesses(Ok(procs));
        assert_eq!(
            app_state(&table(vec![p(1, Some("/usr/bin/bash"), &["bash"])])),
            AppState::Closed
        );
        // The executable's path wins; without it the command line's program is looked at.
        let s = app_state(&table(vec![
            p(7, Some("/Applications/Claude.app/Contents/MacOS/Claude"), &["Claude"]),
            p(8, None, &["/Applications/Claude.app/Contents/MacOS/Claude Helper", "--type=gpu"]),
            p(9, Some("/Applications/Claude.app/Contents/Helpers/chrome-native-host"), &[]),
        ]));
        let AppState::Running { processes } = &s else { panic!("{s:?}") };
        assert_eq!(processes.iter().map(|p| p.pid).collect::<Vec<_>>(), vec![7, 8]);
        assert!(s.blocks_writes());
        let unknown = app_state(&FixedProcesses(Err("no /proc".into())));
        assert!(matches!(unknown, AppState::Unknown { .. }) && unknown.blocks_writes());
        assert!(!AppState::Closed.blocks_writes());
    }
}
