//! Counting a transcript's token usage as its lines stream by: each response once, however many
//! lines it was streamed in, with bounded state (resumable with the rest of the scanner).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{FactLine, FactsScanner, RecordedCost, TranscriptFacts};
use crate::model::{Cost, CostSource, TokenTotals, Usage};
use crate::pricing::{PriceTable, Request, Spend};
use crate::transcript::UsageRef;

/// How many recent response keys are remembered to merge streamed chunks.
const RECENT_KEYS: usize = 8;

/// The key of one response: its `message.id` and `requestId`, hashed.
fn response_key(id: &str, request_id: &str) -> u64 {
    crate::stable_hash::fnv1a_of(&[id.as_bytes(), b"\x1f", request_id.as_bytes()])
}

/// Token usage counted once per `(message.id, requestId)`, from the last line of each response.
/// Bounded state: only the current response and a few recent keys are kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageAccumulator {
    /// Responses finished (every one before the current).
    committed: TokenTotals,
    /// Keys are hashes of `(message.id, requestId)` (see [`response_key`]): a saved state is
    /// small, and two responses a few apart hashing alike is a 2^-61 chance.
    current_key: Option<u64>,
    /// The current response as its newest line counts it.
    current: TokenTotals,
    recent_keys: VecDeque<u64>,
    turn_count: u64,
    input_tokens: u64,
    model: Option<String>,
    /// Responses finished, priced.
    #[serde(default)]
    spent: Spend,
    /// The current response as a price names it (priced when the next one starts).
    #[serde(default)]
    bill: Option<Bill>,
}

/// One subagent run of a session, as it was when read: its file (relative to the session's
/// transcript folder), size and modification time, and what its responses cost.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSpend {
    /// The run's transcript, relative to the folder of the session's transcript.
    pub file: String,
    /// Its size when read.
    pub size: u64,
    /// Its modification time when read (nanoseconds since the epoch).
    pub mtime_ns: i128,
    /// What its responses cost.
    pub spend: Spend,
}

impl TranscriptFacts {
    /// What the session cost at list price: Claude Code's own figure when it wrote one (it
    /// covers every request, subagents' included; the table prices what runs of older versions
    /// spent before it, see [`TranscriptFacts::uncovered_spend`]), else the table's price of
    /// every response in this file and in its subagents' runs — never both added. `None` when it
    /// made no request.
    pub fn cost(&self) -> Option<Cost> {
        if let Some(r) = &self.recorded_cost {
            let u = &self.uncovered_spend;
            return Some(Cost {
                usd: crate::pricing::usd(r.total.saturating_add(u.priced)),
                unpriced: r.unknown_model || u.unpriced_responses > 0,
                source: if u.responses() > 0 { CostSource::Mixed } else { CostSource::ClaudeCode },
            });
        }
        let mut s = self.spend.clone();
        s.add(&self.runs_spend);
        (s.responses() > 0).then(|| Cost {
            usd: crate::pricing::usd(s.priced),
            unpriced: s.unpriced_responses > 0,
            source: CostSource::Table,
        })
    }
}

/// One response to price: its model, its UTC day and what it used.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Bill {
    model: Option<String>,
    day: Option<i64>,
    request: Request,
}

impl Bill {
    /// Counts this response into `spend`, at the table's price.
    fn charge(&self, spend: &mut Spend) {
        let model = self.model.as_deref().unwrap_or_default();
        spend.add_price(PriceTable::bundled().cost(model, self.day, &self.request));
    }
}

impl FactsScanner {
    /// A `cost-state` line: Claude Code's figure so far. The first one fixes what it does not
    /// cover (see [`TranscriptFacts::uncovered_spend`]).
    pub(super) fn note_cost_state(&mut self, l: &FactLine<'_>) {
        let Some(usd) = l.total_cost_usd.as_f64() else { return };
        if self.facts.recorded_cost.is_none() {
            self.facts.uncovered_spend = self.before_version.take().unwrap_or_default();
        }
        self.facts.recorded_cost = Some(RecordedCost {
            total: crate::pricing::pico(usd),
            unknown_model: l.has_unknown_model_cost.is_true(),
        });
    }

