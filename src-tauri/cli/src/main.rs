//! `corral-cli`: the engine as a command-line tool. JSON on stdout with `--json`, a readable
//! table without. Exit code 0 on success; on failure one clear line on stderr and a non-zero code.
#![allow(clippy::print_stdout, clippy::print_stderr)]
// Doc comments here are `--help` text, where `<DIR>` is a placeholder, not an HTML tag.
#![allow(rustdoc::invalid_html_tags)]

mod cleanup;
mod cost;
mod desktop;
mod formats;
mod generate;
mod import;
mod reopen;
mod search;
mod sessions;
mod status;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc, for the reasons in the workspace manifest (`Cargo.toml`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use corral_engine::printable::{self, Lines};
use corral_engine::{Catalog, CatalogConfig, Error, paths};

/// Finds, attributes, names and reads Claude Code sessions.
#[derive(Debug, Parser)]
#[command(name = "corral-cli", version, about)]
struct Cli {
    #[command(flatten)]
    global: GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

/// Where things live; accepted before or after the subcommand.
#[derive(Debug, clap::Args)]
struct GlobalArgs {
    /// The Claude home (default: $CLAUDE_CONFIG_DIR, else ~/.claude).
    #[arg(long, global = true, value_name = "DIR")]
    claude_home: Option<PathBuf>,
    /// A herdctl fleet file (herdctl.yaml).
    #[arg(long, global = true, value_name = "FILE")]
    fleet: Option<PathBuf>,
    /// The herdctl state dir (default: <fleet dir>/.herdctl).
    #[arg(long, global = true, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Corral's data dir (default: $CORRAL_DATA_DIR, else the platform data dir + /corral).
    #[arg(long, global = true, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// The Claude desktop app's session store (default: the platform's, e.g.
    /// ~/Library/Application Support/Claude/claude-code-sessions).
    #[arg(long, global = true, value_name = "DIR")]
    desktop_store: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List sessions: all, grouped by working directory, or one agent's.
    Sessions(sessions::SessionsArgs),
    /// Print a session's transcript.
    Show(sessions::ShowArgs),
    /// Export a session's transcript as Markdown, a self-contained HTML page or JSON.
    Export(sessions::ExportArgs),
    /// Set or clear a session's custom name.
    Rename(sessions::RenameArgs),
    /// Delete sessions into Corral's quarantine (everything each left behind; undoable).
    Delete(cleanup::DeleteArgs),
    /// What is in the quarantine; put runs back; send them to the system's trash.
    #[command(subcommand)]
    Quarantine(cleanup::QuarantineCommand),
    /// Where the Claude home's space goes, and what cleans each part up.
    Storage,
    /// List the fleet's agents with their session counts.
    Agents,
    /// What sessions cost at list price, by session, agent, folder, model or day.
    Cost(cost::CostArgs),
    /// Which sessions a claude process is on now: running, waiting on you, idle — and why.
    Status,
    /// Resume a session in a terminal (refused while a process may be on it; verified).
    Resume(status::ResumeArgs),
    /// After a restart: each recent folder's newest conversation, started again in a terminal
    /// of its own (guarded and verified); without FOLDERs or --all, lists them.
    Reopen(reopen::ReopenArgs),
    /// Search every conversation (updates the index first).
    Search(search::SearchArgs),
    /// Build or update the full-text search index.
    Index(search::IndexArgs),
    /// Count every kind of line and attachment in the home's transcripts, marking those Corral
    /// does not know by name (a new Claude Code version's format changes).
    Formats,
    #[command(flatten)]
    Import(import::ImportCommand),
    /// The Claude desktop app's sidebars (one per account and org).
    #[command(subcommand)]
    Desktop(desktop::DesktopCommand),
    /// Write a deterministic synthetic Claude home (and fleet) for benchmarks and demos.
    Generate(generate::GenerateArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse_from(excluded_words_last(std::env::args_os().collect()));
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            warn_human(&format!("corral-cli: {e}"));
            ExitCode::from(match e.kind() {
                corral_engine::ErrorKind::InvalidInput => 2,
                _ => 1,
            })
        }
    }
}

fn run(cli: Cli) -> Result<(), Error> {
    let g = &cli.global;
    if let Command::Generate(a) = &cli.command {
        return print_json(&generate::run(a)?);
    }
    let catalog = open_catalog(g)?;
    let done = match cli.command {
        Command::Sessions(a) => sessions::sessions(&catalog, &a, g.json),
        Command::Show(a) => sessions::show(&catalog, &a, g.json),
        Command::Export(a) => sessions::export(&catalog, &a, g.json),
        Command::Rename(a) => sessions::rename(&catalog, &a, g.json),
        Command::Delete(a) => cleanup::delete(&catalog, &a, g.desktop_store.as_deref(), g.json),
        Command::Quarantine(c) => cleanup::run(&catalog, &c, g.desktop_store.as_deref(), g.json),
        Command::Storage => cleanup::storage(&catalog, g.json),
        Command::Agents => sessions::agents(&catalog, g.json),
        Command::Cost(a) => cost::cost(&catalog, &a, g.json),
        Command::Status => status::status(&catalog, g.json),
        Command::Resume(a) => status::resume(&catalog, &a, g.json),
        Command::Reopen(a) => reopen::reopen(&catalog, &a, g.desktop_store.as_deref(), g.json),
        Command::Search(a) => search::search(&catalog, &a, g.json),
        Command::Index(a) => search::index(&catalog, &a, g.json),
        Command::Formats => formats::formats(&catalog, g.json),
        Command::Import(c) => import::run(&catalog, &c, g.desktop_store.as_deref(), g.json),
        Command::Desktop(c) => desktop::run(&catalog, g.desktop_store.as_deref(), &c, g.json),
        Command::Generate(_) => Ok(()),
    };
    // The process ends here: freeing the catalog (every transcript's facts, the listing
    // index) piece by piece would only delay the exit. It holds nothing to flush — what it
    // writes it writes atomically before returning — and the system releases its locks.
    std::mem::forget(catalog);
    done
}

fn open_catalog(g: &GlobalArgs) -> Result<Catalog, Error> {
    let catalog = Catalog::open(CatalogConfig {
        claude_home: paths::claude_home_from_env(g.claude_home.as_deref())?,
        fleet_file: g.fleet.clone(),
        state_dir: g.state_dir.clone(),
        data_dir: paths::data_dir_from_env(g.data_dir.as_deref())?,
    })?;
    Ok(catalog.with_default_claude_home(paths::default_claude_home()))
}

/// Prints a line for a person, through [`escape_for_terminal`]: the one way table output (and
/// every error or warning) reaches a terminal.
macro_rules! say {
    () => { $crate::print_human("") };
    ($($t:tt)*) => { $crate::print_human(&format!($($t)*)) };
}
pub(crate) use say;

/// Prints `text` and a newline on stdout as one line: every control character and line break
/// escaped, so a name or a path can never forge a line of a table.
pub fn print_human(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", printable::for_terminal(text, Lines::One));
}

/// Prints `text` and a newline on stderr as one line, escaped like [`print_human`].
pub fn warn_human(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{}", printable::for_terminal(text, Lines::One));
}

/// A body of text from transcripts, file names and records (a message, a preview of several
/// lines) made safe for a terminal: line breaks and tabs stay, every other control character —
/// ESC (colours, window titles, OSC 52 clipboard writes), BEL, `\r`, C1 controls, bidirectional
/// overrides — is shown as a visible escape (the engine's `printable`, the one rule for
/// everything printed).
pub fn escape_for_terminal(text: &str) -> String {
    printable::for_terminal(text, Lines::Keep)
}

/// Prints a value as pretty JSON.
/// Written as it is encoded (no copy of the whole text in memory: `show --json` of a huge
/// transcript would otherwise hold it twice); a closed pipe (`| head`) ends it quietly.
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<(), Error> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(256 * 1024, std::io::stdout().lock());
    let written = serde_json::to_writer_pretty(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match written {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::io("cannot write to stdout", e)),
    }
}

