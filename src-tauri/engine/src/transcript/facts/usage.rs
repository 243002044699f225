//! Counting a transcript's token usage as its lines stream by: each response once, however many
//! lines it was streamed in, with bounded state (resumable with the rest of the scanner).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::model::{TokenTotals, Usage};
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
}

impl UsageAccumulator {
    /// Records one non-synthetic assistant line. Returns true when it starts a new response.
    pub(crate) fn add(
        &mut self,
        id: Option<&str>,
        request_id: Option<&str>,
        model: Option<&str>,
        usage: Option<&UsageRef<'_>>,
    ) -> bool {
        if let Some(m) = model.filter(|m| !m.is_empty() && *m != "<synthetic>") {
            self.model = Some(m.to_owned());
        }
        let counts = usage.map(UsageRef::totals);
        if let Some(u) = usage {
            self.input_tokens = u.context_tokens();
        }
        let Some(id) = id else {
            self.commit();
            self.turn_count += 1;
            self.committed.add(&counts.unwrap_or_default());
            return true;
        };
        let key = response_key(id, request_id.unwrap_or(""));
        if self.current_key == Some(key) {
            // A later chunk of the current response: its counts are the newest.
            if let Some(c) = counts {
                self.current = c;
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
        self.turn_count += 1;
        self.recent_keys.push_back(key);
        while self.recent_keys.len() > RECENT_KEYS {
            self.recent_keys.pop_front();
        }
        true
    }

    fn commit(&mut self) {
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

    /// The tokens of every response so far, by kind.
    pub fn tokens(&self) -> TokenTotals {
        let mut t = self.committed;
        t.add(&self.current);
        t
    }
}
