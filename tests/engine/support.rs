//! Shared test helpers: fixture copies in temp dirs, the shared corpus location.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `fixtures/<name>` in the repository.
pub fn fixture(name: &str) -> PathBuf {
    repo_root().join("fixtures").join(name)
}

/// `../shared/corpus`, or `None` (with a printed notice) when it is absent.
pub fn corpus() -> Option<PathBuf> {
    let p = repo_root().join("../shared/corpus");
    if p.is_dir() {
        Some(p)
    } else {
        println!("notice: ../shared/corpus is absent; corpus tests skipped");
        None
    }
}

/// Copies a directory tree (files, folders and symlinks) into `dst`.
pub fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let ty = entry.file_type().unwrap();
        let to = dst.join(entry.file_name());
        if ty.is_dir() {
            copy_tree(&entry.path(), &to);
        } else if ty.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

/// A temp dir holding a copy of `fixtures/<name>`.
pub fn fixture_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join(name);
    copy_tree(&fixture(name), &dst);
    (tmp, dst)
}

/// A map of every file below `root` (relative path → content hash + symlink target), for
/// "nothing changed" assertions. Directories are included (as empty entries).
pub fn hash_tree(root: &Path) -> std::collections::BTreeMap<PathBuf, String> {
    use std::hash::{Hash, Hasher};
    let mut out = std::collections::BTreeMap::new();
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<PathBuf, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            let ty = e.file_type().unwrap();
            if ty.is_symlink() {
                out.insert(rel, format!("link:{}", std::fs::read_link(&p).unwrap().display()));
            } else if ty.is_dir() {
                out.insert(rel, "dir".into());
                walk(root, &p, out);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                let mut h = std::collections::hash_map::DefaultHasher::new();
                bytes.hash(&mut h);
                out.insert(rel, format!("{}:{:x}", bytes.len(), h.finish()));
            }
        }
    }
    walk(root, root, &mut out);
    out
}

/// Every session of a full listing (temp folders included when asked), by session id.
pub fn sessions_by_id(
    c: &corral_engine::Catalog,
    include_temp: bool,
) -> std::collections::BTreeMap<String, corral_engine::model::SessionSummary> {
    c.all_sessions(corral_engine::ListOptions { limit: None, include_temp })
        .unwrap()
        .groups
        .into_iter()
        .flat_map(|g| g.sessions)
        .map(|s| (s.session_id.clone(), s))
        .collect()
}

/// Runs `f` on its own thread and fails the test (instead of hanging the suite) when it does not
/// finish within `secs`.
pub fn within<T: Send + 'static>(
    secs: u64,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("{what} did not finish within {secs} s (it hangs)"))
}

/// A `claude` process as the occupancy guard sees it: `claude ARGS…` running in `cwd` (`None`:
/// its folder cannot be read).
pub fn claude_process(
    pid: u32,
    cwd: Option<&Path>,
    args: &[&str],
) -> corral_engine::occupancy::ProcessInfo {
    let mut cmd = vec!["claude".to_owned()];
    cmd.extend(args.iter().map(|a| (*a).to_owned()));
    corral_engine::occupancy::ProcessInfo {
        pid,
        name: "claude".into(),
        cmd,
        cwd: cwd.map(Path::to_path_buf),
        exe: None,
        exited: false,
        parent: None,
    }
}

/// Writes an executable script at `path` (Unix). Then waits a moment: a process another test's
/// thread forks while the file is open for writing holds that descriptor until it execs, and
/// running the script before then fails with "Text file busy".
#[cfg(unix)]
pub fn write_program(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
}
