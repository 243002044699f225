//! Where things live: path encoding, session-id validation, the Claude home and Corral's data dir.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// Longest encoded folder name Claude Code writes before it appends a hash suffix.
pub const MAX_ENCODED_LEN: usize = 200;

/// Encodes a working directory the way Claude Code names its transcript folder: every UTF-16
/// code unit that is not an ASCII letter or digit becomes `-` (so an emoji, two units, becomes
/// `--`); a result longer than 200 units keeps its first 200 and gets `-` + a base-36 hash of
/// the original string (herdctl's `encodePathForCli`).
pub fn encode_path(path: &str) -> String {
    let units: Vec<u16> = path.encode_utf16().collect();
    let encoded: String = units
        .iter()
        .map(|&u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() => char::from(b),
            _ => '-',
        })
        .collect();
    if encoded.len() <= MAX_ENCODED_LEN {
        return encoded;
    }
    let mut h: i32 = 0;
    for &u in &units {
        h = h.wrapping_shl(5).wrapping_sub(h).wrapping_add(i32::from(u));
    }
    let prefix: String = encoded.chars().take(MAX_ENCODED_LEN).collect();
    format!("{prefix}-{}", to_base36(i64::from(h).unsigned_abs()))
}

fn to_base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS.get((n % 36) as usize).copied().unwrap_or(b'0'));
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The transcript folder of a working directory matches `folder` — exactly, or, for paths long
/// enough to carry a hash suffix, by the 200-unit prefix (the CLI and the SDK hash differently,
/// so Claude Code itself matches by prefix).
pub fn folder_is_for(folder: &str, working_directory: &str) -> bool {
    let encoded = encode_path(working_directory);
    if folder == encoded {
        return true;
    }
    if encoded.len() > MAX_ENCODED_LEN {
        let prefix: String = encoded.chars().take(MAX_ENCODED_LEN).collect();
        return folder.len() > MAX_ENCODED_LEN
            && folder.starts_with(&prefix)
            && folder.as_bytes().get(MAX_ENCODED_LEN) == Some(&b'-');
    }
    false
}

/// True when `folder` may hold transcripts of a descendant of `working_directory` (worktrees,
/// subfolders): compared on encoded prefixes, `encode(wd) + "-"`, so `/home/u/my-app` finds
/// `-home-u-my-app--claude-worktrees-x` (herdctl compares lossy decoded paths and misses it).
/// The encoding is lossy — `/home/u/proj` also prefixes `-home-u-proj-other` — so callers confirm
/// each session with the cwd its transcript records ([`cwd_is_within`]).
pub fn folder_is_descendant_of(folder: &str, working_directory: &str) -> bool {
    let encoded = encode_path(working_directory.trim_end_matches(['/', '\\']));
    folder.len() > encoded.len() + 1
        && folder.starts_with(&encoded)
        && folder.as_bytes().get(encoded.len()) == Some(&b'-')
}

/// True when `cwd` is `dir` or lies below it (component-wise, so `/a/proj-other` is not within
/// `/a/proj`).
pub fn cwd_is_within(cwd: &str, dir: &str) -> bool {
    Path::new(cwd).starts_with(Path::new(dir))
}

/// Session ids become file names; only `[A-Za-z0-9-]+` is accepted, before any path is built.
pub fn validate_session_id(id: &str) -> Result<&str> {
    if !id.is_empty()
        && id.len() <= 128
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        Ok(id)
    } else {
        Err(Error::InvalidSessionId(id.to_owned()))
    }
}

/// Temp directories (hidden from All Chats by default). Each prefix ends in a separator, so
/// `/tmpfoo` is not a temp directory.
pub fn is_temp_directory(path: &str) -> bool {
    let mut prefixes: Vec<String> =
        ["/tmp/", "/private/tmp/", "/var/folders/"].iter().map(|s| (*s).to_owned()).collect();
    let os_tmp = std::env::temp_dir();
    let os_tmp = os_tmp.to_string_lossy();
    let trimmed = os_tmp.trim_end_matches(['/', '\\']);
    if !trimmed.is_empty() {
        prefixes.push(format!("{trimmed}{}", std::path::MAIN_SEPARATOR));
    }
    let with_sep = format!("{path}/");
    prefixes.iter().any(|p| path.starts_with(p.as_str()) || with_sep == *p)
}

