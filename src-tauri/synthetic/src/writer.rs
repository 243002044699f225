//! Transcript writing: one session's lines, the envelope every record shares, and the
//! bookkeeping records Claude Code writes around the conversation (the turns themselves are in
//! `writer/turns.rs`).

#[allow(clippy::wildcard_imports, reason = "the crate's shared imports and items")]
use super::*;

mod turns;

pub(crate) struct Ctx {
    pub(crate) session_id: String,
    pub(crate) cwd: String,
    pub(crate) era: Era,
    pub(crate) version: &'static str,
    pub(crate) model: &'static str,
    pub(crate) branch: &'static str,
    pub(crate) sidechain: bool,
    pub(crate) agent_id: Option<String>,
    /// Folder holding the main transcript (for flat agent files).
    pub(crate) folder: PathBuf,
    pub(crate) allow_subagents: bool,
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Tally {
    pub(crate) bytes: u64,
    pub(crate) largest: u64,
    pub(crate) subagent_files: usize,
    pub(crate) flat_agent_files: usize,
}

impl Tally {
    pub(crate) fn add(&mut self, other: Tally) {
        self.bytes += other.bytes;
        self.largest = self.largest.max(other.largest);
        self.subagent_files += other.subagent_files;
        self.flat_agent_files += other.flat_agent_files;
    }
}

pub(crate) struct TranscriptWriter<'a, W: Write> {
    pub(crate) out: W,
    pub(crate) line: Vec<u8>,
    pub(crate) written: u64,
    pub(crate) rng: Rng,
    pub(crate) filler: &'a Filler,
    pub(crate) ctx: Ctx,
    pub(crate) parent: Option<[u8; 36]>,
    pub(crate) now_ms: i64,
    pub(crate) last_message_ms: i64,
    /// Largest tool output for this transcript.
    pub(crate) max_output: u64,
    pub(crate) children: Tally,
}

pub(crate) const BRANCHES: &[&str] =
    &["main", "main", "master", "develop", "feature/index", "HEAD", ""];

impl<'a, W: Write> TranscriptWriter<'a, W> {
    pub(crate) fn new(
        out: W,
        rng: Rng,
        filler: &'a Filler,
        ctx: Ctx,
        start_ms: i64,
        max_output: u64,
    ) -> Self {
        Self {
            out,
            line: Vec::with_capacity(64 * KIB as usize),
            written: 0,
            rng,
            filler,
            ctx,
            parent: None,
            now_ms: start_ms,
            last_message_ms: start_ms,
            max_output,
            children: Tally::default(),
        }
    }

    pub(crate) fn io(&self, e: std::io::Error) -> Error {
        Error::io(format!("cannot write transcript {}", self.ctx.session_id), e)
    }

    pub(crate) fn flush_line(&mut self) -> Result<()> {
        self.line.push(b'\n');
        self.out.write_all(&self.line).map_err(|e| self.io(e))?;
        self.written += self.line.len() as u64;
        self.line.clear();
        Ok(())
    }

    pub(crate) fn tick(&mut self, lo: u64, hi: u64) -> i64 {
        self.now_ms += self.rng.range(lo, hi) as i64;
        self.now_ms
    }

    /// The envelope of a chained line, up to (not including) the type-specific fields.
    pub(crate) fn envelope(&mut self) {
        let l = &mut self.line;
        l.extend_from_slice(b"{\"parentUuid\":");
        match &self.parent {
            Some(p) => {
                l.push(b'"');
                l.extend_from_slice(p);
                l.push(b'"');
            }
            None => l.extend_from_slice(b"null"),
        }
        l.extend_from_slice(if self.ctx.sidechain {
            b",\"isSidechain\":true,\"userType\":\"external\","
        } else {
            b",\"isSidechain\":false,\"userType\":\"external\","
        });
        if self.ctx.era == Era::New {
            l.extend_from_slice(b"\"entrypoint\":\"cli\",");
        }
        push_kv_str(l, "cwd", &self.ctx.cwd);
        push_kv_str(l, "sessionId", &self.ctx.session_id);
        push_kv_str(l, "version", self.ctx.version);
        if self.ctx.era != Era::Old || !self.ctx.branch.is_empty() {
            push_kv_str(l, "gitBranch", self.ctx.branch);
        }
        if let Some(a) = &self.ctx.agent_id {
            push_kv_str(l, "agentId", a);
        }
    }

