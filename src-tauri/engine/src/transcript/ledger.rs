//! What one session cost, itemised by model and by day (for cost reports; the listing's one
//! figure per session is the facts scanner's, see `pricing::Spend`, with [`run_spend`] for each
//! subagent run).
//!
//! CONTRACT (owned by the cost developer).
//! - When the main transcript has `cost-state` lines, the items are Claude Code's own figures:
//!   each line is cumulative, so what a model's `costUSD` grew by since the line before is
//!   spent on the day of the last response before it. They cover every request of the
//!   session, subagents' included, so no subagent file is read — but for a session begun
//!   before Claude Code wrote them and resumed by a version that does: the responses before the
//!   last change of version ahead of the first `cost-state` line are priced by the table (the
//!   resumed run found no figure to carry on).
//! - Otherwise every response of the main transcript (every branch, inline sidechains too: they
//!   were paid for) and of each subagent run (but what a fork run copied from the main
//!   transcript: it is the main transcript's) is priced once (its last streamed chunk) by the
//!   bundled table on its UTC day; a response of a model the table lacks is counted, not priced.
//! - One pass per file, memory bounded by its number of responses.

use std::collections::{BTreeMap, HashMap};
use std::io::BufReader;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::usage::UsageMessage;
use super::{Loose, MapOr, UsageRef, record};
use crate::jsonl::{self, LineReader, Parsed};
use crate::model::CostSource;
use crate::pricing::{self, Pico, PriceTable, Request, Spend};

/// Spending of one model on one day.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerItem {
    /// The model's id, as recorded (`unknown` when a response names none).
    pub model: String,
    /// The UTC day (`YYYY-MM-DD`), when known.
    pub day: Option<String>,
    /// What was spent, in US dollars at list price (what could be priced).
    pub usd: f64,
    /// Responses whose model has no price (left out of `usd`); for Claude Code's figures, 1
    /// when it said it guessed a price.
    pub unpriced: u64,
    /// Where the figure came from.
    pub source: CostSource,
}

record! {
    struct CostLine<'a> {
        envelope { ty, is_sidechain, timestamp }
        #[serde(default, borrow)]
        request_id: Loose<'a>,
        #[serde(default, borrow)]
        version: Loose<'a>,
        #[serde(default, borrow)]
        message: MapOr<UsageMessage<'a>>,
        #[serde(default)]
        model_usage: MapOr<HashMap<String, ModelCost>>,
        #[serde(default, borrow)]
        has_unknown_model_cost: Loose<'a>,
    }
}

#[derive(Deserialize)]
struct ModelCost {
    #[serde(default, rename = "costUSD")]
    cost_usd: Option<f64>,
}

/// One response: its model, UTC day and what it used.
type Response = (String, Option<i64>, Request);

/// The lines of a file not to count.
#[derive(Clone, Copy)]
enum Skip<'a> {
    /// None.
    Nothing,
    /// Those naming the line they copy (`forkedFrom`).
    Copies,
    /// Those at these offsets (sorted).
    Lines(&'a [u64]),
}

impl Skip<'_> {
    fn skips(self, offset: u64, bytes: &[u8]) -> bool {
        match self {
            Skip::Nothing => false,
            Skip::Copies => super::forks::is_copy(bytes),
            Skip::Lines(l) => l.binary_search(&offset).is_ok(),
        }
    }
}

/// One file's responses (last chunk of each) and Claude Code's cumulative figures.
#[derive(Default)]
struct FileSpend {
    /// By `(message.id, requestId)`: order of first sight, model, day, counts.
    responses: HashMap<(String, String), (u64, Response)>,
    loose: Vec<(u64, Response)>,
    /// Responses seen.
    seen: u64,
    /// The last Claude Code version of a main-conversation response, and how many responses
    /// came before it changed last (until the first cost-state line).
    version: Option<String>,
    before_version: u64,
    /// Responses before this one are not in Claude Code's figures (a session begun before
    /// Claude Code wrote them; see `TranscriptFacts::uncovered_spend`).
    uncovered: u64,
    /// Claude Code's figures by (model, day), and each model's last cumulative one.
    recorded: BTreeMap<(String, Option<i64>), Pico>,
    last_recorded: HashMap<String, Pico>,
    saw_recorded: bool,
    unknown_model: bool,
    last_day: Option<i64>,
}

