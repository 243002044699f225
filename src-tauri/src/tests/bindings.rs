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

/// The IPC surface is declared once on the UI side (`ui/src/lib/commands.ts`, which api.ts, the
/// demo backend and the compiler hold to): its command names must be exactly the ones the shell
/// registers in `generate_handler!`.
#[test]
fn commands_ts_lists_every_registered_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let list = lib.split("generate_handler![").nth(1).and_then(|s| s.split(']').next()).unwrap();
    let registered: std::collections::BTreeSet<String> = list
        .split(',')
        .filter_map(|s| s.trim().strip_prefix("commands::").map(str::to_owned))
        .collect();
    assert!(registered.len() > 10, "{registered:?}");
    let ts = std::fs::read_to_string(committed_dir().join("../commands.ts")).unwrap();
    let body = ts.split("export interface Commands {").nth(1).and_then(|s| s.split("\n}").next());
    let declared: std::collections::BTreeSet<String> = body
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.trim().split_once(':').map(|(name, _)| name.to_owned()))
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        .collect();
    assert_eq!(declared, registered, "ui/src/lib/commands.ts and the shell's commands differ");
}
