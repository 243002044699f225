//! Cost reports: what sessions cost at list price, rolled up by session, agent, folder, model or
//! day, over a range of days (`corral-cli cost`).
//!
//! CONTRACT (owned by the cost developer).
//! - Each session is itemised by [`crate::transcript::ledger`] (Claude Code's own figures where
//!   it wrote them, else the bundled table over the main transcript and every subagent run),
//!   so a session spanning days is split by day and a model's share is its own.
//! - `since` keeps the items of that UTC day and later (an item with no day is kept).
//! - Figures are list-price equivalents: what the API would charge. A subscription pays
//!   otherwise; the report says so.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::attribution::AttributionIndex;
use crate::catalog::{Catalog, ListOptions};
use crate::error::{Error, Result};
use crate::model::{CostSource, SessionSummary};
use crate::pricing::PriceTable;
use crate::transcript::ledger::{LedgerItem, session_ledger};
use crate::transcript::subagents;

/// What a report is rolled up by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum CostBy {
    /// One row per session.
    Session,
    /// Per owning agent (sessions no agent owns together, as `None`).
    Agent,
    /// Per real working directory.
    Folder,
    /// Per model.
    Model,
    /// Per UTC day.
    Day,
    /// Per herdctl job (the job that claims the session), beside the job's own figure.
    Job,
}

/// One row of a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CostRow {
    /// The session id, agent, folder, model or day (`None`: no agent, or no day known).
    pub key: Option<String>,
    /// For a session: the name a person sees; for a job: its agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub name: Option<String>,
    /// For a job: what its own record says it cost (`usage.total_cost_usd`), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub job_usd: Option<f64>,
    /// US dollars at list price, of what could be priced.
    pub usd: f64,
    /// Responses of a model with no known price (left out of `usd`).
    #[ts(type = "number")]
    pub unpriced: u64,
    /// Sessions that spent in this row.
    #[ts(type = "number")]
    pub sessions: u64,
    /// Claude Code's own figures, the table's, or both.
    pub source: CostSource,
}

/// A cost report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CostReport {
    /// What the rows are.
    pub by: CostBy,
    /// The first day counted (`YYYY-MM-DD`), if limited.
    pub since: Option<String>,
    /// Most expensive first (by day: oldest first).
    pub rows: Vec<CostRow>,
    /// Every row together.
    pub total_usd: f64,
    /// What the figures are.
    pub note: String,
    /// Where the table's prices came from, and when they were taken.
    pub prices: String,
}

/// What every session of `catalog` cost, rolled up `by`, from UTC day `since` (`YYYY-MM-DD`).
/// A `since` that is not a `YYYY-MM-DD` day is refused.
pub fn report(catalog: &Catalog, by: CostBy, since: Option<&str>) -> Result<CostReport> {
    let since = since.map(parse_day).transpose()?;
    let since = since.as_deref();
    let listing = catalog.all_sessions(ListOptions { limit: None, include_temp: true })?;
    let sessions: Vec<&SessionSummary> = listing
        .groups
        .iter()
        .flat_map(|g| &g.sessions)
        // A session whose transcript was last written before `since` spent nothing since (its
        // subagents' runs end before the main transcript records their results).
        .filter(|s| since.is_none_or(|d| s.mtime.as_str() >= d))
        .collect();
    let ledgers: Vec<(&SessionSummary, Vec<LedgerItem>)> = sessions
        .par_iter()
        .map(|s| {
            let main = PathBuf::from(&s.transcript_path);
            let runs = subagents::list_subagents(&main, &s.session_id);
            let paths: Vec<&Path> = runs.iter().map(|r| Path::new(&r.transcript_path)).collect();
            // A transcript that vanished since it was listed spent nothing that can be shown.
            let items = session_ledger(&main, &paths).unwrap_or_default();
            (*s, items)
        })
        .collect();
    let scan = catalog.last_scan()?;
    let mut rows = roll_up(&ledgers, by, since, &scan.attribution);
    if by == CostBy::Day {
        rows.sort_by(|a, b| a.key.cmp(&b.key));
    } else {
        rows.sort_by(|a, b| b.usd.total_cmp(&a.usd).then_with(|| a.key.cmp(&b.key)));
    }
    let table = PriceTable::bundled();
    Ok(CostReport {
        by,
        since: since.map(str::to_owned),
        total_usd: rows.iter().map(|r| r.usd).sum(),
        rows,
        note: "List-price equivalents: what the API would charge for these requests. A \
               subscription pays otherwise."
            .to_owned(),
        prices: format!("{}, taken {}", table.source, table.generated),
    })
}

/// The rows of `ledgers` by `by` (in no order).
fn roll_up(
    ledgers: &[(&SessionSummary, Vec<LedgerItem>)],
    by: CostBy,
    since: Option<&str>,
    attribution: &AttributionIndex,
) -> Vec<CostRow> {
    // Each row with the last session counted in it (a session's items come together).
    let mut rows: HashMap<Option<String>, (CostRow, Option<&str>)> = HashMap::new();
    for (s, items) in ledgers {
        let job = attribution.job(&s.session_id);
        if by == CostBy::Job && job.is_none() {
            continue;
        }
        for item in items.iter().filter(|i| kept(i, since)) {
            let key = match by {
                CostBy::Session => Some(s.session_id.clone()),
                CostBy::Agent => s.agent_name.clone(),
                CostBy::Folder => Some(s.working_directory.clone()),
                CostBy::Model => Some(item.model.clone()),
                CostBy::Day => item.day.clone(),
                CostBy::Job => job.map(|j| j.id.clone()),
            };
            let (row, last) = rows.entry(key.clone()).or_insert_with(|| {
                let (name, job_usd) = match by {
                    CostBy::Session => (Some(s.display_name().to_owned()), None),
                    CostBy::Job => (job.map(|j| j.agent.clone()), job.and_then(|j| j.cost)),
                    _ => (None, None),
                };
                let job_usd = job_usd.map(crate::pricing::usd);
                let row = CostRow {
                    key,
                    name,
                    job_usd,
                    usd: 0.0,
                    unpriced: 0,
                    sessions: 0,
                    source: item.source,
                };
                (row, None)
            });
            row.usd += item.usd;
            row.unpriced += item.unpriced;
            if row.source != item.source {
                row.source = CostSource::Mixed;
            }
            if *last != Some(s.session_id.as_str()) {
                row.sessions += 1;
                *last = Some(s.session_id.as_str());
            }
        }
    }
    rows.into_values().map(|(r, _)| r).collect()
}

/// `text` as a `YYYY-MM-DD` day (as written: comparisons are on the text), or `invalid-input`.
pub fn parse_day(text: &str) -> Result<String> {
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .map(|d| d.format("%Y-%m-%d").to_string())
        .map_err(|_| Error::InvalidInput(format!("{text:?} is not a day (YYYY-MM-DD)")))
}

fn kept(item: &LedgerItem, since: Option<&str>) -> bool {
    match (since, item.day.as_deref()) {
        (Some(since), Some(day)) => day >= since,
        _ => true,
    }
}
