//! The watcher on its own (the app's forwarding of its events is tested in the shell): folders
//! that appear while it arms, and the polling fallback when native watches are refused.

use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use corral_engine::watch::{FolderWatcher, POLL_INTERVAL, WatchOptions};

fn append_line(path: &std::path::Path, line: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

/// Folders that appear while the watcher is arming, with no pause between them: the watcher must
/// end up watching the transcript folder (arming re-checks after its watches are in place).
#[test]
fn folders_appearing_while_the_watcher_arms_are_not_missed() {
    for round in 0..12 {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("claude");
        let projects = home.join("projects");
        let (tx, rx) = mpsc::channel();
        let _watcher = FolderWatcher::start(
            projects.clone(),
            tmp.path().join("state"),
            Duration::ZERO,
            WatchOptions::default(),
            move |changes| {
                let _ = tx.send(changes);
            },
        )
        .unwrap();
        // Vary the moment the folders appear relative to the watcher thread's arming.
        std::thread::sleep(Duration::from_micros(round * 150));
        let folder = projects.join("-home-dev-race");
        std::fs::create_dir_all(&folder).unwrap();
        let transcript = folder.join("s.jsonl");
        std::fs::write(&transcript, "{}\n").unwrap();
        // Whatever was reported while arming, an append from now on names the folder.
        std::thread::sleep(Duration::from_millis(400));
        while rx.try_recv().is_ok() {}
        append_line(&transcript, "{}");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let changes = rx.recv_timeout(left).unwrap_or_else(|_| {
                panic!("round {round}: the append was not reported within 10 s")
            });
            if changes.folders.contains(&folder) || changes.everything {
                break;
            }
        }
    }
}

/// When the system refuses native file watches (inotify limits on a huge home), changes are still
/// reported: the files are polled instead, and the settings say so.
#[test]
fn refused_native_watches_fall_back_to_polling() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("claude/projects/-home-dev-poll");
    std::fs::create_dir_all(&folder).unwrap();
    let transcript = folder.join("s.jsonl");
    std::fs::write(&transcript, "{}\n").unwrap();
    let (tx, rx) = mpsc::channel();
    let watcher = FolderWatcher::start(
        tmp.path().join("claude/projects"),
        tmp.path().join("state"),
        Duration::from_secs(10),
        WatchOptions { refuse_native: true },
        move |changes| {
            let _ = tx.send(changes);
        },
    )
    .unwrap();
    assert!(watcher.is_polling());
    // A poll compares modification times: make sure the append lands in a later tick.
    std::thread::sleep(Duration::from_millis(1100));
    append_line(&transcript, "{}");
    let deadline = Instant::now() + POLL_INTERVAL * 3 + Duration::from_secs(2);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let changes = rx.recv_timeout(left).expect("the polling fallback reported nothing");
        if changes.folders.contains(&folder) {
            break;
        }
    }
}