/// The lossy display decoding herdctl uses when a transcript records no cwd.
pub fn decode_path_for_display(encoded: &str) -> String {
    if let Some(rest) = encoded.strip_prefix('-') {
        return format!("/{}", rest.replace('-', "/"));
    }
    let mut chars = encoded.chars();
    if let (Some(drive), Some('-'), Some('-')) = (chars.next(), chars.next(), chars.next())
        && drive.is_ascii_alphabetic()
    {
        return format!("{drive}:\\{}", chars.as_str().replace('-', "\\"));
    }
    encoded.replace('-', "/")
}

/// Resolves the Claude home: an explicit value (flag or app setting), else `$CLAUDE_CONFIG_DIR`,
/// else `~/.claude`. `env` is passed in so callers and tests control it.
pub fn resolve_claude_home(
    explicit: Option<&Path>,
    claude_config_dir: Option<&Path>,
    home_dir: Option<&Path>,
) -> Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    if let Some(v) = claude_config_dir.filter(|v| !blank(v)) {
        return Ok(v.to_path_buf());
    }
    home_dir.map(|h| h.join(".claude")).ok_or_else(|| {
        Error::InvalidInput("cannot find the home folder to locate ~/.claude".into())
    })
}

/// Resolves Corral's own data dir: an explicit value, else `$CORRAL_DATA_DIR`, else
/// `<platform data dir>/corral`.
pub fn resolve_data_dir(
    explicit: Option<&Path>,
    corral_data_dir: Option<&Path>,
    platform_data_dir: Option<&Path>,
) -> Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    if let Some(v) = corral_data_dir.filter(|v| !blank(v)) {
        return Ok(v.to_path_buf());
    }
    platform_data_dir
        .map(|d| d.join("corral"))
        .ok_or_else(|| Error::InvalidInput("cannot find a data folder for Corral".into()))
}

/// The Claude home from the process environment (`CLAUDE_CONFIG_DIR`, then `~/.claude`).
pub fn claude_home_from_env(explicit: Option<&Path>) -> Result<PathBuf> {
    let var = std::env::var_os("CLAUDE_CONFIG_DIR").map(PathBuf::from);
    resolve_claude_home(explicit, var.as_deref(), dirs::home_dir().as_deref())
}

/// This process's home folder (`None` when it has none).
pub fn home_dir() -> Option<PathBuf> {
    dirs::home_dir()
}

/// The Claude home `claude` uses when `CLAUDE_CONFIG_DIR` is not set: `~/.claude` (from the
/// process's home folder; `None` when it has none).
pub fn default_claude_home() -> Option<PathBuf> {
    dirs::home_dir().map(|h| h.join(".claude"))
}

/// An environment value that names nothing (empty or only spaces).
fn blank(v: &Path) -> bool {
    v.as_os_str().to_string_lossy().trim().is_empty()
}

/// Corral's data dir from the process environment (`CORRAL_DATA_DIR`, then the platform dir).
pub fn data_dir_from_env(explicit: Option<&Path>) -> Result<PathBuf> {
    let var = std::env::var_os("CORRAL_DATA_DIR").map(PathBuf::from);
    resolve_data_dir(explicit, var.as_deref(), dirs::data_dir().as_deref())
}

/// Whether a working directory recorded in a transcript is absolute on the machine that wrote
/// it: `/…` (Unix), `C:\…` or `C:/…` (Windows), `\\server\…` (UNC). Claude Code records only
/// absolute ones; a relative one (`rel/dir`, `.`) would encode to a folder Claude never reads.
pub fn is_absolute_cwd(cwd: &str) -> bool {
    let b = cwd.as_bytes();
    match b {
        [b'/', ..] | [b'\\', b'\\', ..] => true,
        [drive, b':', b'\\' | b'/', ..] => drive.is_ascii_alphabetic(),
        _ => false,
    }
}

/// A working directory as Claude Code records it: no trailing separator (except a bare root).
pub fn cwd_text(wd: &Path) -> String {
    let s = wd.to_string_lossy();
    let t = s.trim_end_matches(['/', '\\']);
    if t.is_empty() { s.into_owned() } else { t.to_owned() }
}

