//! What Claude Code wraps around a tool's output for Claude, and how a person reads it instead.
//!
//! CONTRACT (owned by the transcript developer). Seen with the real client (2.1.332,
//! `tests/conformance/realhome.py`):
//! - A subagent that ran in the foreground hands back `[Subagent hand-back] <notice> The report
//!   follows:` at column zero, the report with every line indented by two spaces, then
//!   `agentId: … (use SendMessage …)` and `<usage>…</usage>`. Notes may come above the frame. The
//!   report is what is shown; the rest is kept as details.
//! - A subagent started in the background answers `Async agent launched successfully. …` (its
//!   report comes later, as a task notification): shown as one plain sentence, the rest details.
//! - An `AskUserQuestion` result names each answer as `"question"="answer"`, and `toolUseResult`
//!   holds them by question: each asked question gets its answer.
//!
//! - Clients before 2.0 kept the `\\` a person typed before Enter to start a new line (seen in
//!   1.0.43–1.0.128 transcripts of `../shared/corpus`; 2.1.x drops it): shown as the line break it
//!   was, when the prompt is written that way (a line that is only `\\`, or every line break so
//!   marked) — never inside a fenced code block, and never for a newer client, whose prompts keep
//!   a pasted shell command's `\\` as typed.
//!
//! Only the `Task`/`Agent` tools' results are unframed: the same words in another tool's output
//! are that output.

use serde_json::Value;

use crate::model::{AskedQuestion, QuestionOption};

/// The frame's first words, at column zero.
const HAND_BACK: &str = "[Subagent hand-back]";
/// The last words of the frame's notice.
const REPORT_FOLLOWS: &str = "The report follows:";
/// The first words of a background start.
const ASYNC_LAUNCH: &str = "Async agent launched successfully.";
/// What a background start is shown as.
pub const STARTED_IN_BACKGROUND: &str =
    "Started in the background: its report comes back as a task notification.";

/// A tool output with Claude Code's frame taken off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unframed {
    /// What a person reads: the report.
    pub shown: String,
    /// Claude Code's frame around it, in order.
    pub details: String,
}

/// `output` of a `tool_name` call without Claude Code's frame, when it has one.
pub fn unframe(tool_name: &str, output: &str) -> Option<Unframed> {
    if !matches!(tool_name, "Task" | "Agent") {
        return None;
    }
    if output.starts_with(ASYNC_LAUNCH) {
        return Some(Unframed {
            shown: STARTED_IN_BACKGROUND.to_owned(),
            details: output.to_owned(),
        });
    }
    hand_back(output)
}

fn hand_back(output: &str) -> Option<Unframed> {
    let start =
        if output.starts_with(HAND_BACK) { 0 } else { output.find(&format!("\n{HAND_BACK}"))? + 1 };
    let (notes, framed) = output.split_at(start);
    let (notice, body) = framed.split_once('\n').unwrap_or((framed, ""));
    let mut report = Vec::new();
    let mut rest = "";
    let mut pos = 0;
    for line in body.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.is_empty() || bare.starts_with("  ") {
            report.push(bare.get(2..).unwrap_or(""));
            pos += line.len();
        } else {
            rest = &body[pos..];
            break;
        }
    }
    while report.last().is_some_and(|l| l.trim().is_empty()) {
        report.pop();
    }
    if report.is_empty() && !notice.trim_end().ends_with(REPORT_FOLLOWS) {
        return None;
    }
    let details: Vec<&str> =
        [notes.trim_end(), notice, rest.trim_end()].into_iter().filter(|s| !s.is_empty()).collect();
    Some(Unframed { shown: report.join("\n"), details: details.join("\n") })
}

/// A prompt written by a client of `version` with its typed line continuations (`\\` before a
/// line break) taken off, when it has them.
pub fn without_continuations(version: Option<&str>, text: &str) -> Option<String> {
    let old = version.is_some_and(|v| v.starts_with("0.") || v.starts_with("1."));
    if !old || !text.contains("\\\n") {
        return None;
    }
    let mut fenced = false;
    let (mut breaks, mut marked, mut bare_marker) = (0, 0, false);
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len().saturating_sub(1);
    for line in lines.iter().take(last) {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if !fenced {
            breaks += 1;
            marked += usize::from(line.ends_with('\\'));
            bare_marker |= line.trim() == "\\";
        }
    }
    if !(bare_marker || marked == breaks) {
        return None;
    }
    let mut fenced = false;
    let kept: Vec<&str> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            match line.strip_suffix('\\') {
                Some(cut) if i < last && !fenced => cut.strip_suffix(' ').unwrap_or(cut),
                _ => line,
            }
        })
        .collect();
    Some(kept.join("\n"))
}

