//! `search` and `index`: the full-text index in the data dir, updated before each answer.

use std::time::{Duration, Instant};

use corral_engine::search::{
    IndexProgress, IndexReport, SearchIndex, SearchOptions, SearchResults, UpdateOptions,
};
use corral_engine::{Catalog, Error};

use crate::{print_json, say, warn_human};

/// How long a command waits for another Corral that is updating the index.
const WAIT_FOR_WRITER: Duration = Duration::from_secs(3);

#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Words, "exact phrases", -excluded, prefix*, and filters: agent:NAME origin:ORIGIN
    /// dir:PART role:user|assistant|tool tool:NAME is:error after:YYYY-MM-DD before:YYYY-MM-DD.
    #[arg(required = true, num_args = 1.., value_name = "QUERY")]
    query: Vec<String>,
    /// At most N sessions, best first.
    #[arg(long, default_value_t = 50)]
    limit: usize,
}

#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// Read every transcript again, from an empty index.
    #[arg(long)]
    rebuild: bool,
}

pub fn search(catalog: &Catalog, a: &SearchArgs, json: bool) -> Result<(), Error> {
    let index = SearchIndex::open(catalog.data_dir())?;
    let report = update(&index, catalog, for_answer())?;
    if report.busy {
        warn_human(
            "corral-cli: another Corral is updating the search index; answering from its last commit",
        );
    }
    let query = a.query.join(" ");
    let results = index.search(
        catalog,
        &query,
        SearchOptions { limit: a.limit, ..SearchOptions::default() },
    )?;
    if !results.complete {
        warn_human(&format!(
            "corral-cli: the search index is being built ({} of {} sessions so far); this answer is partial",
            results.indexed_sessions, results.listed_sessions
        ));
    }
    if json {
        return print_json(&results);
    }
    print_results(&results);
    Ok(())
}

pub fn index(catalog: &Catalog, a: &IndexArgs, json: bool) -> Result<(), Error> {
    let index = SearchIndex::open(catalog.data_dir())?;
    // An explicit update trusts no remembered `stat`.
    let opts =
        UpdateOptions { wait: WAIT_FOR_WRITER, rebuild: a.rebuild, ..UpdateOptions::default() };
    let report = update(&index, catalog, opts)?;
    if json {
        return print_json(&report);
    }
    if report.busy {
        say!("Another Corral is updating the search index; nothing was done.");
        return Ok(());
    }
    say!(
        "Search index of {} sessions at {}: {} files read, {} appended, {} unchanged, {} removed; {} messages added, {} bytes read in {} ms.",
        report.sessions,
        index.dir().display(),
        report.files_indexed,
        report.files_appended,
        report.files_unchanged,
        report.files_removed,
        report.messages_added,
        report.bytes_read,
        report.took_ms
    );
    Ok(())
}

/// How a command updates the index before it answers from it: quiet subagent transcripts'
/// remembered `stat`s are trusted (see `UpdateOptions::trust_quiet`).
pub(crate) fn for_answer() -> UpdateOptions {
    UpdateOptions { wait: WAIT_FOR_WRITER, trust_quiet: true, ..UpdateOptions::default() }
}

/// Updates the index. A build from nothing (or of many sessions) tells stderr how far it has
/// come, at most twice a second; a small incremental update says nothing.
pub(crate) fn update(
    index: &SearchIndex,
    catalog: &Catalog,
    opts: UpdateOptions,
) -> Result<IndexReport, Error> {
    let from_nothing = opts.rebuild || index.indexed_sessions() == 0;
    let mut last: Option<Instant> = None;
    let report = index.update(catalog, opts, &mut |p: IndexProgress| {
        let loud = from_nothing || p.total >= 100;
        let due =
            last.is_none_or(|t| t.elapsed() >= Duration::from_millis(500)) || p.done == p.total;
        if loud && p.total > 0 && due {
            warn_human(&format!("corral-cli: indexing {} of {} sessions", p.done, p.total));
            last = Some(Instant::now());
        }
    })?;
    for w in &report.warnings {
        warn_human(&format!("warning: {}: {}", w.path, w.message));
    }
    Ok(report)
}

fn print_results(r: &SearchResults) {
    // Past the bound the counts are lower bounds: "10000+ messages".
    let plus = if r.totals_exact { "" } else { "+" };
    let s = |n: u64, one: &str| {
        if n == 1 && r.totals_exact { format!("1 {one}") } else { format!("{n}{plus} {one}s") }
    };
    say!(
        "Found {} in {} for {:?}",
        s(r.total_matches, "message"),
        s(r.total_sessions, "session"),
        r.query
    );
    for session in &r.sessions {
        let name = session
            .custom_name
            .as_deref()
            .or(session.auto_name.as_deref())
            .unwrap_or("Untitled session");
        let agent =
            session.agent_name.as_deref().map(|a| format!("  [agent {a}]")).unwrap_or_default();
        say!();
        say!("{name}  ({}){agent}", session.working_directory);
        say!("  {}", session.session_id);
        for hit in &session.hits {
            let marked: String = hit
                .snippet_parts
                .iter()
                .map(|p| if p.hit { format!("[{}]", p.text) } else { p.text.clone() })
                .collect::<String>()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let who = match (&hit.tool_name, &hit.agent_id) {
                (Some(t), _) => format!("{:?} {t}", hit.role).to_lowercase(),
                (None, Some(a)) => format!("{:?} (subagent {a})", hit.role).to_lowercase(),
                (None, None) => format!("{:?}", hit.role).to_lowercase(),
            };
            let who = if hit.rewound { format!("{who} (rewound)") } else { who };
            let when = hit
                .timestamp
                .as_deref()
                .map(|t| t.get(..16).unwrap_or(t).replace('T', " "))
                .unwrap_or_default();
            say!("  {who:<14} {when}  {marked}");
        }
    }
}
