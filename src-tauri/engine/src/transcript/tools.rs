//! Tool-call helpers: input summaries, emoji, result text extraction.
//!
//! CONTRACT (owned by the transcript developer).
//!
//! Summaries follow herdctl's table (Bash command clipped to 200 chars + `...`; Read/Write/Edit
//! `file_path` or `path`; Glob/Grep `pattern`; WebFetch/WebSearch `url` or `query`) and extend it
//! to the tools herdctl leaves blank (Task/Agent, MultiEdit, NotebookEdit, TodoWrite, Skill, LS,
//! ToolSearch, AskUserQuestion, MCP tools, …). Non-string values never produce a summary.

use serde_json::Value;

/// Bash commands longer than this (in characters) are clipped in summaries.
pub const COMMAND_SUMMARY_CHARS: usize = 200;

fn str_field<'a>(input: &'a Value, key: &str) -> Option<&'a str> {
    input.get(key).and_then(Value::as_str).filter(|s| !s.trim().is_empty())
}

fn first_field<'a>(input: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| str_field(input, k))
}

fn clip_chars(s: &str, max: usize, marker: &str) -> String {
    if s.chars().count() > max {
        let mut out: String = s.chars().take(max).collect();
        out.push_str(marker);
        out
    } else {
        s.to_owned()
    }
}

/// A short human-readable summary of a tool's input (seed 000's table), if one applies.
pub fn input_summary(tool_name: &str, input: &serde_json::Value) -> Option<String> {
    let one_line = |s: &str, max: usize| clip_chars(s.trim(), max, "...");
    match tool_name {
        "Bash" | "bash" => {
            str_field(input, "command").map(|c| clip_chars(c, COMMAND_SUMMARY_CHARS, "..."))
        }
        "Read" | "Write" | "Edit" | "MultiEdit" => {
            first_field(input, &["file_path", "path"]).map(str::to_owned)
        }
        "NotebookEdit" | "NotebookRead" => {
            first_field(input, &["notebook_path", "file_path", "path"]).map(str::to_owned)
        }
        "Glob" | "Grep" => str_field(input, "pattern").map(str::to_owned),
        "WebFetch" | "WebSearch" => first_field(input, &["url", "query"]).map(str::to_owned),
        "Task" | "Agent" => {
            first_field(input, &["description", "prompt"]).map(|s| one_line(s, 100))
        }
        "TodoWrite" => {
            let todos = input.get("todos")?.as_array()?;
            let active = todos
                .iter()
                .find(|t| t.get("status").and_then(Value::as_str) == Some("in_progress"))
                .and_then(|t| first_field(t, &["activeForm", "content"]));
            let n = todos.len();
            let plural = if n == 1 { "" } else { "s" };
            Some(match active {
                Some(a) => format!("{n} todo{plural} — {}", one_line(a, 80)),
                None => format!("{n} todo{plural}"),
            })
        }
        "LS" => str_field(input, "path").map(str::to_owned),
        "Skill" => first_field(input, &["skill", "command", "name"]).map(str::to_owned),
        "SlashCommand" => str_field(input, "command").map(str::to_owned),
        "BashOutput" | "KillShell" | "KillBash" => {
            first_field(input, &["bash_id", "shell_id"]).map(str::to_owned)
        }
        "ToolSearch" => str_field(input, "query").map(str::to_owned),
        "AskUserQuestion" => str_field(input, "question")
            .or_else(|| {
                input
                    .get("questions")
                    .and_then(Value::as_array)
                    .and_then(|q| q.first())
                    .and_then(|q| str_field(q, "question"))
            })
            .map(|q| one_line(q, 120)),
        "ExitPlanMode" | "exit_plan_mode" => str_field(input, "plan").map(|p| one_line(p, 120)),
        "TaskCreate" => {
            first_field(input, &["subject", "title", "description"]).map(|s| one_line(s, 120))
        }
        "TaskUpdate" => {
            let id = first_field(input, &["taskId", "task_id", "id"])?;
            Some(match str_field(input, "status") {
                Some(status) => format!("#{id} → {status}"),
                None => format!("#{id}"),
            })
        }
        "TaskGet" | "TaskOutput" | "TaskStop" => {
            first_field(input, &["taskId", "task_id", "id"]).map(|id| format!("#{id}"))
        }
        "SendMessage" => {
            let to = first_field(input, &["to", "recipient"])?;
            Some(match first_field(input, &["summary", "message"]) {
                Some(m) => format!("→ {to}: {}", one_line(m, 100)),
                None => format!("→ {to}"),
            })
        }
        name if name.starts_with("mcp__") => first_field(
            input,
            &["query", "url", "file_path", "path", "name", "title", "id", "command", "pattern"],
        )
        .or_else(|| {
            input.as_object()?.values().find_map(|v| v.as_str().filter(|s| !s.trim().is_empty()))
        })
        .map(|s| one_line(s, COMMAND_SUMMARY_CHARS)),
        _ => None,
    }
}

