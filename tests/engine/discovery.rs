//! Discovery, attribution in listings, names and the listing index, on `fixtures/home-basic`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use corral_engine::model::{NotResumableReason, Origin, SessionSummary};
use corral_engine::renames;
use corral_engine::{Catalog, CatalogConfig, ErrorKind, ListOptions};

use crate::support::{hash_tree, sessions_by_id};

pub use crate::home::{Home, sid};

fn all(c: &Catalog, include_temp: bool) -> BTreeMap<String, SessionSummary> {
    sessions_by_id(c, include_temp)
}

fn ids(shorts: &[&str]) -> BTreeSet<String> {
    shorts.iter().map(|s| sid(s)).collect()
}

#[test]
fn lists_sessions_and_only_sessions() {
    let home = Home::new();
    let sessions = all(&home.catalog(), false);
    let got: BTreeSet<String> = sessions.keys().cloned().collect();
    // a4 (sidechain behind a snapshot line), a5 (bookkeeping only), a6 (empty), a7 (a directory),
    // agent-*.jsonl, the subagents folder and f1 (/tmp) are not listed.
    assert_eq!(
        got,
        ids(&[
            "a1", "a2", "a3", "a8", "a9", "c1", "c2", "b1", "d1", "d2", "e1", "e2", "e3", "f2",
            "01", "d0"
        ])
    );
}

#[test]
fn temp_directories_hidden_unless_asked_with_a_trailing_separator_rule() {
    let home = Home::new();
    let c = home.catalog();
    assert!(!all(&c, false).contains_key(&sid("f1")));
    assert!(all(&c, false).contains_key(&sid("f2")), "/tmpfoo is not a temp dir");
    let listing = c.all_sessions(ListOptions { limit: None, include_temp: true }).unwrap();
    let g = listing.groups.iter().find(|g| g.working_directory == "/tmp/scratch").unwrap();
    assert!(g.is_temp);
    assert!(listing.groups.iter().any(|g| g.working_directory == "/tmpfoo" && !g.is_temp));
    assert_eq!(listing.left_out_temp, 0, "nothing left out when temp folders are asked for");
    let hidden = c.all_sessions(ListOptions { limit: None, include_temp: false }).unwrap();
    assert_eq!(hidden.left_out_temp, g.session_count, "the listing says how many it left out");
}

#[test]
fn groups_by_real_working_directory_newest_first() {
    let home = Home::new();
    let listing = home.catalog().all_sessions(ListOptions::default()).unwrap();
    let by_dir: BTreeMap<&str, _> =
        listing.groups.iter().map(|g| (g.working_directory.as_str(), g)).collect();
    // Two cwds that encode to one folder are two groups.
    assert_eq!(by_dir["/home/u/a-b/c"].encoded_path, "-home-u-a-b-c");
    assert_eq!(by_dir["/home/u/a/b-c"].encoded_path, "-home-u-a-b-c");
    assert_eq!(by_dir["/home/u/a-b/c"].sessions.len(), 1);
    // The emoji becomes two '-' (per UTF-16 unit).
    assert_eq!(by_dir["/home/u/😀/café"].encoded_path, "-home-u----caf-");
    // Each group names the agent whose working directory it is.
    assert_eq!(by_dir["/home/u/projects/alpha"].agent_name.as_deref(), Some("alpha"));
    assert_eq!(by_dir["/home/u/my-app"].agent_name.as_deref(), Some("team.gamma"));
    assert_eq!(by_dir["/home/u/scratch"].agent_name, None);
    assert_eq!(by_dir["/home/u/projects/alpha"].session_count, 5);
    // Docker sessions get a pseudo-group per agent.
    let docker = listing.groups.iter().find(|g| g.encoded_path == "docker:dockerbot").unwrap();
    assert_eq!(docker.agent_name.as_deref(), Some("dockerbot"));
    // Newest group first, sessions newest first (by last message, not mtime: the copies all
    // have the same mtime).
    let first_activity: Vec<String> = listing
        .groups
        .iter()
        .map(|g| g.sessions[0].last_message_at.clone().unwrap_or_default())
        .collect();
    let mut sorted = first_activity.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(first_activity, sorted);
    assert_eq!(listing.groups[0].encoded_path, "docker:dockerbot");
    let alpha = by_dir["/home/u/projects/alpha"];
    let order: Vec<&str> = alpha.sessions.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(order, [sid("a3"), sid("a2"), sid("a1"), sid("a8"), sid("a9")]);
    // A malformed job file is a warning, not a failure.
    assert!(listing.warnings.iter().any(|w| w.path.ends_with("job-2026-11-26-broken.yaml")));
}

