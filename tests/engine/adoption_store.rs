//! The herdctl-compatible adoption store (herdctl `state/adopted-sessions.ts`).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use corral_engine::Error;
use corral_engine::adoption_store::{
    self, AdoptionRecord, read, read_all, record_path, remove, render_yaml, store_dir, write,
};
use proptest::prelude::*;

use crate::support::fixture_copy;

const SID: &str = "99999999-9999-4999-8999-999999999999";

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().to_utc()
}

#[test]
fn a_written_record_is_byte_for_byte_what_herdctl_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let record = AdoptionRecord::new(
        SID,
        "alpha",
        at("2026-11-29T19:31:24.056789Z"),
        Some("/home/u/scratch"),
    );
    assert_eq!(record.adopted_at, "2026-11-29T19:31:24.056Z");
    write(tmp.path(), &record).unwrap();
    let text =
        std::fs::read_to_string(tmp.path().join(format!("adopted-sessions/{SID}.yaml"))).unwrap();
    // Verified herdctl output (docs/herdctl-reference.md §1.4).
    assert_eq!(
        text,
        "version: 1\nsessionId: 99999999-9999-4999-8999-999999999999\nagentName: alpha\nadoptedAt: 2026-11-29T19:31:24.056Z\nsourceCwd: /home/u/scratch\n"
    );
    assert_eq!(render_yaml(&record), text);
}

#[test]
fn written_yaml_parses_back_with_the_documented_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let record = AdoptionRecord::new(SID, "team.gamma", at("2026-01-02T03:04:05Z"), None);
    write(tmp.path(), &record).unwrap();
    let path = record_path(tmp.path(), SID).unwrap();
    // Parse as a generic YAML map: field names, types, and the ISO date with Z.
    let raw: BTreeMap<String, serde_json::Value> =
        serde_saphyr::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        raw.keys().map(String::as_str).collect::<Vec<_>>(),
        ["adoptedAt", "agentName", "sessionId", "version"]
    );
    assert_eq!(raw["version"], serde_json::json!(1));
    assert_eq!(raw["sessionId"], serde_json::json!(SID));
    assert_eq!(raw["agentName"], serde_json::json!("team.gamma"));
    let adopted_at = raw["adoptedAt"].as_str().unwrap();
    assert_eq!(adopted_at, "2026-01-02T03:04:05.000Z");
    assert!(adopted_at.ends_with('Z') && adopted_at.len() == 24);
    assert!(DateTime::parse_from_rfc3339(adopted_at).is_ok());
    assert!(!raw.contains_key("sourceCwd"), "an absent sourceCwd is omitted, not null");
    assert_eq!(read(tmp.path(), SID).unwrap(), Some(record));
}

#[test]
fn directory_is_created_lazily_and_reads_of_a_missing_store_are_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let (records, warnings) = read_all(tmp.path());
    assert!(records.is_empty() && warnings.is_empty());
    assert_eq!(read(tmp.path(), SID).unwrap(), None);
    assert!(!remove(tmp.path(), SID).unwrap());
    assert!(!store_dir(tmp.path()).exists(), "reads and removes create nothing");
    write(tmp.path(), &AdoptionRecord::new(SID, "alpha", at("2026-01-01T00:00:00Z"), None))
        .unwrap();
    assert!(store_dir(tmp.path()).is_dir());
}

#[test]
fn re_adopting_overwrites_and_remove_reports_whether_it_removed() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), &AdoptionRecord::new(SID, "alpha", at("2026-01-01T00:00:00Z"), None))
        .unwrap();
    write(tmp.path(), &AdoptionRecord::new(SID, "beta", at("2026-01-02T00:00:00Z"), Some("/x")))
        .unwrap();
    let got = read(tmp.path(), SID).unwrap().unwrap();
    assert_eq!((got.agent_name.as_str(), got.source_cwd.as_deref()), ("beta", Some("/x")));
    assert_eq!(read_all(tmp.path()).0.len(), 1);
    assert!(remove(tmp.path(), SID).unwrap());
    assert!(!remove(tmp.path(), SID).unwrap());
    assert_eq!(read(tmp.path(), SID).unwrap(), None);
    let left: Vec<_> = std::fs::read_dir(store_dir(tmp.path())).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn hostile_ids_are_refused_before_any_io_and_no_folder_is_created() {
    let tmp = tempfile::tempdir().unwrap();
    for id in ["../../etc/passwd", "a/b", "..", ".", "", "a.yaml", "x\0y", "C:\\x", "a b"] {
        assert!(matches!(record_path(tmp.path(), id), Err(Error::InvalidSessionId(_))), "{id:?}");
        assert!(matches!(read(tmp.path(), id), Err(Error::InvalidSessionId(_))));
        assert!(matches!(remove(tmp.path(), id), Err(Error::InvalidSessionId(_))));
        let record = AdoptionRecord::new(id, "alpha", at("2026-01-01T00:00:00Z"), None);
        assert!(matches!(write(tmp.path(), &record), Err(Error::InvalidSessionId(_))));
    }
    assert!(!store_dir(tmp.path()).exists());
    assert!(std::fs::read_dir(tmp.path()).unwrap().next().is_none());
}

