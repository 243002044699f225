//! Claude Code's own records of a session's title, written so that a name set in Corral is the
//! title `claude --resume` shows.
//!
//! What the client reads and writes was observed with the real client (2.1.332, `make
//! conformance`): `/rename NAME` appends `{"type":"custom-title","customTitle":NAME,"sessionId":…}`
//! (and an `agent-name` line) to the transcript and writes `<sid>/custom-title.json`
//! (`{"customTitle","by","at"}`, mode 0600, its folder 0700). The resume picker takes the title
//! from the last `custom-title` line it reads; an appended line with an empty `customTitle` brings
//! the automatic title back; the sidecar does not change what the picker shows. A running
//! `claude` re-appends the title it finds at the end of its transcript when it exits, so a line
//! appended while it runs survives. The official Agent SDK's rename appends the same one line.
//!
//! **The only change Corral ever makes to a transcript is this: one whole line appended** — a
//! single `write` at the end of the file (`O_APPEND`), and only after a complete line: when the
//! file does not end in a newline another process is mid-line, so the append waits briefly for it
//! and is refused if the line stays incomplete. Never a rewrite, a truncation or a reordering. A
//! link, a FIFO or anything but a regular file is refused. Should the one `write` be cut short
//! (a full disk), the cut bytes are taken off again — but only while the file still ends exactly
//! in them (nobody has appended since), so no other writer's line is ever cut; otherwise a newline
//! ends the cut line, so it is a damaged line every reader skips rather than the start of the
//! next writer's.
//!
//! **What the picker shows** ([`picker_title`]), read from the client's code (2.1.332) and held
//! to it by `make conformance`: the picker reads the last 64 KiB of a transcript, and its custom
//! title is the last `custom-title` there; when there is none, the sidecar's `customTitle`. A
//! title line only in the first 64 KiB is not shown (observed). So a name whose line a long
//! continuation pushed out of the tail window stays visible through the sidecar, which a rename
//! therefore always writes.

use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

use crate::error::{Error, Result};

/// The sidecar file Claude Code keeps in `<folder>/<session id>/`.
pub const SIDECAR: &str = "custom-title.json";

/// How long an append waits for another writer to finish its line.
pub const MID_LINE_WAIT: Duration = Duration::from_secs(2);

/// How much of a transcript's end the resume picker reads for its title.
pub const PICKER_WINDOW: u64 = 64 * 1024;

/// Largest sidecar read (and backed up).
pub const MAX_SIDECAR_BYTES: u64 = 64 * 1024;

/// One line Corral appended to a transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Appended {
    /// The transcript.
    pub path: PathBuf,
    /// Where the line starts in the file.
    pub offset: u64,
    /// Its length, newline included.
    pub bytes: u64,
    /// The SHA-256 of the line, in hex.
    pub sha256: String,
}

/// The `custom-title` line Claude Code writes for `title` (an empty title clears the name), in
/// the client's own key order, newline-terminated.
pub fn custom_title_line(session_id: &str, title: &str) -> String {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Line<'a> {
        #[serde(rename = "type")]
        ty: &'a str,
        custom_title: &'a str,
        session_id: &'a str,
    }
    let line = Line { ty: "custom-title", custom_title: title, session_id };
    // Serializing three strings cannot fail.
    let mut out = serde_json::to_string(&line).unwrap_or_default();
    out.push('\n');
    out
}