/// `path` made absolute against the current folder and normalized lexically (no `.` or `..`
/// left); unchanged when the current folder cannot be read.
pub fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return normalize(path);
    }
    match std::env::current_dir() {
        Ok(cwd) => normalize(&cwd.join(path)),
        Err(_) => normalize(path),
    }
}

/// The desktop app's sidebar folder `<store>/<account>/<org>`, when it is the store's own: both
/// names uuid-shaped, both real folders (not links), and the folder's resolved path the store's
/// resolved path with the two names. The one check a restore makes before it writes and its
/// undo makes before it removes or puts back (a linked account or org folder would lead out of
/// the store). The error is a plain reason.
pub fn sidebar_folder(store: &Path, account: &str, org: &str) -> Result<PathBuf, String> {
    if !is_uuid(account) || !is_uuid(org) {
        return Err("an account and an org are uuid-shaped folder names".to_owned());
    }
    let folder = store.join(account).join(org);
    for level in [store.join(account), folder.clone()] {
        match std::fs::symlink_metadata(&level) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(format!(
                    "{} is a link; Corral writes no sidebar through a link",
                    level.display()
                ));
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(format!("{} is not a folder", level.display())),
            Err(e) => return Err(format!("there is no sidebar folder {}: {e}", level.display())),
        }
    }
    let real_store = std::fs::canonicalize(store)
        .map_err(|e| format!("cannot resolve the store {}: {e}", store.display()))?;
    match std::fs::canonicalize(&folder) {
        Ok(real) if real == real_store.join(account).join(org) => Ok(folder),
        Ok(real) => {
            Err(format!("{} leads to {}, outside the store", folder.display(), real.display()))
        }
        Err(e) => Err(format!("cannot resolve {}: {e}", folder.display())),
    }
}

/// Whether `s` is shaped like a uuid (`8-4-4-4-12` hex digits): only such folder names are
/// accounts and orgs of the desktop app's store Corral would ever write into.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Whether `name` is the file name of a sidebar entry of the desktop app's store
/// (`local_<id>.json`, one path component): the only files a restore writes or its undo removes.
pub fn is_sidebar_entry_name(name: &str) -> bool {
    name.len() <= 255
        && name.starts_with("local_")
        && name.ends_with(".json")
        && !name.contains(['/', '\\', '\0'])
        && !name.contains("..")
}

/// `<claude home>/projects`.
pub fn projects_dir(claude_home: &Path) -> PathBuf {
    claude_home.join("projects")
}

/// True when `inner` is `outer` or lies below it, after resolving what can be resolved
/// (used to refuse backup roots inside the stores they protect).
pub fn is_same_or_inside(inner: &Path, outer: &Path) -> bool {
    let canon = |p: &Path| -> PathBuf {
        // Resolve the longest existing ancestor, then re-append the rest.
        let mut existing = p.to_path_buf();
        let mut rest = Vec::new();
        while !existing.exists() {
            match (existing.file_name().map(std::ffi::OsStr::to_os_string), existing.parent()) {
                (Some(name), Some(parent)) => {
                    rest.push(name);
                    existing = parent.to_path_buf();
                }
                _ => break,
            }
        }
        let mut base = std::fs::canonicalize(&existing).unwrap_or(existing);
        for name in rest.into_iter().rev() {
            base.push(name);
        }
        base
    };
    canon(inner).starts_with(canon(outer))
}

/// Removes `.` and resolves `..` lexically, like Node's `path.resolve`.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
/// How deep below `<sid>/` a companion file may lie.
pub const MAX_COMPANION_DEPTH: usize = 4;

/// For a companion path `<folder>/<sid>/<rel>`: the session's transcript `<folder>/<sid>.jsonl`.
/// `None` unless every part of the path is a plain name and `<rel>` is 1 to
/// `MAX_COMPANION_DEPTH` parts deep.
pub fn companion_session_file(path: &Path, sid: &str) -> Option<PathBuf> {
    use std::path::Component;
    if path.components().any(|c| matches!(c, Component::ParentDir | Component::CurDir)) {
        return None;
    }
    let sid_dir = path.ancestors().skip(1).find(|a| a.file_name().is_some_and(|n| n == sid))?;
    let depth = path.strip_prefix(sid_dir).ok()?.components().count();
    if !(1..=MAX_COMPANION_DEPTH).contains(&depth) {
        return None;
    }
    Some(sid_dir.parent()?.join(format!("{sid}.jsonl")))
}
