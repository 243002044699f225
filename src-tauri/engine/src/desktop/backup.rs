//! What a restore's backup of the whole store takes, known before anything is written: the
//! preview says it, and the run copies exactly the files it lists.
//!
//! Every regular file of the store down to `<account>/<org>/<file>` (and one level more) is
//! copied, but none larger than [`MAX_FILE`] (the app's entries are a few kilobytes, and Corral
//! reads none over 4 MB; such a file is listed as left out, and a restore never writes it),
//! and never more than [`MAX_TOTAL`] in all: a larger store is refused before the run starts,
//! with its size. Sizes are logical: a sparse file counts (and would be copied) whole. Links,
//! FIFOs and devices are neither followed nor read.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{Error, Result};

/// Largest store file the backup copies.
const MAX_FILE: u64 = 16 * 1024 * 1024;
/// Most bytes one backup copies.
const MAX_TOTAL: u64 = 256 * 1024 * 1024;
/// Folder depth of the store the backup walks (`<account>/<org>/<file>` is 3).
const MAX_DEPTH: usize = 4;

/// What the backup of a store takes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopBackupSize")]
pub struct BackupSize {
    /// Files copied.
    #[ts(type = "number")]
    pub files: u64,
    /// Bytes copied.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Files too large to be the app's, not copied (and never written by a restore).
    pub left_out: Vec<BackupLeftOut>,
    /// Over the most a backup copies (256 MB): a restore is refused.
    pub too_large: bool,
}

/// A store file the backup leaves out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "DesktopBackupLeftOut")]
pub struct BackupLeftOut {
    /// The file.
    pub path: String,
    /// Its size.
    #[ts(type = "number")]
    pub bytes: u64,
}

/// The files a backup of `root` copies (relative to it), and what that takes.
pub(super) fn measure(root: &Path) -> Result<(BackupSize, Vec<PathBuf>)> {
    let mut size = BackupSize::default();
    let mut files = Vec::new();
    walk(root, Path::new(""), 0, &mut size, &mut files)?;
    size.too_large = size.bytes > MAX_TOTAL;
    Ok((size, files))
}

fn walk(
    root: &Path,
    rel: &Path,
    depth: usize,
    size: &mut BackupSize,
    files: &mut Vec<PathBuf>,
) -> Result<()> {
    let dir = root.join(rel);
    let entries = fs::read_dir(&dir).map_err(|e| Error::io_at("back up", &dir, e))?;
    for e in entries {
        let e = e.map_err(|e| Error::io_at("back up", &dir, e))?;
        let path = rel.join(e.file_name());
        let kind = match e.file_type() {
            Ok(k) => k,
            Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
            Err(err) => return Err(Error::io_at("back up", &e.path(), err)),
        };
        if kind.is_dir() && depth < MAX_DEPTH {
            walk(root, &path, depth + 1, size, files)?;
        } else if kind.is_file() {
            // Gone between the listing and the look: nothing of it to lose.
            let Ok(meta) = e.metadata() else { continue };
            if meta.len() > MAX_FILE {
                size.left_out.push(BackupLeftOut {
                    path: e.path().display().to_string(),
                    bytes: meta.len(),
                });
                continue;
            }
            size.files += 1;
            size.bytes = size.bytes.saturating_add(meta.len());
            files.push(path);
        }
    }
    Ok(())
}

/// The refusal of a run whose backup would be `size`.
pub(super) fn refusal(root: &Path, size: &BackupSize) -> Error {
    Error::Refused(format!(
        "the desktop app's store {} holds {} MB in {} files; Corral backs up the whole store \
         before a restore and copies at most {} MB, so nothing was written (move what is not \
         the app's out of the store)",
        root.display(),
        size.bytes.div_ceil(1024 * 1024),
        size.files,
        MAX_TOTAL / (1024 * 1024)
    ))
}
