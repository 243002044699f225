//! `corral-cli cost`: what sessions cost at list price, rolled up by session, agent, folder,
//! model or day (the engine's `costs` report).

use corral_engine::costs::{self, CostBy, CostRow};
use corral_engine::model::CostSource;
use corral_engine::{Catalog, Error};

use crate::{print_json, say};

#[derive(Debug, clap::Args)]
pub struct CostArgs {
    /// What each row is.
    #[arg(long, value_enum, default_value = "session")]
    by: By,
    /// Count only what was spent on this UTC day and later (YYYY-MM-DD).
    #[arg(long, value_parser = day)]
    since: Option<String>,
    /// Print only the first N rows (every row counts in the total).
    #[arg(long)]
    limit: Option<usize>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum By {
    Session,
    Agent,
    Folder,
    Model,
    Day,
    /// Per herdctl job, beside the job's own figure.
    Job,
}

/// The engine's rule for a day, as a flag's parser (a bad day is a usage error, exit 2).
fn day(text: &str) -> Result<String, String> {
    costs::parse_day(text).map_err(|e| e.to_string())
}

pub fn cost(catalog: &Catalog, a: &CostArgs, json: bool) -> Result<(), Error> {
    let by = match a.by {
        By::Session => CostBy::Session,
        By::Agent => CostBy::Agent,
        By::Folder => CostBy::Folder,
        By::Model => CostBy::Model,
        By::Day => CostBy::Day,
        By::Job => CostBy::Job,
    };
    let mut report = costs::report(catalog, by, a.since.as_deref())?;
    if let Some(n) = a.limit {
        report.rows.truncate(n);
    }
    if json {
        return print_json(&report);
    }
    if report.rows.is_empty() {
        say!(
            "Nothing was spent{}.",
            a.since.as_deref().map(|d| format!(" since {d}")).unwrap_or_default()
        );
    }
    for r in &report.rows {
        let sessions = if r.sessions == 1 { "session " } else { "sessions" };
        say!("{:>12}  {:>4} {sessions}  {}{}", money(r), r.sessions, label(r, by), source(r));
    }
    say!("{:>12}  total", format!("${:.2}", report.total_usd));
    say!("{}", report.note);
    say!("Prices: {}.", report.prices);
    Ok(())
}

/// `$1.23`; `$1.23+` when responses with no known price are left out; `~$1.23` when Claude Code
/// guessed a price for a model it did not know; "price unknown" (never `$0.00`) when nothing
/// could be priced.
fn money(r: &CostRow) -> String {
    match (r.usd, r.unpriced, r.source) {
        (usd, 0, _) => format!("${usd:.2}"),
        (_, _, CostSource::ClaudeCode) => format!("~${:.2}", r.usd),
        (0.0, _, _) => "price unknown".to_owned(),
        (usd, _, _) => format!("${usd:.2}+"),
    }
}

fn label(r: &CostRow, by: CostBy) -> String {
    let key = r.key.clone().unwrap_or_else(|| match by {
        CostBy::Agent => "(no agent)".to_owned(),
        _ => "(unknown)".to_owned(),
    });
    match &r.name {
        Some(n) => format!("{key}  {n}"),
        None => key,
    }
}

fn source(r: &CostRow) -> String {
    let unpriced = match (r.unpriced, r.source) {
        (0, _) => String::new(),
        (_, CostSource::ClaudeCode) => {
            " (includes Claude Code's own guess for a model it has no price for)".to_owned()
        }
        (n, _) => format!(" ({n} responses of a model with no known price left out)"),
    };
    let from = match r.source {
        CostSource::ClaudeCode => "",
        CostSource::Table => "  [priced by Corral]",
        CostSource::Mixed => "  [partly priced by Corral]",
    };
    // A job's own figure beside Corral's, with the difference.
    let job = r.job_usd.map_or_else(String::new, |j| {
        format!("  (the job's record: ${j:.2}, Corral {:+.2})", r.usd - j)
    });
    format!("{from}{unpriced}{job}")
}
