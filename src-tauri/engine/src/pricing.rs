//! What a response cost at list price: the bundled price table and the arithmetic that agrees
//! with Claude Code's own figures.
//!
//! CONTRACT (owned by the cost developer).
//! - The table is `data/prices.json`, generated from the `genai-prices` package by
//!   `make prices` (`scripts/update-prices.py`) and checked in with its source and date. Nothing
//!   is fetched at run time.
//! - A model is priced by the first table entry whose `match` accepts its id (text clauses ignore
//!   case, as the source's own do); a model no entry accepts has **no price** (never $0).
//! - Of an entry's dated prices, the last one started on or before the response's UTC day
//!   applies (the newest when the day is unknown).
//! - A response pays, per kind: uncached input, output, cache reads, five-minute and one-hour
//!   cache writes (a write the transcript does not split is a five-minute one, as Claude Code
//!   prices it), and web searches. A tiered price applies its tier to *every* token of a request
//!   whose whole prompt (input + cache reads + cache writes) is above the tier's start.
//! - Amounts are whole pico-dollars (10⁻¹² USD): every listed price is a whole number of them
//!   per token, so sums are exact and do not depend on their order.

use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

use serde::{Deserialize, Serialize};

/// The bundled table, as generated (see the module's contract).
pub const PRICES_JSON: &str = include_str!("../data/prices.json");

/// A hash of the bundled table: cached costs priced with another table are priced again.
pub const TABLE_FINGERPRINT: u32 = {
    let mut rest = PRICES_JSON.as_bytes();
    let mut h: u32 = 0x811c_9dc5;
    while let [b, tail @ ..] = rest {
        h = (h ^ *b as u32).wrapping_mul(0x0100_0193);
        rest = tail;
    }
    h
};

/// 10⁻¹² USD.
pub type Pico = u64;

/// Pico-dollars in one dollar.
pub const PICO_PER_USD: f64 = 1e12;

/// What some responses cost at list price (the bundled table), each response once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spend {
    /// What the priced responses cost.
    pub priced: Pico,
    /// Responses whose model the table prices.
    pub priced_responses: u64,
    /// Responses whose model it does not (or that name none).
    pub unpriced_responses: u64,
}

impl Spend {
    /// Counts one response, at `price` (`None`: its model has no price).
    pub fn add_price(&mut self, price: Option<Pico>) {
        match price {
            Some(p) => {
                self.priced = self.priced.saturating_add(p);
                self.priced_responses += 1;
            }
            None => self.unpriced_responses += 1,
        }
    }

    /// Counts `other`'s responses too.
    pub fn add(&mut self, other: &Spend) {
        self.priced = self.priced.saturating_add(other.priced);
        self.priced_responses = self.priced_responses.saturating_add(other.priced_responses);
        self.unpriced_responses = self.unpriced_responses.saturating_add(other.unpriced_responses);
    }

    /// Responses seen, priced or not.
    pub fn responses(&self) -> u64 {
        self.priced_responses.saturating_add(self.unpriced_responses)
    }
}

/// What one API response used, by the kinds a price names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Request {
    /// Input tokens not read from or written to the cache.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the cache.
    pub cache_read: u64,
    /// Input tokens written to the five-minute cache (and writes the transcript does not split).
    pub cache_write_5m: u64,
    /// Input tokens written to the one-hour cache.
    pub cache_write_1h: u64,
    /// Server-side web searches.
    pub web_searches: u64,
}

impl Request {
    /// The whole prompt: what a tier's threshold is compared with.
    pub fn prompt(&self) -> u64 {
        self.input
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write_5m)
            .saturating_add(self.cache_write_1h)
    }
}

/// A price per token in pico-dollars: flat, or tiered by the request's prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rate {
    Flat(Pico),
    /// The base price, then `(above, price)` pairs in ascending order.
    Tiered(Pico, Vec<(u64, Pico)>),
}

impl Rate {
    fn per_token(&self, prompt: u64) -> Pico {
        match self {
            Self::Flat(p) => *p,
            Self::Tiered(base, tiers) => {
                tiers.iter().rev().find(|(above, _)| prompt > *above).map_or(*base, |(_, p)| *p)
            }
        }
    }
}