    /// Ends a chained line with uuid and timestamp, and writes it.
    pub(crate) fn finish(&mut self, is_message: bool) -> Result<[u8; 36]> {
        let uuid = self.rng.uuid();
        let l = &mut self.line;
        l.extend_from_slice(b"\"uuid\":\"");
        l.extend_from_slice(&uuid);
        // Timestamps are not monotonic in real files (55 of 6281 lines are older than the line
        // before them): now and then a line is stamped a few seconds early.
        let early = self.rng.chance(1);
        let ts = if early { self.now_ms - self.rng.range(1, 5_000) as i64 } else { self.now_ms };
        let l = &mut self.line;
        l.extend_from_slice(b"\",\"timestamp\":\"");
        push_iso(l, ts);
        l.extend_from_slice(b"\"}");
        self.parent = Some(uuid);
        if is_message {
            self.last_message_ms = self.last_message_ms.max(ts);
        }
        self.flush_line()?;
        Ok(uuid)
    }

    pub(crate) fn text(&mut self, len: u64) {
        let s = self.filler.slice(&mut self.rng, len as usize);
        self.line.extend_from_slice(s);
    }

    /// Multi-line text (`\n` escapes) of about `len` bytes.
    pub(crate) fn multiline(&mut self, len: u64) {
        let mut done = 0u64;
        let mut n = 1u64;
        while done < len {
            let w = self.rng.range(20, 110);
            let before = self.line.len();
            push_u64(&mut self.line, n);
            self.line.extend_from_slice(b"\\t");
            self.text(w);
            self.line.extend_from_slice(b"\\n");
            done += (self.line.len() - before) as u64;
            n += 1;
        }
    }

    pub(crate) fn usage(&mut self, output_tokens: u64) {
        let input = self.rng.range(2, 12);
        let create = self.rng.range(0, 20_000);
        let read = self.rng.range(0, 150_000);
        let l = &mut self.line;
        l.extend_from_slice(b"\"usage\":{");
        push_kv_u64(l, "input_tokens", input);
        push_kv_u64(l, "cache_creation_input_tokens", create);
        push_kv_u64(l, "cache_read_input_tokens", read);
        l.extend_from_slice(b"\"cache_creation\":{");
        push_kv_u64(l, "ephemeral_5m_input_tokens", create);
        l.extend_from_slice(b"\"ephemeral_1h_input_tokens\":0},");
        push_kv_u64(l, "output_tokens", output_tokens);
        l.extend_from_slice(b"\"service_tier\":\"standard\"}");
    }

    // --- bookkeeping lines (not chained) ---

    pub(crate) fn permission_mode(&mut self) -> Result<()> {
        let mode = self.rng.pick_str(&["default", "acceptEdits", "bypassPermissions", "plan"]);
        let l = &mut self.line;
        l.extend_from_slice(b"{\"type\":\"permission-mode\",");
        push_kv_str(l, "permissionMode", mode);
        l.extend_from_slice(b"\"sessionId\":");
        push_json_str(l, &self.ctx.session_id);
        l.push(b'}');
        self.flush_line()
    }

    pub(crate) fn file_history_snapshot(&mut self) -> Result<()> {
        let id = self.rng.uuid();
        let l = &mut self.line;
        l.extend_from_slice(b"{\"type\":\"file-history-snapshot\",\"messageId\":\"");
        l.extend_from_slice(&id);
        l.extend_from_slice(b"\",\"snapshot\":{\"messageId\":\"");
        l.extend_from_slice(&id);
        l.extend_from_slice(b"\",\"trackedFileBackups\":{},\"timestamp\":\"");
        push_iso(l, self.now_ms);
        l.extend_from_slice(b"\"},\"isSnapshotUpdate\":false}");
        self.flush_line()
    }

    pub(crate) fn queue_operation(&mut self, operation: &str, content: Option<&str>) -> Result<()> {
        let l = &mut self.line;
        l.extend_from_slice(b"{\"type\":\"queue-operation\",");
        push_kv_str(l, "operation", operation);
        l.extend_from_slice(b"\"timestamp\":\"");
        push_iso(l, self.now_ms);
        l.extend_from_slice(b"\",");
        if let Some(c) = content {
            if self.ctx.era == Era::V20 {
                l.extend_from_slice(b"\"content\":[{\"type\":\"text\",\"text\":");
                push_json_str(l, c);
                l.extend_from_slice(b"}],");
            } else {
                push_kv_str(l, "content", c);
            }
        }
        l.extend_from_slice(b"\"sessionId\":");
        push_json_str(l, &self.ctx.session_id);
        l.push(b'}');
        self.flush_line()
    }