/// Appends one complete line (`line` ends in its only newline) to the transcript at `path`,
/// waiting up to `wait` for a line another process is writing to be finished.
pub fn append_line(path: &Path, line: &str, wait: Duration) -> Result<Appended> {
    if !line.ends_with('\n') || line.matches('\n').count() != 1 {
        return Err(Error::InvalidInput("a transcript record is one line".into()));
    }
    let mut file = crate::files::open_regular_for_append(path)
        .map_err(|e| Error::io_at("open the transcript to append to", path, e))?;
    let started = Instant::now();
    loop {
        let len = file.metadata().map_err(|e| Error::io_at("read", path, e))?.len();
        if len == 0 || last_byte(&file, len).map_err(|e| Error::io_at("read", path, e))? == b'\n' {
            break;
        }
        if started.elapsed() >= wait {
            return Err(Error::Refused(format!(
                "{} is being written (its last line is not complete yet); try again in a moment",
                path.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let bytes = line.as_bytes();
    crate::fault::fault_point("title.append");
    let start = file.metadata().map_err(|e| Error::io_at("read", path, e))?.len();
    let written = match file.write(bytes) {
        Ok(n) => n,
        Err(e) => {
            // Some systems report a cut-short write as an error after writing part of it.
            if !take_back_cut_line(&file, start, bytes) {
                let _ = file.write(b"\n");
            }
            return Err(Error::io_at("append to", path, e));
        }
    };
    if written != bytes.len() {
        // Cut short (a full disk): the cut bytes come off again while nobody has appended after
        // them; otherwise the cut line is ended, so that it stays a damaged line of its own
        // rather than the start of the next writer's.
        if !take_back_cut_line(&file, start, bytes) {
            let _ = file.write(b"\n");
        }
        return Err(Error::io_at(
            "append to",
            path,
            std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                format!(
                    "only {written} of {} bytes could be written (is the disk full?); the \
                     transcript was left as it was",
                    bytes.len()
                ),
            ),
        ));
    }
    file.sync_data().map_err(|e| Error::io_at("sync", path, e))?;
    crate::fault::fault_point("title.appended");
    let end = file.stream_position().map_err(|e| Error::io_at("read", path, e))?;
    Ok(Appended {
        path: path.to_path_buf(),
        offset: end.saturating_sub(bytes.len() as u64),
        bytes: bytes.len() as u64,
        sha256: crate::files::sha256_hex(bytes),
    })
}

/// Takes the start of `line`, which this process could not finish, back off the end of `file`
/// (`start` bytes long before the write) — only when the file ends exactly in a start of `line`:
/// a line another writer appended after it is never cut. True when the file is as it was.
fn take_back_cut_line(file: &std::fs::File, start: u64, line: &[u8]) -> bool {
    let Ok(len) = file.metadata().map(|m| m.len()) else { return false };
    if len == start {
        return true;
    }
    let Some(cut) = len.checked_sub(start).filter(|&n| n <= line.len() as u64) else {
        return false;
    };
    let mut tail = vec![0u8; usize::try_from(cut).unwrap_or(0)];
    read_at(file, &mut tail, start).is_ok()
        && line.starts_with(&tail)
        && file.set_len(start).is_ok()
}

fn last_byte(file: &std::fs::File, len: u64) -> std::io::Result<u8> {
    let mut b = [0u8; 1];
    read_at(file, &mut b, len - 1)?;
    Ok(b[0])
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &std::fs::File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    let n = std::os::windows::fs::FileExt::seek_read(file, buf, offset)?;
    if n == buf.len() { Ok(()) } else { Err(std::io::ErrorKind::UnexpectedEof.into()) }
}

/// The custom title `claude --resume`'s picker shows for the session (`None`: no custom title,
/// so the automatic one): the last `custom-title` in the last [`PICKER_WINDOW`] bytes (an empty
/// one clears), else the sidecar's non-empty `customTitle`.
pub fn picker_title(transcript: &Path, session_id: &str) -> std::io::Result<Option<String>> {
    let file = crate::files::open_regular_no_follow(transcript)?;
    let len = file.metadata()?.len();
    let tail_start = len.saturating_sub(PICKER_WINDOW);
    if let Some(title) = last_title_in(&file, tail_start, len)? {
        return Ok(Some(title).filter(|t| !t.trim().is_empty()));
    }
    Ok(sidecar_title(transcript, session_id))
}

/// The `customTitle` of the last `custom-title` line wholly inside `[from, to)` of `file` (a
/// line cut by the window's start is not counted).
fn last_title_in(file: &std::fs::File, from: u64, to: u64) -> std::io::Result<Option<String>> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct TitleLine {
        #[serde(rename = "type")]
        ty: Option<String>,
        custom_title: Option<String>,
    }
    let mut window = vec![0u8; usize::try_from(to.saturating_sub(from)).unwrap_or(0)];
    read_at(file, &mut window, from)?;
    let mut lines = window.split(|&b| b == b'\n');
    if from > 0 {
        lines.next(); // the window starts inside a line
    }
    let mut found = None;
    let mut scratch = Vec::new();
    for line in lines {
        if !crate::jsonl::has_type_in(line, &["custom-title"]) {
            continue;
        }
        if let crate::jsonl::Parsed::Value(l) =
            crate::jsonl::parse_line_with::<TitleLine>(line, &mut scratch)
            && l.ty.as_deref() == Some("custom-title")
            && let Some(t) = l.custom_title
        {
            found = Some(t);
        }
    }
    Ok(found)
}

/// The sidecar's fields, when it is there and readable.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sidecar {
    custom_title: Option<String>,
    at: Option<String>,
}

fn read_sidecar(transcript: &Path, session_id: &str) -> Option<Sidecar> {
    let path = sidecar_path(transcript, session_id)?;
    let bytes = crate::files::read_bounded_no_follow(&path, MAX_SIDECAR_BYTES).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The sidecar's `customTitle`, trimmed, when it is readable and not empty.
pub fn sidecar_title(transcript: &Path, session_id: &str) -> Option<String> {
    let title = read_sidecar(transcript, session_id)?.custom_title?;
    Some(title.trim().to_owned()).filter(|t| !t.is_empty())
}

/// Whether the sidecar of the session says `title` was set after `time` (false when it is
/// absent, unreadable, names another title or records no time).
pub fn title_set_after(transcript: &Path, session_id: &str, title: &str, time: SystemTime) -> bool {
    let Some(s) = read_sidecar(transcript, session_id) else { return false };
    let at = s.at.as_deref().and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok());
    s.custom_title.as_deref() == Some(title)
        && at.is_some_and(|at| SystemTime::from(at.to_utc()) > time)
}

/// Where Claude Code keeps the sidecar of the session whose transcript is `transcript`.
pub fn sidecar_path(transcript: &Path, session_id: &str) -> Option<PathBuf> {
    Some(transcript.parent()?.join(session_id).join(SIDECAR))
}

/// The sidecar's content for `title` set at `at` (ISO-8601), as Claude Code writes it.
pub fn sidecar_bytes(title: &str, at: &str) -> Vec<u8> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Sidecar<'a> {
        custom_title: &'a str,
        by: &'a str,
        at: &'a str,
    }
    serde_json::to_vec(&Sidecar { custom_title: title, by: "user", at }).unwrap_or_default()
}

