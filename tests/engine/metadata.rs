//! The herdctl-compatible session metadata store (herdctl `state/session-metadata.ts`).

use std::path::Path;

use corral_engine::Error;
use corral_engine::metadata::{ADHOC, MetadataStore, validate_agent_key};
use serde_json::{Value, json};

use crate::support::fixture_copy;

const SID_A: &str = "11111111-1111-4111-8111-111111111111";
const SID_B: &str = "22222222-2222-4222-8222-222222222222";

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn no_temp_files(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with('.'), "temp file left behind: {name}");
    }
}

#[test]
fn storage_is_sparse_and_the_first_write_creates_herdctls_exact_shape() {
    let tmp = tempfile::tempdir().unwrap();
    let store = MetadataStore::new(tmp.path());
    // Clearing a name that was never set creates nothing.
    store.set_custom_name("alpha", SID_A, None).unwrap();
    assert!(!tmp.path().join("session-metadata").exists());
    assert!(store.custom_names().is_empty());

    store.set_custom_name("fleetb.beta", SID_A, Some("Rate limiter")).unwrap();
    let path = tmp.path().join("session-metadata/fleetb.beta.json");
    let text = std::fs::read_to_string(&path).unwrap();
    // JSON.stringify(data, null, 2) + "\n"
    assert_eq!(
        text,
        format!(
            "{{\n  \"version\": 1,\n  \"agentName\": \"fleetb.beta\",\n  \"sessions\": {{\n    \"{SID_A}\": {{\n      \"customName\": \"Rate limiter\"\n    }}\n  }}\n}}\n"
        )
    );
    assert_eq!(store.custom_name("fleetb.beta", SID_A).unwrap().as_deref(), Some("Rate limiter"));
    no_temp_files(&tmp.path().join("session-metadata"));
}

#[test]
fn clearing_removes_the_key_then_the_empty_entry_but_keeps_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let store = MetadataStore::new(tmp.path());
    let path = tmp.path().join("session-metadata/adhoc.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&json!({"version":1,"agentName":"adhoc","sessions":{
            SID_A: {"customName":"x","autoName":"Auto","autoNameMtime":"2026-05-10T12:00:00.000Z"},
            SID_B: {"customName":"y"}
        }}))
        .unwrap(),
    )
    .unwrap();
    store.set_custom_name(ADHOC, SID_A, None).unwrap();
    store.set_custom_name(ADHOC, SID_B, Some("")).unwrap(); // empty means clear
    let doc = read_json(&path);
    assert_eq!(
        doc["sessions"][SID_A],
        json!({"autoName":"Auto","autoNameMtime":"2026-05-10T12:00:00.000Z"})
    );
    assert!(doc["sessions"].get(SID_B).is_none(), "an emptied entry is deleted");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["agentName"], "adhoc");

    store.set_custom_name(ADHOC, SID_A, Some("back")).unwrap();
    store.set_custom_name(ADHOC, SID_A, None).unwrap();
    let doc = read_json(&path);
    assert!(path.exists(), "the file is kept even when it holds no custom names");
    assert!(doc["sessions"].get(SID_A).is_some(), "the auto name stays");
}

#[test]
fn unknown_fields_and_herdctls_cached_fields_survive_a_corral_write() {
    let (_tmp, root) = fixture_copy("fleets/basic");
    let state = root.join(".herdctl");
    let path = state.join("session-metadata/alpha.json");
    let mut doc = read_json(&path);
    doc.as_object_mut().unwrap().insert("futureTopLevel".to_owned(), json!({"keep": [1, 2]}));
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();

    let store = MetadataStore::new(&state);
    let sid = "9cb9742c-ae49-4af3-b522-a83f27eb2c83";
    store.set_custom_name("alpha", sid, Some("Web chat about caching")).unwrap();

    let after = read_json(&path);
    let mut expected = doc.clone();
    expected["sessions"][sid]["customName"] = json!("Web chat about caching");
    assert_eq!(after, expected, "only customName changed");
    assert_eq!(after["sessions"][sid]["pinned"], true, "unknown entry field kept");
    assert_eq!(after["futureTopLevel"], json!({"keep": [1, 2]}));
    let usage = &after["sessions"]["3fd30c78-f4ca-4868-ad82-6147611c95d6"]["usage"];
    assert_eq!(usage, &json!({"inputTokens":6200,"turnCount":3,"hasData":true}));

    // herdctl's key order: version, agentName, sessions; customName first in an entry.
    let text = std::fs::read_to_string(&path).unwrap();
    let v = text.find("\"version\"").unwrap();
    let a = text.find("\"agentName\"").unwrap();
    let s = text.find("\"sessions\"").unwrap();
    assert!(v < a && a < s, "{text}");
    assert!(text.ends_with("}\n"));
}