#[test]
fn attribution_order_job_platform_adoption_native() {
    let home = Home::new();
    let s = all(&home.catalog(), false);
    let o = |x: &str| (s[&sid(x)].origin, s[&sid(x)].agent_name.clone());
    assert_eq!(o("a1"), (Origin::Schedule, Some("alpha".into())));
    assert_eq!(o("a2"), (Origin::Web, Some("alpha".into())));
    assert_eq!(
        o("a3"),
        (Origin::Native, None),
        "a native session in alpha's folder is not alpha's"
    );
    assert_eq!(o("a9"), (Origin::Web, Some("team.gamma".into())), "the newest job claim wins");
    assert_eq!(o("c1"), (Origin::Native, Some("team.gamma".into())), "manual folds into native");
    assert_eq!(o("c2"), (Origin::Discord, Some("team.gamma".into())));
    assert_eq!(o("d2"), (Origin::Adopted, Some("alpha".into())));
    assert_eq!(o("d0"), (Origin::Schedule, Some("dockerbot".into())));
}

#[test]
fn agent_sessions_are_owned_sessions_wherever_they_live() {
    let home = Home::new();
    let c = home.catalog();
    let list =
        |a: &str| -> Vec<SessionSummary> { c.agent_sessions(a, ListOptions::default()).unwrap() };
    let alpha = list("alpha");
    let alpha_ids: Vec<&str> = alpha.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(alpha_ids, [sid("a2"), sid("a1"), sid("d2")]);
    assert!(alpha[0].resumable && alpha[1].resumable);
    assert!(!alpha[2].resumable);
    assert_eq!(alpha[2].not_resumable_reason, Some(NotResumableReason::OutsideAgentFolder));

    let gamma = list("team.gamma");
    let g: BTreeSet<String> = gamma.iter().map(|s| s.session_id.clone()).collect();
    assert_eq!(g, ids(&["c1", "c2", "a9"]));
    let c2 = gamma.iter().find(|s| s.session_id == sid("c2")).unwrap();
    assert!(!c2.resumable, "a worktree session lives outside the agent's folder");

    let docker = list("dockerbot");
    assert_eq!(docker.len(), 1);
    assert_eq!(docker[0].not_resumable_reason, Some(NotResumableReason::Docker));
    assert!(list("beta").is_empty());
}

#[test]
fn limit_is_applied_after_filtering() {
    // herdctl slices the newest N files before dropping sidechains and sessions the agent does not
    // own; alpha's folder has a newer native session (a3) and a sidechain (a4).
    let home = Home::new();
    let c = home.catalog();
    let two =
        c.agent_sessions("alpha", ListOptions { limit: Some(2), include_temp: false }).unwrap();
    let two: Vec<&str> = two.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(two, [sid("a2"), sid("a1")]);
    let listing = c.all_sessions(ListOptions { limit: Some(3), include_temp: false }).unwrap();
    let n: usize = listing.groups.iter().map(|g| g.sessions.len()).sum();
    assert_eq!(n, 3, "three sessions, not three files");
    // sessionCount stays the true count.
    let alpha = listing.groups.iter().find(|g| g.working_directory == "/home/u/projects/alpha");
    if let Some(alpha) = alpha {
        assert_eq!(alpha.session_count, 5);
    }
}

#[test]
fn agent_summaries_count_every_owned_session() {
    let home = Home::new();
    let agents = home.catalog().agents().unwrap();
    let by: BTreeMap<&str, _> = agents.iter().map(|a| (a.name.as_str(), a)).collect();
    assert_eq!(by["alpha"].session_count, 3);
    assert_eq!(by["team.gamma"].session_count, 3);
    assert_eq!(by["team.gamma"].fleet_path, ["team"]);
    assert_eq!(by["dockerbot"].session_count, 1);
    assert!(by["dockerbot"].docker);
    assert_eq!(by["beta"].session_count, 0);
    assert_eq!(by["beta"].working_directory.as_deref(), Some("/home/u/proj"));
    assert!(by["alpha"].last_activity_at.as_deref().unwrap().starts_with("2026-11-21"));
}