/// Writes the sidecar atomically with Claude Code's modes (file 0600, a new folder 0700).
pub fn write_sidecar(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent()
        && !dir.exists()
    {
        let mut b = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
        b.create(dir).map_err(|e| Error::io_at("create folder", dir, e))?;
    }
    crate::atomic_write::write_atomic_private(path, bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_line_is_claude_code_s_own_shape_with_any_name_escaped() {
        assert_eq!(
            custom_title_line("s1", "Plan — \"v2\"\n\u{202e}"),
            "{\"type\":\"custom-title\",\"customTitle\":\"Plan — \\\"v2\\\"\\n\u{202e}\",\"sessionId\":\"s1\"}\n"
        );
        assert_eq!(
            sidecar_bytes("T", "2026-12-06T09:00:00.000Z"),
            br#"{"customTitle":"T","by":"user","at":"2026-12-06T09:00:00.000Z"}"#
        );
    }

    #[test]
    fn an_append_is_one_whole_line_after_a_complete_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, "{\"type\":\"user\"}\n").unwrap();
        let line = custom_title_line("s", "N");
        let a = append_line(&p, &line, Duration::ZERO).unwrap();
        assert_eq!((a.offset, a.bytes), (16, line.len() as u64));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), format!("{{\"type\":\"user\"}}\n{line}"));
        assert!(append_line(&p, "two\nlines\n", Duration::ZERO).is_err());
        assert!(append_line(&p, "no newline", Duration::ZERO).is_err());
    }

    #[test]
    fn a_line_another_writer_has_not_finished_is_waited_for_then_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, "{\"type\":\"user\"}\n{\"type\":\"assi").unwrap();
        let before = std::fs::read(&p).unwrap();
        let e = append_line(&p, "{}\n", Duration::from_millis(120)).unwrap_err();
        assert!(matches!(e, Error::Refused(_)), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), before, "nothing written");
        // The writer finishes its line while the append waits: the append follows it.
        let writer = {
            let p = p.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(150));
                let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
                f.write_all(b"stant\"}\n").unwrap();
            })
        };
        let a = append_line(&p, "{}\n", Duration::from_secs(5)).unwrap();
        writer.join().unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.ends_with("{\"type\":\"assistant\"}\n{}\n"), "{text}");
        assert_eq!(a.offset as usize, text.len() - 3);
    }

    #[cfg(unix)]
    #[test]
    fn links_fifos_and_read_only_files_are_refused_and_left_as_they_were() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.jsonl");
        std::fs::write(&real, "{}\n").unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let fifo = dir.path().join("fifo.jsonl");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let ro = dir.path().join("ro.jsonl");
        std::fs::write(&ro, "{}\n").unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o444)).unwrap();
        for (p, why) in [(&link, "symbolic link"), (&fifo, "FIFO")] {
            let e = append_line(p, "{}\n", Duration::ZERO).unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
        // Root may write a read-only file; anyone else is refused.
        let as_root = std::fs::OpenOptions::new().append(true).open(&ro).is_ok();
        if !as_root {
            assert!(append_line(&ro, "{}\n", Duration::ZERO).is_err());
        }
        assert_eq!(std::fs::read(&real).unwrap(), b"{}\n");
    }

    /// The picker's title: the last `custom-title` in the last 64 KiB (an empty one clears, even
    /// with a sidecar), a line cut by the window's start not counted, invalid UTF-8 repaired;
    /// else the sidecar's.
    #[test]
    fn the_picker_title_is_the_tail_s_last_else_the_sidecar_s() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s1.jsonl");
        let side = sidecar_path(&t, "s1").unwrap();
        let filler = format!("{{\"type\":\"system\",\"content\":\"{}\"}}\n", "x".repeat(1000));
        let mut bytes = custom_title_line("s1", "Old").into_bytes();
        bytes.extend(filler.repeat(70).bytes());
        std::fs::write(&t, &bytes).unwrap();
        assert_eq!(picker_title(&t, "s1").unwrap(), None, "out of the window, no sidecar");
        write_sidecar(&side, &sidecar_bytes("  From sidecar ", "2026-12-06T09:00:00.000Z"))
            .unwrap();
        assert_eq!(picker_title(&t, "s1").unwrap().as_deref(), Some("From sidecar"));
        // A title line straddling the window's start is not read.
        let long = custom_title_line("s1", &"L".repeat(70_000));
        let mut f = std::fs::OpenOptions::new().append(true).open(&t).unwrap();
        f.write_all(long.as_bytes()).unwrap();
        f.write_all(filler.as_bytes()).unwrap();
        assert_eq!(picker_title(&t, "s1").unwrap().as_deref(), Some("From sidecar"));
        f.write_all(
            b"{\"type\":\"custom-title\",\"customTitle\":\"Caf\xe9\",\"sessionId\":\"s1\"}\n",
        )
        .unwrap();
        assert_eq!(picker_title(&t, "s1").unwrap().as_deref(), Some("Caf\u{fffd}"));
        f.write_all(custom_title_line("s1", "").as_bytes()).unwrap();
        assert_eq!(picker_title(&t, "s1").unwrap(), None, "cleared, whatever the sidecar says");
    }

    #[cfg(unix)]
    #[test]
    fn the_sidecar_is_written_with_claude_code_s_modes() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("s1.jsonl");
        let side = sidecar_path(&t, "s1").unwrap();
        write_sidecar(&side, &sidecar_bytes("N", "2026-12-06T09:00:00.000Z")).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&side), mode(side.parent().unwrap())), (0o600, 0o700));
        write_sidecar(&side, &sidecar_bytes("M", "2026-12-06T09:01:00.000Z")).unwrap();
        assert_eq!(mode(&side), 0o600);
        assert!(std::fs::read_to_string(&side).unwrap().contains("\"M\""));
    }
}