#[test]
fn fixture_files_read_with_herdctls_cached_fields() {
    let (_tmp, root) = fixture_copy("fleets/basic");
    let store = MetadataStore::new(&root.join(".herdctl"));
    let (all, warnings) = store.read_all();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        all.keys().map(String::as_str).collect::<Vec<_>>(),
        ["adhoc", "alpha", "team.gamma"]
    );

    let entry = store.auto_name("alpha", "3fd30c78-f4ca-4868-ad82-6147611c95d6").unwrap().unwrap();
    assert_eq!(entry.auto_name.as_deref(), Some("Review open pull requests"));
    assert_eq!(entry.auto_name_version, Some(2.0));
    assert_eq!(entry.is_sidechain, Some(false));
    assert_eq!(entry.usage.as_ref().unwrap().input_tokens, 6200.0);
    // A negative cache entry: mtime, no value.
    let neg = store.auto_name("alpha", "9cb9742c-ae49-4af3-b522-a83f27eb2c83").unwrap().unwrap();
    assert_eq!((neg.auto_name, neg.auto_name_mtime.is_some()), (None, true));
    // A legacy entry without autoNameVersion.
    let legacy = store.auto_name(ADHOC, "0ba943f1-1f3d-42bf-a3c2-f6965fc55515").unwrap().unwrap();
    assert_eq!(legacy.auto_name_version, None);

    let names = store.custom_names();
    assert_eq!(names["alpha"]["5b5048fa-8909-4b48-bea1-64a8fa71856f"], "Token bucket rate limiter");
    assert_eq!(
        names["alpha"]["4e0c277a-b677-490d-b39c-8dad586a791e"],
        "Scratch experiments (adopted)"
    );
    assert_eq!(names[ADHOC]["0ba943f1-1f3d-42bf-a3c2-f6965fc55515"], "Terminal: flaky test hunt");
    assert_eq!(
        names["team.gamma"]["1e9cb238-1cc7-4eb7-9ec2-4bc5ed91f579"],
        "Gamma: migrate CI to arm64"
    );
    assert_eq!(names.values().map(std::collections::HashMap::len).sum::<usize>(), 4);
}

/// herdctl #419: a metadata file that cannot be read or parsed is never overwritten. Every write
/// is refused with `Unreadable`, the bytes stay identical, no temp file is left, reads degrade to
/// "skip it with a warning", and other files keep working. Clearing a name is refused too: herdctl's
/// `removeCustomName` silently does nothing on an unreadable file, so the caller believes the name
/// is gone while it is still on disk.
#[test]
fn refusal_matrix_leaves_corrupt_files_byte_identical() {
    let cases: [(&str, &[u8]); 8] = [
        ("malformed-json", b"{\"version\": 1, \"agentName\": \"x\", \"sessions\": {"),
        ("unknown-version", b"{\"version\": 2, \"agentName\": \"x\", \"sessions\": {}}"),
        ("bad-entry", b"{\"version\": 1, \"agentName\": \"x\", \"sessions\": {\"s\": {\"customName\": 42}}}"),
        ("entry-not-object", b"{\"version\": 1, \"agentName\": \"x\", \"sessions\": {\"s\": \"name\"}}"),
        ("no-sessions", b"{\"version\": 1, \"agentName\": \"x\"}"),
        ("top-level-array", b"[1, 2, 3]"),
        ("bad-usage", b"{\"version\": 1, \"agentName\": \"x\", \"sessions\": {\"s\": {\"usage\": {\"inputTokens\": \"many\"}}}}"),
        ("not-utf8", b"\xff\xfe{}"),
    ];
    for (key, bytes) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let store = MetadataStore::new(tmp.path());
        let dir = tmp.path().join("session-metadata");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{key}.json"));
        std::fs::write(&path, bytes).unwrap();
        store.set_custom_name("healthy", SID_B, Some("fine")).unwrap();

        for name in [Some("new name"), None] {
            let err = store.set_custom_name(key, SID_A, name).unwrap_err();
            assert!(matches!(err, Error::Unreadable { .. }), "{key}: {err:?}");
            assert_eq!(err.kind(), corral_engine::ErrorKind::Corrupt);
            assert_eq!(std::fs::read(&path).unwrap(), bytes, "{key}: bytes changed");
        }
        no_temp_files(&dir);

        assert!(matches!(store.load(key), Err(Error::Unreadable { .. })), "{key}");
        let (meta, warning) = store.read_agent(key);
        assert!(meta.is_none() && warning.is_some(), "{key}");
        let (names, warnings) = store.custom_names_with_warnings();
        assert_eq!(names.len(), 1, "{key}: the healthy file still reads");
        assert_eq!(names["healthy"][SID_B], "fine");
        assert_eq!(warnings.len(), 1, "{key}: {warnings:?}");
        assert!(warnings[0].path.ends_with(&format!("{key}.json")));

        // A transient failure is not sticky: once the file is fixed, writes work again.
        std::fs::write(&path, b"{\"version\":1,\"agentName\":\"x\",\"sessions\":{}}").unwrap();
        store.set_custom_name(key, SID_A, Some("recovered")).unwrap();
        assert_eq!(store.custom_name(key, SID_A).unwrap().as_deref(), Some("recovered"));
    }
}