    /// A conversation line's Claude Code version: another version resumed the session, so what
    /// was spent so far is not in the figure of a first cost-state line that comes after.
    pub(super) fn note_version(&mut self, v: String) {
        if self.facts.recorded_cost.is_none() && self.facts.version.as_ref() != Some(&v) {
            self.before_version = Some(self.spend_so_far());
        }
        self.facts.version = Some(v);
    }

    /// An assistant line of the other side (see `side_usage`), priced on its UTC day.
    pub(super) fn price_side_line(&mut self, l: &FactLine<'_>) {
        let Some(msg) = l.message.0.as_ref() else { return };
        let model = msg.model.as_str();
        if model == Some("<synthetic>") {
            return;
        }
        let day = l.timestamp.as_str().and_then(crate::time::millis).map(crate::pricing::day_of_ms);
        let usage = msg.usage.0.as_ref();
        self.side_usage.add(msg.id.as_str(), l.request_id.as_str(), model, day, usage);
    }

    /// What every response so far cost, both sides.
    pub(super) fn spend_so_far(&self) -> Spend {
        let mut s = self.usage.spend();
        s.add(&self.side_usage.spend());
        s
    }
}

impl UsageAccumulator {
    /// Records one non-synthetic assistant line. Returns true when it starts a new response.
    pub(crate) fn add(
        &mut self,
        id: Option<&str>,
        request_id: Option<&str>,
        model: Option<&str>,
        day: Option<i64>,
        usage: Option<&UsageRef<'_>>,
    ) -> bool {
        let model = model.filter(|m| !m.is_empty() && *m != "<synthetic>");
        if let Some(m) = model
            && self.model.as_deref() != Some(m)
        {
            self.model = Some(m.to_owned());
        }
        let counts = usage.map(UsageRef::totals);
        let request = usage.map(UsageRef::request).unwrap_or_default();
        if let Some(u) = usage {
            self.input_tokens = u.context_tokens();
        }
        let bill = || Bill { model: model.map(str::to_owned), day, request };
        let Some(id) = id else {
            self.commit();
            self.turn_count += 1;
            self.committed.add(&counts.unwrap_or_default());
            bill().charge(&mut self.spent);
            return true;
        };
        let key = response_key(id, request_id.unwrap_or(""));
        if self.current_key == Some(key) {
            // A later chunk of the current response: its counts are the newest.
            if let Some(c) = counts {
                self.current = c;
                if let Some(b) = &mut self.bill {
                    b.request = request;
                }
            }
            return false;
        }
        if self.recent_keys.contains(&key) {
            // A chunk of an earlier response after another one started: already counted.
            return false;
        }
        self.commit();
        self.current_key = Some(key);
        self.current = counts.unwrap_or_default();
        self.bill = Some(bill());
        self.turn_count += 1;
        self.recent_keys.push_back(key);
        while self.recent_keys.len() > RECENT_KEYS {
            self.recent_keys.pop_front();
        }
        true
    }

    fn commit(&mut self) {
        if let Some(b) = self.bill.take() {
            b.charge(&mut self.spent);
        }
        self.committed.add(&self.current);
        self.current = TokenTotals::default();
        self.current_key = None;
    }

    /// The usage so far.
    pub fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens,
            output_tokens: self.tokens().output_tokens,
            turn_count: self.turn_count,
            model: self.model.clone(),
        }
    }

    /// What every response so far cost at list price.
    pub fn spend(&self) -> Spend {
        let mut s = self.spent.clone();
        if let Some(b) = &self.bill {
            b.charge(&mut s);
        }
        s
    }

    /// The tokens of every response so far, by kind.
    pub fn tokens(&self) -> TokenTotals {
        let mut t = self.committed;
        t.add(&self.current);
        t
    }
}
