//! `reveal_path`: which paths the UI may open in the file manager, and how.

use std::path::{Path, PathBuf};

use corral_engine::{ErrorKind, ErrorPayload};

/// The folder to open for `requested`: it must exist and resolve (symlinks followed) to the
/// `<data dir>/runs` folder or something inside it. A file reveals its folder.
pub fn allowed_folder(data_dir: &Path, requested: &str) -> Result<PathBuf, ErrorPayload> {
    let path = Path::new(requested);
    if requested.is_empty() || !path.is_absolute() || requested.contains('\0') {
        return Err(err(ErrorKind::InvalidInput, format!("not an absolute path: {requested:?}")));
    }
    let runs = data_dir.join("runs");
    let refused = || {
        err(
            ErrorKind::Refused,
            format!("only folders inside {} can be revealed, not {requested}", runs.display()),
        )
    };
    let Ok(root) = std::fs::canonicalize(&runs) else { return Err(refused()) };
    let real = std::fs::canonicalize(path)
        .map_err(|_| err(ErrorKind::NotFound, format!("{requested} does not exist")))?;
    if !real.starts_with(&root) {
        return Err(refused());
    }
    if real.is_dir() { Ok(real) } else { real.parent().map(Path::to_path_buf).ok_or_else(refused) }
}

fn err(kind: ErrorKind, message: String) -> ErrorPayload {
    ErrorPayload { kind, message }
}

/// Opens `folder` with the platform's file manager, without waiting for it.
pub fn open_in_file_manager(folder: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "macos")]
    let program = "open";
    #[cfg(target_os = "windows")]
    let program = "explorer";
    #[cfg(not(any(target_os = "macos", target_os = "windows")))]
    let program = "xdg-open";
    std::process::Command::new(program)
        .arg(folder)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|mut child| {
            // Reap the launcher when it exits, so no zombie is left behind.
            std::thread::spawn(move || child.wait());
        })
}
