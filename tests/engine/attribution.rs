//! Attribution (herdctl `state/session-attribution.ts`) against fixtures/fleets/basic/.herdctl,
//! plus the ownership predicates and their invariants.

use std::path::Path;

use corral_engine::attribution::{
    AttributionIndex, JobCache, JobClaim, attribution_after_adoption_by, can_agent_adopt,
    claim_order, describe_owner, is_owned_by_agent, is_unattributed,
};
use corral_engine::model::{Attribution, Origin};

use crate::support::fixture_copy;

// Session ids of fixtures/fleets/basic (see fixtures/fleets/README.md).
const S_SCHEDULE_ALPHA: &str = "3fd30c78-f4ca-4868-ad82-6147611c95d6";
const S_WEB_JOB_ALPHA: &str = "5b5048fa-8909-4b48-bea1-64a8fa71856f";
const S_MANUAL_GAMMA: &str = "1e9cb238-1cc7-4eb7-9ec2-4bc5ed91f579";
const S_DISCORD_JOB_BETA: &str = "aa7ace03-0701-42b3-91f0-9cce412f7ee3";
const S_DUPLICATE: &str = "fe4e22f5-5832-4d7c-a6e8-e5ee5c0c3142";
const S_TIE: &str = "229b7afe-8cfe-4c3d-a213-3978d3461745";
const S_DOCKER: &str = "36e896f7-6062-4e0c-91a8-15bf82c39a47";
const S_SLACK_JOB_BETA: &str = "c3a0eae9-fd4f-4621-8f8b-dcd0ac85ef8c";
const S_FORK_GAMMA: &str = "ec220fe8-35cc-4f94-82c7-cd9323d61812";
const S_WEB_BINDING_ALPHA: &str = "9cb9742c-ae49-4af3-b522-a83f27eb2c83";
const S_DISCORD_BINDING_BETA: &str = "a5ac6167-aeb4-492a-a3d5-e78cdc60c777";
const S_SLACK_BINDING_GAMMA: &str = "ecb07d02-9a5b-4db1-b2f4-8d3cf6254763";
const S_ADOPTED_ALPHA: &str = "4e0c277a-b677-490d-b39c-8dad586a791e";
const S_MALFORMED_ADOPTION: &str = "82bae2fe-2997-41a0-bf9a-6a19911ef719";
const S_NATIVE_1: &str = "0ba943f1-1f3d-42bf-a3c2-f6965fc55515";
const S_NATIVE_2: &str = "42766e6f-4b03-41ef-ad9c-8e899647cec9";
const S_MALFORMED_JOB: &str = "65aa7f9e-329a-41c9-afd5-d745553bc543";
const S_BROKEN_PLATFORM: &str = "b59ab759-6731-449f-8678-991e166526b4";
const S_ADOPTED_SWEEPER: &str = "ea4e60ba-de37-4f43-9c69-bbea32ded5a3";
const S_SPAWNED_ALPHA: &str = "2f148812-dc8a-4442-9b18-9d765df41f5c";

fn attr(origin: Origin, agent: Option<&str>, trigger: Option<&str>) -> Attribution {
    Attribution {
        origin,
        agent_name: agent.map(str::to_owned),
        trigger_type: trigger.map(str::to_owned),
    }
}

fn basic_index() -> (tempfile::TempDir, std::path::PathBuf, AttributionIndex, Vec<String>) {
    let (tmp, root) = fixture_copy("fleets/basic");
    let mut cache = JobCache::default();
    let (index, warnings) = AttributionIndex::build(&root.join(".herdctl"), &mut cache);
    let warnings = warnings.into_iter().map(|w| w.path).collect();
    (tmp, root, index, warnings)
}

