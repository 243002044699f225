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
        ["Settings.ts", "SessionInfo.ts", "Listing.ts", "ErrorPayload.ts", "SessionsChanged.ts"]
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
}

/// `TS_RS_EXPORT_DIR=$PWD/ui/src/lib/bindings cargo test -p corral export_bindings` writes the
/// bindings there (the command notes/ipc.md gives); without the variable it checks the export.
#[test]
fn export_bindings() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::env::var_os("TS_RS_EXPORT_DIR")
        .map_or_else(|| tmp.path().to_path_buf(), PathBuf::from);
    crate::bindings::export_all(&dir).unwrap();
    let files = read_ts_files(&dir);
    for shell_type in ["Settings.ts", "SessionInfo.ts", "SessionsChanged.ts", "FilesDropped.ts"] {
        assert!(files.contains_key(shell_type), "{shell_type} missing in {}", dir.display());
    }
}
