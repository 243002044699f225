//! Past the bound of counted matches, the best-scoring messages of a query: a top-k search
//! (tantivy's block-max WAND for a word or an intersection of words), or — for a query tantivy
//! cannot answer so (a phrase, filters) — the best of its plain words, each checked against the
//! whole query and scored by it.

use rustc_hash::FxHashMap;
use tantivy::collector::TopDocs;
use tantivy::query::{EnableScoring, Query};
use tantivy::{DocAddress, DocId, DocSet, Score, TERMINATED};

use super::collect::Group;
use super::index_error;
use super::schema::NAMES_BIT;
use crate::error::Result;

/// The best messages of `q` (found through `relaxed` when given), added to their sessions'
/// groups, each keeping its best `hits`. `sessions` is how many sessions are shown.
pub(super) fn add_best(
    searcher: &tantivy::Searcher,
    (q, relaxed): (&dyn Query, Option<&dyn Query>),
    sessions: usize,
    hits: usize,
    groups: &mut FxHashMap<u64, Group>,
) -> Result<()> {
    let hits = hits.max(1);
    let k = sessions.saturating_mul(hits).clamp(200, 2_000);
    let best = match relaxed {
        None => searcher.search(q, &TopDocs::with_limit(k).order_by_score()),
        // Some of the plain words' best fail the whole query: more are taken.
        Some(words) => searcher.search(words, &TopDocs::with_limit(k * 2).order_by_score()),
    }
    .map_err(index_error)?;
    let best = match relaxed {
        None => best,
        Some(_) => checked(searcher, q, best)?,
    };
    let mut by_hash: FxHashMap<u64, Vec<(Score, DocAddress)>> = FxHashMap::default();
    for (score, addr) in best {
        let reader = searcher.segment_reader(addr.segment_ord);
        let hashes = reader.fast_fields().u64("session_hash").map_err(index_error)?;
        if let Some(key) = hashes.first(addr.doc_id) {
            by_hash.entry(key & !NAMES_BIT).or_default().push((score, addr));
        }
    }
    for (hash, found) in by_hash {
        groups.entry(hash).or_default().add_best(&found, hits);
    }
    Ok(())
}

/// The `found` messages that match `q`, each with `q`'s score: per segment, in document order,
/// `q`'s scorer is moved to each one.
fn checked(
    searcher: &tantivy::Searcher,
    q: &dyn Query,
    found: Vec<(Score, DocAddress)>,
) -> Result<Vec<(Score, DocAddress)>> {
    let weight = q.weight(EnableScoring::enabled_from_searcher(searcher)).map_err(index_error)?;
    let mut by_segment: FxHashMap<u32, Vec<DocId>> = FxHashMap::default();
    for (_, addr) in found {
        by_segment.entry(addr.segment_ord).or_default().push(addr.doc_id);
    }
    let mut out = Vec::new();
    for (segment, mut docs) in by_segment {
        docs.sort_unstable();
        let reader = searcher.segment_reader(segment);
        let mut scorer = weight.scorer(reader, 1.0).map_err(index_error)?;
        for doc in docs {
            if scorer.doc() < doc {
                scorer.seek(doc);
            }
            if scorer.doc() == TERMINATED {
                break;
            }
            if scorer.doc() == doc {
                out.push((scorer.score(), DocAddress::new(segment, doc)));
            }
        }
    }
    Ok(out)
}