#[test]
fn fixture_sessions_resolve_as_the_readme_says() {
    let (_tmp, _root, index, _) = basic_index();
    use Origin::*;
    let table: &[(&str, Attribution)] = &[
        (S_SCHEDULE_ALPHA, attr(Schedule, Some("alpha"), Some("schedule"))),
        (S_WEB_JOB_ALPHA, attr(Web, Some("alpha"), Some("web"))),
        (S_MANUAL_GAMMA, attr(Native, Some("team.gamma"), Some("manual"))),
        (S_DISCORD_JOB_BETA, attr(Discord, Some("beta"), Some("discord"))),
        (S_DUPLICATE, attr(Schedule, Some("ops.sweeper"), Some("schedule"))),
        (S_TIE, attr(Native, Some("beta"), Some("webhook"))),
        (S_DOCKER, attr(Schedule, Some("docker-runner"), Some("schedule"))),
        (S_SLACK_JOB_BETA, attr(Slack, Some("beta"), Some("slack"))),
        (S_FORK_GAMMA, attr(Native, Some("team.gamma"), Some("fork"))),
        (S_SPAWNED_ALPHA, attr(Native, Some("alpha"), Some("spawned"))),
        (S_WEB_BINDING_ALPHA, attr(Web, Some("alpha"), None)),
        (S_DISCORD_BINDING_BETA, attr(Discord, Some("beta"), None)),
        (S_SLACK_BINDING_GAMMA, attr(Slack, Some("team.gamma"), None)),
        (S_ADOPTED_ALPHA, attr(Adopted, Some("alpha"), None)),
        (S_ADOPTED_SWEEPER, attr(Adopted, Some("ops.sweeper"), None)),
        (S_MALFORMED_ADOPTION, Attribution::native()),
        (S_NATIVE_1, Attribution::native()),
        (S_NATIVE_2, Attribution::native()),
        (S_MALFORMED_JOB, Attribution::native()),
        (S_BROKEN_PLATFORM, Attribution::native()),
    ];
    for (sid, expected) in table {
        assert_eq!(&index.get(sid), expected, "session {sid}");
    }
    // Known ids: 11 from jobs (one null session_id, one malformed, one duplicate, one tie),
    // 3 platform bindings not also in jobs (S_WEB_JOB_ALPHA is in both), 2 effective adoptions
    // (+2 inert ones on ids already counted).
    assert_eq!(index.len(), 10 + 3 + 2);
    assert!(!index.is_empty());
}

#[test]
fn malformed_files_are_warnings_and_ignored_files_are_silent() {
    let (_tmp, _root, _index, warnings) = basic_index();
    let names: Vec<String> = warnings
        .iter()
        .map(|p| Path::new(p).file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            format!("{S_MALFORMED_ADOPTION}.yaml"),
            "broken.yaml".to_owned(),
            "job-2026-11-28-bad000.yaml".to_owned(),
        ],
        "exactly the malformed job, platform file and adoption record warn; notes.yaml, *.jsonl, \
         README.txt and the hidden temp record are ignored silently"
    );
}

#[test]
fn job_beats_platform_beats_adoption() {
    let (_tmp, _root, index, _) = basic_index();
    // S_WEB_JOB_ALPHA: job (web, alpha) and a discord binding for beta → the job.
    assert_eq!(index.platform(S_WEB_JOB_ALPHA), Some(("discord", "beta")));
    assert_eq!(index.get(S_WEB_JOB_ALPHA).agent_name.as_deref(), Some("alpha"));
    // S_SCHEDULE_ALPHA: job for alpha, adoption record by beta → the job; the record is inert.
    assert_eq!(index.adoption(S_SCHEDULE_ALPHA).unwrap().agent_name, "beta");
    assert_eq!(index.get(S_SCHEDULE_ALPHA).origin, Origin::Schedule);
    // S_SLACK_BINDING_GAMMA: slack binding for team.gamma, adoption by alpha → the binding.
    assert_eq!(index.adoption(S_SLACK_BINDING_GAMMA).unwrap().agent_name, "alpha");
    assert_eq!(index.get(S_SLACK_BINDING_GAMMA), attr(Origin::Slack, Some("team.gamma"), None));
}