#[test]
fn one_name_per_agent_and_folders_say_who_owns_their_sessions() {
    use crate::world::{ALPHA_WD, World, sid};
    let w = World::new();
    let fleet = w.fleet_file.parent().unwrap();
    std::fs::write(
        &w.fleet_file,
        "version: 1\nagents:\n  - path: ./agents/alpha.yaml\n  - path: ./agents/beta.yaml\n\
         fleets:\n  - path: ./ops/herdctl.yaml\n    name: ops\n",
    )
    .unwrap();
    std::fs::create_dir_all(fleet.join("ops/agents")).unwrap();
    std::fs::write(
        fleet.join("ops/herdctl.yaml"),
        "version: 1\nagents:\n  - path: ./agents/a.yaml\n  - path: ./agents/g.yaml\n",
    )
    .unwrap();
    std::fs::write(
        fleet.join("ops/agents/a.yaml"),
        "name: alpha\nworking_directory: /srv/ops-alpha\n",
    )
    .unwrap();
    std::fs::write(fleet.join("ops/agents/g.yaml"), "name: gamma\nworking_directory: /srv/gamma\n")
        .unwrap();
    // alpha's folder: two sessions, one of them alpha's (a job), one nobody's (typed there).
    w.session(&w.alpha_folder(), &sid(1), ALPHA_WD, false);
    w.session(&w.alpha_folder(), &sid(2), ALPHA_WD, false);
    w.job("0001", "alpha", "schedule", &sid(1));
    // gamma's folder: a session nobody owns. A worktree of alpha's: one session alpha adopted
    // and one ops.gamma ran there.
    w.session(&w.folder_of("/srv/gamma"), &sid(3), "/srv/gamma", false);
    let tree = "/home/u/projects/alpha-worktrees/fix";
    w.session(&w.folder_of(tree), &sid(4), tree, false);
    w.session(&w.folder_of(tree), &sid(5), tree, false);
    w.session(&w.folder_of(tree), &sid(6), tree, false);
    w.adoption_record(&sid(4), "alpha");
    w.adoption_record(&sid(5), "alpha");
    w.job("0002", "ops.gamma", "manual", &sid(6));

    let c = w.catalog();
    let agents = c.agents().unwrap();
    let shown: BTreeMap<&str, &str> =
        agents.iter().map(|a| (a.name.as_str(), a.display_name.as_str())).collect();
    // Own names, unless two agents share one: then both are qualified.
    assert_eq!(
        shown,
        BTreeMap::from([
            ("alpha", "alpha"),
            ("beta", "beta"),
            ("ops.alpha", "ops.alpha"),
            ("ops.gamma", "gamma")
        ])
    );
    let listing = c.all_sessions(ListOptions { include_temp: true, ..Default::default() }).unwrap();
    let group = |wd: &str| listing.groups.iter().find(|g| g.working_directory == wd).unwrap();
    let owners = |wd: &str| -> Vec<(String, u64)> {
        group(wd).owners.iter().map(|o| (o.agent_name.clone(), o.session_count)).collect()
    };
    assert_eq!(group(ALPHA_WD).agent_name.as_deref(), Some("alpha"));
    assert_eq!((group(ALPHA_WD).session_count, owners(ALPHA_WD)), (2, vec![("alpha".into(), 1)]));
    assert_eq!(group("/srv/gamma").agent_name.as_deref(), Some("ops.gamma"));
    assert_eq!((group("/srv/gamma").session_count, owners("/srv/gamma")), (1, vec![]));
    assert_eq!(group(tree).agent_name, None);
    assert_eq!(owners(tree), vec![("alpha".into(), 2), ("ops.gamma".into(), 1)]);
    // The folder counts agree with the Fleet's: each agent's owned sessions, summed over folders.
    for a in &agents {
        let in_folders: u64 = listing
            .groups
            .iter()
            .flat_map(|g| &g.owners)
            .filter(|o| o.agent_name == a.name)
            .map(|o| o.session_count)
            .sum();
        assert_eq!(in_folders, a.session_count, "{}", a.name);
    }
    // A limited listing still counts every session's owner.
    let first = c.all_sessions(ListOptions { include_temp: true, limit: Some(1) }).unwrap();
    assert_eq!(first.groups.iter().map(|g| g.sessions.len()).sum::<usize>(), 1);
    for g in &first.groups {
        assert_eq!(g.owners, group(&g.working_directory).owners, "{}", g.working_directory);
    }
}

#[test]
fn names_previews_and_metadata() {
    let home = Home::new();
    let s = all(&home.catalog(), false);
    let a1 = &s[&sid("a1")];
    assert_eq!(a1.custom_name.as_deref(), Some("Nightly report (renamed)"));
    assert_eq!(a1.auto_name.as_deref(), Some("Nightly report run"));
    assert_eq!(a1.display_name(), "Nightly report (renamed)");
    assert_eq!(a1.git_branch.as_deref(), Some("main"));
    assert_eq!(a1.claude_code_version.as_deref(), Some("2.1.114"));
    assert_eq!(a1.message_count, 4);
    assert_eq!(a1.preview.as_deref(), Some("Run the nightly report for alpha"));
    assert_eq!(s[&sid("a3")].auto_name.as_deref(), Some("Rate limiter notes"));
    assert_eq!(s[&sid("01")].auto_name.as_deref(), Some("Legacy parser upgrade"));
    // herdctl makes the `/clear` command wrapper the preview and the auto name.
    assert_eq!(s[&sid("c1")].preview.as_deref(), Some("Add a login form to my-app"));
    assert_eq!(s[&sid("c1")].auto_name.as_deref(), Some("Add a login form to my-app"));
    assert_eq!(s[&sid("c1")].git_branch.as_deref(), Some("feature/login"));
    // 1.0.x inline sidechain lines are not counted.
    assert_eq!(s[&sid("01")].message_count, 2);
    assert_eq!(s[&sid("a8")].preview.as_deref(), Some("Fix the flaky test"));
}