/// One model's prices from one day on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rates {
    /// Days since 1970-01-01 (UTC) the prices start on; `None`: always.
    from: Option<i64>,
    input: Rate,
    output: Rate,
    cache_read: Rate,
    cache_write_5m: Rate,
    cache_write_1h: Rate,
    /// Per search.
    web_search: Pico,
}

impl Rates {
    fn cost(&self, r: &Request) -> Pico {
        let prompt = r.prompt();
        let kinds = [
            (&self.input, r.input),
            (&self.output, r.output),
            (&self.cache_read, r.cache_read),
            (&self.cache_write_5m, r.cache_write_5m),
            (&self.cache_write_1h, r.cache_write_1h),
        ];
        kinds
            .iter()
            .map(|(rate, n)| rate.per_token(prompt).saturating_mul(*n))
            .fold(self.web_search.saturating_mul(r.web_searches), Pico::saturating_add)
    }
}

/// Which model ids an entry prices.
#[derive(Debug, Clone)]
enum Matcher {
    Equals(String),
    StartsWith(String),
    EndsWith(String),
    Contains(String),
    Regex(regex::Regex),
    Or(Vec<Matcher>),
    And(Vec<Matcher>),
}

impl Matcher {
    /// `lower` is `id` in lower case (text clauses ignore case; a pattern reads `id` as it is).
    fn accepts(&self, id: &str, lower: &str) -> bool {
        match self {
            Self::Equals(s) => lower == s,
            Self::StartsWith(s) => lower.starts_with(s.as_str()),
            Self::EndsWith(s) => lower.ends_with(s.as_str()),
            Self::Contains(s) => lower.contains(s.as_str()),
            Self::Regex(r) => r.is_match(id),
            Self::Or(all) => all.iter().any(|m| m.accepts(id, lower)),
            Self::And(all) => all.iter().all(|m| m.accepts(id, lower)),
        }
    }
}

#[derive(Debug, Clone)]
struct Entry {
    id: String,
    matcher: Matcher,
    /// Oldest first.
    rates: Vec<Rates>,
}

/// A price table (the bundled one is [`PriceTable::bundled`]).
#[derive(Debug)]
pub struct PriceTable {
    entries: Vec<Entry>,
    /// Where the prices came from, as the table says.
    pub source: String,
    /// The day the table was generated.
    pub generated: String,
    /// Which entry prices each model id seen so far: a listing prices every response, and a
    /// home uses a handful of models (bounded: ids past [`MEMO_MODELS`] are matched each time).
    memo: RwLock<HashMap<String, Option<usize>>>,
}

/// How many model ids a table remembers its entry for.
const MEMO_MODELS: usize = 256;

/// Why a table could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("price table: {0}")]
pub struct TableError(String);