    pub(crate) fn summary_line(&mut self) -> Result<()> {
        let leaf = self.rng.uuid();
        self.line.extend_from_slice(b"{\"type\":\"summary\",\"summary\":\"");
        let len = self.rng.range(20, 60);
        self.text(len);
        self.line.extend_from_slice(b"\",\"leafUuid\":\"");
        self.line.extend_from_slice(&leaf);
        self.line.extend_from_slice(b"\"}");
        self.flush_line()
    }

    pub(crate) fn title(&mut self, kind: &str, key: &str) -> Result<()> {
        self.line.extend_from_slice(b"{\"type\":\"");
        self.line.extend_from_slice(kind.as_bytes());
        self.line.extend_from_slice(b"\",\"");
        self.line.extend_from_slice(key.as_bytes());
        self.line.extend_from_slice(b"\":\"");
        let len = self.rng.range(12, 50);
        self.text(len);
        self.line.extend_from_slice(b"\",\"sessionId\":");
        push_json_str(&mut self.line, &self.ctx.session_id);
        self.line.push(b'}');
        self.flush_line()
    }

    /// A bookkeeping line `{"type":…,<key>:<raw json>,"sessionId":…}`.
    pub(crate) fn session_line(&mut self, kind: &str, key: &str, raw_value: &[u8]) -> Result<()> {
        self.line.extend_from_slice(b"{\"type\":\"");
        self.line.extend_from_slice(kind.as_bytes());
        self.line.extend_from_slice(b"\",\"");
        self.line.extend_from_slice(key.as_bytes());
        self.line.extend_from_slice(b"\":");
        self.line.extend_from_slice(raw_value);
        self.line.extend_from_slice(b",\"sessionId\":");
        push_json_str(&mut self.line, &self.ctx.session_id);
        self.line.push(b'}');
        self.flush_line()
    }

    pub(crate) fn worktree_state(&mut self) -> Result<()> {
        let mut v = b"{\"originalCwd\":".to_vec();
        let original = self.ctx.cwd.split("/.claude/worktrees/").next().unwrap_or("").to_owned();
        push_json_str(&mut v, &original);
        v.extend_from_slice(b",\"worktreePath\":");
        push_json_str(&mut v, &self.ctx.cwd);
        v.extend_from_slice(b",\"worktreeName\":");
        push_json_str(&mut v, self.ctx.cwd.rsplit('/').next().unwrap_or("wt"));
        v.extend_from_slice(b",\"sessionId\":");
        push_json_str(&mut v, &self.ctx.session_id);
        v.push(b'}');
        self.session_line("worktree-state", "worktreeSession", &v)
    }

    pub(crate) fn pr_link(&mut self) -> Result<()> {
        let n = self.rng.range(1, 5_000);
        self.line.extend_from_slice(b"{\"type\":\"pr-link\",\"sessionId\":");
        push_json_str(&mut self.line, &self.ctx.session_id);
        self.line.extend_from_slice(b",\"prNumber\":");
        push_u64(&mut self.line, n);
        self.line.extend_from_slice(b",\"prUrl\":\"https://github.com/acme/app/pull/");
        push_u64(&mut self.line, n);
        self.line.extend_from_slice(b"\",\"prRepository\":\"acme/app\",\"timestamp\":\"");
        push_iso(&mut self.line, self.now_ms);
        self.line.extend_from_slice(b"\"}");
        self.flush_line()
    }