/// herdctl's `triggerTypeToOrigin`, every trigger type of the job schema (and an unknown one).
#[test]
fn every_trigger_type_maps_to_its_origin_keeping_the_agent() {
    let table = [
        ("web", Origin::Web),
        ("discord", Origin::Discord),
        ("slack", Origin::Slack),
        ("schedule", Origin::Schedule),
        ("manual", Origin::Native),
        ("webhook", Origin::Native),
        ("chat", Origin::Native),
        ("fork", Origin::Native),
        ("spawned", Origin::Native),
        ("something-new", Origin::Native),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path();
    std::fs::create_dir_all(state.join("jobs")).unwrap();
    for (i, (trigger, _)) in table.iter().enumerate() {
        write_job(
            state,
            &format!("job-2026-01-01-tt{i:04}"),
            "keeper",
            trigger,
            Some(&sid(i)),
            "2026-01-01T00:00:00Z",
        );
    }
    let (index, warnings) = AttributionIndex::build(state, &mut JobCache::default());
    assert!(warnings.is_empty(), "{warnings:?}");
    for (i, (trigger, origin)) in table.iter().enumerate() {
        let a = index.get(&sid(i));
        assert_eq!(a.origin, *origin, "trigger {trigger}");
        assert_eq!(a.agent_name.as_deref(), Some("keeper"), "trigger {trigger} keeps the agent");
        assert_eq!(a.trigger_type.as_deref(), Some(*trigger));
        assert!(!is_unattributed(&a), "a native job session is owned, not unattributed (#437)");
    }
}

fn sid(i: usize) -> String {
    format!("00000000-0000-4000-8000-{i:012}")
}

fn write_job(
    state: &Path,
    id: &str,
    agent: &str,
    trigger: &str,
    session: Option<&str>,
    started: &str,
) {
    let session = session.map_or("null".to_owned(), str::to_owned);
    std::fs::write(
        state.join("jobs").join(format!("{id}.yaml")),
        format!(
            "id: {id}\nagent: {agent}\ntrigger_type: {trigger}\nstatus: completed\nsession_id: {session}\nstarted_at: \"{started}\"\n"
        ),
    )
    .unwrap();
}

#[test]
fn null_session_id_is_not_indexed_and_size_counts_unique_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path();
    std::fs::create_dir_all(state.join("jobs")).unwrap();
    write_job(state, "job-2026-01-01-aaaaaa", "a", "manual", None, "2026-01-01T00:00:00Z");
    write_job(state, "job-2026-01-01-bbbbbb", "a", "manual", Some(&sid(1)), "2026-01-01T00:00:00Z");
    write_job(state, "job-2026-01-01-cccccc", "b", "manual", Some(&sid(1)), "2026-01-02T00:00:00Z");
    let (index, _) = AttributionIndex::build(state, &mut JobCache::default());
    assert_eq!(index.len(), 1);
    assert_eq!(index.session_ids(), vec![sid(1).as_str()]);
}

/// A job's own figure (`usage.total_cost_usd`) is read; an odd `usage` costs the job its figure,
/// never its claim on the session.
#[test]
fn a_job_says_what_it_cost_and_an_odd_usage_is_no_cost() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path();
    std::fs::create_dir_all(state.join("jobs")).unwrap();
    let usages = [
        "usage:\n  num_turns: 3\n  total_cost_usd: 0.4275\n  per_model: {}\n",
        "usage: null\n",
        "usage: [1, 2]\n",
        "usage:\n  total_cost_usd: \"lots\"\n",
        "usage:\n  total_cost_usd: -1\n",
    ];
    for (i, usage) in usages.iter().enumerate() {
        let id = format!("job-2026-01-0{}-aaaaaa", i + 1);
        write_job(state, &id, "a", "schedule", Some(&sid(i)), "2026-01-01T00:00:00Z");
        let path = state.join("jobs").join(format!("{id}.yaml"));
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text + usage).unwrap();
    }
    let (index, warnings) = AttributionIndex::build(state, &mut JobCache::default());
    assert!(warnings.is_empty(), "{warnings:?}");
    let costs: Vec<Option<u64>> =
        (0..usages.len()).map(|i| index.job(&sid(i)).unwrap().cost).collect();
    assert_eq!(costs, [Some(427_500_000_000), None, None, None, None]);
}

#[test]
fn missing_state_dir_is_an_empty_index() {
    let tmp = tempfile::tempdir().unwrap();
    let (index, warnings) =
        AttributionIndex::build(&tmp.path().join("nope"), &mut JobCache::default());
    assert!(index.is_empty());
    assert!(warnings.is_empty());
    assert_eq!(index.get(&sid(1)), Attribution::native());
}