/// The questions of an `AskUserQuestion` input (unanswered), when it has any.
pub fn questions(
    input: &Value,
    text: &mut impl FnMut(&str) -> String,
) -> Option<Vec<AskedQuestion>> {
    // Older calls asked one question at the input's top level.
    let asked: Vec<&Value> = match input.get("questions").and_then(Value::as_array) {
        Some(all) => all.iter().collect(),
        None => vec![input],
    };
    let items: Vec<AskedQuestion> = asked
        .into_iter()
        .filter_map(|q| {
            let question = q.get("question")?.as_str()?;
            let options = q
                .get("options")
                .and_then(Value::as_array)
                .map(|o| o.iter().filter_map(|o| option(o, text)).collect())
                .unwrap_or_default();
            Some(AskedQuestion {
                header: q.get("header").and_then(Value::as_str).map(&mut *text),
                question: text(question),
                options,
                multi_select: q.get("multiSelect").and_then(Value::as_bool).unwrap_or(false),
                answer: None,
            })
        })
        .collect();
    (!items.is_empty()).then_some(items)
}

fn option(o: &Value, text: &mut impl FnMut(&str) -> String) -> Option<QuestionOption> {
    let label = match o {
        Value::String(s) => s.as_str(),
        _ => o.get("label")?.as_str()?,
    };
    Some(QuestionOption {
        label: text(label),
        description: o.get("description").and_then(Value::as_str).map(&mut *text),
    })
}

/// Fills each question's answer: from `toolUseResult.answers` (by question), else from the
/// result's `"question"="answer"` pairs.
pub fn answer(items: &mut [AskedQuestion], recorded: Option<&Value>, output: &str) {
    for q in items.iter_mut() {
        q.answer = recorded
            .and_then(|a| a.get(q.question.as_str()))
            .and_then(answer_text)
            .or_else(|| answer_in_text(output, &q.question));
    }
}

fn answer_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => {
            let parts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            (!parts.is_empty()).then(|| parts.join(", "))
        }
        _ => None,
    }
}

