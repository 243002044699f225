//! Tool-call helpers: input summaries, emoji, result text extraction.
//!
//! CONTRACT (owned by the transcript developer).

/// A short human-readable summary of a tool's input (seed 000's table), if one applies.
pub fn input_summary(tool_name: &str, input: &serde_json::Value) -> Option<String> {
    let _ = (tool_name, input);
    None
}

/// The emoji shown beside a tool call.
pub fn emoji(tool_name: &str) -> &'static str {
    let _ = tool_name;
    "🔧"
}