/// #357 hardening: newest `started_at` wins, compared as instants; a tie goes to the greater id;
/// the answer does not depend on the order claims are seen.
#[test]
fn duplicate_claims_resolve_deterministically() {
    let claim = |id: &str, agent: &str, started: &str| JobClaim {
        id: id.to_owned(),
        agent: agent.to_owned(),
        trigger_type: "manual".to_owned(),
        session_id: Some(sid(9)),
        started_at: started.to_owned(),
        status: None,
        cost: None,
    };
    // As strings "10:00+01:00" sorts after "09:30Z"; as instants it is earlier (09:00Z).
    let offset = claim("job-2026-11-25-t1u2v3", "alpha", "2026-11-25T10:00:00+01:00");
    let zulu = claim("job-2026-11-25-q7r8s9", "sweeper", "2026-11-25T09:30:00.000Z");
    assert_eq!(claim_order(&zulu, &offset), std::cmp::Ordering::Greater);
    // Same instant written two ways: a tie, broken by id.
    let a = claim("job-a", "x", "2026-01-01T00:00:00Z");
    let b = claim("job-b", "y", "2026-01-01T01:00:00+01:00");
    assert_eq!(claim_order(&b, &a), std::cmp::Ordering::Greater);
    // An unparseable time loses to a parseable one; two unparseable compare as strings.
    let junk = claim("job-z", "x", "yesterday");
    assert_eq!(claim_order(&a, &junk), std::cmp::Ordering::Greater);
    let junk2 = claim("job-y", "x", "zzz");
    assert_eq!(claim_order(&junk2, &junk), std::cmp::Ordering::Greater);

    // Whatever order files are created in (and so read in), the same winner.
    let claims = [
        ("job-2026-03-01-aaaaaa", "one", "2026-03-01T10:00:00.000Z"),
        ("job-2026-03-01-zzzzzz", "two", "2026-03-01T10:00:00.000Z"),
        ("job-2026-03-01-mmmmmm", "three", "2026-03-01T09:59:59.999Z"),
        ("job-2026-03-01-bbbbbb", "four", "not a time"),
    ];
    for rotation in 0..claims.len() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("jobs")).unwrap();
        for k in 0..claims.len() {
            let (id, agent, started) = claims[(k + rotation) % claims.len()];
            write_job(tmp.path(), id, agent, "manual", Some(&sid(5)), started);
        }
        let (index, _) = AttributionIndex::build(tmp.path(), &mut JobCache::default());
        assert_eq!(index.get(&sid(5)).agent_name.as_deref(), Some("two"), "rotation {rotation}");
        assert_eq!(index.job(&sid(5)).unwrap().id, "job-2026-03-01-zzzzzz");
    }
}

