//! Reading one session: its transcript (the resumed branch, pages, a rewound branch, a subagent
//! run, an attachment), its token usage by model and the viewer header's details.

use super::*;

impl Catalog {
    /// The whole transcript of a session.
    pub fn transcript(&self, session_id: &str) -> Result<SessionTranscript> {
        let (t, _) = self.locate(session_id)?;
        let lines = self.resumed_lines(&t)?;
        let mut whole =
            messages::read_transcript_in(&t.path, &t.session_id, &t.working_directory(), &lines)
                .map_err(|e| Error::io_at("read", &t.path, e))?;
        Self::mark_missing_runs(&t, &mut whole.messages);
        Ok(whole)
    }

    /// The branch scan of a transcript whose facts say it may hold a rewind.
    pub(super) fn branches_of(&self, t: &FoundTranscript) -> Result<Option<Arc<Branches>>> {
        if !t.facts.may_branch {
            return Ok(None);
        }
        let mut cache = self.branch_cache.lock().map_err(|_| poisoned())?;
        cache.get(&t.path).map(Some).map_err(|e| Error::io_at("read", &t.path, e))
    }

    /// The offsets of a session's lines on rewound branches (ascending), `None` when it has none.
    pub fn rewound_lines(&self, session_id: &str) -> Result<Option<Arc<[u64]>>> {
        let (t, _) = self.locate(session_id)?;
        Ok(self.branches_of(&t)?.filter(|b| !b.rewinds.is_empty()).map(|b| Arc::clone(&b.hidden)))
    }

    /// The lines of the branch `claude --resume` continues.
    pub(super) fn resumed_lines(&self, t: &FoundTranscript) -> Result<Lines> {
        Ok(lines_off(self.branches_of(t)?.as_deref()))
    }

    /// The whole transcript of a session handed to `emit` piece by piece (bounded memory for a
    /// file of any size; see [`messages::stream_transcript`]), then its header: the returned
    /// transcript has every field but `messages`, which is empty.
    pub fn stream_transcript(
        &self,
        session_id: &str,
        emit: &mut dyn FnMut(Vec<TranscriptMessage>) -> std::io::Result<()>,
    ) -> Result<SessionTranscript> {
        let (t, _) = self.locate(session_id)?;
        let lines = self.resumed_lines(&t)?;
        let runs = runs_on_disk(&t);
        let mut marked = |mut piece: Vec<TranscriptMessage>| {
            mark_runs(&runs, &mut piece);
            emit(piece)
        };
        let summary =
            messages::stream_transcript(&t.path, messages::STREAM_PIECE_BYTES, &lines, &mut marked)
                .map_err(|e| Error::io_at("read", &t.path, e))?;
        Ok(SessionTranscript {
            session_id: t.session_id.clone(),
            working_directory: t.working_directory(),
            messages: Vec::new(),
            usage: summary.usage,
            subagents: subagents::list_subagents(&t.path, &t.session_id),
            skipped_lines: summary.skipped_lines,
        })
    }

    /// A page of a session's messages ending before byte offset `before` (newest page: `None`).
    pub fn messages_page(
        &self,
        session_id: &str,
        before: Option<u64>,
        limit: usize,
    ) -> Result<MessagePage> {
        self.page(session_id, None, PageAt::Before(before), limit)
    }

    /// A page of one subagent's messages (see [`Catalog::messages_page`]).
    pub fn subagent_page(
        &self,
        session_id: &str,
        agent_id: &str,
        before: Option<u64>,
        limit: usize,
    ) -> Result<MessagePage> {
        self.page(session_id, Some(agent_id), PageAt::Before(before), limit)
    }

    /// The transcript file of a session, or of one of its subagents' runs.
    pub fn transcript_path(&self, session_id: &str, agent_id: Option<&str>) -> Result<PathBuf> {
        let (t, _) = self.locate(session_id)?;
        match agent_id {
            None => Ok(t.path.clone()),
            Some(agent_id) => Ok(PathBuf::from(run_of(&t, agent_id)?.transcript_path)),
        }
    }

    /// Attachment `index` of the line at `offset` of a session's transcript (or of one of its
    /// subagent runs'): an image's bytes, see [`crate::transcript::attachments::read`].
    pub fn attachment(
        &self,
        session_id: &str,
        agent_id: Option<&str>,
        offset: u64,
        index: u32,
    ) -> Result<AttachmentData> {
        crate::transcript::attachments::read(
            &self.transcript_path(session_id, agent_id)?,
            offset,
            index,
        )
    }

