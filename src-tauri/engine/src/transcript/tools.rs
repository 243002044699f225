//! Tool-call helpers: input summaries, the forms inputs are shown in, emoji, result text
//! extraction.
//!
//! CONTRACT (owned by the transcript developer).
//!
//! Summaries follow herdctl's table (Bash command clipped to 200 chars + `...`; Read/Write/Edit
//! `file_path` or `path`; Glob/Grep `pattern`; WebFetch/WebSearch `url` or `query`) and extend it
//! to the tools herdctl leaves blank (Task/Agent, MultiEdit, NotebookEdit, TodoWrite, Skill, LS,
//! ToolSearch, AskUserQuestion, MCP tools, …). Non-string values never produce a summary.

use std::time::Duration;

use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use crate::model::{DiffLine, FileEdit, LineChange, TodoItem, ToolForm};

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

/// The texts of one form add up to at most this many bytes (each clipped where the budget ends).
pub const FORM_TEXT_BYTES: usize = 64 * 1024;
/// A diff that takes longer than this falls back to a coarser one (all removed, then all added).
const DIFF_TIME: Duration = Duration::from_millis(50);

/// The form `tool_name`'s input is shown in, when it has one and the fields it needs are there
/// (a call recorded with other field names keeps its JSON).
pub fn form(tool_name: &str, input: &Value) -> Option<ToolForm> {
    let mut budget = FORM_TEXT_BYTES;
    let mut text = |s: &str| -> String {
        let mut out = s.to_owned();
        super::clip(&mut out, budget);
        budget -= out.len();
        out
    };
    let path = |keys: &[&str]| first_field(input, keys).map(str::to_owned);
    let number = |key: &str| input.get(key).and_then(Value::as_u64);
    Some(match tool_name {
        "Edit" => {
            let path = path(&["file_path", "path"])?;
            let edit = edit_of(input, &mut text)?;
            ToolForm::Edit { path, edits: vec![edit] }
        }
        "MultiEdit" => {
            let path = path(&["file_path", "path"])?;
            let edits = input.get("edits")?.as_array()?;
            let edits: Vec<FileEdit> = edits.iter().filter_map(|e| edit_of(e, &mut text)).collect();
            ToolForm::Edit { path, edits }
        }
        "Write" => {
            let path = path(&["file_path", "path"])?;
            let content = input.get("content")?.as_str()?;
            ToolForm::Write { path, content: text(content) }
        }
        "Bash" | "bash" => {
            let command = text(input.get("command")?.as_str()?);
            let description = str_field(input, "description").map(&mut text);
            ToolForm::Command { command, description }
        }
        "Read" => ToolForm::Read {
            path: path(&["file_path", "path"])?,
            offset: number("offset"),
            limit: number("limit"),
        },
        "Grep" | "Glob" => ToolForm::Search {
            pattern: text(str_field(input, "pattern")?),
            path: path(&["path"]),
            glob: str_field(input, "glob").map(&mut text),
        },
        "TodoWrite" => {
            let todos = input.get("todos")?.as_array()?;
            let items = todos
                .iter()
                .filter_map(|t| {
                    let content = first_field(t, &["content", "activeForm"])?;
                    let status = str_field(t, "status").unwrap_or("pending").to_owned();
                    Some(TodoItem { content: text(content), status })
                })
                .collect();
            ToolForm::Todos { items }
        }
        "AskUserQuestion" => {
            ToolForm::Questions { items: super::frames::questions(input, &mut text)? }
        }
        "Task" | "Agent" => {
            let description = str_field(input, "description").map(&mut text);
            let agent_type = str_field(input, "subagent_type").map(str::to_owned);
            let prompt = str_field(input, "prompt").map(&mut text);
            if description.is_none() && prompt.is_none() {
                return None;
            }
            ToolForm::Task { description, agent_type, prompt }
        }
        _ => return None,
    })
}

/// One replacement (`old_string` → `new_string`) as a line diff.
fn edit_of(edit: &Value, text: &mut impl FnMut(&str) -> String) -> Option<FileEdit> {
    let old = text(edit.get("old_string")?.as_str()?);
    let new = text(edit.get("new_string")?.as_str()?);
    let replace_all = edit.get("replace_all").and_then(Value::as_bool).unwrap_or(false);
    Some(FileEdit { replace_all, lines: diff_lines(&old, &new) })
}