#[test]
fn job_cache_reuses_unchanged_files_rereads_changed_ones_and_drops_deleted_ones() {
    let (_tmp, root) = fixture_copy("fleets/basic");
    let state = root.join(".herdctl");
    let mut cache = JobCache::default();
    let (first, w1) = AttributionIndex::build(&state, &mut cache);
    let s = first.job_stats();
    assert_eq!(s.files, 14, "{s:?}");
    assert_eq!((s.parsed, s.reused, s.dropped), (14, 0, 0));
    assert_eq!(cache.len(), 14);

    // Unchanged: nothing is read again, the same answers and the same warnings come back.
    let (second, w2) = AttributionIndex::build(&state, &mut cache);
    let s = second.job_stats();
    assert_eq!((s.parsed, s.reused, s.dropped), (0, 14, 0));
    assert_eq!(second.get(S_DUPLICATE), first.get(S_DUPLICATE));
    assert_eq!(w1, w2, "a cached malformed job keeps warning");

    // Proof the cache is really used: corrupt a file while keeping its size and mtime.
    let victim = state.join("jobs/job-2026-11-20-a1b2c3.yaml");
    let meta = std::fs::metadata(&victim).unwrap();
    let text = std::fs::read_to_string(&victim).unwrap();
    std::fs::write(&victim, text.replace("agent: alpha", "agent: omega")).unwrap();
    let f = std::fs::File::options().write(true).open(&victim).unwrap();
    f.set_modified(meta.modified().unwrap()).unwrap();
    drop(f);
    let (third, _) = AttributionIndex::build(&state, &mut cache);
    assert_eq!(third.get(S_SCHEDULE_ALPHA).agent_name.as_deref(), Some("alpha"));
    assert_eq!(third.job_stats().parsed, 0);

    // Changed (size differs): re-read.
    std::fs::write(&victim, text.replace("agent: alpha", "agent: omega-prime")).unwrap();
    let (fourth, _) = AttributionIndex::build(&state, &mut cache);
    assert_eq!(fourth.job_stats().parsed, 1);
    assert_eq!(fourth.get(S_SCHEDULE_ALPHA).agent_name.as_deref(), Some("omega-prime"));

    // New file: read once.
    write_job(
        &state,
        "job-2026-12-01-newnew",
        "beta",
        "web",
        Some(&sid(77)),
        "2026-12-01T00:00:00Z",
    );
    let (fifth, _) = AttributionIndex::build(&state, &mut cache);
    assert_eq!((fifth.job_stats().parsed, fifth.job_stats().reused), (1, 14));
    assert_eq!(fifth.get(&sid(77)).origin, Origin::Web);

    // Deleted: dropped from the cache and the index.
    std::fs::remove_file(state.join("jobs/job-2026-11-20-a1b2c3.yaml")).unwrap();
    let (sixth, _) = AttributionIndex::build(&state, &mut cache);
    assert_eq!(sixth.job_stats().dropped, 1);
    assert_eq!(cache.len(), 14);
    // With the job gone, the (previously inert) adoption record by beta takes effect.
    assert_eq!(sixth.get(S_SCHEDULE_ALPHA), attr(Origin::Adopted, Some("beta"), None));

    // The whole jobs folder gone: everything dropped, no error.
    std::fs::remove_dir_all(state.join("jobs")).unwrap();
    let (seventh, _) = AttributionIndex::build(&state, &mut cache);
    assert!(cache.is_empty());
    assert_eq!(seventh.job_stats().dropped, 14);
}

#[test]
fn job_cache_survives_a_serde_round_trip() {
    let (_tmp, root) = fixture_copy("fleets/basic");
    let state = root.join(".herdctl");
    let mut cache = JobCache::default();
    let _ = AttributionIndex::build(&state, &mut cache);
    let json = serde_json::to_string(&cache).unwrap();
    let mut restored: JobCache = serde_json::from_str(&json).unwrap();
    let (index, _) = AttributionIndex::build(&state, &mut restored);
    assert_eq!(index.job_stats().parsed, 0);
    assert_eq!(index.get(S_TIE).agent_name.as_deref(), Some("beta"));
}

#[test]
fn platform_bindings_read_agent_name_inside_and_accept_versions_1_to_3() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path();
    for (platform, file, version, agent, channel, session) in [
        ("discord", "whatever.yaml", 1, "a.one", "\"1187654321098765432\"", sid(1)),
        ("slack", "x.yaml", 2, "b", "C01", sid(2)),
        ("web", "y.yaml", 3, "c", &sid(3) as &str, sid(3)),
        ("web", "z.yaml", 4, "d", "k", sid(4)),
        // A numeric channel id left unquoted is still a channel.
        ("discord", "numeric.yaml", 1, "e", "1187654321098765000", sid(5)),
    ] {
        let dir = state.join(format!("{platform}-sessions"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(file),
            format!(
                "version: {version}\nagentName: {agent}\nchannels:\n  {channel}:\n    sessionId: {session}\n    lastMessageAt: \"2026-05-08T12:00:00.000Z\"\n"
            ),
        )
        .unwrap();
    }
    let (index, warnings) = AttributionIndex::build(state, &mut JobCache::default());
    assert_eq!(index.get(&sid(1)), attr(Origin::Discord, Some("a.one"), None));
    assert_eq!(index.get(&sid(2)), attr(Origin::Slack, Some("b"), None));
    assert_eq!(index.get(&sid(3)), attr(Origin::Web, Some("c"), None));
    assert_eq!(index.get(&sid(4)), Attribution::native(), "version 4 is not a known shape");
    assert_eq!(index.get(&sid(5)), attr(Origin::Discord, Some("e"), None));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].path.ends_with("z.yaml"));
}