    /// The lines of a run that are its own (a fork's copy of the main conversation left out,
    /// see [`crate::transcript::forks`]) and how many messages were left out.
    pub(super) fn run_lines(
        &self,
        t: &FoundTranscript,
        run: &SubagentInfo,
    ) -> Result<(Lines, u64)> {
        let path = Path::new(&run.transcript_path);
        let fork = run.agent_type.as_deref() == Some("fork");
        let mut cache = self.fork_cache.lock().map_err(|_| poisoned())?;
        let inherited =
            cache.get(path, &t.path, fork).map_err(|e| Error::io_at("read", path, e))?;
        Ok(if inherited.lines.is_empty() {
            (Lines::All, 0)
        } else {
            (Lines::Except(Arc::clone(&inherited.lines)), inherited.messages)
        })
    }

    /// One subagent run of a session handed to `emit` piece by piece, as its pages show it.
    pub fn stream_run(
        &self,
        session_id: &str,
        run: &SubagentInfo,
        emit: &mut dyn FnMut(Vec<TranscriptMessage>) -> std::io::Result<()>,
    ) -> Result<()> {
        let (t, _) = self.locate(session_id)?;
        let (lines, _) = self.run_lines(&t, run)?;
        let path = Path::new(&run.transcript_path);
        messages::stream_transcript(path, messages::STREAM_PIECE_BYTES, &lines, emit)
            .map(|_| ())
            .map_err(|e| Error::io_at("read", path, e))
    }

    /// A page of a session's transcript (or of one of its subagents'), where `at` says.
    pub fn page(
        &self,
        session_id: &str,
        agent_id: Option<&str>,
        at: PageAt,
        limit: usize,
    ) -> Result<MessagePage> {
        let (t, _) = self.locate(session_id)?;
        let (path, branches, lines, inherited) = match agent_id {
            None => {
                let branches = self.branches_of(&t)?;
                let lines = lines_off(branches.as_deref());
                (t.path.clone(), branches, lines, 0)
            }
            Some(agent_id) => {
                let run = run_of(&t, agent_id)?;
                let (lines, inherited) = self.run_lines(&t, &run)?;
                (PathBuf::from(run.transcript_path), None, lines, inherited)
            }
        };
        let limit = limit.clamp(1, 5_000);
        // A line on a rewound branch (a search hit there) opens the page where the branch was
        // replaced, with the branch open.
        let open = match (&branches, at) {
            (Some(b), PageAt::Around(offset)) => {
                b.rewinds.iter().find(|r| r.lines.binary_search(&offset).is_ok()).cloned()
            }
            _ => None,
        };
        let at = open.as_ref().map_or(at, |r| PageAt::Around(r.at));
        let mut page = match at {
            PageAt::Before(before) => messages::read_page_in(&path, before, limit, &lines),
            PageAt::Around(offset) => messages::read_page_around_in(&path, offset, limit, &lines),
            PageAt::After(offset) => messages::read_page_after_in(&path, offset, limit, &lines),
        }
        .map_err(|e| Error::io_at("read", &path, e))?;
        Self::mark_missing_runs(&t, &mut page.messages);
        page.inherited = inherited;
        if let Some(b) = branches {
            let (from, to) =
                (page.earlier_cursor.unwrap_or(0), page.later_cursor.unwrap_or(u64::MAX));
            page.rewinds = b
                .rewinds
                .iter()
                .filter(|r| (from..to).contains(&r.at))
                .map(|r| rewind_mark(&path, r))
                .collect();
            page.open_branch = open.map(|r| r.branch);
        }
        Ok(page)
    }

    /// Marks the tool calls whose subagent run has no transcript on disk: the runs are the files
    /// [`subagents::list_subagents`] finds, for the header's count, the buttons and the CLI alike.
    pub(super) fn mark_missing_runs(t: &FoundTranscript, messages: &mut [TranscriptMessage]) {
        if messages.iter().any(|m| m.tool_call.as_ref().is_some_and(|c| c.subagent_id.is_some())) {
            mark_runs(&runs_on_disk(t), messages);
        }
    }