impl FileSpend {
    /// Every response of the transcript at `path` but those `skip` names.
    fn read(path: &Path, skip: Skip<'_>) -> std::io::Result<FileSpend> {
        let file = super::open_at(path, 0)?;
        let mut reader = LineReader::new(BufReader::with_capacity(256 * 1024, file), 0);
        let mut out = FileSpend::default();
        let mut scratch = Vec::new();
        while let Some(line) = reader.next_line()? {
            if !jsonl::has_type_in(line.bytes, &["assistant", "cost-state"])
                || skip.skips(line.offset, line.bytes)
            {
                continue;
            }
            if let Parsed::Value(l) =
                jsonl::parse_line_with::<CostLine<'_>>(line.bytes, &mut scratch)
            {
                out.line(&l);
            }
        }
        Ok(out)
    }

    fn line(&mut self, l: &CostLine<'_>) {
        match l.ty.as_str() {
            Some("assistant") => {
                let Some(m) = &l.message.0 else { return };
                let model = match m.model.as_str() {
                    Some("<synthetic>") => return,
                    Some(x) if !x.is_empty() => x.to_owned(),
                    _ => "unknown".to_owned(),
                };
                let day = l.timestamp.as_str().and_then(pricing::utc_day);
                self.last_day = day.or(self.last_day);
                let request = m.usage.0.as_ref().map(UsageRef::request).unwrap_or_default();
                self.note_version(l);
                let seq = self.seen;
                match m.id.as_str() {
                    Some(id) => {
                        let key = (id.to_owned(), l.request_id.as_str().unwrap_or("").to_owned());
                        let first = self.responses.get(&key).map_or(seq, |r| r.0);
                        self.seen += u64::from(first == seq);
                        self.responses.insert(key, (first, (model, day, request)));
                    }
                    None => {
                        self.seen += 1;
                        self.loose.push((seq, (model, day, request)));
                    }
                }
            }
            Some("cost-state") => {
                let Some(models) = &l.model_usage.0 else { return };
                if !self.saw_recorded {
                    self.uncovered = self.before_version;
                }
                self.saw_recorded = true;
                self.unknown_model |= l.has_unknown_model_cost.is_true();
                for (model, c) in models {
                    let now = pricing::pico(c.cost_usd.unwrap_or(0.0));
                    let before = self.last_recorded.insert(model.clone(), now).unwrap_or(0);
                    let cell = self.recorded.entry((model.clone(), self.last_day)).or_default();
                    *cell = cell.saturating_add(now.saturating_sub(before));
                }
            }
            _ => {}
        }
    }

    /// Until the first cost-state line, a main-conversation response of another Claude Code
    /// version marks where Claude Code's figures may begin (the facts scanner's rule).
    fn note_version(&mut self, l: &CostLine<'_>) {
        let Some(v) = l.version.as_str().filter(|v| !v.trim().is_empty()) else { return };
        if self.saw_recorded || l.is_sidechain.as_bool() == Some(true) {
            return;
        }
        if self.version.as_deref() != Some(v) {
            self.before_version = self.seen;
            self.version = Some(v.to_owned());
        }
    }

    /// Every response once (its last chunk): model, day, what it used.
    fn into_responses(self) -> impl Iterator<Item = Response> {
        self.into_responses_before(u64::MAX)
    }

    /// The responses Claude Code's figures do not cover (see `uncovered`).
    fn into_uncovered(self) -> impl Iterator<Item = Response> {
        let before = self.uncovered;
        self.into_responses_before(before)
    }

