//! The committed TypeScript bindings must match the Rust types byte for byte.
//! Regenerate with `UPDATE_BINDINGS=1 cargo test -p corral bindings` (or `make bindings`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn committed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/lib/bindings")
}

fn read_ts_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".ts") {
            out.insert(name, std::fs::read(entry.path()).unwrap());
        }
    }
    out
}

#[test]
fn committed_bindings_match_the_rust_types() {
    let tmp = tempfile::tempdir().unwrap();
    crate::bindings::export_all(tmp.path()).unwrap();
    let fresh = read_ts_files(tmp.path());
    for expected in
        ["Settings.ts", "SessionDetails.ts", "Listing.ts", "ErrorPayload.ts", "SessionsChanged.ts"]
    {
        assert!(fresh.contains_key(expected), "{expected} was not generated");
    }
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        crate::bindings::export_all(&committed_dir()).unwrap();
        return;
    }
    let committed = read_ts_files(&committed_dir());
    let stale: Vec<&String> = fresh
        .iter()
        .filter(|(name, bytes)| committed.get(*name) != Some(*bytes))
        .map(|(name, _)| name)
        .collect();
    assert!(
        stale.is_empty(),
        "ui/src/lib/bindings is out of date for {stale:?}; run `make bindings` and commit the result"
    );
    let orphans: Vec<&String> = committed.keys().filter(|n| !fresh.contains_key(*n)).collect();
    assert!(orphans.is_empty(), "ui/src/lib/bindings has files no Rust type makes: {orphans:?}");
}

/// Every shell type is exported, into a temp dir (only `make bindings` writes the committed
/// folder; no type carries `#[ts(export)]`, so no other test can rewrite it before the drift check
/// above reads it).
#[test]
fn export_bindings() {
    let tmp = tempfile::tempdir().unwrap();
    crate::bindings::export_all(tmp.path()).unwrap();
    let files = read_ts_files(tmp.path());
    for shell_type in ["Settings.ts", "SessionsChanged.ts", "FilesDropped.ts"] {
        assert!(files.contains_key(shell_type), "{shell_type} missing in {}", tmp.path().display());
    }
}

/// The IPC surface is declared once (`crate::ipc`): every declared command is registered, and an
/// argument of the wrong shape is refused as `invalid-input` naming the argument, never a bare
/// string.
#[test]
fn every_declared_command_is_registered_and_checks_its_arguments() {
    let h = super::support::harness(true);
    let cfg = ts_rs::Config::new();
    let declared = crate::ipc::declared(&cfg, &mut std::collections::BTreeSet::new());
    assert!(declared.len() > 30, "{declared:?}");
    let required = |c: &&crate::ipc::Declared| c.args.iter().any(|(_, ts)| !ts.ends_with("| null"));
    for command in declared.iter().filter(required) {
        let err = h.invoke(command.name, serde_json::json!({})).expect_err(command.name);
        assert_eq!(err["kind"], "invalid-input", "{}: {err}", command.name);
    }
    let err = h
        .invoke(
            "session_messages",
            serde_json::json!({"sessionId": "x", "before": null, "limit": "ten"}),
        )
        .unwrap_err();
    assert_eq!(err["kind"], "invalid-input", "{err}");
    assert!(err["message"].as_str().unwrap().contains("`limit`"), "{err}");
    let unknown = h.invoke("no_such_command", serde_json::json!({})).unwrap_err();
    assert!(unknown.is_string(), "an unregistered name is Tauri's own refusal: {unknown}");
}