/// herdctl #419 (EISDIR case): a folder named `x.json`.
#[test]
fn a_folder_named_like_a_metadata_file_is_refused_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let store = MetadataStore::new(tmp.path());
    let dir = tmp.path().join("session-metadata/alpha.json");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("inside.txt"), "keep me").unwrap();
    let err = store.set_custom_name("alpha", SID_A, Some("x")).unwrap_err();
    assert!(matches!(err, Error::Unreadable { .. }), "{err:?}");
    assert!(dir.is_dir());
    assert_eq!(std::fs::read_to_string(dir.join("inside.txt")).unwrap(), "keep me");
    let (names, warnings) = store.custom_names_with_warnings();
    assert!(names.is_empty());
    assert_eq!(warnings.len(), 1);
}

#[test]
fn hostile_keys_and_session_ids_are_refused_before_any_io() {
    let tmp = tempfile::tempdir().unwrap();
    let store = MetadataStore::new(tmp.path());
    for key in ["../escape", "a/b", "a\\b", ".hidden", "..", "", "a..b"] {
        let err = store.set_custom_name(key, SID_A, Some("x")).unwrap_err();
        assert_eq!(err.kind(), corral_engine::ErrorKind::InvalidInput, "{key:?}");
        assert!(validate_agent_key(key).is_err());
    }
    for sid in ["../x", "a/b", "", "a.b"] {
        let err = store.set_custom_name("alpha", sid, Some("x")).unwrap_err();
        assert!(matches!(err, Error::InvalidSessionId(_)), "{sid:?}");
    }
    assert!(std::fs::read_dir(tmp.path()).unwrap().next().is_none(), "nothing was created");
}

#[test]
fn names_with_quotes_and_unicode_round_trip() {
    let tmp = tempfile::tempdir().unwrap();
    let store = MetadataStore::new(tmp.path());
    let name = "Fix \"quotes\", back\\slash, tab\t, newline\n and émoji 🦀";
    store.set_custom_name("alpha", SID_A, Some(name)).unwrap();
    assert_eq!(store.custom_name("alpha", SID_A).unwrap().as_deref(), Some(name));
    // Setting the same name again does not rewrite the file.
    let path = tmp.path().join("session-metadata/alpha.json");
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    store.set_custom_name("alpha", SID_A, Some(name)).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), before);
}

/// herdctl builds the metadata path as `join(dir, agentName + ".json")` without
/// `buildSafeFilePath`, so an agent key like `../../x` would write outside the folder. Corral
/// validates keys; a dotted qualified name is still fine.
#[test]
fn metadata_keys_cannot_escape_but_dotted_names_work() {
    let tmp = tempfile::tempdir().unwrap();
    let store = MetadataStore::new(&tmp.path().join("state"));
    assert!(store.set_custom_name("../../outside", SID_A, Some("x")).is_err());
    assert!(!tmp.path().join("outside.json").exists());
    store.set_custom_name("fleetb.beta", SID_A, Some("x")).unwrap();
    assert!(tmp.path().join("state/session-metadata/fleetb.beta.json").is_file());
    assert_eq!(
        store.file_path("fleetb.beta").unwrap(),
        tmp.path().join("state/session-metadata/fleetb.beta.json")
    );
}

/// Renames from many threads (the app renames off the main thread, several at once) all land:
/// no read-modify-write loses another's name.
#[test]
fn concurrent_renames_in_one_file_all_land() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().to_path_buf();
    let threads: Vec<_> = (0..8u32)
        .map(|t| {
            let state = state.clone();
            std::thread::spawn(move || {
                let store = MetadataStore::new(&state);
                for i in 0..25u32 {
                    let sid = format!("{t:08x}-0000-4000-8000-{i:012x}");
                    store.set_custom_name("alpha", &sid, Some(&format!("name {t}/{i}"))).unwrap();
                }
            })
        })
        .collect();
    for h in threads {
        h.join().unwrap();
    }
    let names = MetadataStore::new(&state).custom_names();
    let alpha = &names["alpha"];
    assert_eq!(alpha.len(), 200, "lost updates: only {} of 200 names", alpha.len());
    assert_eq!(alpha["00000007-0000-4000-8000-000000000018"], "name 7/24");
}
