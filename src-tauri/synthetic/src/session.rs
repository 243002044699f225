//! One whole session on disk: its transcript (created exclusively), its subagents, and the
//! modification time of its last message.

#[allow(clippy::wildcard_imports, reason = "the crate's shared imports and items")]
use super::*;

pub(crate) struct ToolCall {
    pub(crate) id: String,
    pub(crate) name: &'static str,
    pub(crate) path: String,
    pub(crate) block: Vec<u8>,
}

/// Writers that end in a file (so its mtime can be set after the last write).
pub(crate) trait IntoFile {
    fn into_file(self) -> std::io::Result<File>;
}

impl IntoFile for BufWriter<File> {
    fn into_file(self) -> std::io::Result<File> {
        self.into_inner().map_err(std::io::IntoInnerError::into_error)
    }
}

pub(crate) fn create_new(path: &Path) -> Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io_at("create", path, e))
}

pub(crate) fn write_new_with_mtime(path: &Path, bytes: &[u8], mtime_ms: i64) -> Result<()> {
    let mut f = create_new(path)?;
    f.write_all(bytes).map_err(|e| Error::io_at("write", path, e))?;
    f.set_times(FileTimes::new().set_modified(system_time(mtime_ms)))
        .map_err(|e| Error::io_at("set the modification time of", path, e))
}

pub(crate) struct SessionOutcome {
    pub(crate) tally: Tally,
    pub(crate) main_bytes: u64,
    pub(crate) last_ms: i64,
}

pub(crate) fn write_session(
    plan: &Plan,
    folder: &Folder,
    filler: &Filler,
) -> Result<SessionOutcome> {
    let path = folder.dir.join(format!("{}.jsonl", plan.session_id));
    let mut rng = Rng::new(plan.seed);
    if plan.kind == Kind::Empty {
        write_new_with_mtime(&path, &[], plan.start_ms)?;
        return Ok(SessionOutcome {
            tally: Tally::default(),
            main_bytes: 0,
            last_ms: plan.start_ms,
        });
    }
    let ctx = Ctx {
        session_id: plan.session_id.clone(),
        cwd: plan.cwd.clone(),
        era: plan.era,
        version: rng.pick_str(plan.era.versions()),
        model: rng.pick_str(plan.era.models()),
        branch: if plan.era == Era::Old && rng.chance(30) { "" } else { rng.pick_str(BRANCHES) },
        sidechain: plan.kind == Kind::SidechainOnly,
        agent_id: None,
        folder: folder.dir.clone(),
        allow_subagents: plan.subagents,
    };
    let max_output = match plan.kind {
        Kind::Huge => 64 * KIB,
        _ if plan.budget > MIB => 24 * KIB,
        _ => 12 * KIB,
    };
    let file = create_new(&path)?;
    let out = BufWriter::with_capacity(256 * KIB as usize, file);
    let mut w = TranscriptWriter::new(out, rng.fork(), filler, ctx, plan.start_ms, max_output);

    if plan.kind == Kind::SummaryOnly {
        w.summary_line()?;
        w.last_message_ms = plan.start_ms;
        let (bytes, last) = w.close(&path)?;
        return Ok(SessionOutcome { tally: leaf_tally(bytes), main_bytes: bytes, last_ms: last });
    }

    first_lines(&mut w, &mut rng, plan)?;

    let custom_title_at = conversation(&mut w, &mut rng, plan)?;
    // Tail bookkeeping: CC re-appends the custom title and the last prompt at the end.
    if plan.era == Era::New {
        if custom_title_at.is_some() && rng.chance(50) {
            w.title("custom-title", "customTitle")?;
        }
        w.last_prompt()?;
        if rng.chance(3) {
            w.pr_link()?;
        }
    }
    if plan.kind == Kind::Damaged(Damage::TruncatedTail) {
        w.line.extend_from_slice(b"{\"parentUuid\":\"a1b2\",\"isSidechain\":false,\"type\":\"assistant\",\"message\":{\"id\":\"msg_01");
        w.out.write_all(&w.line).map_err(|e| Error::io_at("write", &path, e))?;
        w.written += w.line.len() as u64;
        w.line.clear();
    }
    let children = w.children;
    let (bytes, last) = w.close(&path)?;
    let mut tally = leaf_tally(bytes);
    tally.add(children);
    Ok(SessionOutcome { tally, main_bytes: bytes, last_ms: last })
}

pub(crate) fn leaf_tally(bytes: u64) -> Tally {
    Tally { bytes, largest: bytes, subagent_files: 0, flat_agent_files: 0 }
}

