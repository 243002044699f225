//! The listings: every session grouped by working directory, one agent's sessions, the agents
//! with their counts — each summarized once per scan and shared.

use super::*;

impl Catalog {
    /// Every session, grouped by real working directory, newest group first.
    pub fn all_sessions(&self, opts: ListOptions) -> Result<Listing> {
        Ok(self.listing_of(&*self.scan()?, opts))
    }

    /// [`Catalog::all_sessions`] of the pass `scan`.
    pub(super) fn listing_of(&self, scan: &Scan, opts: ListOptions) -> Listing {
        let listed = self.listed(scan);
        let mut left_out_temp = 0;
        let sessions = listed
            .iter()
            .map(|s| (s, paths::is_temp_directory(&s.working_directory)))
            .filter(|(_, is_temp)| {
                let shown = opts.include_temp || !is_temp;
                left_out_temp += u64::from(!shown);
                shown
            });

        // Group by real working directory (docker sessions by owning agent).
        let mut order: Vec<String> = Vec::new();
        let mut groups: HashMap<String, DirectoryGroup> = HashMap::new();
        for (i, (s, is_temp)) in sessions.enumerate() {
            let key = if s.encoded_path.starts_with("docker:") {
                s.encoded_path.clone()
            } else {
                s.working_directory.clone()
            };
            let within_limit = opts.limit.is_none_or(|l| i < l);
            let group = groups.entry(key.clone()).or_insert_with(|| {
                order.push(key.clone());
                DirectoryGroup {
                    agent_name: self.group_agent(s),
                    working_directory: s.working_directory.clone(),
                    encoded_path: s.encoded_path.clone(),
                    session_count: 0,
                    owners: Vec::new(),
                    tokens: TokenTotals::default(),
                    cost: None,
                    is_temp,
                    sessions: Vec::new(),
                }
            });
            group.session_count += 1;
            group.tokens.add(&s.tokens);
            group.cost = Cost::sum(group.cost, s.cost.as_ref());
            if let Some(owner) = &s.agent_name {
                match group.owners.iter_mut().find(|o| o.agent_name == *owner) {
                    Some(o) => o.session_count += 1,
                    None => group
                        .owners
                        .push(OwnerCount { agent_name: owner.clone(), session_count: 1 }),
                }
            }
            if within_limit {
                group.sessions.push(s.clone());
            }
        }
        for g in groups.values_mut() {
            let own = g.agent_name.clone();
            g.owners.sort_by(|a, b| {
                (Some(&b.agent_name) == own.as_ref())
                    .cmp(&(Some(&a.agent_name) == own.as_ref()))
                    .then(b.session_count.cmp(&a.session_count))
                    .then_with(|| a.agent_name.cmp(&b.agent_name))
            });
        }
        let groups = order
            .into_iter()
            .filter_map(|k| groups.remove(&k))
            .filter(|g| !g.sessions.is_empty() || opts.limit.is_none())
            .collect();
        Listing { groups, warnings: scan.warnings.clone(), left_out_temp }
    }

    /// Every session [`Catalog::all_sessions`] lists (temporary folders included), newest first,
    /// as of a pass made now (or a moment ago).
    pub fn listed_sessions(&self) -> Result<Arc<[SessionSummary]>> {
        Ok(self.listed(&*self.scan()?))
    }

    /// The sessions [`Catalog::listed_sessions`] lists, as of the pass `scan` (from
    /// [`Catalog::scan`]).
    pub fn listed_sessions_of(&self, scan: &Scan) -> Arc<[SessionSummary]> {
        self.listed(scan)
    }

