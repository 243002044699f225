//! The desktop app's sidebar store: reading it as it is laid out on a real machine
//! (`claude-code-sessions/<account>/<org>/local_<uuid>.json`), the rules that name the current
//! sidebar, and the missing-sessions report with each measured case of the design notes
//! (BUG-264, BUG-309, BUG-346, BUG-351).

use std::path::{Path, PathBuf};

use corral_engine::desktop::{
    CurrentRule, MissingStatus, Report, Signals, Store, default_store, report, scratch_prefix,
};

pub(crate) const A: &str = "a0000000-0000-4000-8000-00000000000a";
pub(crate) const A1: &str = "a1000000-0000-4000-8000-0000000000a1";
pub(crate) const A2: &str = "a2000000-0000-4000-8000-0000000000a2";
pub(crate) const B: &str = "b0000000-0000-4000-8000-00000000000b";
pub(crate) const B1: &str = "b1000000-0000-4000-8000-0000000000b1";

pub(crate) fn cli(n: u32) -> String {
    format!("c{n:07}-0000-4000-8000-000000000000")
}

pub(crate) fn local(n: u32) -> String {
    format!("local_{n:08}-1111-4000-8000-000000000000.json")
}

/// A store root inside a temp dir, laid out as the app lays it out.
pub(crate) struct Fixture {
    pub(crate) _tmp: tempfile::TempDir,
    pub(crate) root: PathBuf,
}

impl Fixture {
    pub(crate) fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("Claude").join("claude-code-sessions");
        std::fs::create_dir_all(&root).unwrap();
        Self { _tmp: tmp, root }
    }

    pub(crate) fn sidebar(&self, account: &str, org: &str) -> PathBuf {
        let dir = self.root.join(account).join(org);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Writes an entry as the app does (every field optional: `extra` adds or overrides).
    pub(crate) fn entry(
        &self,
        account: &str,
        org: &str,
        file: &str,
        conversation: &str,
        extra: &str,
    ) {
        let json = format!(
            r#"{{"sessionId":"{}","cliSessionId":"{conversation}","cwd":"/w/{conversation}","originCwd":"/w/{conversation}","title":"Talk {conversation}","isArchived":false,"lastActivityAt":1780000000000,"model":"claude-opus-4-8","remoteMcpServersConfig":[]{extra}}}"#,
            file.trim_end_matches(".json"),
        );
        std::fs::write(self.sidebar(account, org).join(file), json).unwrap();
    }

    pub(crate) fn store(&self) -> Store {
        Store::read(&self.root)
    }

    fn report_for(&self, account: &str, org: &str) -> Report {
        report(&self.store(), Some((account, org)), Signals::default())
    }
}

fn missing_ids(r: &Report) -> Vec<String> {
    r.missing.iter().map(|m| m.cli_session_id.clone()).collect()
}