/// `search foo -bar`: a word to leave out is written `-bar`, which the argument parser would take
/// for an unknown option. Such words of a `search` (one `-` then anything but `-` or a lone `h`)
/// are moved after a `--`, where they are query words; the query's meaning does not depend on
/// where an exclusion stands. Left as typed when the command line already has a `--`.
fn excluded_words_last(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    const GLOBAL_VALUES: [&str; 5] =
        ["--claude-home", "--fleet", "--state-dir", "--data-dir", "--desktop-store"];
    let text = |a: &std::ffi::OsString| a.to_str().map(str::to_owned).unwrap_or_default();
    if args.iter().any(|a| a == "--") {
        return args;
    }
    // The subcommand: the first word that is neither an option nor an option's value.
    let mut i = 1;
    while let Some(a) = args.get(i) {
        let a = text(a);
        if GLOBAL_VALUES.contains(&a.as_str()) {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    if args.get(i).is_none_or(|a| a != "search") {
        return args;
    }
    let (head, tail) = args.split_at(i + 1);
    let (mut kept, mut excluded) = (head.to_vec(), Vec::new());
    let mut rest = tail.iter();
    while let Some(a) = rest.next() {
        let t = text(a);
        let takes_value = t == "--limit" || GLOBAL_VALUES.contains(&t.as_str());
        if t.len() > 1 && t.starts_with('-') && !t.starts_with("--") && t != "-h" {
            excluded.push(a.clone());
        } else {
            kept.push(a.clone());
            if takes_value && let Some(v) = rest.next() {
                kept.push(v.clone());
            }
        }
    }
    if !excluded.is_empty() {
        kept.push("--".into());
        kept.extend(excluded);
    }
    kept
}
