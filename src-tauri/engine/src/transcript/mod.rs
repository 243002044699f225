//! Reading Claude Code transcripts: listing facts, viewer messages, tools and subagents.

pub mod facts;
pub mod messages;
pub mod subagents;
pub mod tools;