#[test]
fn owner_descriptions_read_well() {
    assert_eq!(
        describe_owner(&attr(Origin::Web, Some("alpha"), None)),
        "origin \"web\" (agent alpha)"
    );
    assert_eq!(
        describe_owner(&attr(Origin::Native, Some("team.gamma"), Some("manual"))),
        "origin \"native\" via trigger \"manual\" (agent team.gamma)"
    );
    assert_eq!(
        describe_owner(&attr(Origin::Schedule, Some("x"), Some("schedule"))),
        "origin \"schedule\" (agent x)"
    );
    assert_eq!(describe_owner(&Attribution::native()), "nobody (origin \"native\")");
}

// ---- Ownership predicates (herdctl #437/#438) ----

fn every_attribution() -> Vec<Attribution> {
    let agents = [None, Some("alpha"), Some("beta"), Some("team.gamma")];
    let origins = [
        Origin::Web,
        Origin::Discord,
        Origin::Slack,
        Origin::Schedule,
        Origin::Native,
        Origin::Adopted,
    ];
    let mut all = Vec::new();
    for agent in agents {
        for origin in origins {
            for trigger in [None, Some("manual")] {
                all.push(attr(origin, agent, trigger));
            }
        }
    }
    all
}

#[test]
fn predicates_answer_the_documented_cases() {
    let unattributed = Attribution::native();
    let sibling_job = attr(Origin::Native, Some("sweeper"), Some("manual"));
    let own = attr(Origin::Schedule, Some("keeper"), Some("schedule"));
    let adopted_by_other = attr(Origin::Adopted, Some("other"), None);
    let platform_other = attr(Origin::Web, Some("other"), None);

    assert!(is_unattributed(&unattributed));
    // #437: origin native is NOT the same as unattributed.
    assert!(!is_unattributed(&sibling_job));
    assert!(is_owned_by_agent(&unattributed, None));
    assert!(!is_owned_by_agent(&unattributed, Some("keeper")));

    assert!(can_agent_adopt(&unattributed, "keeper"));
    assert!(can_agent_adopt(&own, "keeper"), "re-claiming one's own session is harmless");
    assert!(can_agent_adopt(&adopted_by_other, "keeper"), "a mere adoption can be taken over");
    assert!(!can_agent_adopt(&sibling_job, "keeper"), "#437: a sibling's job record wins");
    assert!(!can_agent_adopt(&platform_other, "keeper"));

    assert_eq!(
        attribution_after_adoption_by(&unattributed, "keeper"),
        attr(Origin::Adopted, Some("keeper"), None)
    );
    assert_eq!(attribution_after_adoption_by(&sibling_job, "keeper"), sibling_job);
}

/// The invariants herdctl tests: anything the scan offers the adopt path accepts; anything
/// accepted is visible to the adopter afterwards; anything refused stays with its owner.
#[test]
fn predicate_invariants_hold_for_every_attribution() {
    for a in every_attribution() {
        for agent in ["alpha", "beta", "team.gamma", "keeper"] {
            if is_unattributed(&a) {
                assert!(can_agent_adopt(&a, agent), "offered but refused: {a:?} by {agent}");
            }
            let after = attribution_after_adoption_by(&a, agent);
            if can_agent_adopt(&a, agent) {
                assert!(is_owned_by_agent(&after, Some(agent)), "accepted but invisible: {a:?}");
            } else {
                assert_eq!(after, a, "refused but changed: {a:?}");
                assert!(a.agent_name.is_some() && a.agent_name.as_deref() != Some(agent));
                assert_ne!(a.origin, Origin::Adopted);
            }
            // canAgentAdopt is literally defined through the other two.
            assert_eq!(can_agent_adopt(&a, agent), is_owned_by_agent(&after, Some(agent)));
        }
    }
}

