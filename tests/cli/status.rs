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
    // A script file, not `-c CODE`: the guard would read python's `-c` as claude's `--continue`.
    let script = cwd.join(".fake-claude.py");
    std::fs::write(&script, "import time\ntime.sleep(60)\n").unwrap();
    let child = Command::new(PYTHON)
        .arg0("claude")
        .arg("-S")
        .arg(&script)
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

/// A session recorded in a real folder `<root>/<name>` (created), with one prompt.
fn session_in_folder(home: &Home, name: &str, id: &str) -> std::path::PathBuf {
    let work = home.root.join(name);
    std::fs::create_dir_all(&work).unwrap();
    let cwd = work.to_str().unwrap();
    let folder = home.claude().join("projects").join(cwd.replace(['/', '.', '_'], "-"));
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join(format!("{id}.jsonl")),
        format!(
            "{{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"{id}\",\"cwd\":\"{cwd}\",\"timestamp\":\"2026-11-30T10:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"start the service\"}}}}\n"
        ),
    )
    .unwrap();
    work
}

#[test]
fn status_sees_a_claude_process_resuming_a_session_and_one_in_a_folder() {
    let home = Home::new();
    let before = status(&home);
    let first = before[0]["sessionId"].as_str().unwrap().to_owned();
    assert!(before.iter().all(|s| s["state"] == "not-running"), "{before:?}");

    // A session in a real folder, for the folder-wide process.
    let here = "0000abcd-0000-4000-8000-00000000abcd";
    let work = session_in_folder(&home, "work", here);

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

/// A terminal for tests: records its arguments, working directory and CLAUDE_CONFIG_DIR into
/// `record`, then becomes the command it was given — as a fake `claude` that sleeps. A leading
/// `env K=V…` is honoured as `env` would (its variables set, the rest run), with the terminal's
/// own CLAUDE_CONFIG_DIR dropped first: the home must travel in the command.
fn fake_terminal(home: &Home, record: &std::path::Path) -> String {
    let script = home.root.join("fake-term.py");
    std::fs::write(
        &script,
        format!(
            "import json, os, sys\n\
             raw = sys.argv[2:]\n\
             args = list(raw)\n\
             env = dict(os.environ)\n\
             env.pop('CLAUDE_CONFIG_DIR', None)\n\
             if args and args[0] == 'env':\n\
             \x20   args.pop(0)\n\
             \x20   while args and '=' in args[0]:\n\
             \x20       k, v = args.pop(0).split('=', 1)\n\
             \x20       env[k] = v\n\
             json.dump({{'argv': args, 'raw': raw, 'cwd': os.getcwd(), 'home': env.get('CLAUDE_CONFIG_DIR')}}, open(sys.argv[1], 'w'))\n\
             os.execve('{PYTHON}', ['claude', '-S', '-c', 'import time; time.sleep(60)'] + args[1:], env)\n"
        ),
    )
    .unwrap();
    format!("{PYTHON} {} {} {{command}}", script.display(), record.display())
}

#[test]
fn resume_opens_a_terminal_with_the_command_as_arguments_and_verifies_the_start() {
    if !std::path::Path::new(PYTHON).exists() {
        println!("{PYTHON} is not installed: the fake terminal cannot run; skipped");
        return;
    }
    let home = Home::new();
    let id = "0000beef-0000-4000-8000-00000000beef";
    let work = session_in_folder(&home, "it's a folder", id);
    // --print: the command, never run; CLAUDE_CONFIG_DIR because this is not the default home.
    let out = cli(&home, &["--json", "resume", id, "--print"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["program"], "claude");
    assert_eq!(v["args"], serde_json::json!(["--resume", id]));
    assert_eq!(v["cwd"], work.to_str().unwrap());
    assert_eq!(v["env"][0][0], "CLAUDE_CONFIG_DIR");
    assert!(v["display"].as_str().unwrap().contains(r"it'\''s a folder"), "{v}");

    // A real launch through a fake terminal: the vector arrives whole, the start is verified.
    let record = home.root.join("term.json");
    let term = fake_terminal(&home, &record);
    let out = cli(&home, &["--json", "resume", id, "--terminal", &term]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let pid = v["pid"].as_u64();
    assert!(out.status.success(), "{v} {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(v["started"], true, "{v}");
    let seen: serde_json::Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(seen["argv"], serde_json::json!(["claude", "--resume", id]), "{seen}");
    assert_eq!(seen["raw"][0], "env", "the home travels in the command: {seen}");
    assert_eq!(seen["cwd"], work.to_str().unwrap());
    assert_eq!(seen["home"], home.claude().to_str().unwrap());

    // Now that process resumes it: a second resume is refused, and nothing is launched.
    std::fs::remove_file(&record).unwrap();
    let out = cli(&home, &["resume", id, "--terminal", &term]).output().unwrap();
    if let Some(pid) = pid {
        let _ = Command::new("kill").arg(pid.to_string()).status();
    }
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds this session"), "{out:?}");
    assert!(!record.exists(), "a refused resume opens no terminal");
}

#[test]
fn a_resume_that_does_not_start_says_so_and_a_gone_folder_offers_home() {
    let home = Home::new();
    let id = "0000cafe-0000-4000-8000-00000000cafe";
    let work = session_in_folder(&home, "gone-later", id);
    let out = cli(&home, &["resume", id, "--terminal", "true {command}"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("did not start"), "{text}");
    std::fs::remove_dir_all(&work).unwrap();
    let out = cli(&home, &["resume", id, "--print"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("home folder"), "{out:?}");
    std::fs::create_dir_all(home.root.join("no-home")).unwrap();
    let out = cli(&home, &["--json", "resume", id, "--print", "--from-home"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["fromFallback"], true);
    assert_eq!(v["cwd"], home.root.join("no-home").to_str().unwrap());
}
