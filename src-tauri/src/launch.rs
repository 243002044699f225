//! What the app settles before it opens a window: the answer on the terminal to `--help` and
//! `--version`, a plain sentence (not a toolkit panic) when there is no display to open one on,
//! and, where there is no session bus, a restart that keeps libraries from starting one.

use std::ffi::{OsStr, OsString};
use std::path::Path;

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

/// `DBUS_SESSION_BUS_ADDRESS` meaning "there is no session bus": libdbus's own word for it; GLib
/// and zbus refuse it at once as an address they cannot use. Either way nothing is started.
pub const NO_SESSION_BUS: &str = "disabled:";

/// The desktop's session bus (D-Bus) as this process finds it at start, before a library asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionBus {
    /// An address is set (`DBUS_SESSION_BUS_ADDRESS`) or the user's bus listens at
    /// `$XDG_RUNTIME_DIR/bus`: notifications and the desktop's settings portal can be reached.
    Present,
    /// None, and the environment says so ([`NO_SESSION_BUS`]): nothing will start one.
    Disabled,
    /// None, and nothing says so. GLib (the app registering, GTK's drag-and-drop portal, WebKit)
    /// and libdbus (the colour-scheme portal) would each start `dbus-launch --autolaunch`, waiting
    /// for it on the main thread: seconds at launch when two of them race for the display.
    Missing,
}

impl SessionBus {
    /// The bus for an address variable `address` and a runtime dir `runtime_dir` (its `bus`
    /// socket is looked for, as GLib and libdbus do).
    pub fn of(address: Option<&OsStr>, runtime_dir: Option<&Path>) -> Self {
        match address.filter(|a| !a.is_empty()) {
            Some(a) if a == NO_SESSION_BUS => Self::Disabled,
            Some(_) => Self::Present,
            None if runtime_dir.is_some_and(|d| d.join("bus").exists()) => Self::Present,
            None => Self::Missing,
        }
    }

    /// This process's bus (macOS and Windows have none to start: always `Present`).
    pub fn of_process() -> Self {
        if cfg!(any(target_os = "macos", target_os = "windows")) {
            return Self::Present;
        }
        let runtime_dir = std::env::var_os("XDG_RUNTIME_DIR").map(std::path::PathBuf::from);
        Self::of(std::env::var_os("DBUS_SESSION_BUS_ADDRESS").as_deref(), runtime_dir.as_deref())
    }

    /// Whether desktop notifications can be raised.
    pub fn reachable(self) -> bool {
        self == Self::Present
    }
}

/// Where the session bus is [`SessionBus::Missing`], starts this program again in place (same
/// process, same arguments) with `DBUS_SESSION_BUS_ADDRESS` set to [`NO_SESSION_BUS`], so that no
/// library starts a bus on the main thread. Returns only when it did not restart: nothing to do,
/// or the error (the app then goes on as before). The variable is set by replacing the process
/// image rather than by `std::env::set_var`, which is unsafe once any thread may read the
/// environment. Programs the app starts (a terminal, the file manager) inherit it.
#[cfg(all(unix, not(target_os = "macos")))]
pub fn restart_without_bus_autolaunch(bus: SessionBus) -> Option<std::io::Error> {
    use std::os::unix::process::CommandExt;
    if bus != SessionBus::Missing {
        return None;
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return Some(e),
    };
    let mut args = std::env::args_os();
    let mut cmd = std::process::Command::new(exe);
    if let Some(arg0) = args.next() {
        cmd.arg0(arg0);
    }
    Some(cmd.args(args).env("DBUS_SESSION_BUS_ADDRESS", NO_SESSION_BUS).exec())
}