/// The invariants again through the real index: adopting every candidate the fixture offers
/// makes it visible; refused ones keep their owner.
#[test]
fn adopting_through_the_store_takes_effect_exactly_when_can_agent_adopt_says_so() {
    let (_tmp, root) = fixture_copy("fleets/basic");
    let state = root.join(".herdctl");
    let mut cache = JobCache::default();
    let (before, _) = AttributionIndex::build(&state, &mut cache);
    let ids = [
        S_SCHEDULE_ALPHA,
        S_MANUAL_GAMMA,
        S_DUPLICATE,
        S_WEB_BINDING_ALPHA,
        S_ADOPTED_SWEEPER,
        S_NATIVE_1,
        S_MALFORMED_JOB,
        S_BROKEN_PLATFORM,
        S_ADOPTED_ALPHA,
    ];
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-30T10:00:00Z").unwrap().to_utc();
    for sid in ids {
        let a = before.get(sid);
        let record = corral_engine::adoption_store::AdoptionRecord::new(sid, "alpha", now, None);
        corral_engine::adoption_store::write(&state, &record).unwrap();
        let (after, _) = AttributionIndex::build(&state, &mut cache);
        let now_attr = after.get(sid);
        if can_agent_adopt(&a, "alpha") {
            assert!(is_owned_by_agent(&now_attr, Some("alpha")), "{sid}: {now_attr:?}");
        } else {
            assert_eq!(now_attr, a, "{sid}: a refused adoption must not change the owner");
        }
    }
}

/// herdctl's `buildPlatformIndex` and job listing rethrow any error other than ENOENT, so one
/// odd entry (a file where a folder belongs) fails the whole attribution build and blanks every
/// listing. Corral turns it into a warning and keeps the other sources.
#[test]
fn a_file_where_a_state_folder_belongs_is_a_warning_not_a_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path();
    std::fs::write(state.join("web-sessions"), "not a folder").unwrap();
    std::fs::write(state.join("jobs"), "not a folder").unwrap();
    std::fs::create_dir_all(state.join("slack-sessions")).unwrap();
    std::fs::write(
        state.join("slack-sessions/ok.yaml"),
        format!("version: 2\nagentName: s\nchannels:\n  C1:\n    sessionId: {}\n    lastMessageAt: \"2026-01-01T00:00:00Z\"\n", sid(1)),
    )
    .unwrap();
    let (index, warnings) = AttributionIndex::build(state, &mut JobCache::default());
    assert_eq!(index.get(&sid(1)), attr(Origin::Slack, Some("s"), None));
    assert_eq!(warnings.len(), 2, "{warnings:?}");
}

/// herdctl #424 (the listing variant for jobs): a folder named like a job record is skipped,
/// and a job file with the wrong shape is a warning, never a failure.
#[test]
fn odd_job_entries_are_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path();
    std::fs::create_dir_all(state.join("jobs/job-2026-01-01-folder.yaml")).unwrap();
    std::fs::write(state.join("jobs/job-2026-01-01-empty0.yaml"), "").unwrap();
    std::fs::write(state.join("jobs/job-2026-01-01-list00.yaml"), "- a\n- b\n").unwrap();
    std::fs::write(
        state.join("jobs/job-2026-01-01-noagnt.yaml"),
        format!("trigger_type: web\nsession_id: {}\nstarted_at: x\n", sid(2)),
    )
    .unwrap();
    write_job(state, "job-2026-01-01-good00", "a", "web", Some(&sid(3)), "2026-01-01T00:00:00Z");
    let (index, warnings) = AttributionIndex::build(state, &mut JobCache::default());
    assert_eq!(index.session_ids(), vec![sid(3).as_str()]);
    assert_eq!(index.job_stats().files, 4, "the folder is not a job file");
    assert_eq!(warnings.len(), 3, "{warnings:?}");
}

/// A heavy web user's binding file (one channel per web chat) stays within the YAML budgets.
#[test]
fn a_large_web_binding_file_is_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("web-sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::from("version: 1\nagentName: alpha\nchannels:\n");
    for i in 0..20_000 {
        let s = sid(i);
        text.push_str(&format!(
            "  {s}:\n    sessionId: {s}\n    lastMessageAt: \"2026-05-08T12:00:00.000Z\"\n"
        ));
    }
    std::fs::write(dir.join("alpha.yaml"), text).unwrap();
    let started = std::time::Instant::now();
    let (index, warnings) = AttributionIndex::build(tmp.path(), &mut JobCache::default());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(index.len(), 20_000);
    assert_eq!(index.get(&sid(19_999)), attr(Origin::Web, Some("alpha"), None));
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
}