/// `old` → `new` line by line: unchanged, removed and added lines in order.
pub fn diff_lines(old: &str, new: &str) -> Vec<DiffLine> {
    let diff = TextDiff::configure().timeout(DIFF_TIME).diff_lines(old, new);
    diff.iter_all_changes()
        .map(|c| {
            let change = match c.tag() {
                ChangeTag::Equal => LineChange::Same,
                ChangeTag::Delete => LineChange::Removed,
                ChangeTag::Insert => LineChange::Added,
            };
            let line = c.value();
            let line = line.strip_suffix('\n').unwrap_or(line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            DiffLine { change, text: line.to_owned() }
        })
        .collect()
}

/// Whether a tool result is Claude Code's word that the person declined the call (it is written as
/// an error, but the tool never ran).
pub fn is_rejection(output: &str) -> bool {
    let t = output.trim_start();
    t.starts_with("The user doesn't want to proceed with this tool use")
        || t.starts_with("The user doesn't want to take this action right now")
}

/// Takes Claude Code's `<tool_use_error>` tags off a result they wrap whole (in place: only such a
/// result, which is short, is copied).
pub fn strip_error_tags(output: &mut String) {
    let inner = output
        .trim()
        .strip_prefix("<tool_use_error>")
        .and_then(|r| r.strip_suffix("</tool_use_error>"))
        .map(str::to_owned);
    if let Some(inner) = inner {
        *output = inner;
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
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
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

    fn changes(lines: &[DiffLine]) -> Vec<(LineChange, &str)> {
        lines.iter().map(|l| (l.change, l.text.as_str())).collect()
    }

    #[test]
    fn an_edit_is_a_line_diff_of_the_file_text() {
        let input = json!({"file_path": "/p/a.rs", "old_string": "fn a() {\n    1\n}", "new_string": "fn a() {\r\n    2\r\n}", "replace_all": true});
        let Some(ToolForm::Edit { path, edits }) = form("Edit", &input) else {
            panic!("no edit form")
        };
        assert_eq!(path, "/p/a.rs");
        assert!(edits[0].replace_all);
        use LineChange::*;
        // Line endings are not part of the text; a line that differs only in them is changed.
        assert_eq!(
            changes(&edits[0].lines),
            [
                (Removed, "fn a() {"),
                (Removed, "    1"),
                (Added, "fn a() {"),
                (Added, "    2"),
                (Same, "}")
            ]
        );
        let multi = json!({"file_path": "/p/b", "edits": [
            {"old_string": "x\ny", "new_string": "x\nz"}, {"old_string": 3, "new_string": "q"}, {"old_string": "", "new_string": "new"}]});
        let Some(ToolForm::Edit { edits, .. }) = form("MultiEdit", &multi) else { panic!() };
        assert_eq!(edits.len(), 2, "an edit without text strings is left out");
        assert_eq!(changes(&edits[0].lines), [(Same, "x"), (Removed, "y"), (Added, "z")]);
        assert_eq!(changes(&edits[1].lines), [(Added, "new")]);
        // Without a path (another recording of the tool), the call keeps its JSON.
        assert_eq!(form("Edit", &json!({"old_string": "a", "new_string": "b"})), None);
    }

    #[test]
    fn each_known_tool_has_its_form_and_others_keep_their_json() {
        let bash = form("Bash", &json!({"command": "ls -la", "description": "List"}));
        assert_eq!(
            bash,
            Some(ToolForm::Command { command: "ls -la".into(), description: Some("List".into()) })
        );
        let read = form("Read", &json!({"file_path": "/a", "offset": 10, "limit": 5}));
        assert_eq!(
            read,
            Some(ToolForm::Read { path: "/a".into(), offset: Some(10), limit: Some(5) })
        );
        let grep = form("Grep", &json!({"pattern": "fn main", "path": "src", "glob": "*.rs"}));
        assert_eq!(
            grep,
            Some(ToolForm::Search {
                pattern: "fn main".into(),
                path: Some("src".into()),
                glob: Some("*.rs".into())
            })
        );
        let todos = json!({"todos": [{"content": "a", "status": "completed"}, {"activeForm": "b"}, {"status": "pending"}]});
        let Some(ToolForm::Todos { items }) = form("TodoWrite", &todos) else { panic!() };
        let items: Vec<(&str, &str)> =
            items.iter().map(|t| (t.content.as_str(), t.status.as_str())).collect();
        assert_eq!(items, [("a", "completed"), ("b", "pending")]);
        let task = form(
            "Task",
            &json!({"description": "Explore", "subagent_type": "Explore", "prompt": "Look"}),
        );
        assert!(
            matches!(task, Some(ToolForm::Task { agent_type: Some(ref t), .. }) if t == "Explore")
        );
        let write = form("Write", &json!({"file_path": "/w", "content": "hello"}));
        assert_eq!(write, Some(ToolForm::Write { path: "/w".into(), content: "hello".into() }));
        assert_eq!(form("WebFetch", &json!({"url": "https://x"})), None);
        assert_eq!(form("Bash", &json!({"command": 3})), None);
        assert_eq!(form("Task", &json!({})), None);
    }

    #[test]
    fn a_form_holds_a_bounded_amount_of_text() {
        let big = "é".repeat(FORM_TEXT_BYTES);
        let input = json!({"file_path": "/w", "old_string": big, "new_string": big});
        let Some(ToolForm::Edit { edits, .. }) = form("Edit", &input) else { panic!() };
        let bytes: usize = edits[0].lines.iter().map(|l| l.text.len()).sum();
        assert!(bytes <= FORM_TEXT_BYTES, "{bytes} bytes");
        let input = json!({"command": "x".repeat(3 * FORM_TEXT_BYTES), "description": "d"});
        let Some(ToolForm::Command { command, description }) = form("Bash", &input) else {
            panic!()
        };
        assert_eq!(command.len(), FORM_TEXT_BYTES);
        assert_eq!(description.as_deref(), Some(""), "the budget is spent by then");
    }

    #[test]
    fn a_rejection_and_error_tags_are_told_apart_from_the_output() {
        assert!(is_rejection(
            "The user doesn't want to proceed with this tool use. The tool use was rejected"
        ));
        assert!(is_rejection("The user doesn't want to take this action right now. STOP"));
        assert!(!is_rejection("Error: file not found"));
        let stripped = |s: &str| {
            let mut s = s.to_owned();
            strip_error_tags(&mut s);
            s
        };
        assert_eq!(
            stripped(" <tool_use_error>String not found</tool_use_error>\n"),
            "String not found"
        );
        let kept = "a <tool_use_error>b</tool_use_error>";
        assert_eq!(stripped(kept), kept);
    }
}
