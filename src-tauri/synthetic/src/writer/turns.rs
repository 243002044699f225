//! The conversation: prompts, streamed assistant chunks, tool calls and their results,
//! subagents, sidechains and the long lines.

#[allow(clippy::wildcard_imports, reason = "the crate's shared imports and items")]
use super::*;

impl<W: Write> TranscriptWriter<'_, W> {
    /// One streamed assistant chunk (one content block).
    pub(crate) fn assistant_chunk(
        &mut self,
        msg_id: &str,
        req_id: &str,
        block: &[u8],
        last: bool,
        stop: &str,
    ) -> Result<[u8; 36]> {
        self.tick(200, 8_000);
        self.envelope();
        self.line.extend_from_slice(b"\"message\":{");
        push_kv_str(&mut self.line, "model", self.ctx.model);
        push_kv_str(&mut self.line, "id", msg_id);
        self.line.extend_from_slice(b"\"type\":\"message\",\"role\":\"assistant\",\"content\":[");
        self.line.extend_from_slice(block);
        self.line.extend_from_slice(b"],\"stop_reason\":");
        let final_usage = last || self.ctx.era == Era::V20;
        if final_usage {
            push_json_str(&mut self.line, stop);
        } else {
            self.line.extend_from_slice(b"null");
        }
        self.line.extend_from_slice(b",\"stop_sequence\":null,");
        let out = if final_usage { self.rng.range(50, 3_000) } else { self.rng.range(1, 15) };
        self.usage(out);
        self.line.extend_from_slice(b"},");
        push_kv_str(&mut self.line, "requestId", req_id);
        self.line.extend_from_slice(b"\"type\":\"assistant\",");
        self.finish(true)
    }

    pub(crate) fn block_text(&mut self, kind: &str, len: u64) -> Vec<u8> {
        let mut b = Vec::with_capacity(len as usize + 64);
        match kind {
            "thinking" => {
                b.extend_from_slice(b"{\"type\":\"thinking\",\"thinking\":\"");
                if !(self.ctx.era == Era::New && self.rng.chance(50)) {
                    b.extend_from_slice(self.filler.slice(&mut self.rng, len as usize));
                }
                b.extend_from_slice(b"\",\"signature\":\"");
                let sig = self.rng.range(200, 900) as usize;
                let start = self.rng.below_usize(self.filler.base64.len() - 1_000);
                b.extend_from_slice(self.filler.base64.get(start..start + sig).unwrap_or(&[]));
                b.extend_from_slice(b"\"}");
            }
            _ => {
                b.extend_from_slice(b"{\"type\":\"text\",\"text\":\"");
                b.extend_from_slice(self.filler.slice(&mut self.rng, len as usize));
                b.extend_from_slice(b"\"}");
            }
        }
        b
    }

    /// A whole assistant turn: prompt, streamed chunks, tool calls with results, follow-ups.
    pub(crate) fn turn(&mut self, prompt_len: u64) -> Result<()> {
        let era = self.ctx.era;
        if matches!(era, Era::Mid | Era::New | Era::V20)
            && !self.ctx.sidechain
            && self.rng.chance(4)
        {
            let c = String::from_utf8_lossy(self.filler.slice(&mut self.rng, 60)).into_owned();
            self.queue_operation("enqueue", Some(&c))?;
            self.tick(1, 30_000);
            self.queue_operation("dequeue", None)?;
        }
        if !self.ctx.sidechain && self.rng.chance(5) {
            self.meta_caveat_and_command()?;
        }
        self.user_prompt(prompt_len)?;
        match era {
            Era::New if self.rng.chance(30) => self.attachment()?,
            Era::Mid if self.rng.chance(20) => self.hook_progress("UserPromptSubmit")?,
            _ => {}
        }
        let rounds = 1 + self.rng.below(3);
        for round in 0..rounds {
            let msg_id = format!("msg_01{}", self.rng.base62(22));
            let req_id = format!("req_011C{}", self.rng.base62(20));
            let tools = if round + 1 == rounds {
                0
            } else {
                match self.rng.below(100) {
                    0..40 => 1,
                    40..70 => 2,
                    70..88 => 3,
                    _ => 4,
                }
            };
            let mut blocks: Vec<Vec<u8>> = Vec::new();
            if self.rng.chance(60) {
                let len = self.rng.log_uniform(40, 3_000);
                blocks.push(self.block_text("thinking", len));
            }
            if tools == 0 || self.rng.chance(70) {
                let len = self.rng.log_uniform(30, 2_500);
                blocks.push(self.block_text("text", len));
            }
            let mut calls = Vec::new();
            for _ in 0..tools {
                let call = self.tool_call();
                blocks.push(call.block.clone());
                calls.push(call);
            }
            let n = blocks.len();
            let stop = if tools > 0 { "tool_use" } else { "end_turn" };
            let mut tool_parents = Vec::new();
            for (i, b) in blocks.iter().enumerate() {
                let uuid = self.assistant_chunk(&msg_id, &req_id, b, i + 1 == n, stop)?;
                tool_parents.push(uuid);
            }
            let assistant_uuid = tool_parents.last().copied().unwrap_or([b'0'; 36]);
            for call in &calls {
                self.tool_result(call, &assistant_uuid)?;
            }
        }
        if !self.ctx.sidechain && self.rng.chance(2) {
            self.interrupt()?;
        } else if !self.ctx.sidechain && self.rng.chance(1) {
            self.synthetic_reply()?;
        }
        if matches!(era, Era::Mid | Era::New) && !self.ctx.sidechain && self.rng.chance(30) {
            self.system_line("turn_duration")?;
        }
        Ok(())
    }

    pub(crate) fn tool_call(&mut self) -> ToolCall {
        let id = format!("toolu_01{}", self.rng.base62(22));
        let can_spawn = self.ctx.allow_subagents;
        let name = if can_spawn && self.rng.chance(25) {
            "Task"
        } else {
            self.rng.pick_str(&["Bash", "Read", "Read", "Edit", "Grep", "Glob", "TodoWrite"])
        };
        let path = format!(
            "{}/src/{}.rs",
            self.ctx.cwd,
            self.rng.pick_str(&["main", "lib", "index", "parser", "catalog", "server"])
        );
        let mut input = Vec::with_capacity(256);
        match name {
            "Bash" => {
                input.extend_from_slice(b"{\"command\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 40));
                input.extend_from_slice(b"\",\"description\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 30));
                input.extend_from_slice(b"\"}");
            }
            "Read" => {
                input.extend_from_slice(b"{\"file_path\":");
                push_json_str(&mut input, &path);
                input.push(b'}');
            }
            "Edit" => {
                input.extend_from_slice(b"{\"file_path\":");
                push_json_str(&mut input, &path);
                input.extend_from_slice(b",\"old_string\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 80));
                input.extend_from_slice(b"\",\"new_string\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 90));
                input.extend_from_slice(b"\"}");
            }
            "Task" => {
                input.extend_from_slice(b"{\"description\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 30));
                input.extend_from_slice(b"\",\"prompt\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 300));
                input.extend_from_slice(b"\",\"subagent_type\":\"general-purpose\"}");
            }
            "TodoWrite" => {
                input.extend_from_slice(b"{\"todos\":[{\"content\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 40));
                input.extend_from_slice(
                    b"\",\"status\":\"in_progress\",\"activeForm\":\"Working\"}]}",
                );
            }
            _ => {
                input.extend_from_slice(b"{\"pattern\":\"");
                input.extend_from_slice(self.filler.slice(&mut self.rng, 12));
                input.extend_from_slice(b"\",\"path\":");
                push_json_str(&mut input, &self.ctx.cwd);
                input.push(b'}');
            }
        }
        let mut block = Vec::with_capacity(input.len() + 80);
        block.extend_from_slice(b"{\"type\":\"tool_use\",\"id\":\"");
        block.extend_from_slice(id.as_bytes());
        block.extend_from_slice(b"\",\"name\":\"");
        block.extend_from_slice(name.as_bytes());
        block.extend_from_slice(b"\",\"input\":");
        block.extend_from_slice(&input);
        if self.ctx.era == Era::New {
            block.extend_from_slice(b",\"caller\":{\"type\":\"direct\"}");
        }
        block.push(b'}');
        ToolCall { id, name, path, block }
    }

    pub(crate) fn tool_result(&mut self, call: &ToolCall, assistant_uuid: &[u8; 36]) -> Result<()> {
        let output_len = self.rng.log_uniform(60, self.max_output.max(61));
        let mut agent_id = None;
        let mut agent_summary = Vec::new();
        if call.name == "Task" {
            let (id, tally, end_ms) = self.spawn_subagent(output_len)?;
            self.children.add(tally);
            self.now_ms = self.now_ms.max(end_ms);
            agent_summary = self.filler.slice(&mut self.rng, 400).to_vec();
            agent_id = id;
        } else if self.ctx.era == Era::Mid {
            // 2.1.17–2.1.42 wrote progress lines around every tool call (up to 72% of the lines
            // of a real file): PreToolUse hooks, streamed Bash output.
            if self.rng.chance(70) {
                self.hook_progress("PreToolUse")?;
            }
            if call.name == "Bash" {
                for _ in 0..self.rng.range(1, 6) {
                    self.bash_progress(&call.id)?;
                }
            }
        }
        self.tick(100, 20_000);
        let is_error = call.name == "Bash" && self.rng.chance(5);
        self.envelope();
        self.line.extend_from_slice(
            b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"",
        );
        self.line.extend_from_slice(call.id.as_bytes());
        self.line.extend_from_slice(b"\",\"type\":\"tool_result\",\"content\":\"");
        let content_start = self.line.len();
        match call.name {
            "Task" => self.line.extend_from_slice(&agent_summary),
            "Read" | "Edit" => self.multiline(output_len),
            _ => self.text(output_len),
        }
        let content_end = self.line.len();
        self.line.extend_from_slice(b"\"");
        if is_error {
            self.line.extend_from_slice(b",\"is_error\":true");
        }
        self.line.extend_from_slice(b"}]},\"toolUseResult\":");
        // The raw tool payload repeats the output, as Claude Code does.
        let content = self.line.get(content_start..content_end).unwrap_or(&[]).to_vec();
        self.tool_use_result(call, &content, agent_id.as_deref());
        self.line.extend_from_slice(b",\"sourceToolAssistantUUID\":\"");
        self.line.extend_from_slice(assistant_uuid);
        self.line.extend_from_slice(b"\",");
        self.finish(true).map(|_| ())
    }

    /// The `toolUseResult` payload of each tool's shape, repeating the output `content`.
    fn tool_use_result(&mut self, call: &ToolCall, content: &[u8], agent_id: Option<&str>) {
        match call.name {
            "Bash" => {
                self.line.extend_from_slice(b"{\"stdout\":\"");
                self.line.extend_from_slice(content);
                self.line.extend_from_slice(
                    b"\",\"stderr\":\"\",\"interrupted\":false,\"isImage\":false}",
                );
            }
            "Read" => {
                self.line.extend_from_slice(b"{\"type\":\"text\",\"file\":{\"filePath\":");
                push_json_str(&mut self.line, &call.path);
                self.line.extend_from_slice(b",\"content\":\"");
                self.line.extend_from_slice(content);
                self.line
                    .extend_from_slice(b"\",\"numLines\":120,\"startLine\":1,\"totalLines\":120}}");
            }
            "Edit" => {
                self.line.extend_from_slice(b"{\"filePath\":");
                push_json_str(&mut self.line, &call.path);
                self.line.extend_from_slice(
                    b",\"oldString\":\"a\",\"newString\":\"b\",\"originalFile\":\"",
                );
                self.line.extend_from_slice(content);
                self.line.extend_from_slice(
                    b"\",\"structuredPatch\":[],\"userModified\":false,\"replaceAll\":false}",
                );
            }
            "Task" => {
                self.line
                    .extend_from_slice(b"{\"status\":\"completed\",\"prompt\":\"Investigate\",");
                if let Some(a) = agent_id {
                    push_kv_str(&mut self.line, "agentId", a);
                }
                self.line.extend_from_slice(b"\"agentType\":\"general-purpose\",\"content\":[{\"type\":\"text\",\"text\":\"");
                self.line.extend_from_slice(content);
                self.line.extend_from_slice(b"\"}],\"totalDurationMs\":");
                let d = self.rng.range(5_000, 500_000);
                push_u64(&mut self.line, d);
                self.line.extend_from_slice(b",\"totalTokens\":");
                let t = self.rng.range(1_000, 90_000);
                push_u64(&mut self.line, t);
                self.line.extend_from_slice(b",\"totalToolUseCount\":");
                let c = self.rng.range(1, 30);
                push_u64(&mut self.line, c);
                self.line.push(b'}');
            }
            _ => {
                self.line.extend_from_slice(b"{\"mode\":\"files_with_matches\",\"filenames\":[");
                push_json_str(&mut self.line, &call.path);
                self.line.extend_from_slice(b"],\"numFiles\":1,\"content\":\"");
                self.line.extend_from_slice(content);
                self.line.extend_from_slice(b"\"}");
            }
        }
    }

    /// Writes a subagent transcript (nested for 2.1.x, flat for 2.0.x, inline for 1.0.x).
    /// Returns its agent id, what it wrote, and the time it ended.
    pub(crate) fn spawn_subagent(&mut self, budget: u64) -> Result<(Option<String>, Tally, i64)> {
        let mut rng = self.rng.fork();
        let budget = budget.max(3_000) * 3;
        let era = self.ctx.era;
        let (agent_id, path, meta) = match era {
            Era::V20 => {
                let id = rng.hex(8);
                (id.clone(), self.ctx.folder.join(format!("agent-{id}.jsonl")), false)
            }
            Era::Mid | Era::New => {
                let id = if rng.chance(5) {
                    format!("acompact-{}", rng.hex(6))
                } else if era == Era::Mid {
                    rng.hex(7)
                } else {
                    rng.hex(17)
                };
                let dir = self.ctx.folder.join(&self.ctx.session_id).join("subagents");
                std::fs::create_dir_all(&dir).map_err(|e| Error::io_at("create", &dir, e))?;
                (id.clone(), dir.join(format!("agent-{id}.jsonl")), true)
            }
            Era::Old => return Ok((None, Tally::default(), self.now_ms)),
        };
        let ctx = Ctx {
            session_id: self.ctx.session_id.clone(),
            cwd: self.ctx.cwd.clone(),
            era,
            version: self.ctx.version,
            model: rng.pick_str(&["claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929"]),
            branch: self.ctx.branch,
            sidechain: true,
            agent_id: Some(agent_id.clone()),
            folder: self.ctx.folder.clone(),
            allow_subagents: false,
        };
        let file = create_new(&path)?;
        let mut w = TranscriptWriter::new(
            BufWriter::with_capacity(256 * KIB as usize, file),
            rng,
            self.filler,
            ctx,
            self.now_ms + 500,
            self.max_output,
        );
        while w.written < budget {
            let len = w.rng.log_uniform(40, 800);
            w.turn(len)?;
        }
        let (bytes, last) = w.close(&path)?;
        if meta {
            let meta_path = path.with_extension("meta.json");
            let mut m = Vec::new();
            m.extend_from_slice(b"{\"agentType\":\"general-purpose\",\"description\":\"");
            m.extend_from_slice(self.filler.slice(&mut self.rng, 30));
            m.extend_from_slice(b"\"}");
            write_new_with_mtime(&meta_path, &m, self.now_ms + 400)?;
        }
        let tally = Tally {
            bytes,
            largest: bytes,
            subagent_files: usize::from(meta),
            flat_agent_files: usize::from(!meta),
        };
        Ok((Some(agent_id), tally, last))
    }

    /// Writes inline sidechain lines into this (1.0.x main) file.
    pub(crate) fn inline_sidechain(&mut self) -> Result<()> {
        let saved = self.parent.take();
        self.ctx.sidechain = true;
        let len = self.rng.range(20, 200);
        let r = self.turn(len);
        self.ctx.sidechain = false;
        self.parent = saved;
        r
    }

    pub(crate) fn long_line(&mut self, bytes: u64) -> Result<()> {
        self.tick(5_000, 60_000);
        self.envelope();
        self.line.extend_from_slice(b"\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"iVBOR");
        let mut left = bytes as usize;
        while left > 0 {
            let n = left.min(self.filler.base64.len());
            self.line.extend_from_slice(self.filler.base64.get(..n).unwrap_or(&[]));
            left -= n;
        }
        self.line.extend_from_slice(b"\"}},{\"type\":\"text\",\"text\":\"What is wrong in this screenshot? [Image #1]\"}]},");
        self.finish(true).map(|_| ())
    }

    /// Flushes, sets the file's mtime to just after its last message, and returns
    /// (bytes, last message time).
    pub(crate) fn close(self, path: &Path) -> Result<(u64, i64)>
    where
        W: IntoFile,
    {
        let mtime_ms = self.last_message_ms + 7;
        let file = self.out.into_file().map_err(|e| Error::io_at("write", path, e))?;
        file.set_times(FileTimes::new().set_modified(system_time(mtime_ms)))
            .map_err(|e| Error::io_at("set the modification time of", path, e))?;
        Ok((self.written, self.last_message_ms))
    }
}
