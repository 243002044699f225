//! Every kind of transcript line and of `attachment` Claude Code writes that Corral knows by
//! name, and what the reader does with each.
//!
//! The readers (`facts`, `messages`, `branches`) pick the line types they use and pass over the
//! rest, so a kind Claude Code adds tomorrow is never shown as conversation — and also never
//! noticed. This list is how it gets noticed: the format survey (`format_survey`) counts the
//! kinds a home holds and names those not listed here, and the conformance run against the real
//! client (`make conformance`) reports them as format drift the day a new version writes them.
//!
//! A kind is listed once its meaning is known (from the client's own records, its schema, or what
//! the real client writes under `make conformance`) and a decision was taken about it, even if
//! the decision is "skip it". The tests below hold the readers to this list.

use serde::Serialize;

/// What Corral's reader does with a kind of line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Reading {
    /// Shown as conversation: a prompt, an answer, a tool call or result, a queued prompt, a
    /// slash command and its output (`system`/`local_command`; the other `system` lines only
    /// link the conversation).
    Conversation,
    /// Names the session (a custom or generated title, a pre-2.1 summary).
    Name,
    /// What the session cost as Claude Code priced it: read by the listing, never shown.
    Cost,
    /// Not shown, but followed when the conversation's branches are put together (its
    /// `uuid`/`parentUuid` link the messages around it).
    Chain,
    /// Claude Code's own bookkeeping: never shown, never indexed.
    Skipped,
}

/// One kind Corral knows by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    /// The `type` (or `attachment.type`) as Claude Code writes it.
    pub name: &'static str,
    /// What the reader does with it.
    pub reading: Reading,
}

const fn known(name: &'static str, reading: Reading) -> Known {
    Known { name, reading }
}

use Reading::{Chain, Conversation, Cost, Name, Skipped};

/// Every top-level `type` of a transcript line Corral knows, sorted by name.
pub const LINE_TYPES: &[Known] = &[
    known("agent-color", Skipped),
    known("agent-name", Skipped),
    known("agent-setting", Skipped),
    known("ai-title", Name),
    known("api-request", Skipped),
    known("api-request-blob", Skipped),
    known("api-request-shape", Skipped),
    known("assistant", Conversation),
    known("atis-latch", Skipped),
    known("attachment", Chain),
    known("attribution-snapshot", Skipped),
    known("bridge-session", Skipped),
    known("content-replacement", Skipped),
    known("cost-state", Cost),
    known("custom-title", Name),
    known("file-history-delta", Skipped),
    known("file-history-snapshot", Skipped),
    known("last-prompt", Skipped),
    known("marble-origami-commit", Skipped),
    known("marble-origami-snapshot", Skipped),
    known("mode", Skipped),
    known("permission-mode", Skipped),
    known("pr-link", Skipped),
    known("progress", Chain),
    known("queue-operation", Conversation),
    known("relocated", Skipped),
    known("speculation-accept", Skipped),
    known("summary", Name),
    known("system", Conversation),
    known("tag", Skipped),
    known("task-summary", Skipped),
    known("tools-used", Skipped),
    known("user", Conversation),
    known("worktree-state", Skipped),
];

