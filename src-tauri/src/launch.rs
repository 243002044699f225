//! What the app answers on the terminal before it opens a window: `--help` and `--version`, and a
//! plain sentence (not a toolkit panic) when there is no display to open one on.

use std::ffi::OsString;

/// What to print before the window opens, and how to exit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalAnswer {
    /// The text (a trailing newline is added when printed).
    pub text: String,
    /// On stderr (an error) rather than stdout.
    pub to_stderr: bool,
    /// The exit code.
    pub code: u8,
}

/// Whether a display is set, from the environment (`DISPLAY`, `WAYLAND_DISPLAY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Display {
    /// Some display variable is set (macOS and Windows always have one).
    pub present: bool,
}

impl Display {
    /// This process's display.
    pub fn of_process() -> Self {
        if cfg!(any(target_os = "macos", target_os = "windows")) {
            return Self { present: true };
        }
        let set = |v: &str| std::env::var_os(v).is_some_and(|x| !x.is_empty());
        Self { present: set("DISPLAY") || set("WAYLAND_DISPLAY") }
    }
}

const HELP: &str = "\
Corral: every Claude Code session on this machine, where it came from, and what to do with it.

Usage: corral [--help | --version]

The app opens a window. It reads:
  CLAUDE_CONFIG_DIR   the Claude home (default ~/.claude)
  CORRAL_FLEET        a herdctl fleet file (herdctl.yaml) to open (else the one chosen in Settings)
  CORRAL_DATA_DIR     Corral's own data: indexes, runs, the quarantine

For the command line (listing, search, export, rename, import, delete, undo), use corral-cli:
  corral-cli --help";

/// The answer for arguments `args` (without the program) and `display`, when the app must not
/// open a window; `None` to go on. Other arguments are left alone (the platform may pass its own).
pub fn terminal_answer(args: &[OsString], display: Display) -> Option<TerminalAnswer> {
    let asks = |flags: &[&str]| args.iter().any(|a| flags.iter().any(|f| a == f));
    if asks(&["--help", "-h"]) {
        return Some(TerminalAnswer { text: HELP.to_owned(), to_stderr: false, code: 0 });
    }
    if asks(&["--version", "-V"]) {
        let text = format!("corral {}", env!("CARGO_PKG_VERSION"));
        return Some(TerminalAnswer { text, to_stderr: false, code: 0 });
    }
    if !display.present {
        return Some(TerminalAnswer {
            text: "corral: there is no display to open a window on (neither DISPLAY nor \
                   WAYLAND_DISPLAY is set). Start it in a desktop session, or use corral-cli on \
                   the command line."
                .to_owned(),
            to_stderr: true,
            code: 1,
        });
    }
    None
}
