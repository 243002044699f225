//! `corral-cli`: the engine as a command-line tool. JSON on stdout with `--json`, a readable
//! table without. Exit code 0 on success; on failure one clear line on stderr and a non-zero code.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod generate;
mod import;
mod sessions;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
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
    /// Set or clear a session's custom name.
    Rename(sessions::RenameArgs),
    /// List the fleet's agents with their session counts.
    Agents,
    #[command(flatten)]
    Import(import::ImportCommand),
    /// Write a deterministic synthetic Claude home (and fleet) for benchmarks and demos.
    Generate(generate::GenerateArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("corral-cli: {e}");
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
    match cli.command {
        Command::Sessions(a) => sessions::sessions(&catalog, &a, g.json),
        Command::Show(a) => sessions::show(&catalog, &a, g.json),
        Command::Rename(a) => sessions::rename(&catalog, &a, g.json),
        Command::Agents => sessions::agents(&catalog, g.json),
        Command::Import(c) => import::run(&catalog, &c, g.json),
        Command::Generate(_) => Ok(()),
    }
}

fn open_catalog(g: &GlobalArgs) -> Result<Catalog, Error> {
    Catalog::open(CatalogConfig {
        claude_home: paths::claude_home_from_env(g.claude_home.as_deref())?,
        fleet_file: g.fleet.clone(),
        state_dir: g.state_dir.clone(),
        data_dir: paths::data_dir_from_env(g.data_dir.as_deref())?,
    })
}

/// Prints a value as pretty JSON.
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::io("cannot encode JSON", std::io::Error::other(e)))?;
    println!("{text}");
    Ok(())
}