    /// The responses first seen before the `before`th.
    fn into_responses_before(self, before: u64) -> impl Iterator<Item = Response> {
        self.responses
            .into_values()
            .chain(self.loose)
            .filter(move |(seq, _)| *seq < before)
            .map(|(_, r)| r)
    }

    /// `responses`, priced into `cells`.
    fn price_into(
        responses: impl Iterator<Item = Response>,
        cells: &mut BTreeMap<(String, Option<i64>), Spend>,
    ) {
        let table = PriceTable::bundled();
        for (model, day, request) in responses {
            let price = table.cost(&model, day, &request);
            cells.entry((model, day)).or_default().add_price(price);
        }
    }
}

/// The responses of subagent run `run` of the session whose transcript is `main`, but those it
/// copied from the conversation so far (a fork's: they are the main transcript's, priced there).
fn read_run(run: &Path, main: &Path) -> std::io::Result<FileSpend> {
    if !super::subagents::is_fork(run) {
        return FileSpend::read(run, Skip::Copies);
    }
    // A fork named by its sidecar: its copies are known by their uuids, found in `main`.
    let copied = super::forks::inherited(run, main, true)?;
    FileSpend::read(run, Skip::Lines(&copied.lines))
}

/// What subagent run `run` of the session whose transcript is `main` cost by the bundled table:
/// each response once, every line counted (a run is all sidechain) but those it copied from the
/// main transcript. The listing's figure for one run.
pub fn run_spend(run: &Path, main: &Path) -> std::io::Result<Spend> {
    let table = PriceTable::bundled();
    let mut spend = Spend::default();
    for (model, day, request) in read_run(run, main)?.into_responses() {
        spend.add_price(table.cost(&model, day, &request));
    }
    Ok(spend)
}

/// The itemised spending of the session whose main transcript is `transcript`, with
/// `subagent_runs` its subagents' transcripts (read only when Claude Code's own figures are
/// missing). Items are by model, then day.
pub fn session_ledger(
    transcript: &Path,
    subagent_runs: &[&Path],
) -> std::io::Result<Vec<LedgerItem>> {
    let mut main = FileSpend::read(transcript, Skip::Nothing)?;
    let mut cells = BTreeMap::new();
    if main.saw_recorded {
        let unknown = main.unknown_model;
        let table = PriceTable::bundled();
        let recorded = std::mem::take(&mut main.recorded);
        // What runs of older versions spent before Claude Code's figures begin, by the table.
        FileSpend::price_into(main.into_uncovered(), &mut cells);
        let mut items: Vec<LedgerItem> = recorded
            .into_iter()
            .filter(|(_, p)| *p > 0)
            .map(|((model, day), p)| LedgerItem {
                unpriced: u64::from(unknown && table.entry_for(&model).is_none()),
                model,
                day: day.map(pricing::day_text),
                usd: pricing::usd(p),
                source: CostSource::ClaudeCode,
            })
            .chain(table_items(cells))
            .collect();
        items.sort_by(|a, b| (&a.model, &a.day).cmp(&(&b.model, &b.day)));
        return Ok(items);
    }
    FileSpend::price_into(main.into_responses(), &mut cells);
    for run in subagent_runs {
        // A run that vanished or cannot be read costs nothing here; the session's is still known.
        if let Ok(s) = read_run(run, transcript) {
            FileSpend::price_into(s.into_responses(), &mut cells);
        }
    }
    Ok(table_items(cells).collect())
}

/// Priced cells as items.
fn table_items(cells: BTreeMap<(String, Option<i64>), Spend>) -> impl Iterator<Item = LedgerItem> {
    cells.into_iter().map(|((model, day), spend)| LedgerItem {
        model,
        day: day.map(pricing::day_text),
        usd: pricing::usd(spend.priced),
        unpriced: spend.unpriced_responses,
        source: CostSource::Table,
    })
}