#[test]
fn invalid_records_are_not_written() {
    let tmp = tempfile::tempdir().unwrap();
    let mut r = AdoptionRecord::new(SID, "", at("2026-01-01T00:00:00Z"), None);
    assert!(write(tmp.path(), &r).is_err());
    r.agent_name = "alpha".to_owned();
    r.adopted_at = "yesterday".to_owned();
    assert!(write(tmp.path(), &r).is_err());
    r.adopted_at = corral_engine::time::iso(at("2026-01-01T00:00:00Z"));
    r.version = 2;
    assert!(write(tmp.path(), &r).is_err());
    assert!(!store_dir(tmp.path()).exists());
}

#[test]
fn read_all_skips_hidden_and_non_yaml_files_and_warns_on_malformed_records() {
    let (_tmp, root) = fixture_copy("fleets/basic");
    let state = root.join(".herdctl");
    std::fs::write(store_dir(&state).join("notes.txt"), "not a record").unwrap();
    // A record whose sessionId does not match its file name could never be released.
    std::fs::write(
        store_dir(&state).join("00000000-0000-4000-8000-000000000001.yaml"),
        "version: 1\nsessionId: 00000000-0000-4000-8000-000000000002\nagentName: a\nadoptedAt: 2026-01-01T00:00:00.000Z\n",
    )
    .unwrap();
    let (records, warnings) = read_all(&state);
    let mut ids: Vec<&str> = records.iter().map(|r| r.session_id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "3fd30c78-f4ca-4868-ad82-6147611c95d6",
            "4e0c277a-b677-490d-b39c-8dad586a791e",
            "ea4e60ba-de37-4f43-9c69-bbea32ded5a3",
            "ecb07d02-9a5b-4db1-b2f4-8d3cf6254763",
        ]
    );
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings.iter().any(|w| w.path.ends_with("82bae2fe-2997-41a0-bf9a-6a19911ef719.yaml")));
    assert!(warnings.iter().any(|w| w.message.contains("does not match its file name")));
    let adopted = records.iter().find(|r| r.session_id.starts_with("4e0c277a")).unwrap();
    assert_eq!(adopted.source_cwd.as_deref(), Some("/home/u/scratch"));
    // A malformed record read directly is Unreadable, not a crash.
    assert!(matches!(
        read(&state, "82bae2fe-2997-41a0-bf9a-6a19911ef719"),
        Err(Error::Unreadable { .. })
    ));
}

#[test]
fn records_without_version_read_as_version_1_and_unknown_fields_are_ignored() {
    let r = adoption_store::parse_yaml(&format!(
        "sessionId: {SID}\nagentName: alpha\nadoptedAt: \"2026-11-29T19:31:24.056Z\"\nextra: 1\n"
    ))
    .unwrap();
    assert_eq!(r.version, 1);
    assert!(adoption_store::parse_yaml("version: 1\nsessionId: x\nagentName: a\n").is_err());
    assert!(
        adoption_store::parse_yaml(
            "version: 9\nsessionId: x\nagentName: a\nadoptedAt: 2026-01-01T00:00:00Z\n"
        )
        .is_err()
    );
}

proptest! {
    /// Whatever the agent name and source folder, the rendered YAML parses back to the record.
    #[test]
    fn rendered_yaml_round_trips(agent in "\\PC{1,40}", cwd in proptest::option::of("\\PC{0,60}"), ms in 0i64..4_000_000_000_000i64) {
        let t = DateTime::from_timestamp_millis(ms).unwrap();
        let record = AdoptionRecord::new(SID, &agent, t, cwd.as_deref());
        let text = render_yaml(&record);
        let back = adoption_store::parse_yaml(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, record);
    }

    #[test]
    fn tricky_scalars_round_trip(s in prop_oneof![
        Just("true".to_owned()), Just("null".to_owned()), Just("~".to_owned()), Just("123".to_owned()),
        Just("1e3".to_owned()), Just("0x1f".to_owned()), Just("- a".to_owned()), Just("a: b".to_owned()),
        Just("#c".to_owned()), Just("'q'".to_owned()), Just("\"q\"".to_owned()), Just(" lead".to_owned()),
        Just("trail ".to_owned()), Just("line\nbreak".to_owned()), Just("tab\there".to_owned()),
        Just("C:\\Users\\me".to_owned()), Just("/path with spaces/é".to_owned()), Just("1:20".to_owned()),
        Just("2026-01-01".to_owned()), Just(".inf".to_owned()), Just("*alias".to_owned()),
        Just("&anchor".to_owned()), Just("!tag".to_owned()), Just("%percent".to_owned()),
        Just("@at".to_owned()), Just("`tick".to_owned()), Just("{a}".to_owned()), Just("[a]".to_owned()),
        Just("a,b".to_owned()), Just("?q".to_owned()), Just("|pipe".to_owned()), Just(">fold".to_owned()),
        Just("\u{0}nul".to_owned()), Just("\u{7f}del".to_owned()), Just("\u{feff}bom".to_owned()),
        Just("\u{2028}ls".to_owned()), Just("\u{85}nel".to_owned()),
    ]) {
        let record = AdoptionRecord::new(SID, &s, DateTime::from_timestamp_millis(0).unwrap(), Some(&s));
        let text = render_yaml(&record);
        let back = adoption_store::parse_yaml(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, record);
    }
}