    /// The transcripts of the sessions the listing of `scan` shows, in the pass's order, without
    /// making their summaries (what needs only their files need not wait for those).
    pub fn listed_transcripts<'a>(
        &self,
        scan: &'a Scan,
    ) -> impl Iterator<Item = &'a FoundTranscript> + 'a {
        scan.transcripts.iter().filter(|t| t.is_session() && (!t.docker || scan.docker_owned(t)))
    }

    /// What the sessions the listing of `scan` shows are called, in the pass's order, made on
    /// every core without the rest of their summaries (what a search index holds of them).
    pub fn listed_names<'a>(&self, scan: &'a Scan) -> Vec<SessionNames<'a>> {
        self.par_listed(scan, |t, attr| self.names(t, attr, scan))
    }

    /// `f` of each listed transcript of `scan` and its attribution, in the pass's order, on
    /// every core. The newest leaves are made first, on every core too (inside the loop, the
    /// other cores would wait for them).
    pub(super) fn par_listed<'a, T: Send>(
        &self,
        scan: &'a Scan,
        f: impl Fn(&'a FoundTranscript, &Attribution) -> T + Sync + Send,
    ) -> Vec<T> {
        scan.leaves();
        let listed: Vec<&FoundTranscript> = self.listed_transcripts(scan).collect();
        listed.par_iter().map(|t| f(t, &scan.attribution.get(&t.session_id))).collect()
    }

    /// The summary of a transcript of `scan` (one the listing shows: see
    /// [`Catalog::listed_transcripts`]).
    pub fn summary_of(&self, t: &FoundTranscript, scan: &Scan) -> SessionSummary {
        self.summarize(t, &scan.attribution.get(&t.session_id), scan)
    }

    /// The same as of the last pass, however old (a pass is made if there is none): for answers
    /// that lag a file event by a moment anyway, like search, whose index lags as much.
    pub fn last_listed_sessions(&self) -> Result<Arc<[SessionSummary]>> {
        Ok(self.listed(&*self.last_scan()?))
    }

    /// The last discovery pass, however old (one is made if there is none).
    pub fn last_scan(&self) -> Result<Arc<Scan>> {
        let last =
            self.caches.lock().map_err(|_| poisoned())?.last.as_ref().map(|(_, s)| s.clone());
        match last {
            Some(scan) => Ok(scan),
            None => self.scan(),
        }
    }

    /// The pass's summaries, made on every core the first time they are asked for.
    pub(super) fn listed(&self, scan: &Scan) -> Arc<[SessionSummary]> {
        let made = scan.listed.get_or_init(|| {
            // Boxed, so that sorting moves pointers, not summaries.
            let mut sessions: Vec<(Box<SessionSummary>, String)> = self
                .par_listed(scan, |t, attr| {
                    (Box::new(self.summarize(t, attr, scan)), t.activity())
                });
            sessions
                .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.session_id.cmp(&b.0.session_id)));
            sessions.into_iter().map(|(s, _)| *s).collect()
        });
        Arc::clone(made)
    }

    /// The agent a group belongs to: the one whose working directory it is.
    pub(super) fn group_agent(&self, s: &SessionSummary) -> Option<String> {
        let fleet = self.fleet.as_ref()?;
        if let Some(agent) = s.encoded_path.strip_prefix("docker:") {
            return Some(agent.to_owned()).filter(|a| !a.is_empty());
        }
        fleet
            .agents
            .iter()
            .find(|a| {
                a.working_directory
                    .as_deref()
                    .is_some_and(|wd| same_dir(wd, Path::new(&s.working_directory)))
            })
            .map(|a| a.qualified_name.clone())
    }

    /// The sessions attributed to `agent`, newest first; the limit is applied after filtering.
    pub fn agent_sessions(&self, agent: &str, opts: ListOptions) -> Result<Vec<SessionSummary>> {
        self.agent(agent)?;
        let scan = self.scan()?;
        let mut out: Vec<(String, SessionSummary)> = scan
            .transcripts
            .iter()
            .filter(|t| t.is_session())
            .filter_map(|t| {
                let attr = scan.attribution.get(&t.session_id);
                attribution::is_owned_by_agent(&attr, Some(agent))
                    .then(|| (t.activity(), self.summarize(t, &attr, &scan)))
            })
            .collect();
        out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.session_id.cmp(&b.1.session_id)));
        let limit = opts.limit.unwrap_or(usize::MAX);
        Ok(out.into_iter().take(limit).map(|(_, s)| s).collect())
    }

    /// The fleet's agents with their true session counts (empty with no fleet).
    pub fn agents(&self) -> Result<Vec<AgentSummary>> {
        if self.fleet.is_none() {
            return Ok(Vec::new());
        }
        Ok(self.agents_of(&*self.scan()?))
    }

    /// [`Catalog::agents`] of the pass `scan`.
    pub(super) fn agents_of(&self, scan: &Scan) -> Vec<AgentSummary> {
        let Some(fleet) = self.fleet.as_ref() else { return Vec::new() };
        let mut counts: HashMap<String, (u64, Option<String>, TokenTotals, Option<Cost>)> =
            HashMap::new();
        for t in scan.transcripts.iter().filter(|t| t.is_session()) {
            if let Some(owner) = scan.attribution.get(&t.session_id).agent_name {
                let e = counts.entry(owner).or_default();
                e.0 += 1;
                e.2.add(&t.facts.tokens);
                e.3 = Cost::sum(e.3, t.facts.cost().as_ref());
                let act = t.activity();
                if e.1.as_ref().is_none_or(|a| *a < act) {
                    e.1 = Some(act);
                }
            }
        }
        let mut own_names: HashMap<&str, usize> = HashMap::new();
        for a in &fleet.agents {
            *own_names.entry(&a.name).or_default() += 1;
        }
        fleet
            .agents
            .iter()
            .map(|a| {
                let (count, last, tokens, cost) =
                    counts.remove(&a.qualified_name).unwrap_or_default();
                let shared = own_names.get(a.name.as_str()).is_some_and(|n| *n > 1);
                AgentSummary {
                    display_name: if shared || a.name.is_empty() {
                        a.qualified_name.clone()
                    } else {
                        a.name.clone()
                    },
                    name: a.qualified_name.clone(),
                    fleet_path: a.fleet_path.clone(),
                    working_directory: a
                        .working_directory
                        .as_ref()
                        .map(|p| p.to_string_lossy().into_owned()),
                    docker: a.docker,
                    session_count: count,
                    last_activity_at: last,
                    tokens,
                    cost,
                }
            })
            .collect()
    }
}