    /// Token usage by model over the branch `claude --resume` continues.
    pub fn usage_by_model(&self, session_id: &str) -> Result<Vec<ModelUsage>> {
        let (t, _) = self.locate(session_id)?;
        let lines = self.resumed_lines(&t)?;
        crate::transcript::usage::by_model(&t.path, &lines)
            .map_err(|e| Error::io_at("read", &t.path, e))
    }

    /// The messages of one rewound branch of a session (`branch` as in
    /// [`crate::model::RewindMark::branch`]), at most `limit` of them.
    pub fn rewound_branch(
        &self,
        session_id: &str,
        branch: u64,
        limit: usize,
    ) -> Result<MessagePage> {
        let (t, _) = self.locate(session_id)?;
        let rewind = self
            .branches_of(&t)?
            .and_then(|b| b.rewind(branch).cloned())
            .ok_or_else(|| Error::InvalidInput(format!("no rewound branch at byte {branch}")))?;
        let mut page = messages::read_lines(&t.path, &rewind.lines, limit.clamp(1, 5_000))
            .map_err(|e| Error::io_at("read", &t.path, e))?;
        Self::mark_missing_runs(&t, &mut page.messages);
        page.rewinds = Vec::new();
        Ok(page)
    }

    /// What the transcript viewer's header shows: the listing facts, token usage, subagents and
    /// the command that resumes the session in a terminal.
    pub fn session_details(&self, session_id: &str) -> Result<SessionDetails> {
        let (t, scan) = self.locate(session_id)?;
        let attr = scan.attribution.get(&t.session_id);
        let summary = self.summarize(&t, &attr, &scan);
        let home = (self.default_claude_home.as_deref() != Some(self.claude_home()))
            .then(|| self.claude_home());
        let resume_command = resume_command(&summary.working_directory, &summary.session_id, home);
        let name = summary.custom_name.clone().or_else(|| t.facts.custom_title.clone());
        let name_out_of_sight = match name {
            Some(name) if !t.docker => crate::claude_titles::picker_title(&t.path, &t.session_id)
                .ok()
                .and_then(|picker_title| {
                    (picker_title.as_deref() != Some(name.as_str()))
                        .then_some(NameOutOfSight { name, picker_title })
                }),
            _ => None,
        };
        Ok(SessionDetails {
            name_out_of_sight,
            usage: t.facts.usage.clone(),
            subagents: subagents::list_subagents(&t.path, &t.session_id),
            resume_command,
            summary,
        })
    }
}

/// One of a session's subagent runs.
fn run_of(t: &FoundTranscript, agent_id: &str) -> Result<SubagentInfo> {
    if !subagents::valid_agent_id(agent_id) {
        return Err(Error::InvalidInput(format!("invalid subagent id {agent_id:?}")));
    }
    subagents::subagent(&t.path, &t.session_id, agent_id).ok_or_else(|| Error::SubagentNotFound {
        session_id: t.session_id.clone(),
        agent_id: agent_id.to_owned(),
    })
}

/// The lines a view of the resumed branch reads: all but the rewound ones.
fn lines_off(branches: Option<&Branches>) -> Lines {
    match branches {
        Some(b) if !b.hidden.is_empty() => Lines::Except(Arc::clone(&b.hidden)),
        _ => Lines::All,
    }
}

/// The ids of a session's subagent runs that have a transcript on disk.
fn runs_on_disk(t: &FoundTranscript) -> std::collections::HashSet<String> {
    subagents::list_subagents(&t.path, &t.session_id).into_iter().map(|s| s.agent_id).collect()
}

/// Marks the tool calls whose subagent run is not among `runs`.
fn mark_runs(runs: &std::collections::HashSet<String>, messages: &mut [TranscriptMessage]) {
    for call in messages.iter_mut().filter_map(|m| m.tool_call.as_mut()) {
        if let Some(id) = &call.subagent_id {
            call.subagent_missing = !runs.contains(id);
        }
    }
}

/// The mark a page shows where a rewound branch was replaced.
fn rewind_mark(path: &Path, r: &Rewind) -> RewindMark {
    let first_prompt =
        r.first_prompt.and_then(|o| facts::prompt_preview_at(path, o).ok().flatten());
    RewindMark {
        at: r.at,
        branch: r.branch,
        prompts: r.prompts,
        messages: r.messages,
        first_prompt,
    }
}