/// The emoji shown beside a tool call.
pub fn emoji(tool_name: &str) -> &'static str {
    match tool_name {
        "Bash" | "bash" | "BashOutput" | "KillShell" | "KillBash" => "💻",
        "Read" | "NotebookRead" => "📄",
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => "✏️",
        "Glob" | "Grep" | "LS" | "ToolSearch" => "🔍",
        "TaskCreate" | "TaskUpdate" | "TaskList" | "TaskGet" => "📋",
        "SendMessage" => "✉️",
        "WebFetch" | "WebSearch" => "🌐",
        "Task" | "Agent" => "🤖",
        "TodoWrite" => "📝",
        name if name.starts_with("mcp__") => "🔌",
        _ => "🔧",
    }
}

/// The text of a `tool_result` block's `content`: a string as-is; an array's `text` parts joined
/// with `\n`, images as `[image]`, `tool_reference` items as one `Loaded N tool schema(s): a, b`
/// line, other objects as compact JSON. `None`/`null` → empty.
pub fn result_text(content: Option<&Value>) -> String {
    match content {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => {
            let mut parts: Vec<String> = Vec::new();
            let mut refs: Vec<&str> = Vec::new();
            for item in items {
                match item.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(t) = item.get("text").and_then(Value::as_str) {
                            parts.push(t.to_owned());
                        }
                    }
                    Some("image") => parts.push("[image]".to_owned()),
                    Some("tool_reference") => {
                        if let Some(n) = item.get("tool_name").and_then(Value::as_str) {
                            refs.push(n);
                        }
                    }
                    _ => match item {
                        Value::String(s) => parts.push(s.clone()),
                        other => parts.push(other.to_string()),
                    },
                }
            }
            if !refs.is_empty() {
                parts.push(format!("Loaded {} tool schema(s): {}", refs.len(), refs.join(", ")));
            }
            parts.join("\n")
        }
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn summaries() {
        let long = "a".repeat(250);
        let s = input_summary("Bash", &json!({ "command": long })).unwrap();
        assert_eq!(s.chars().count(), 203);
        assert!(s.ends_with("..."));
        assert_eq!(input_summary("bash", &json!({"command": ""})), None);
        assert_eq!(input_summary("Read", &json!({"path": "/a"})).as_deref(), Some("/a"));
        assert_eq!(input_summary("Read", &json!({"file_path": 3})), None);
        assert_eq!(input_summary("WebSearch", &json!({"query": "q"})).as_deref(), Some("q"));
        assert_eq!(input_summary("Unknown", &json!({"x": "y"})), None);
        let update = json!({"taskId": "1", "status": "in_progress", "owner": "alice"});
        assert_eq!(input_summary("TaskUpdate", &update).as_deref(), Some("#1 → in_progress"));
        let msg = json!({"to": "alice", "summary": "round 2", "message": "go"});
        assert_eq!(input_summary("SendMessage", &msg).as_deref(), Some("→ alice: round 2"));
        let todos = json!({"todos": [{"content": "a", "status": "done"}, {"content": "b", "status": "in_progress", "activeForm": "Doing b"}]});
        assert_eq!(input_summary("TodoWrite", &todos).as_deref(), Some("2 todos — Doing b"));
        assert_eq!(
            input_summary("Task", &json!({"description": "Explore", "prompt": "x"})).as_deref(),
            Some("Explore")
        );
        assert_eq!(
            input_summary("AskUserQuestion", &json!({"question": "Which?"})).as_deref(),
            Some("Which?")
        );
    }

    #[test]
    fn results() {
        let v = json!([{"type":"tool_reference","tool_name":"a"},{"type":"tool_reference","tool_name":"b"}]);
        assert_eq!(result_text(Some(&v)), "Loaded 2 tool schema(s): a, b");
        assert_eq!(result_text(Some(&json!(""))), "");
    }
}