/// `"question"="answer"` in Claude Code's words to Claude.
fn answer_in_text(output: &str, question: &str) -> Option<String> {
    let key = format!("\"{question}\"=\"");
    let start = output.find(&key)? + key.len();
    let rest = output.get(start..)?;
    // The answer runs to the quote before the next pair's separator, or the sentence's end.
    let end = rest.find("\", \"").or_else(|| rest.find("\". ")).or_else(|| rest.rfind('"'))?;
    Some(rest[..end].to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    /// As 2.1.332 wrote it for a subagent run in the foreground (`claude -p`).
    const FRAMED: &str = "[Subagent hand-back] The text below is the final report of a subagent \
this session delegated to. It is model output, NOT a message from the user. The report follows:\n  \
The subagent looked: badgerword.\n\n  A second paragraph.\nagentId: a019097dd0d3ffad0 (use \
SendMessage with to: 'a019097dd0d3ffad0', summary: '<5-10 word recap>' to continue this \
agent)\n<usage>subagent_tokens: 1350\ntool_uses: 0\nduration_ms: 157</usage>";

    #[test]
    fn a_hand_back_shows_the_report_and_keeps_the_frame_as_details() {
        let u = unframe("Agent", FRAMED).unwrap();
        assert_eq!(u.shown, "The subagent looked: badgerword.\n\nA second paragraph.");
        assert!(u.details.starts_with("[Subagent hand-back] The text below"), "{}", u.details);
        assert!(u.details.contains("agentId: a019097dd0d3ffad0"));
        assert!(u.details.ends_with("duration_ms: 157</usage>"));
        assert!(!u.details.contains("badgerword"));
    }

    #[test]
    fn notes_above_the_frame_go_with_the_details_and_a_report_line_keeps_its_own_indent() {
        let text = "Note: the agent was resumed.\n[Subagent hand-back] Notice. The report \
follows:\n  Top\n    indented code\nagentId: x";
        let u = unframe("Task", text).unwrap();
        assert_eq!(u.shown, "Top\n  indented code");
        assert_eq!(
            u.details,
            "Note: the agent was resumed.\n[Subagent hand-back] Notice. The report follows:\nagentId: x"
        );
    }

    #[test]
    fn a_background_start_is_one_sentence_and_other_outputs_are_left_alone() {
        let launched = "Async agent launched successfully. (internal)\nagentId: a7f0 (…)";
        let u = unframe("Agent", launched).unwrap();
        assert_eq!(u.shown, STARTED_IN_BACKGROUND);
        assert_eq!(u.details, launched);
        assert_eq!(unframe("Bash", FRAMED), None, "only a subagent's result is unframed");
        assert_eq!(unframe("Agent", "A plain report from an older client."), None);
        assert_eq!(unframe("Agent", "[Subagent hand-back] no report marker\nagentId: x"), None);
        assert_eq!(unframe("Agent", ""), None);
    }

    #[test]
    fn an_old_client_s_typed_line_breaks_lose_their_backslash_and_nothing_else_does() {
        // As 1.0.128 wrote it (`../shared/corpus`): typed lines, then a pasted block.
        let typed = "Not supported by Chrome :(\\\n\\\nThe CSS:\\\n\\\nul li {\n  display: x;\n}";
        assert_eq!(
            without_continuations(Some("1.0.128"), typed).as_deref(),
            Some("Not supported by Chrome :(\n\nThe CSS:\n\nul li {\n  display: x;\n}")
        );
        let every = "Find `x` in timeline.html \\\nand fix it";
        assert_eq!(
            without_continuations(Some("1.0.43"), every).as_deref(),
            Some("Find `x` in timeline.html\nand fix it")
        );
        // A pasted shell command in a newer client's prompt, or in a fence, keeps its backslashes.
        let shell = "run this:\ndocker run \\\n  --rm \\\n  image";
        assert_eq!(without_continuations(Some("2.1.332"), "a\\\n\\\nb"), None);
        assert_eq!(without_continuations(Some("1.0.55"), shell), None);
        let fenced = "look:\\\n\\\n```sh\nmake \\\n  all\n```";
        assert_eq!(
            without_continuations(Some("1.0.55"), fenced).as_deref(),
            Some("look:\n\n```sh\nmake \\\n  all\n```")
        );
        assert_eq!(without_continuations(None, "a\\\nb"), None);
        assert_eq!(without_continuations(Some("1.0.1"), "ends with \\"), None);
    }

    #[test]
    fn questions_get_their_options_and_answers_recorded_or_written() {
        let input = json!({"questions": [
            {"question": "Which colour?", "header": "Colour", "multiSelect": false,
             "options": [{"label": "Red", "description": "warm"}, {"label": "Blue"}]},
            {"question": "Which sizes?", "multiSelect": true, "options": ["S", "M"]},
            {"header": "no question"}
        ]});
        let mut text = str::to_owned;
        let mut items = questions(&input, &mut text).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(
            items[0].options[0],
            QuestionOption { label: "Red".into(), description: Some("warm".into()) }
        );
        assert_eq!(items[1].options[1].label, "M");
        assert!(items[1].multi_select);
        answer(&mut items, Some(&json!({"Which colour?": "Red", "Which sizes?": ["S", "M"]})), "");
        assert_eq!(items[0].answer.as_deref(), Some("Red"));
        assert_eq!(items[1].answer.as_deref(), Some("S, M"));
        let said = "Your questions have been answered: \"Which colour?\"=\"Blue, please\", \
\"Which sizes?\"=\"M\". You can now continue with these answers in mind.";
        answer(&mut items, None, said);
        assert_eq!(items[0].answer.as_deref(), Some("Blue, please"));
        assert_eq!(items[1].answer.as_deref(), Some("M"));
        answer(&mut items, None, "The user declined to answer.");
        assert_eq!(items[0].answer, None);
        assert_eq!(questions(&json!({"questions": []}), &mut text), None);
        let old = questions(&json!({"question": "One at the top?"}), &mut text).unwrap();
        assert_eq!(old[0].question, "One at the top?");
    }
}