#[test]
fn rename_writes_herdctl_metadata_under_the_owner() {
    let home = Home::new();
    let c = home.catalog();
    // Unattributed, in no agent's folder → adhoc.json (created lazily).
    let adhoc = home.state().join("session-metadata/adhoc.json");
    assert!(!adhoc.exists());
    let s = renames::rename(&c, &sid("d1"), Some("  My scratch  ")).unwrap();
    assert_eq!(s.custom_name.as_deref(), Some("My scratch"));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&adhoc).unwrap()).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["agentName"], "adhoc");
    assert_eq!(v["sessions"][sid("d1")]["customName"], "My scratch");
    // Unattributed in alpha's folder → alpha.json, where herdctl's All Chats reads it.
    let s = renames::rename(&c, &sid("a3"), Some("My limiter")).unwrap();
    assert_eq!(s.custom_name.as_deref(), Some("My limiter"));
    let v: serde_json::Value = serde_json::from_slice(
        &std::fs::read(home.state().join("session-metadata/alpha.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(v["sessions"][sid("a3")]["customName"], "My limiter");
    // Owned → <agent>.json, keeping herdctl's cached fields.
    renames::rename(&c, &sid("a2"), Some("Preview deploy")).unwrap();
    let alpha = home.state().join("session-metadata/alpha.json");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&alpha).unwrap()).unwrap();
    assert_eq!(v["sessions"][sid("a2")]["customName"], "Preview deploy");
    assert_eq!(v["sessions"][sid("a1")]["autoNameVersion"], 2);
    // Clearing shows the auto name again.
    let s = renames::rename(&c, &sid("a1"), None).unwrap();
    assert_eq!(s.custom_name, None);
    assert_eq!(s.display_name(), "Nightly report run");
    let s = renames::rename(&c, &sid("a2"), Some("")).unwrap();
    assert_eq!(s.custom_name, None);
    // Dotted qualified names are file names as they are.
    renames::rename(&c, &sid("c1"), Some("Login form")).unwrap();
    assert!(home.state().join("session-metadata/team.gamma.json").is_file());
}

