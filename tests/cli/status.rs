//! `corral-cli status` against the real process table: a fake `claude` (the system python
//! started with argv[0] `claude`, sleeping) resuming a session, and one with `--continue` in a
//! folder.
#![cfg(target_os = "linux")]

use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

use crate::commands::cli_command as cli;
use crate::home::Home;

/// The system's python binary itself (a launcher shim such as pyenv's would exec it under its own
/// name, erasing argv[0]).
const PYTHON: &str = "/usr/bin/python3";

/// A process whose command line is `claude ARGS…` (it sleeps), in `cwd`; `None` (with a notice)
/// where there is no system python.
fn fake_claude(args: &[&str], cwd: &std::path::Path) -> Option<Child> {
    let child = Command::new(PYTHON)
        .arg0("claude")
        .args(["-S", "-c", "import time; time.sleep(60)"])
        .args(args)
        .current_dir(cwd)
        .spawn();
    let Ok(child) = child else {
        println!("{PYTHON} is not installed: the fake claude process cannot run; skipped");
        return None;
    };
    // Until its command line is the new one (exec done).
    let cmdline = format!("/proc/{}/cmdline", child.id());
    for _ in 0..500 {
        if std::fs::read(&cmdline).is_ok_and(|c| c.starts_with(b"claude\0")) {
            return Some(child);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the fake claude's command line never read `claude …`");
}

fn status(home: &Home) -> Vec<serde_json::Value> {
    let out = cli(home, &["--json", "status"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn status_sees_a_claude_process_resuming_a_session_and_one_in_a_folder() {
    let home = Home::new();
    let before = status(&home);
    let first = before[0]["sessionId"].as_str().unwrap().to_owned();
    assert!(before.iter().all(|s| s["state"] == "not-running"), "{before:?}");

    // A session in a real folder, for the folder-wide process.
    let work = home.root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let cwd = work.to_str().unwrap();
    let folder = home.claude().join("projects").join(cwd.replace(['/', '.', '_'], "-"));
    std::fs::create_dir_all(&folder).unwrap();
    let here = "0000abcd-0000-4000-8000-00000000abcd";
    std::fs::write(
        folder.join(format!("{here}.jsonl")),
        format!(
            "{{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"{here}\",\"cwd\":\"{cwd}\",\"timestamp\":\"2026-11-30T10:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"start the service\"}}}}\n"
        ),
    )
    .unwrap();

    let Some(mut resumer) = fake_claude(&["--resume", &first], &home.root) else { return };
    let Some(mut wide) = fake_claude(&["--continue"], &work) else { return };
    let after = status(&home);
    let _ = (resumer.kill(), wide.kill(), resumer.wait(), wide.wait());
    let of = |id: &str| after.iter().find(|s| s["sessionId"] == id).unwrap().clone();
    let r = of(&first);
    assert_eq!(r["pid"], resumer.id(), "{r}");
    assert_ne!(r["state"], "not-running", "{r}");
    assert!(r["why"].as_str().unwrap().contains("resumes it"), "{r}");
    let w = of(here);
    assert_eq!(w["pid"], wide.id(), "{w}");
    assert_eq!(w["state"], "running", "its prompt was just written: {w}");
}