/// The turns, up to the session's byte budget, with titles, compactions, sidechains and damage
/// where the plan puts them. Gives the turn the custom title followed, if any.
fn conversation<W: Write>(
    w: &mut TranscriptWriter<'_, W>,
    rng: &mut Rng,
    plan: &Plan,
) -> Result<Option<u64>> {
    let expected_turns = (plan.budget / 12_000).max(1);
    let custom_title_at = rng.chance(15).then(|| rng.below(expected_turns));
    let ai_title_at = (plan.era == Era::New && rng.chance(60)).then(|| rng.below(expected_turns));
    let damage_at = rng.below(expected_turns.min(4));
    let mut turn = 0u64;
    let mut long_line_done = false;
    // Subagent bytes count towards the budget, except for huge files (the main file is huge).
    let counted = |w: &TranscriptWriter<'_, _>| {
        if plan.kind == Kind::Huge { w.written } else { w.written + w.children.bytes }
    };
    while turn == 0 || counted(w) < plan.budget {
        let prompt_len = w.rng.log_uniform(15, 1_500);
        w.turn(prompt_len)?;
        if Some(turn) == custom_title_at {
            w.title("custom-title", "customTitle")?;
            if plan.era == Era::New && rng.chance(30) {
                // `--name` writes a custom-title + agent-name pair.
                w.session_line("agent-name", "agentName", b"\"worker\"")?;
            }
        }
        if matches!(plan.era, Era::Mid | Era::New) && turn > 20 && rng.chance(2) {
            w.compaction()?;
        }
        if Some(turn) == ai_title_at {
            w.title("ai-title", "aiTitle")?;
        }
        if plan.era == Era::Old && plan.kind != Kind::SidechainOnly && rng.chance(3) {
            w.inline_sidechain()?;
        }
        if plan.era == Era::Mid && rng.chance(3) {
            w.system_line("local_command")?;
        }
        if turn == damage_at {
            damage_line(w, plan.kind)?;
        }
        if plan.kind == Kind::LongLine && !long_line_done && turn >= 1 {
            w.long_line(plan.long_line_bytes)?;
            long_line_done = true;
        }
        turn += 1;
    }
    if plan.kind == Kind::LongLine && !long_line_done {
        w.long_line(plan.long_line_bytes)?;
    }
    Ok(custom_title_at)
}

/// The bookkeeping lines a session starts with, by era.
fn first_lines<W: Write>(
    w: &mut TranscriptWriter<'_, W>,
    rng: &mut Rng,
    plan: &Plan,
) -> Result<()> {
    match plan.era {
        Era::Old => {
            if rng.chance(40) {
                for _ in 0..rng.range(1, 4) {
                    w.summary_line()?;
                }
            }
        }
        Era::V20 => {
            if rng.chance(50) {
                w.queue_operation("enqueue", Some("/init"))?;
                w.queue_operation("dequeue", None)?;
            }
            if rng.chance(50) {
                w.file_history_snapshot()?;
            }
        }
        Era::Mid => {
            if rng.chance(60) {
                w.file_history_snapshot()?;
            } else if rng.chance(30) {
                w.queue_operation("dequeue", None)?;
            }
            if rng.chance(60) {
                w.hook_progress("SessionStart")?;
            }
        }
        Era::New => {
            if rng.chance(5) {
                w.session_line("mode", "mode", b"\"normal\"")?;
            }
            if rng.chance(60) {
                w.permission_mode()?;
            }
            if plan.cwd.contains("/.claude/worktrees/") {
                w.worktree_state()?;
            }
            if rng.chance(40) {
                w.file_history_snapshot()?;
            }
            if rng.chance(50) {
                w.attachment()?;
            }
        }
    }
    Ok(())
}

/// The damaged line of a damaged session (a torn tail is written at the end instead).
fn damage_line<W: Write>(w: &mut TranscriptWriter<'_, W>, kind: Kind) -> Result<()> {
    match kind {
        Kind::Damaged(Damage::GarbageLine) => {
            w.line.extend_from_slice(b"{\"parentUuid\":\"3f1c0b1e-77a1-4c33-9f0e-0d2d5a");
            w.flush_line()?;
        }
        Kind::Damaged(Damage::InvalidUtf8) => {
            w.line.extend_from_slice(b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"broken \xff\xfe bytes\"},\"uuid\":\"x\"}");
            w.flush_line()?;
        }
        Kind::Damaged(Damage::NulRun) => {
            w.line.resize(4096, 0);
            w.flush_line()?;
        }
        _ => {}
    }
    Ok(())
}