impl PriceTable {
    /// The table built into Corral. An unreadable one (a build defect, caught by its test)
    /// prices nothing: every model reads as "price unknown", never $0.
    pub fn bundled() -> &'static PriceTable {
        static TABLE: LazyLock<PriceTable> = LazyLock::new(|| {
            PriceTable::parse(PRICES_JSON).unwrap_or_else(|_| PriceTable {
                entries: Vec::new(),
                source: String::new(),
                generated: String::new(),
                memo: RwLock::default(),
            })
        });
        &TABLE
    }

    /// Reads a table in the generated format.
    pub fn parse(json: &str) -> Result<PriceTable, TableError> {
        let raw: wire::Table = serde_json::from_str(json).map_err(|e| TableError(e.to_string()))?;
        let entries = raw
            .models
            .into_iter()
            .map(|m| {
                let matcher =
                    wire::matcher(m.matcher).map_err(|e| TableError(format!("{}: {e}", m.id)))?;
                let mut rates = m
                    .prices
                    .into_iter()
                    .map(wire::rates)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| TableError(format!("{}: {e}", m.id)))?;
                rates.sort_by_key(|r| r.from.unwrap_or(i64::MIN));
                Ok(Entry { id: m.id, matcher, rates })
            })
            .collect::<Result<Vec<_>, TableError>>()?;
        Ok(PriceTable {
            entries,
            source: raw.source,
            generated: raw.generated,
            memo: RwLock::default(),
        })
    }

    /// The table entry that prices `model` (its id in the table), if any.
    pub fn entry_for(&self, model: &str) -> Option<&str> {
        self.entry(model).map(|e| e.id.as_str())
    }

    fn entry(&self, model: &str) -> Option<&Entry> {
        // A poisoned memo is only a cache: matching again gives the same answer.
        if let Some(found) = self.memo.read().ok().and_then(|m| m.get(model).copied()) {
            return found.and_then(|i| self.entries.get(i));
        }
        let lower = model.to_lowercase();
        let found = self.entries.iter().position(|e| e.matcher.accepts(model, &lower));
        if let Ok(mut m) = self.memo.write()
            && m.len() < MEMO_MODELS
        {
            m.insert(model.to_owned(), found);
        }
        found.and_then(|i| self.entries.get(i))
    }

    /// What `request` to `model` cost on `day` (days since 1970-01-01 UTC; `None`: today's
    /// prices), or `None` when the table has no price for the model.
    pub fn cost(&self, model: &str, day: Option<i64>, request: &Request) -> Option<Pico> {
        let e = self.entry(model)?;
        let applies = |r: &&Rates| match (r.from, day) {
            (None, _) | (Some(_), None) => true,
            (Some(from), Some(d)) => from <= d,
        };
        let rates = e.rates.iter().rev().find(applies)?;
        Some(rates.cost(request))
    }
}

/// Days since 1970-01-01 of an RFC 3339 timestamp's UTC date.
pub fn utc_day(timestamp: &str) -> Option<i64> {
    crate::time::millis(timestamp).map(day_of_ms)
}

/// Days since 1970-01-01 of a UTC instant in milliseconds since then (the one rule for the day
/// a price applies on).
pub fn day_of_ms(ms: i64) -> i64 {
    ms.div_euclid(86_400_000)
}

/// `YYYY-MM-DD` of days since 1970-01-01 (empty when out of range).
pub fn day_text(day: i64) -> String {
    chrono::DateTime::from_timestamp(day.saturating_mul(86_400), 0)
        .map_or_else(String::new, |t| t.format("%Y-%m-%d").to_string())
}

/// Pico-dollars as dollars.
#[allow(clippy::cast_precision_loss)] // A cost above 2^53 pico-dollars ($9,007) loses a fraction of a cent at most.
pub fn usd(pico: Pico) -> f64 {
    pico as f64 / PICO_PER_USD
}

/// Dollars as pico-dollars (negative, NaN and infinite amounts read as none).
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // Checked finite and ≥ 0; saturates.
pub fn pico(usd: f64) -> Pico {
    if usd.is_finite() && usd > 0.0 { (usd * PICO_PER_USD).round() as Pico } else { 0 }
}

/// The generated file's shape.
mod wire {
    use serde::Deserialize;

    use super::{Matcher, Pico, Rate, Rates};

    #[derive(Deserialize)]
    pub(super) struct Table {
        pub source: String,
        pub generated: String,
        pub models: Vec<Model>,
    }