#[test]
fn the_store_is_read_as_laid_out_with_every_field_optional() {
    let f = Fixture::new();
    f.entry(A, A1, &local(1), &cli(1), r#","autoArchiveExempt":true,"futureField":{"x":1}"#);
    // Only a cliSessionId: every other field is an empty value, the entry is kept.
    std::fs::write(f.sidebar(A, A1).join(local(2)), format!(r#"{{"cliSessionId":"{}"}}"#, cli(2)))
        .unwrap();
    f.sidebar(A, A2); // an org with no entries is still a sidebar
    std::fs::write(f.sidebar(A, A1).join(local(3)), b"{not json").unwrap();
    std::fs::write(f.sidebar(A, A1).join(local(4)), b"[1,2]").unwrap();
    std::fs::write(f.sidebar(A, A1).join("notes.txt"), b"ignored").unwrap();
    let hostile = "acc\u{1b}[31mred";
    f.entry(hostile, A1, &local(5), &cli(5), "");
    #[cfg(unix)]
    {
        // A FIFO where an entry should be: named, never waited on.
        let fifo = f.sidebar(A, A1).join(local(6));
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        std::os::unix::fs::symlink(f.sidebar(A, A1), f.root.join(A).join("linked-org")).unwrap();
    }

    let s = f.store();
    assert!(s.exists);
    let pairs: Vec<(String, String, bool, usize)> = s
        .sidebars
        .iter()
        .map(|x| {
            (
                x.account.name.clone(),
                x.org.name.clone(),
                x.account.uuid && x.org.uuid,
                x.entries.len(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        vec![
            (A.to_owned(), A1.to_owned(), true, 2),
            (A.to_owned(), A2.to_owned(), true, 0),
            (hostile.to_owned(), A1.to_owned(), false, 1),
        ]
    );
    let e = &s.sidebars[0].entries[0];
    assert_eq!(e.cli_session_id.as_deref(), Some(cli(1).as_str()));
    assert_eq!(e.auto_archive_exempt, Some(true));
    assert_eq!(e.last_activity_at, Some(1_780_000_000_000));
    assert!(e.field_digests.contains_key("futureField"), "unknown fields are compared too");
    let bare = &s.sidebars[0].entries[1];
    assert_eq!((bare.title.as_deref(), bare.cwd.as_deref(), bare.is_archived), (None, None, false));
    let warned: Vec<String> = s.warnings.iter().map(|w| w.path.clone()).collect();
    for n in [3, 4] {
        assert!(warned.iter().any(|p| p.ends_with(&local(n))), "{n} named: {warned:?}");
    }
    #[cfg(unix)]
    {
        assert!(warned.iter().any(|p| p.ends_with(&local(6))), "the FIFO is named: {warned:?}");
        assert!(warned.iter().any(|p| p.ends_with("linked-org")), "{warned:?}");
    }

    // No store: no desktop app here, not an error and not a finding.
    let none = Store::read(&f.root.join("absent"));
    assert!(!none.exists && none.warnings.is_empty());
    let r = report(&none, None, Signals::default());
    assert!(!r.exists && r.finding.is_none() && r.missing.is_empty());
}

#[test]
fn a_store_that_yields_nothing_is_a_finding_not_nothing_missing() {
    let f = Fixture::new();
    f.sidebar(A, A1);
    f.sidebar(A, A2);
    let r = f.report_for(A, A2);
    assert!(r.missing.is_empty());
    assert!(r.finding.as_deref().is_some_and(|m| m.contains("could not read the store")), "{r:?}");

    // Entries, but no way to tell which sidebar is current: said, not guessed.
    f.entry(A, A1, &local(1), &cli(1), r#","lastActivityAt":null"#);
    let r = report(&f.store(), None, Signals::default());
    assert!(r.current.is_none());
    assert!(r.finding.as_deref().is_some_and(|m| m.contains("current")), "{r:?}");
}

#[test]
fn the_current_sidebar_comes_from_the_rules_in_order() {
    let f = Fixture::new();
    f.entry(A, A1, &local(1), &cli(1), r#","lastActivityAt":1780000000000"#);
    f.entry(B, B1, &local(2), &cli(2), r#","lastActivityAt":1790000000000"#);
    let store = f.store();
    let scratch = scratch_prefix(&f.root).unwrap();
    let folders = vec![
        "-home-me-src-app".to_owned(),
        format!("{}-{B}-{B1}-task", corral_engine::paths::encode_path(&scratch.to_string_lossy())),
    ];
    let cwd = scratch.join(A).join(A1).join("work");
    let host = format!("local_{}", local(1).trim_start_matches("local_").trim_end_matches(".json"));

    let rule = |s: Signals<'_>| {
        let c = corral_engine::desktop::Current::find(&store, s).unwrap();
        (c.account, c.org, c.rule)
    };
    // 1. This session's own entry names account and org.
    let all = Signals {
        host_session_id: Some(&host),
        cwd: Some(&cwd),
        transcript_folders: &folders,
        signed_in: None,
    };
    assert_eq!(rule(all), (A.to_owned(), Some(A1.to_owned()), CurrentRule::HostSession));
    // 2. The scratch prefix in the working directory.
    let no_host = Signals { host_session_id: Some("local_not-a-uuid"), ..all };
    assert_eq!(
        rule(no_host),
        (A.to_owned(), Some(A1.to_owned()), CurrentRule::ScratchWorkingDirectory)
    );
    // 3. The same prefix in a transcript folder's name.
    let no_cwd = Signals { cwd: Some(Path::new("/home/me/src/app")), ..no_host };
    assert_eq!(
        rule(no_cwd),
        (B.to_owned(), Some(B1.to_owned()), CurrentRule::ScratchTranscriptFolder)
    );
    // 4. The account active last (the org is not known).
    let nothing = Signals { transcript_folders: &[], ..no_cwd };
    assert_eq!(rule(nothing), (B.to_owned(), None, CurrentRule::NewestActivity));

    // An adopted entry sits in two sidebars under one name: two orgs of one account still name
    // the account; two accounts name nothing, and the next rule answers.
    f.entry(A, A2, &local(1), &cli(1), "");
    let store2 = f.store();
    let c = corral_engine::desktop::Current::find(
        &store2,
        Signals { host_session_id: Some(&host), ..Signals::default() },
    )
    .unwrap();
    assert_eq!((c.account.as_str(), c.org, c.rule), (A, None, CurrentRule::HostSession));
    f.entry(B, B1, &local(1), &cli(1), "");
    let store3 = f.store();
    let c = corral_engine::desktop::Current::find(
        &store3,
        Signals { host_session_id: Some(&host), ..Signals::default() },
    )
    .unwrap();
    assert_eq!(c.rule, CurrentRule::NewestActivity);
}

#[test]
fn an_org_switch_is_a_sidebar_switch_and_already_here_means_this_pair() {
    // BUG-309: two orgs of one login; the org switched to is empty. Comparing accounts would
    // find nothing missing; comparing sidebars finds all three.
    let f = Fixture::new();
    for n in 1..=3 {
        f.entry(A, A1, &local(n), &cli(n), "");
    }
    f.sidebar(A, A2);
    let r = f.report_for(A, A2);
    assert_eq!(missing_ids(&r), vec![cli(1), cli(2), cli(3)]);
    assert!(r.missing.iter().all(|m| m.status == MissingStatus::Restorable), "{r:?}");
    assert_eq!(r.missing[0].source.org, A1);
    let here: Vec<bool> = r.sidebars.iter().map(|s| s.current).collect();
    assert_eq!(here, vec![false, true]);
    // Which sidebars hold each conversation (the listing's badge).
    let p: Vec<(String, String, bool)> =
        r.placements.iter().map(|p| (p.cli_session_id.clone(), p.org.clone(), p.current)).collect();
    assert_eq!(p[0], (cli(1), A1.to_owned(), false));
    assert_eq!(p.len(), 3);

    // BUG-264: held by another account too, still missing from this pair.
    f.entry(B, B1, &local(9), &cli(1), "");
    let r = f.report_for(A, A2);
    let m = r.missing.iter().find(|m| m.cli_session_id == cli(1)).unwrap();
    assert_eq!(m.also_in.len(), 1, "{m:?}");
    // A live entry here for the conversation, under any file name: already here.
    f.entry(A, A2, &local(7), &cli(2), r#","title":"renamed here""#);
    let r = f.report_for(A, A2);
    assert_eq!(missing_ids(&r), vec![cli(1), cli(3)]);
    assert_eq!(r.left_out.already_here, 1);
}

#[test]
fn a_live_copy_beats_a_newer_archived_one_and_an_archive_here_is_not_here() {
    // BUG-351.
    let f = Fixture::new();
    f.sidebar(A, A2);
    f.entry(A, A1, &local(1), &cli(1), r#","lastActivityAt":1780000000000"#);
    f.entry(B, B1, &local(1), &cli(1), r#","isArchived":true,"lastActivityAt":1790000000000"#);
    // Every copy archived: left out, counted.
    f.entry(B, B1, &local(2), &cli(2), r#","isArchived":true"#);
    // Archived here, live elsewhere under the same file name: reported, and restoring replaces
    // the archived entry (no flag needed).
    f.entry(A, A2, &local(3), &cli(3), r#","isArchived":true"#);
    f.entry(A, A1, &local(3), &cli(3), "");
    let r = f.report_for(A, A2);
    assert_eq!(missing_ids(&r), vec![cli(1), cli(3)]);
    let one = &r.missing[0];
    assert_eq!((one.source.account.as_str(), one.status), (A, MissingStatus::Restorable));
    assert!(one.note.contains("archived, not taken"), "{one:?}");
    let three = &r.missing[1];
    assert_eq!(three.status, MissingStatus::Restorable);
    assert!(three.note.contains("replaces the archived entry here"), "{three:?}");
    assert_eq!(r.left_out.archived, 1);
}

#[test]
fn ties_are_one_copy_when_the_bytes_agree_and_ambiguous_when_they_do_not() {
    // BUG-346.
    let f = Fixture::new();
    f.sidebar(A, A2);
    // The same bytes under one name in two sidebars: one copy, nothing to choose.
    f.entry(A, A1, &local(1), &cli(1), "");
    f.entry(B, B1, &local(1), &cli(1), "");
    // Equally new, different content: ambiguous, naming the field first.
    f.entry(A, A1, &local(2), &cli(2), r#","title":"one""#);
    f.entry(B, B1, &local(2), &cli(2), r#","title":"two""#);
    // Same fields, other spelling (spaces): not one copy either.
    f.entry(A, A1, &local(3), &cli(3), "");
    let spaced =
        std::fs::read_to_string(f.sidebar(A, A1).join(local(3))).unwrap().replace(",", ", ");
    std::fs::write(f.sidebar(B, B1).join(local(3)), spaced).unwrap();
    // Equal values whose keys come in another order: the same fields, spelled otherwise; a
    // nested value that differs is named.
    f.entry(A, A1, &local(4), &cli(4), r#","cfg":{"a":1,"b":[2,{"c":3,"d":4}]}"#);
    f.entry(B, B1, &local(4), &cli(4), r#","cfg":{"b":[2,{"d":4,"c":3}],"a":1}"#);
    f.entry(A, A1, &local(5), &cli(5), r#","cfg":{"a":1,"b":[2,{"c":3}]}"#);
    f.entry(B, B1, &local(5), &cli(5), r#","cfg":{"a":1,"b":[2,{"c":3.5}]}"#);
    let r = f.report_for(A, A2);
    let by = |n: u32| r.missing.iter().find(|m| m.cli_session_id == cli(n)).unwrap();
    assert_eq!(by(1).status, MissingStatus::Restorable);
    assert!(by(1).note.contains("identical bytes"), "{:?}", by(1));
    assert_eq!(by(2).status, MissingStatus::Ambiguous);
    assert!(by(2).note.starts_with("differ in: title;"), "{:?}", by(2));
    assert_eq!(by(3).status, MissingStatus::Ambiguous);
    assert!(by(3).note.starts_with("differ in: spelling of the file"), "{:?}", by(3));
    assert!(by(4).note.starts_with("differ in: spelling of the file"), "{:?}", by(4));
    assert!(by(5).note.starts_with("differ in: cfg;"), "{:?}", by(5));
}

#[test]
fn shared_folders_and_names_taken_here_are_marked() {
    let f = Fixture::new();
    // A live entry here claims /w/shared.
    f.entry(A, A2, &local(1), &cli(1), r#","cwd":"/w/shared""#);
    f.entry(A, A1, &local(2), &cli(2), r#","cwd":"/w/shared""#);
    // Same file name here for another conversation, the source newer / older.
    f.entry(A, A2, &local(3), &cli(30), r#","lastActivityAt":1770000000000"#);
    f.entry(A, A1, &local(3), &cli(3), r#","lastActivityAt":1780000000000"#);
    f.entry(A, A2, &local(4), &cli(40), r#","lastActivityAt":1790000000000"#);
    f.entry(A, A1, &local(4), &cli(4), r#","lastActivityAt":1780000000000"#);
    // No transcript id: nothing to compare, counted.
    std::fs::write(f.sidebar(A, A1).join(local(5)), r#"{"title":"draft"}"#).unwrap();
    let r = f.report_for(A, A2);
    let by = |n: u32| r.missing.iter().find(|m| m.cli_session_id == cli(n)).unwrap();
    assert_eq!(by(2).status, MissingStatus::SharedFolder);
    assert_eq!(by(3).status, MissingStatus::ReplaceOlder);
    assert!(!by(3).note.contains("it is not"), "{:?}", by(3));
    assert_eq!(by(4).status, MissingStatus::ReplaceOlder);
    assert!(by(4).note.contains("it is not"), "{:?}", by(4));
    assert_eq!(r.left_out.no_transcript_id, 1);
    // Its rows say what each sidebar holds.
    let a1 = r.sidebars.iter().find(|s| s.org == A1).unwrap();
    assert_eq!((a1.entries, a1.live, a1.target), (4, 4, true));
    assert!(a1.newest_activity.is_some());
    // Which name-taken rows a replace brings back, said for the app; the words name no flag.
    assert!(by(3).can_replace && !by(4).can_replace);
    for n in [2, 3, 4] {
        assert!(!by(n).note.contains("--"), "a note cites a command-line flag: {}", by(n).note);
    }
}

#[test]
fn sidebars_are_named_by_the_account_claude_code_is_signed_in_with() {
    use corral_engine::claude_settings::SignedIn;
    let f = Fixture::new();
    f.entry(A, A1, &local(1), &cli(1), "");
    f.entry(B, B1, &local(2), &cli(2), "");
    let ada = SignedIn {
        account_uuid: Some(A.to_owned()),
        email: Some("ada@example.com".to_owned()),
        org_uuid: Some(A1.to_owned()),
        org_name: Some("Example Ltd".to_owned()),
    };
    let r = report(&f.store(), None, Signals { signed_in: Some(&ada), ..Signals::default() });
    let a = r.sidebars.iter().find(|s| s.account == A).unwrap();
    assert_eq!(a.account_label.as_deref(), Some("ada@example.com"));
    assert_eq!(a.org_label.as_deref(), Some("Example Ltd"));
    let b = r.sidebars.iter().find(|s| s.account == B).unwrap();
    assert_eq!((b.account_label.as_deref(), b.org_label.as_deref()), (None, None));
    // Read from the Claude home's own settings file by the catalog's report.
    let home = crate::home::Home::new();
    std::fs::write(
        home.claude().join(".claude.json"),
        format!(r#"{{"oauthAccount":{{"accountUuid":"{A}","emailAddress":"ada@example.com","organizationUuid":"{A1}","organizationName":"Example Ltd"}}}}"#),
    )
    .unwrap();
    let r = corral_engine::desktop::report_in(&home.catalog(), &f.root, (None, None), None, None)
        .unwrap();
    let a = r.sidebars.iter().find(|s| s.account == A).unwrap();
    assert_eq!(a.account_label.as_deref(), Some("ada@example.com"));
}

#[test]
fn the_default_store_is_never_the_real_one_in_tests() {
    let env = |_: &str| None;
    let home = tempfile::tempdir().unwrap();
    let got = default_store(Some(home.path()), &env).unwrap();
    assert!(got.starts_with(home.path()) || cfg!(windows), "{got:?}");
}

#[test]
fn a_restore_plan_takes_each_rule_and_writes_nothing() {
    use corral_engine::desktop::{RestoreAction, RestoreRequest, plan_restore};
    let f = Fixture::new();
    f.entry(A, A2, &local(1), &cli(1), r#","cwd":"/w/shared""#);
    f.entry(A, A1, &local(2), &cli(2), ""); // restorable
    f.entry(A, A1, &local(3), &cli(3), r#","cwd":"/w/shared""#); // shared folder
    f.entry(A, A2, &local(4), &cli(40), r#","lastActivityAt":1770000000000"#);
    f.entry(A, A1, &local(4), &cli(4), r#","lastActivityAt":1780000000000"#); // name taken, older here
    f.entry(A, A2, &local(5), &cli(5), r#","isArchived":true"#);
    f.entry(A, A1, &local(5), &cli(5), ""); // replaces the archived entry here
    f.entry(A, A1, &local(6), &cli(6), r#","title":"one""#);
    f.entry(B, B1, &local(6), &cli(6), r#","title":"two""#); // ambiguous
    f.entry(B, B1, &local(7), &cli(7), r#","isArchived":true"#); // archived everywhere
    let before = crate::support::hash_tree(&f.root);
    let store = f.store();

    let all = RestoreRequest { all: true, ..RestoreRequest::default() };
    let plan = plan_restore(&store, A, A2, &all).unwrap();
    let taken: Vec<(String, RestoreAction)> =
        plan.items.iter().map(|i| (i.cli_session_id.clone(), i.action)).collect();
    assert_eq!(
        taken,
        vec![(cli(2), RestoreAction::Create), (cli(5), RestoreAction::ReplaceArchived)],
        "{plan:?}"
    );
    let refused: Vec<&str> = plan.refused.iter().map(|r| r.cli_session_id.as_str()).collect();
    assert_eq!(refused.len(), 3, "{plan:?}");
    for id in [cli(3), cli(4), cli(6)] {
        assert!(refused.contains(&id.as_str()), "{id} refused: {plan:?}");
    }
    assert!(plan.items[0].target_path.ends_with(&format!("{A}/{A2}/{}", local(2))));
    assert!(Path::new(&plan.items[0].source_path).ends_with(format!("{A}/{A1}/{}", local(2))));
    assert!(Path::new(&plan.items[0].source_path).is_file());

    // The opt-ins, one by one.
    let both = RestoreRequest { allow_shared_folder: true, replace_older: true, ..all.clone() };
    let plan = plan_restore(&store, A, A2, &both).unwrap();
    let actions: Vec<(String, RestoreAction)> =
        plan.items.iter().map(|i| (i.cli_session_id.clone(), i.action)).collect();
    assert!(actions.contains(&(cli(3), RestoreAction::Create)), "{actions:?}");
    assert!(actions.contains(&(cli(4), RestoreAction::ReplaceOlder)), "{actions:?}");
    assert_eq!(plan.refused.len(), 1, "only the ambiguous one: {plan:?}");

    // By id: a prefix naming one, one naming several, what is here, what is archived, nothing.
    let ids = |ids: &[&str]| RestoreRequest {
        ids: ids.iter().map(|s| (*s).to_owned()).collect(),
        ..RestoreRequest::default()
    };
    let plan =
        plan_restore(&store, A, A2, &ids(&[&cli(2)[..8], "c000000", &cli(1), &cli(7), "zzz"]))
            .unwrap();
    assert_eq!(plan.items.len(), 1);
    assert_eq!(plan.items[0].cli_session_id, cli(2));
    let reasons: Vec<&str> = plan.refused.iter().map(|r| r.reason.as_str()).collect();
    assert!(reasons[0].contains("matches"), "{reasons:?}");
    assert!(reasons[1].contains("already in this sidebar"), "{reasons:?}");
    assert!(reasons[2].contains("archived in every other sidebar"), "{reasons:?}");
    assert!(reasons[3].contains("no sidebar holds"), "{reasons:?}");

    // The target is given, uuid-shaped and already there; nothing was written by any plan.
    assert!(plan_restore(&store, "../x", A2, &all).is_err());
    let missing = "a3000000-0000-4000-8000-0000000000a3";
    let e = plan_restore(&store, A, missing, &all).unwrap_err();
    assert!(e.to_string().contains("no sidebar folder"), "{e}");
    assert!(!f.root.join(A).join(missing).exists());
    assert_eq!(crate::support::hash_tree(&f.root), before);
}
