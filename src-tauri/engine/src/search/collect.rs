//! The collectors a search runs over the index: every match of a query grouped by session with
//! each session's best few kept (`BySession`), and every match's line offset in one transcript,
//! unscored (`InFile`, find in the viewer).

use std::sync::Arc;

use rustc_hash::FxHashMap;
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Column, ColumnIndex, ColumnValues};
use tantivy::{DocAddress, DocId, Score, SegmentOrdinal, SegmentReader};

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
}

/// Every match, grouped by session (through the fast session hash).
pub(super) struct BySession {
    pub(super) hits: usize,
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
