//! The collectors a search runs over the index: the matches of a query grouped by session with
//! each session's best few kept (`BySession`, which stops after a bound so a common word is not
//! walked to its last match), and every match's line offset in one transcript, unscored
//! (`InFile`, find in the viewer).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rustc_hash::FxHashMap;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Column, ColumnIndex, ColumnValues};
use tantivy::query::{Scorer, Weight};
use tantivy::{DocAddress, DocId, DocSet, Score, SegmentOrdinal, SegmentReader, TERMINATED};

use super::schema::NAMES_BIT;

/// Every match's line offset (through the fast field), unscored.
pub(super) struct InFile;

pub(super) struct InFileSegment {
    segment: SegmentOrdinal,
    offset: Column<u64>,
    found: Vec<(u64, DocAddress)>,
}

impl Collector for InFile {
    type Fruit = Vec<(u64, DocAddress)>;
    type Child = InFileSegment;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<InFileSegment> {
        Ok(InFileSegment {
            segment,
            offset: reader.fast_fields().u64("offset")?,
            found: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(
        &self,
        fruits: Vec<Vec<(u64, DocAddress)>>,
    ) -> tantivy::Result<Vec<(u64, DocAddress)>> {
        Ok(fruits.into_iter().flatten().collect())
    }
}

impl SegmentCollector for InFileSegment {
    type Fruit = Vec<(u64, DocAddress)>;

    fn collect(&mut self, doc: DocId, _score: Score) {
        let offset = self.offset.first(doc).unwrap_or(0);
        self.found.push((offset, DocAddress::new(self.segment, doc)));
    }

    fn harvest(self) -> Vec<(u64, DocAddress)> {
        self.found
    }
}

/// What matched in one session.
#[derive(Debug, Default)]
pub(super) struct Group {
    pub(super) best: Score,
    pub(super) name_score: Score,
    pub(super) matches: u64,
    /// Its messages among the best-scoring ones of a top-k search (made past the bound).
    pub(super) in_best: u64,
    /// The best message matches, best first.
    pub(super) top: Vec<(Score, DocAddress)>,
}

impl Group {
    fn add(&mut self, score: Score, addr: DocAddress, keep: usize) {
        self.matches += 1;
        self.best = self.best.max(score);
        // Most matches of a common word fall short of the session's best few.
        if self.top.len() >= keep && self.top.last().is_some_and(|(s, _)| *s >= score) {
            return;
        }
        let at = self.top.partition_point(|(s, _)| *s >= score);
        if at < keep {
            self.top.insert(at, (score, addr));
            self.top.truncate(keep);
        }
    }

    pub(super) fn merge(&mut self, other: Group, keep: usize) {
        self.matches += other.matches;
        self.best = self.best.max(other.best);
        self.name_score = self.name_score.max(other.name_score);
        self.top.extend(other.top);
        self.top.sort_by(|a, b| b.0.total_cmp(&a.0));
        self.top.truncate(keep);
    }

    /// Adds the best-scoring matches found apart from the walk that counted this group (they
    /// may be among the walked ones): the count stays a lower bound, never counting one twice.
    pub(super) fn add_best(&mut self, found: &[(Score, DocAddress)], keep: usize) {
        for &(score, addr) in found {
            self.best = self.best.max(score);
            if !self.top.iter().any(|(_, a)| *a == addr) {
                self.top.push((score, addr));
            }
        }
        self.top.sort_by(|a, b| b.0.total_cmp(&a.0));
        self.top.truncate(keep);
        self.in_best += found.len() as u64;
        self.matches = self.matches.max(found.len() as u64);
    }
}

/// The matches, grouped by session (through the fast session hash): every one up to `bound`,
/// then the walk stops and `cut` says so (the counts are then lower bounds).
pub(super) struct BySession {
    pub(super) hits: usize,
    /// Matches still to collect.
    left: AtomicU64,
    /// A match was left uncollected.
    cut: AtomicBool,
}

impl BySession {
    /// Collects at most `bound` matches, each session's best `hits` kept.
    pub(super) fn new(hits: usize, bound: u64) -> Self {
        Self { hits, left: AtomicU64::new(bound), cut: AtomicBool::new(false) }
    }

    /// Whether the walk stopped at the bound with matches left.
    pub(super) fn was_cut(&self) -> bool {
        self.cut.load(Ordering::Relaxed)
    }

    /// Takes one match from what is left; `false` (and marked cut) when nothing is.
    fn take(&self) -> bool {
        let took =
            self.left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
        if took.is_err() {
            self.cut.store(true, Ordering::Relaxed);
        }
        took.is_ok()
    }
}

pub(super) struct BySessionSegment {
    segment: SegmentOrdinal,
    key: Keys,
    keep: usize,
    /// Groups in the order met, and where each session's is; a session's documents are added
    /// together, so most matches land in the group of the match before (`last`).
    groups: Vec<(u64, Group)>,
    at: FxHashMap<u64, usize>,
    last: Option<(u64, usize)>,
}

impl BySessionSegment {
    /// Where the group of `hash` is (made when first met).
    fn slot(&mut self, hash: u64) -> usize {
        if let Some((h, i)) = self.last
            && h == hash
        {
            return i;
        }
        let next = self.groups.len();
        let i = *self.at.entry(hash).or_insert(next);
        if i == next {
            self.groups.push((hash, Group::default()));
        }
        self.last = Some((hash, i));
        i
    }
}

/// A segment's session hashes. Every document has one, so the column is read directly, not
/// through its index of which documents have a value (a tenth of a common word's walk).
enum Keys {
    Full(Arc<dyn ColumnValues<u64>>),
    Some(Column<u64>),
}

impl Keys {
    fn of(column: Column<u64>) -> Self {
        match column.index {
            ColumnIndex::Full => Self::Full(column.values),
            _ => Self::Some(column),
        }
    }

    #[inline]
    fn get(&self, doc: DocId) -> Option<u64> {
        match self {
            Self::Full(values) => Some(values.get_val(doc)),
            Self::Some(column) => column.first(doc),
        }
    }
}

impl Collector for BySession {
    type Fruit = FxHashMap<u64, Group>;
    type Child = BySessionSegment;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<BySessionSegment> {
        Ok(BySessionSegment {
            segment,
            key: Keys::of(reader.fast_fields().u64("session_hash")?),
            keep: self.hits,
            groups: Vec::new(),
            at: FxHashMap::default(),
            last: None,
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    /// Walks the segment's matches in order, scoring each, until the bound is reached.
    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<Vec<(u64, Group)>> {
        let mut child = self.for_segment(segment, reader)?;
        let mut scorer = weight.scorer(reader, 1.0)?;
        let alive = reader.alive_bitset();
        let mut doc = scorer.doc();
        while doc != TERMINATED {
            if alive.is_none_or(|a| a.is_alive(doc)) {
                if !self.take() {
                    break;
                }
                child.collect(doc, scorer.score());
            }
            doc = scorer.advance();
        }
        Ok(child.harvest())
    }

    fn merge_fruits(
        &self,
        fruits: Vec<Vec<(u64, Group)>>,
    ) -> tantivy::Result<FxHashMap<u64, Group>> {
        let mut all: FxHashMap<u64, Group> = FxHashMap::default();
        for fruit in fruits {
            for (h, g) in fruit {
                all.entry(h).or_default().merge(g, self.hits);
            }
        }
        Ok(all)
    }
}

impl SegmentCollector for BySessionSegment {
    type Fruit = Vec<(u64, Group)>;

    fn collect(&mut self, doc: DocId, score: Score) {
        let Some(key) = self.key.get(doc) else { return };
        let (hash, names) = (key & !NAMES_BIT, key & NAMES_BIT != 0);
        let (segment, keep) = (self.segment, self.keep);
        let slot = self.slot(hash);
        let Some((_, group)) = self.groups.get_mut(slot) else { return };
        if names {
            group.name_score = group.name_score.max(score);
        } else {
            group.add(score, DocAddress::new(segment, doc), keep);
        }
    }

    fn harvest(self) -> Vec<(u64, Group)> {
        self.groups
    }
}