/// Every `attachment.type` Corral knows, sorted by name. An `attachment` line is context Claude
/// Code adds to a turn (hook output, the system prompt's snapshot, reminders, listings of tools
/// and skills): none of it is something the person typed, so none of it is shown.
pub const ATTACHMENT_TYPES: &[Known] = &[
    known("agent_listing_delta", Skipped),
    known("agent_mention", Skipped),
    known("auto_mode", Skipped),
    known("auto_mode_exit", Skipped),
    known("budget_usd", Skipped),
    known("command_permissions", Skipped),
    known("compact_file_reference", Skipped),
    known("date", Skipped),
    known("date_change", Skipped),
    known("deferred_tools_delta", Skipped),
    known("deferred_tools_record", Skipped),
    known("directory", Skipped),
    known("edited_text_file", Skipped),
    known("environment", Skipped),
    known("file", Skipped),
    known("goal_status", Skipped),
    known("hook_additional_context", Skipped),
    known("hook_blocking_error", Skipped),
    known("hook_cancelled", Skipped),
    known("hook_deferred_tool", Skipped),
    known("hook_error_during_execution", Skipped),
    known("hook_non_blocking_error", Skipped),
    known("hook_permission_decision", Skipped),
    known("hook_stopped_continuation", Skipped),
    known("hook_success", Skipped),
    known("hook_system_message", Skipped),
    known("invoked_skills", Skipped),
    known("max_turns_reached", Skipped),
    known("mcp_instructions_delta", Skipped),
    known("model", Skipped),
    known("nested_memory", Skipped),
    known("output_style", Skipped),
    known("plan_file_reference", Skipped),
    known("plan_mode", Skipped),
    known("plan_mode_exit", Skipped),
    known("plan_mode_reentry", Skipped),
    known("prompt_snapshot", Skipped),
    known("queued_command", Skipped),
    known("relevant_memories", Skipped),
    known("remote_session_change", Skipped),
    known("session_context", Skipped),
    known("skill_listing", Skipped),
    known("structured_output", Skipped),
    known("task_reminder", Skipped),
    known("task_status", Skipped),
    known("todo_reminder", Skipped),
    // `<total_tokens>N tokens left</total_tokens>` as a system reminder: the token budget.
    known("total_tokens_reminder", Skipped),
];

/// What Corral does with a line of this `type`; `None` when it does not know the kind.
pub fn line_type(name: &str) -> Option<Reading> {
    find(LINE_TYPES, name)
}

/// What Corral does with an attachment of this `attachment.type`; `None` when it does not know
/// the kind.
pub fn attachment_type(name: &str) -> Option<Reading> {
    find(ATTACHMENT_TYPES, name)
}

fn find(list: &[Known], name: &str) -> Option<Reading> {
    list.binary_search_by(|k| k.name.cmp(name)).ok().and_then(|i| list.get(i)).map(|k| k.reading)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_lists_are_sorted_without_duplicates_so_lookup_finds_every_entry() {
        for list in [LINE_TYPES, ATTACHMENT_TYPES] {
            assert!(list.windows(2).all(|w| matches!(w, [a, b] if a.name < b.name)));
            for k in list {
                assert_eq!(find(list, k.name), Some(k.reading), "{}", k.name);
            }
        }
        assert_eq!(line_type("some-future-type"), None);
        assert_eq!(attachment_type(""), None);
    }

    /// The readers pick their line types by name; each one they pick is listed here as what it
    /// is for them, and nothing else is listed as shown.
    #[test]
    fn the_readers_types_are_listed_as_what_they_read_them_for() {
        for t in super::super::messages::MESSAGE_TYPES {
            assert_eq!(line_type(t), Some(Conversation), "{t}");
        }
        let shown: Vec<&str> =
            LINE_TYPES.iter().filter(|k| k.reading == Conversation).map(|k| k.name).collect();
        let mut read = super::super::messages::MESSAGE_TYPES.to_vec();
        read.sort_unstable();
        assert_eq!(shown, read);
        for t in super::super::facts::FACT_TYPES {
            assert!(matches!(line_type(t), Some(Conversation | Name | Cost)), "{t}");
        }
        // Whatever names a session or says what it cost is read by the listing.
        let read_for_listing = LINE_TYPES.iter().filter(|k| matches!(k.reading, Name | Cost));
        for t in read_for_listing.map(|k| k.name) {
            assert!(
                super::super::facts::FACT_TYPES.contains(&t),
                "{t} is listed as read but is not"
            );
        }
        for t in super::super::branches::NODE_TYPES {
            assert!(matches!(line_type(t), Some(Conversation | Chain)), "{t}");
        }
    }
}
