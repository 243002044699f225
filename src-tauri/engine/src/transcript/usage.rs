//! Token usage by model over the lines a view keeps (the resumed branch).
//!
//! CONTRACT (owned by the transcript developer).
//! - A response is one `message.id` (with its `requestId`): its streamed chunks are several
//!   lines that repeat the input counts and grow the output count, so each response counts once,
//!   from its last line. A line without an id is a response of its own.
//! - Per model: responses, input tokens, output tokens, cache reads and cache writes (the larger
//!   of `cache_creation_input_tokens` and the nested `cache_creation` sums). `<synthetic>` lines
//!   and lines whose `isSidechain` differs from the file's are not counted.
//! - Models are listed by output tokens, most first.

use std::collections::HashMap;
use std::io::BufReader;
use std::path::Path;

use serde::Deserialize;

use super::{Envelope, Lines, Loose, MapOr, UsageRef, record};
use crate::jsonl::{self, LineReader, Parsed};
use crate::model::{ModelUsage, TokenTotals};

record! {
    struct UsageLine<'a> {
        envelope { ty, is_sidechain }
        #[serde(default, borrow)]
        request_id: Loose<'a>,
        #[serde(default, borrow)]
        message: MapOr<UsageMessage<'a>>,
    }
}

/// An assistant line's `message`, as far as what it used goes (also the cost ledger's).
#[derive(Deserialize)]
pub(crate) struct UsageMessage<'a> {
    #[serde(default, borrow)]
    pub id: Loose<'a>,
    #[serde(default, borrow)]
    pub model: Loose<'a>,
    #[serde(default, borrow)]
    pub usage: MapOr<UsageRef<'a>>,
}

/// Token usage by model of the transcript at `path`, over the lines `lines` keeps.
pub fn by_model(path: &Path, lines: &Lines) -> std::io::Result<Vec<ModelUsage>> {
    let sidechain = super::file_is_sidechain(path);
    let file = super::open_at(path, 0)?;
    let mut reader = LineReader::new(BufReader::with_capacity(256 * 1024, file), 0);
    // The last usage of each response, with its model.
    let mut responses: HashMap<String, (String, TokenTotals)> = HashMap::new();
    let mut loose: Vec<(String, TokenTotals)> = Vec::new();
    let mut scratch = Vec::new();
    while let Some(line) = reader.next_line()? {
        if !lines.keeps(line.offset) || !jsonl::has_type_in(line.bytes, &["assistant"]) {
            continue;
        }
        let Parsed::Value(l) = jsonl::parse_line_with::<UsageLine<'_>>(line.bytes, &mut scratch)
        else {
            continue;
        };
        if l.ty.as_str() != Some("assistant") || l.off_file(sidechain) {
            continue;
        }
        let Some(m) = l.message.0 else { continue };
        let model = match m.model.as_str() {
            Some("<synthetic>") => continue,
            Some(x) if !x.is_empty() => x.to_owned(),
            _ => "unknown".to_owned(),
        };
        let Some(u) = m.usage.0 else { continue };
        let counts = u.totals();
        match m.id.as_str() {
            Some(id) => {
                let key = format!("{id}\u{1f}{}", l.request_id.as_str().unwrap_or(""));
                responses.insert(key, (model, counts));
            }
            None => loose.push((model, counts)),
        }
    }
    let mut totals: HashMap<String, ModelUsage> = HashMap::new();
    for (model, c) in responses.into_values().chain(loose) {
        let t = totals
            .entry(model.clone())
            .or_insert_with(|| ModelUsage { model, ..Default::default() });
        t.responses += 1;
        t.tokens.add(&c);
    }
    let mut out: Vec<ModelUsage> = totals.into_values().collect();
    out.sort_by(|a, b| {
        b.tokens.output_tokens.cmp(&a.tokens.output_tokens).then_with(|| a.model.cmp(&b.model))
    });
    Ok(out)
}

/// The tokens of every model of `path` together, over the lines `lines` keeps.
pub fn totals(path: &Path, lines: &Lines) -> std::io::Result<TokenTotals> {
    let mut t = TokenTotals::default();
    for m in by_model(path, lines)? {
        t.add(&m.tokens);
    }
    Ok(t)
}