    /// `compact_boundary` (a new chain) and the compaction summary that follows it.
    pub(crate) fn compaction(&mut self) -> Result<()> {
        self.tick(1_000, 30_000);
        let logical = self.parent.take();
        self.envelope();
        if let Some(p) = logical {
            self.line.extend_from_slice(b"\"logicalParentUuid\":\"");
            self.line.extend_from_slice(&p);
            self.line.extend_from_slice(b"\",");
        }
        self.line.extend_from_slice(b"\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"isMeta\":false,\"level\":\"info\",\"compactMetadata\":{\"trigger\":\"auto\",\"preTokens\":");
        let pre = self.rng.range(150_000, 190_000);
        push_u64(&mut self.line, pre);
        self.line.extend_from_slice(b"},");
        self.finish(false)?;
        self.tick(1, 50);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"This session is being continued from a previous conversation that ran out of context. The conversation is summarized below: ");
        let len = self.rng.range(1_000, 6_000);
        self.text(len);
        self.line.extend_from_slice(
            b"\"},\"isVisibleInTranscriptOnly\":true,\"isCompactSummary\":true,",
        );
        self.finish(true).map(|_| ())
    }

    /// A locally generated assistant line (`<synthetic>` model), which usage and counts skip.
    pub(crate) fn synthetic_reply(&mut self) -> Result<()> {
        self.tick(100, 2_000);
        let id = self.rng.uuid();
        self.envelope();
        self.line.extend_from_slice(b"\"message\":{\"id\":\"");
        self.line.extend_from_slice(&id);
        self.line.extend_from_slice(b"\",\"container\":null,\"model\":\"<synthetic>\",\"role\":\"assistant\",\"stop_reason\":\"stop_sequence\",\"stop_sequence\":\"\",\"type\":\"message\",\"usage\":{\"input_tokens\":0,\"output_tokens\":0,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0},\"content\":[{\"type\":\"text\",\"text\":\"No response requested.\"}]},\"type\":\"assistant\",");
        self.finish(false).map(|_| ())
    }

    pub(crate) fn interrupt(&mut self) -> Result<()> {
        self.tick(500, 20_000);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"[Request interrupted by user]\"}]},");
        self.finish(true).map(|_| ())
    }

    pub(crate) fn last_prompt(&mut self) -> Result<()> {
        self.line.extend_from_slice(b"{\"type\":\"last-prompt\",\"lastPrompt\":\"");
        let len = self.rng.range(20, 100);
        self.text(len);
        self.line.extend_from_slice(b"\",\"sessionId\":");
        push_json_str(&mut self.line, &self.ctx.session_id);
        self.line.push(b'}');
        self.flush_line()
    }

    // --- chained lines ---

    pub(crate) fn user_prompt(&mut self, len: u64) -> Result<()> {
        self.tick(5_000, 240_000);
        self.envelope();
        self.line
            .extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"");
        self.text(len);
        self.line.extend_from_slice(b"\"},");
        if self.ctx.era == Era::New {
            let p = self.rng.uuid();
            self.line.extend_from_slice(b"\"promptId\":\"");
            self.line.extend_from_slice(&p);
            self.line.extend_from_slice(b"\",");
        }
        self.finish(true).map(|_| ())
    }

    pub(crate) fn meta_caveat_and_command(&mut self) -> Result<()> {
        self.tick(1_000, 60_000);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.\"},\"isMeta\":true,");
        self.finish(false)?;
        let cmd = self.rng.pick_str(&["model", "clear", "compact", "cost", "mcp", "status"]);
        self.tick(1, 50);
        self.envelope();
        self.line.extend_from_slice(
            b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"<command-name>/",
        );
        self.line.extend_from_slice(cmd.as_bytes());
        self.line.extend_from_slice(b"</command-name>\\n            <command-message>");
        self.line.extend_from_slice(cmd.as_bytes());
        self.line.extend_from_slice(
            b"</command-message>\\n            <command-args></command-args>\"},",
        );
        self.finish(false)?;
        self.tick(10, 400);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"<local-command-stdout>");
        let len = self.rng.range(10, 200);
        self.text(len);
        self.line.extend_from_slice(b"</local-command-stdout>\"},");
        self.finish(false).map(|_| ())
    }

    pub(crate) fn attachment(&mut self) -> Result<()> {
        self.tick(5, 300);
        let tool_use = self.rng.uuid();
        let kind = self.rng.pick_str(&["hook_success", "skill_listing", "task_reminder"]);
        self.line.extend_from_slice(b"{\"parentUuid\":");
        match &self.parent {
            Some(p) => {
                self.line.push(b'"');
                self.line.extend_from_slice(p);
                self.line.push(b'"');
            }
            None => self.line.extend_from_slice(b"null"),
        }
        self.line.extend_from_slice(if self.ctx.sidechain {
            b",\"isSidechain\":true,\"attachment\":{\"type\":\""
        } else {
            b",\"isSidechain\":false,\"attachment\":{\"type\":\""
        });
        self.line.extend_from_slice(kind.as_bytes());
        self.line.extend_from_slice(b"\",\"hookName\":\"UserPromptSubmit\",\"toolUseID\":\"");
        self.line.extend_from_slice(&tool_use);
        self.line.extend_from_slice(b"\",\"hookEvent\":\"UserPromptSubmit\",\"content\":\"");
        let len = self.rng.range(20, 600);
        self.text(len);
        self.line.extend_from_slice(
            b"\",\"stdout\":\"\",\"stderr\":\"\",\"exitCode\":0,\"durationMs\":",
        );
        let d = self.rng.range(20, 2_000);
        push_u64(&mut self.line, d);
        self.line.extend_from_slice(b"},\"type\":\"attachment\",");
        // The envelope fields come after the payload on attachment lines.
        let uuid = self.rng.uuid();
        self.line.extend_from_slice(b"\"uuid\":\"");
        self.line.extend_from_slice(&uuid);
        self.line.extend_from_slice(b"\",\"timestamp\":\"");
        push_iso(&mut self.line, self.now_ms);
        self.line.extend_from_slice(b"\",\"userType\":\"external\",\"entrypoint\":\"cli\",");
        push_kv_str(&mut self.line, "cwd", &self.ctx.cwd);
        push_kv_str(&mut self.line, "sessionId", &self.ctx.session_id);
        push_kv_str(&mut self.line, "version", self.ctx.version);
        self.line.extend_from_slice(b"\"gitBranch\":");
        push_json_str(&mut self.line, self.ctx.branch);
        self.line.push(b'}');
        self.parent = Some(uuid);
        self.flush_line()
    }

    pub(crate) fn hook_progress(&mut self, event: &str) -> Result<()> {
        self.tick(1, 200);
        let id = self.rng.uuid();
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"progress\",\"data\":{\"type\":\"hook_progress\",");
        push_kv_str(&mut self.line, "hookEvent", event);
        self.line.extend_from_slice(b"\"hookName\":\"");
        self.line.extend_from_slice(event.as_bytes());
        self.line.extend_from_slice(
            b":startup\",\"command\":\"$HOME/.claude/hooks/notify.sh\"},\"parentToolUseID\":\"",
        );
        self.line.extend_from_slice(&id);
        self.line.extend_from_slice(b"\",\"toolUseID\":\"");
        self.line.extend_from_slice(&id);
        self.line.extend_from_slice(b"\",");
        self.finish(false).map(|_| ())
    }

    pub(crate) fn bash_progress(&mut self, tool_use_id: &str) -> Result<()> {
        self.tick(500, 3_000);
        self.envelope();
        self.line.extend_from_slice(
            b"\"type\":\"progress\",\"data\":{\"type\":\"bash_progress\",\"output\":\"",
        );
        let len = self.rng.range(20, 400);
        self.text(len);
        self.line.extend_from_slice(b"\",\"fullOutput\":\"");
        self.text(len * 2);
        self.line.extend_from_slice(b"\",\"elapsedTimeSeconds\":");
        let s = self.rng.range(1, 30);
        push_u64(&mut self.line, s);
        self.line.extend_from_slice(b",\"totalLines\":");
        push_u64(&mut self.line, s * 3);
        self.line.extend_from_slice(b"},");
        push_kv_str(&mut self.line, "toolUseID", tool_use_id);
        push_kv_str(&mut self.line, "parentToolUseID", tool_use_id);
        self.finish(false).map(|_| ())
    }

    pub(crate) fn system_line(&mut self, subtype: &str) -> Result<()> {
        self.tick(50, 2_000);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"system\",");
        push_kv_str(&mut self.line, "subtype", subtype);
        if subtype == "turn_duration" {
            let d = self.rng.range(2_000, 400_000);
            push_kv_u64(&mut self.line, "durationMs", d);
            let c = self.rng.range(2, 200);
            push_kv_u64(&mut self.line, "messageCount", c);
        } else {
            self.line.extend_from_slice(b"\"content\":\"");
            let len = self.rng.range(20, 200);
            self.text(len);
            self.line.extend_from_slice(b"\",\"level\":\"info\",");
        }
        self.line.extend_from_slice(b"\"isMeta\":false,");
        self.finish(false).map(|_| ())
    }
}