#[test]
fn hostile_and_unknown_ids_are_typed_errors() {
    let home = Home::new();
    let c = home.catalog();
    for bad in ["../../etc/passwd", "a/b", "", "x.jsonl", "id with space"] {
        let e = c.session(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "{bad:?}");
        assert_eq!(
            renames::rename(&c, bad, Some("x")).unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
    }
    assert_eq!(c.session(&sid("99")).unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(c.session(&sid("a4")).unwrap_err().kind(), ErrorKind::NotFound, "sidechain");
    assert_eq!(
        c.agent_sessions("nobody", ListOptions::default()).unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert!(!home.state().join("session-metadata/adhoc.json").exists());
}

#[test]
fn browsing_writes_nothing_but_corrals_own_index() {
    let home = Home::new();
    let before_home = hash_tree(&home.root);
    let c = home.catalog();
    c.all_sessions(ListOptions::default()).unwrap();
    c.agent_sessions("alpha", ListOptions::default()).unwrap();
    c.agents().unwrap();
    c.transcript(&sid("a1")).unwrap();
    c.messages_page(&sid("a1"), None, 50).unwrap();
    assert_eq!(hash_tree(&home.root), before_home, "nothing under the Claude home or state dir");
    let mut index_files: Vec<String> = std::fs::read_dir(home.data.join("index"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    index_files.sort();
    assert_eq!(index_files.len(), 2, "{index_files:?}");
    assert!(index_files[0].starts_with("jobs-") && index_files[1].starts_with("listing-"));
    // The listing index is one shard per transcript folder.
    let shards = shard_files(&home);
    assert!(shards.len() >= 5, "{shards:?}");
    assert!(shards.iter().all(|p| p.extension().unwrap() == "idx"), "{shards:?}");
}

#[test]
fn index_follows_appends_replacements_deletions_and_corruption() {
    let home = Home::new();
    let c = home.catalog();
    let count = |c: &Catalog| c.session(&sid("a3")).unwrap().message_count;
    assert_eq!(count(&c), 2);
    // Append a turn: the change is seen (resumed from the saved offset).
    let path = home.transcript("-home-u-projects-alpha", "a3");
    append(
        &path,
        &format!(
            "{{\"parentUuid\":null,\"isSidechain\":false,\"type\":\"user\",\"cwd\":\"/home/u/projects/alpha\",\"sessionId\":\"{}\",\"message\":{{\"role\":\"user\",\"content\":\"one more thing\"}},\"uuid\":\"x-1\",\"timestamp\":\"2026-11-28T10:00:00.000Z\"}}\n",
            sid("a3")
        ),
    );
    // The last scan may be reused for a moment until something says the folder changed (the
    // app's watcher does).
    c.invalidate(&[path.parent().unwrap().to_path_buf()]);
    assert_eq!(count(&c), 3);
    // A fresh catalog (a new process) reads the persisted index and agrees.
    assert_eq!(count(&home.catalog()), 3);
    assert_eq!(
        home.catalog().session(&sid("a3")).unwrap().last_message_at.as_deref(),
        Some("2026-11-28T10:00:00.000Z")
    );
    // Corrupt every shard of the index: it is rebuilt, not trusted.
    for shard in shard_files(&home) {
        std::fs::write(&shard, b"{ not json").unwrap();
    }
    assert_eq!(count(&home.catalog()), 3);
    assert!(shard_files(&home).iter().all(|p| std::fs::read(p).unwrap().starts_with(b"CORRALIX")));
    // Delete a transcript: it disappears.
    std::fs::remove_file(&path).unwrap();
    c.invalidate(&[]);
    assert_eq!(c.session(&sid("a3")).unwrap_err().kind(), ErrorKind::NotFound);
}

fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[test]
fn works_without_a_fleet() {
    let home = Home::new();
    let c = home.catalog_without_fleet();
    assert!(c.agents().unwrap().is_empty());
    assert_eq!(c.state_dir(), home.data.join("state"));
    let s = all(&c, false);
    assert!(s.contains_key(&sid("a1")));
    assert!(!s.contains_key(&sid("d0")), "no fleet, no docker-sessions folder");
    assert_eq!(
        c.agent_sessions("alpha", ListOptions::default()).unwrap_err().kind(),
        ErrorKind::Config
    );
}

#[test]
fn missing_claude_home_is_an_empty_listing() {
    let tmp = tempfile::tempdir().unwrap();
    let c = Catalog::open(CatalogConfig {
        claude_home: tmp.path().join("nope"),
        fleet_file: None,
        state_dir: None,
        data_dir: tmp.path().join("data"),
    })
    .unwrap();
    assert!(c.all_sessions(ListOptions::default()).unwrap().groups.is_empty());
}

#[test]
fn worktree_folders_match_on_encoded_prefix_confirmed_by_cwd() {
    let home = Home::new();
    let c = home.catalog();
    let fleet = c.fleet().unwrap();
    let gamma = fleet.agent("team.gamma").unwrap();
    let beta = fleet.agent("beta").unwrap();
    // herdctl decodes `-home-u-my-app--claude-worktrees-feat` to /home/u/my/app/... and misses it.
    assert!(Catalog::folder_belongs_to_agent(
        gamma,
        "-home-u-my-app--claude-worktrees-feat",
        Some("/home/u/my-app/.claude/worktrees/feat")
    ));
    assert!(Catalog::folder_belongs_to_agent(gamma, "-home-u-my-app", None));
    // and /home/u/proj must not claim /home/u/proj-other.
    assert!(!Catalog::folder_belongs_to_agent(
        beta,
        "-home-u-proj-other",
        Some("/home/u/proj-other")
    ));
}

#[test]
fn transcript_and_pages_through_the_catalog() {
    let home = Home::new();
    let c = home.catalog();
    let t = c.transcript(&sid("a1")).unwrap();
    assert_eq!(t.working_directory, "/home/u/projects/alpha");
    assert!(
        t.messages.iter().any(|m| m.tool_call.as_ref().is_some_and(|tc| tc.tool_name == "Bash"))
    );
    let mut agents: Vec<&str> = t.subagents.iter().map(|s| s.agent_id.as_str()).collect();
    agents.sort_unstable();
    assert_eq!(agents, ["3430b97e", "a5ub001"], "nested and flat layouts");
    let page = c.messages_page(&sid("a1"), None, 2).unwrap();
    assert_eq!(page.messages.len(), 2);
    assert_eq!(page.messages.last().unwrap().content, t.messages.last().unwrap().content);
}

#[test]
fn session_details_for_the_viewer_header() {
    let home = Home::new();
    let c = home.catalog();
    let d = c.session_details(&sid("a1")).unwrap();
    assert_eq!(d.summary.session_id, sid("a1"));
    assert_eq!(
        d.resume_command,
        format!(
            "cd -- /home/u/projects/alpha && CLAUDE_CONFIG_DIR={} claude --resume {}",
            home.claude().display(),
            sid("a1")
        ),
        "the fixture home is not ~/.claude, so the command names it"
    );
    assert_eq!(d.usage.turn_count, 2);
    assert_eq!(d.usage.input_tokens, 4 + 1200 + 15000);
    assert_eq!(d.subagents.len(), 2);
    let page = c.subagent_page(&sid("a1"), "a5ub001", None, 10).unwrap();
    assert_eq!(page.messages.len(), 2);
    assert_eq!(page.messages[0].content, "Search the repo for TODOs");
    assert_eq!(
        c.subagent_page(&sid("a1"), "../x", None, 10).unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(
        c.subagent_page(&sid("a1"), "nope", None, 10).unwrap_err().kind(),
        ErrorKind::NotFound
    );
    use corral_engine::catalog::{resume_command, shell_quote};
    assert_eq!(
        resume_command("/home/u/it's here", "abc", None),
        "cd -- '/home/u/it'\\''s here' && claude --resume abc"
    );
    assert_eq!(
        resume_command("/w", "abc", Some(std::path::Path::new("/h/my claude"))),
        "cd -- /w && CLAUDE_CONFIG_DIR='/h/my claude' claude --resume abc"
    );
    assert_eq!(shell_quote("/home/dev/webshop"), "/home/dev/webshop");
    assert_eq!(shell_quote("/x/$(rm -rf ~)"), "'/x/$(rm -rf ~)'");
    assert_eq!(shell_quote(""), "''");
}

/// The resume command names the Claude home unless it is the one `claude` uses by default.
#[test]
fn resume_commands_name_the_home_unless_it_is_the_default() {
    let home = Home::new();
    let named = home.catalog().session_details(&sid("d1")).unwrap().resume_command;
    assert!(named.contains("CLAUDE_CONFIG_DIR="), "{named}");
    let default = home
        .catalog()
        .with_default_claude_home(Some(home.claude()))
        .session_details(&sid("d1"))
        .unwrap()
        .resume_command;
    assert!(!default.contains("CLAUDE_CONFIG_DIR"), "{default}");
    assert!(default.starts_with("cd -- /home/u/scratch && claude --resume "), "{default}");
}

/// A transcript rewritten in place at the same size, with its modification time put back
/// (`rsync --inplace -t`), is read again: its change time moved, and no program can set that
/// back. (That an unchanged stamp is trusted without reading is `index`'s freshness rule.)
#[test]
#[cfg(unix)]
fn an_in_place_edit_with_the_time_put_back_is_read_again() {
    use std::io::Write;
    use std::os::unix::fs::MetadataExt;
    let home = Home::new();
    let c = home.catalog();
    assert_eq!(
        c.session(&sid("d1")).unwrap().preview.as_deref(),
        Some("Quick question about bash arrays")
    );
    let path = home.transcript("-home-u-scratch", "d1");
    let before = std::fs::metadata(&path).unwrap();
    let mtime = before.modified().unwrap();
    let text = std::fs::read_to_string(&path).unwrap().replace("bash arrays", "zsh arrays!");
    // Written again until the change time moves (a coarse clock may not tick in between).
    loop {
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        (&f).write_all(text.as_bytes()).unwrap();
        f.set_modified(mtime).unwrap();
        drop(f);
        let after = std::fs::metadata(&path).unwrap();
        if (after.ctime(), after.ctime_nsec()) != (before.ctime(), before.ctime_nsec()) {
            assert_eq!((after.len(), after.modified().unwrap()), (before.len(), mtime));
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    c.invalidate(&[]);
    assert_eq!(
        c.session(&sid("d1")).unwrap().preview.as_deref(),
        Some("Quick question about zsh arrays!")
    );
    assert_eq!(
        home.catalog().session(&sid("d1")).unwrap().preview.as_deref(),
        Some("Quick question about zsh arrays!"),
        "the persisted index is not trusted either"
    );
    // A new mtime is shown to the nanosecond.
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let later = std::time::UNIX_EPOCH + std::time::Duration::new(1_700_000_005, 123_000_000);
    f.set_modified(later).unwrap();
    drop(f);
    c.invalidate(&[]);
    let s = c.session(&sid("d1")).unwrap();
    assert_eq!(s.mtime, "2023-11-14T22:13:25.123Z");
}

#[test]
fn a_changed_extractor_invalidates_cached_facts_exactly_once() {
    use corral_engine::index::SHARD_EXTRACTOR_OFFSET;
    let home = Home::new();
    home.catalog().all_sessions(ListOptions::default()).unwrap();
    let path = home.transcript("-home-u-scratch", "d1");
    let shard = shard_of(&home, &path);
    let current = corral_engine::transcript::facts::EXTRACTOR_VERSION;
    let bytes = std::fs::read(&shard).unwrap();
    let version = |b: &[u8]| {
        u32::from_le_bytes(
            b[SHARD_EXTRACTOR_OFFSET..SHARD_EXTRACTOR_OFFSET + 4].try_into().unwrap(),
        )
    };
    assert_eq!(version(&bytes), current);
    // A shard written by another extractor version is re-extracted, then rewritten with the
    // current version, so the next listing trusts it again.
    let mut old = bytes.clone();
    old[SHARD_EXTRACTOR_OFFSET..SHARD_EXTRACTOR_OFFSET + 4].copy_from_slice(&0u32.to_le_bytes());
    std::fs::write(&shard, &old).unwrap();
    let preview = |home: &Home| home.catalog().session(&sid("d1")).unwrap().preview.unwrap();
    assert_eq!(preview(&home), "Quick question about bash arrays");
    let rewritten = std::fs::read(&shard).unwrap();
    assert_eq!(version(&rewritten), current);
    assert_eq!(rewritten, bytes, "rebuilt to the same content");
}

#[test]
fn damaged_misplaced_stray_and_old_index_files_are_never_trusted() {
    let home = Home::new();
    let cold = all(&home.catalog(), true);
    let d1 = home.transcript("-home-u-scratch", "d1");
    let a1 = home.transcript("-home-u-projects-alpha", "a1");
    let (d1_shard, a1_shard) = (shard_of(&home, &d1), shard_of(&home, &a1));
    assert_ne!(d1_shard, a1_shard);
    let good = std::fs::read(&d1_shard).unwrap();
    let fresh = |home: &Home| {
        let listing = all(&home.catalog(), true);
        assert_eq!(listing, cold, "a listing from a damaged index equals a cold listing");
        assert_eq!(std::fs::read(&d1_shard).unwrap(), good, "the damaged shard is rebuilt");
    };
    // A tampered byte inside the payload (the preview text): refused by the checksum.
    let at = memchr::memmem::find(&good, b"bash arrays").unwrap();
    let mut tampered = good.clone();
    tampered[at] = b'c';
    std::fs::write(&d1_shard, &tampered).unwrap();
    fresh(&home);
    // Truncated: empty, inside the header, inside the payload, one byte short.
    for len in [0, 7, 31, 40, good.len() / 2, good.len() - 1] {
        std::fs::write(&d1_shard, &good[..len]).unwrap();
        fresh(&home);
    }
    // Another folder's shard under this folder's name.
    std::fs::copy(&a1_shard, &d1_shard).unwrap();
    fresh(&home);
    // Random bytes, and a shard of a future format.
    let noise: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(&d1_shard, noise).unwrap();
    fresh(&home);
    let mut future = good.clone();
    future[8] = 99;
    std::fs::write(&d1_shard, &future).unwrap();
    fresh(&home);
    // The single-file JSON index of earlier versions and a stray shard are removed; the shard of
    // a folder that disappears goes with it.
    let dir = d1_shard.parent().unwrap().to_path_buf();
    let legacy = dir.with_extension("json");
    std::fs::write(&legacy, br#"{"format":1,"extractor":1,"entries":{}}"#).unwrap();
    let stray = dir.join("00000000deadbeef.idx");
    std::fs::write(&stray, &good).unwrap();
    let c = home.catalog();
    std::fs::remove_dir_all(d1.parent().unwrap()).unwrap();
    let without: BTreeMap<String, SessionSummary> = cold
        .iter()
        .filter(|(_, s)| s.encoded_path != "-home-u-scratch")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    assert!(without.len() < cold.len() && !without.contains_key(&sid("d1")));
    assert_eq!(all(&c, true), without);
    assert!(!legacy.exists(), "the old JSON index is removed");
    assert!(!stray.exists(), "a shard no folder claims is removed");
    assert!(!d1_shard.exists(), "the shard of a removed folder is removed");
    assert!(a1_shard.exists());
}

/// The listing index's folder of shards.
fn listing_index(home: &Home) -> PathBuf {
    std::fs::read_dir(home.data.join("index"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("listing-") && p.is_dir())
        .unwrap()
}

/// Every shard file of the listing index.
fn shard_files(home: &Home) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(listing_index(home))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    out.sort();
    out
}

/// The shard file that holds `transcript`'s entry.
fn shard_of(home: &Home, transcript: &Path) -> PathBuf {
    let index = corral_engine::index::ListingIndex::new(&home.data, &home.claude());
    let shard = index.shard_file(transcript.parent().unwrap());
    assert!(shard.is_file(), "{shard:?}");
    shard
}

#[test]
fn job_records_are_parsed_once_across_processes() {
    let home = Home::new();
    let first = home.catalog().scan().unwrap();
    assert_eq!(first.attribution.job_stats().parsed, 7);
    // A new catalog (a new process) reuses the persisted job cache.
    let second = home.catalog().scan().unwrap();
    assert_eq!(second.attribution.job_stats().parsed, 0);
    assert_eq!(second.attribution.job_stats().reused, 7);
    assert_eq!(second.attribution.get(&sid("a9")).agent_name.as_deref(), Some("team.gamma"));
    // A corrupt cache is rebuilt from the job files.
    let jobs = std::fs::read_dir(home.data.join("index"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("jobs-"))
        .unwrap();
    std::fs::write(&jobs, b"[1, {\"nonsense\": true}]").unwrap();
    let third = home.catalog().scan().unwrap();
    assert_eq!(third.attribution.job_stats().parsed, 7);
    assert_eq!(third.attribution.get(&sid("a1")).agent_name.as_deref(), Some("alpha"));
}

#[test]
fn one_session_attribution_agrees_with_the_full_index() {
    use corral_engine::attribution::{AttributionIndex, JobCache};
    let home = Home::new();
    let mut cache = JobCache::default();
    let (full, _) = AttributionIndex::build(&home.state(), &mut cache);
    let mut checked = 0;
    for short in ["a1", "a2", "a3", "a9", "c1", "c2", "d0", "d1", "d2", "99"] {
        let id = sid(short);
        let (one, _) = AttributionIndex::build_for_session(&home.state(), &mut cache, &id);
        assert_eq!(one.get(&id), full.get(&id), "{short}");
        assert_eq!(one.adoption(&id), full.adoption(&id), "{short}");
        checked += 1;
    }
    assert_eq!(checked, 10);
    // It reads no other adoption record.
    let (one, _) = AttributionIndex::build_for_session(&home.state(), &mut cache, &sid("a1"));
    assert!(one.adoption(&sid("d2")).is_none());
}

/// A user line for `short`'s session in `cwd` with `text`.
fn user_line(short: &str, cwd: &str, text: &str, uuid: &str) -> String {
    format!(
        "{{\"parentUuid\":null,\"isSidechain\":false,\"type\":\"user\",\"cwd\":\"{cwd}\",\"sessionId\":\"{}\",\"message\":{{\"role\":\"user\",\"content\":\"{text}\"}},\"uuid\":\"{uuid}\",\"timestamp\":\"2026-11-28T10:00:00.000Z\"}}\n",
        sid(short)
    )
}

/// The app's watcher names the folders that changed: only those are listed again (the others
/// keep the last pass), and the result equals a full pass whenever the named folders are all
/// that changed.
#[test]
fn invalidating_named_folders_relists_just_those() {
    let home = Home::new();
    let c = home.catalog();
    let count = |c: &Catalog, short: &str| c.session(&sid(short)).unwrap().message_count;
    assert_eq!((count(&c, "a3"), count(&c, "b1")), (2, count(&home.catalog(), "b1")));
    let b1_before = count(&c, "b1");
    let a3 = home.transcript("-home-u-projects-alpha", "a3");
    let b1 = home.transcript("-home-u-proj-other", "b1");
    append(&a3, &user_line("a3", "/home/u/projects/alpha", "more", "x-a3"));
    append(&b1, &user_line("b1", "/home/u/proj-other", "more", "x-b1"));
    // Only alpha's folder is named: its change shows; the other keeps the last pass.
    c.invalidate(&[a3.parent().unwrap().to_path_buf()]);
    assert_eq!(count(&c, "a3"), 3);
    assert_eq!(count(&c, "b1"), b1_before, "a folder that was not named was listed again");
    // Named too: now it shows, and the listing equals a cold one.
    c.invalidate(&[b1.parent().unwrap().to_path_buf()]);
    assert_eq!(count(&c, "b1"), b1_before + 1);
    assert_eq!(all(&c, true), all(&home.catalog_with_data(&home.root.join("fresh-1")), true));
    // A new folder, named by the watcher, appears; a folder removed and named disappears.
    let new_folder = home.claude().join("projects/-home-u-new");
    std::fs::create_dir_all(&new_folder).unwrap();
    std::fs::write(
        new_folder.join(format!("{}.jsonl", sid("77"))),
        user_line("77", "/home/u/new", "hello there", "x-77"),
    )
    .unwrap();
    std::fs::remove_dir_all(b1.parent().unwrap()).unwrap();
    c.invalidate(&[new_folder.clone(), b1.parent().unwrap().to_path_buf()]);
    let listed = all(&c, true);
    assert!(listed.contains_key(&sid("77")));
    assert!(!listed.contains_key(&sid("b1")));
    assert_eq!(listed, all(&home.catalog_with_data(&home.root.join("fresh-2")), true));
    // A fresh process agrees with the persisted index (no shard of another folder was lost).
    assert_eq!(listed, all(&home.catalog(), true));
}