    #[derive(Deserialize)]
    pub(super) struct Model {
        pub id: String,
        #[serde(rename = "match")]
        pub matcher: Clause,
        pub prices: Vec<Prices>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) enum Clause {
        Equals(String),
        StartsWith(String),
        EndsWith(String),
        Contains(String),
        Regex(String),
        Or(Vec<Clause>),
        And(Vec<Clause>),
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    pub(super) enum Price {
        Flat(String),
        Tiered { base: String, tiers: Vec<Tier> },
    }

    #[derive(Deserialize)]
    pub(super) struct Tier {
        above: u64,
        price: String,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct Prices {
        from: Option<String>,
        input: Option<Price>,
        output: Option<Price>,
        cache_read: Option<Price>,
        cache_write5m: Option<Price>,
        cache_write1h: Option<Price>,
        web_search_per_thousand: Option<String>,
    }

    pub(super) fn matcher(c: Clause) -> Result<Matcher, String> {
        Ok(match c {
            Clause::Equals(s) => Matcher::Equals(s.to_lowercase()),
            Clause::StartsWith(s) => Matcher::StartsWith(s.to_lowercase()),
            Clause::EndsWith(s) => Matcher::EndsWith(s.to_lowercase()),
            Clause::Contains(s) => Matcher::Contains(s.to_lowercase()),
            Clause::Regex(r) => Matcher::Regex(regex::Regex::new(&r).map_err(|e| e.to_string())?),
            Clause::Or(all) => Matcher::Or(all.into_iter().map(matcher).collect::<Result<_, _>>()?),
            Clause::And(all) => {
                Matcher::And(all.into_iter().map(matcher).collect::<Result<_, _>>()?)
            }
        })
    }

    pub(super) fn rates(p: Prices) -> Result<Rates, String> {
        let from = match p.from {
            Some(d) => {
                let day = chrono::NaiveDate::parse_from_str(&d, "%Y-%m-%d")
                    .map_err(|e| format!("{d}: {e}"))?;
                Some(day.signed_duration_since(chrono::NaiveDate::default()).num_days())
            }
            None => None,
        };
        let rate = |p: Option<Price>| -> Result<Rate, String> {
            Ok(match p {
                None => Rate::Flat(0),
                Some(Price::Flat(s)) => Rate::Flat(per_token(&s, 1_000_000)?),
                Some(Price::Tiered { base, tiers }) => Rate::Tiered(
                    per_token(&base, 1_000_000)?,
                    tiers
                        .into_iter()
                        .map(|t| Ok((t.above, per_token(&t.price, 1_000_000)?)))
                        .collect::<Result<_, String>>()?,
                ),
            })
        };
        Ok(Rates {
            from,
            input: rate(p.input)?,
            output: rate(p.output)?,
            cache_read: rate(p.cache_read)?,
            cache_write_5m: rate(p.cache_write5m)?,
            cache_write_1h: rate(p.cache_write1h)?,
            web_search: match p.web_search_per_thousand {
                Some(s) => per_token(&s, 1_000)?,
                None => 0,
            },
        })
    }

    /// An exact decimal of dollars per `per` units, as pico-dollars per unit.
    pub(super) fn per_token(decimal: &str, per: u64) -> Result<Pico, String> {
        let bad = || format!("not a price: {decimal:?}");
        let (whole, frac) = decimal.split_once('.').unwrap_or((decimal, ""));
        if whole.is_empty() && frac.is_empty()
            || !whole.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
            || frac.len() > 12
        {
            return Err(bad());
        }
        let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| bad())? };
        let frac_pico: u64 = if frac.is_empty() {
            0
        } else {
            let digits: u64 = frac.parse().map_err(|_| bad())?;
            digits * 10u64.pow(12 - u32::try_from(frac.len()).map_err(|_| bad())?)
        };
        let total = whole.checked_mul(1_000_000_000_000).and_then(|w| w.checked_add(frac_pico));
        let total = total.ok_or_else(bad)?;
        if total % per != 0 {
            return Err(format!("{decimal} per {per} is not a whole number of pico-dollars"));
        }
        Ok(total / per)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn usd_of(model: &str, day: Option<&str>, r: Request) -> Option<f64> {
        let day = day.map(|d| utc_day(&format!("{d}T12:00:00Z")).unwrap());
        PriceTable::bundled().cost(model, day, &r).map(usd)
    }

    /// A prompt of 212,000 tokens.
    const LONG: Request = Request {
        input: 150_000,
        output: 1000,
        cache_read: 60_000,
        cache_write_5m: 0,
        cache_write_1h: 2000,
        web_searches: 0,
    };

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn the_bundled_table_reads_and_names_its_source() {
        let t = PriceTable::parse(PRICES_JSON).expect("the bundled table reads");
        assert!(t.entries.len() >= 20, "{} entries", t.entries.len());
        assert!(t.source.starts_with("genai-prices "), "{}", t.source);
        assert_eq!(t.generated.len(), 10);
    }

    // The figures below are what Claude Code 2.1.332 wrote as `costUSD` for the same requests
    // (the stand-in API reporting these counts; see tests/conformance/test_cost.py).
    #[test]
    fn one_hour_cache_writes_pay_their_own_price_and_unsplit_writes_the_five_minute_one() {
        let split = Request {
            input: 1000,
            output: 1000,
            cache_read: 1000,
            cache_write_5m: 1000,
            cache_write_1h: 2000,
            web_searches: 0,
        };
        assert!(close(usd_of("claude-opus-5-5", None, split), 0.0452));
        let unsplit = Request { cache_write_5m: 2000, cache_write_1h: 0, ..split };
        // 1000×4 + 1000×20 + 1000×0.2 + 2000×5 (per million).
        assert!(close(usd_of("claude-opus-5-5", None, unsplit), 0.0342));
    }

    #[test]
    fn a_long_prompt_pays_the_tier_on_every_token_of_the_request() {
        let long = LONG;
        assert!(close(usd_of("claude-haiku-5-5", None, long), 0.0825));
        let short = Request { input: 10_000, ..long };
        assert!(close(usd_of("claude-haiku-5-5", None, short), 0.0025));
        // Exactly at the threshold is not above it.
        let at = Request { input: 100_000 - 62_000, ..long };
        assert_eq!(at.prompt(), 100_000);
        assert!(close(usd_of("claude-haiku-5-5", None, at), 0.0053));
    }

    #[test]
    fn a_price_that_changed_applies_by_the_day_of_the_request() {
        let long = LONG;
        // Opus 4.6 priced long prompts at a tier until 2026-03-13, flat since.
        assert!(close(usd_of("claude-opus-4-6", Some("2026-03-12"), long), 1.6375));
        assert!(close(usd_of("claude-opus-4-6", Some("2026-03-13"), long), 0.825));
        assert!(close(usd_of("claude-opus-4-6", None, long), 0.825));
    }

    #[test]
    fn web_searches_are_priced_per_search_and_unknown_models_have_no_price() {
        let r = Request { web_searches: 3, ..Request::default() };
        assert!(close(usd_of("claude-sonnet-5-5", None, r), 0.03));
        assert_eq!(usd_of("claude-weird-9", None, Request { output: 5, ..r }), None);
        assert_eq!(usd_of("", None, r), None);
        // Text clauses ignore case; dated ids match their family.
        assert_eq!(
            PriceTable::bundled().entry_for("Claude-Haiku-4-5-20251001"),
            Some("claude-haiku-4-5")
        );
        assert_eq!(
            PriceTable::bundled().entry_for("claude-opus-5-5-20261101"),
            Some("claude-opus-5-5")
        );
        assert_eq!(PriceTable::bundled().entry_for("claude-opus-5-5-2026"), None);
    }

    #[test]
    fn prices_are_read_exactly_or_refused() {
        use wire::per_token;
        assert_eq!(per_token("3", 1_000_000), Ok(3_000_000));
        assert_eq!(per_token("0.3125", 1_000_000), Ok(312_500));
        assert_eq!(per_token("0.005", 1_000_000), Ok(5000));
        assert_eq!(per_token("10", 1000), Ok(10_000_000_000));
        for bad in ["", ".", "-1", "1e3", "1.2.3", "0.0000000000001", "99999999999"] {
            assert!(per_token(bad, 1_000_000).is_err(), "{bad:?}");
        }
        assert!(PriceTable::parse("{").is_err());
        let bad_pattern = r#"{"source":"s","generated":"g","models":[{"id":"x","match":{"regex":"("},"prices":[]}]}"#;
        assert!(PriceTable::parse(bad_pattern).is_err());
        assert_eq!(pico(f64::NAN), 0);
        assert_eq!(pico(-1.0), 0);
        assert_eq!(pico(0.0452), 45_200_000_000);
    }
}
