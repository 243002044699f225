//! The faults hostile testing found, one test each (`docs/reliability.md` names them):
//! FIFOs and devices where files are expected, cross-process writers, tampered journals, undoing
//! twice, relative paths, folders a run creates, over-long lines, file modes, terminal escapes,
//! fleet amplification and odd working directories.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use corral_engine::import::{ImportTarget, SkipReason};
use corral_engine::placement::{PlacementMode, RealFs, SimulatedCrossDevice};
use corral_engine::runs::{self, UndoTarget};

use crate::import::{ALPHA_WD, World, alpha, now, sid, transcript, tree};

use crate::support::within;

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

fn undo_target(w: &World) -> UndoTarget {
    UndoTarget::of(&w.catalog())
}

// ---- 2, 3: hangs on FIFOs and devices ----

#[cfg(unix)]
#[test]
fn an_import_preview_of_fifos_and_devices_finishes_and_names_them() {
    let w = World::new();
    let good = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    mkfifo(&w.export.join(format!("{}.jsonl", sid(2))));
    std::os::unix::fs::symlink("/dev/zero", w.export.join(format!("{}.jsonl", sid(3)))).unwrap();
    std::os::unix::fs::symlink("/dev/urandom", w.export.join(format!("{}.jsonl", sid(4)))).unwrap();
    let direct = w.export.join(format!("{}.jsonl", sid(2)));
    let sources = vec![w.export.clone(), direct];
    let plan = {
        let (home, fleet, data) = (w.home.clone(), w.fleet_file.clone(), w.data.clone());
        within(20, "the import preview", move || {
            let cat = corral_engine::Catalog::open(corral_engine::CatalogConfig {
                claude_home: home,
                fleet_file: Some(fleet),
                state_dir: None,
                data_dir: data,
            })
            .unwrap();
            corral_engine::import::plan_import(
                &cat,
                &ImportTarget::Agent { name: "alpha".into() },
                &sources,
                PlacementMode::Copy,
                &corral_engine::occupancy::OccupancySnapshot::nobody(),
            )
            .unwrap()
        })
    };
    assert_eq!(plan.placements.len(), 1, "{:?}", plan.placements);
    assert_eq!(Path::new(&plan.placements[0].from), good);
    let unreadable: Vec<_> =
        plan.skipped.iter().filter(|s| s.reason == SkipReason::Unreadable).collect();
    assert!(unreadable.iter().any(|s| s.detail.contains("FIFO")), "{:?}", plan.skipped);
    assert!(unreadable.iter().any(|s| s.detail.contains("device")), "{:?}", plan.skipped);
}

#[cfg(unix)]
#[test]
fn listing_agents_and_show_finish_with_fifos_where_records_and_configs_belong() {
    let w = World::new();
    let id = sid(7);
    w.session(&w.alpha_folder(), &id, ALPHA_WD, false);
    // A subagent whose .meta.json is a FIFO.
    let subs = w.alpha_folder().join(&id).join("subagents");
    fs::create_dir_all(&subs).unwrap();
    fs::write(subs.join("agent-a1.jsonl"), transcript(&id, ALPHA_WD, "sub", true)).unwrap();
    mkfifo(&subs.join("agent-a1.meta.json"));
    for dir in ["adopted-sessions", "web-sessions", "session-metadata"] {
        fs::create_dir_all(w.state.join(dir)).unwrap();
    }
    mkfifo(&w.state.join("adopted-sessions").join(format!("{}.yaml", sid(8))));
    mkfifo(&w.state.join("web-sessions/alpha.yaml"));
    mkfifo(&w.state.join("session-metadata/alpha.json"));
    mkfifo(&w.state.join("session-metadata/adhoc.json"));
    let cat = w.catalog();
    let (listing, sessions, details) = within(20, "listing, agent sessions and show", move || {
        let listing = cat.all_sessions(Default::default()).unwrap();
        let sessions = cat.agent_sessions("alpha", Default::default());
        let details = cat.transcript(&id);
        (listing, sessions.map(|s| s.len()), details.map(|t| t.subagents.len()))
    });
    let all: Vec<_> = listing.groups.iter().flat_map(|g| &g.sessions).collect();
    assert_eq!(all.len(), 1, "{listing:?}");
    assert!(listing.warnings.iter().any(|x| x.message.contains("FIFO")), "{:?}", listing.warnings);
    // (A native session in the agent's folder is not the agent's: the agent lists none.)
    assert_eq!(sessions.unwrap(), 0);
    assert_eq!(details.unwrap(), 1, "show lists the subagent whose .meta.json is a FIFO");

    // A FIFO as the fleet file and as an agent file: an error naming it, at once.
    let fifo_fleet = w.root.join("fifo-fleet.yaml");
    mkfifo(&fifo_fleet);
    let e = within(20, "loading a FIFO fleet file", move || {
        corral_engine::fleet::Fleet::load(&fifo_fleet).unwrap_err().to_string()
    });
    assert!(e.contains("FIFO"), "{e}");
    fs::remove_file(w.fleet_file.parent().unwrap().join("agents/beta.yaml")).unwrap();
    mkfifo(&w.fleet_file.parent().unwrap().join("agents/beta.yaml"));
    let fleet = w.fleet_file.clone();
    let e = within(20, "loading a fleet with a FIFO agent file", move || {
        corral_engine::fleet::Fleet::load(&fleet).unwrap_err().to_string()
    });
    assert!(e.contains("FIFO"), "{e}");
}

// ---- 4: a tampered journal ----

fn moved_run(w: &World) -> (String, PathBuf, PathBuf) {
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let report = w.apply(&w.plan(&alpha(), &[w.export.clone()], PlacementMode::Move), &RealFs);
    let run = report.run_id.unwrap();
    (run.clone(), src, w.data.join("runs").join(run).join("run.json"))
}

fn edit_journal(journal: &Path, f: impl FnOnce(&mut serde_json::Value)) {
    let mut j: serde_json::Value = serde_json::from_slice(&fs::read(journal).unwrap()).unwrap();
    f(&mut j);
    fs::write(journal, serde_json::to_vec(&j).unwrap()).unwrap();
}

#[test]
fn a_tampered_source_never_makes_undo_create_a_file_elsewhere() {
    let w = World::new();
    let (run, src, journal) = moved_run(&w);
    let planted = w.root.join("planted/deep").join(format!("{}.jsonl", sid(1)));
    let planted2 = w.root.join(format!("{}.jsonl", sid(9)));
    edit_journal(&journal, |j| {
        for e in j["entries"].as_array_mut().unwrap() {
            if e["kind"] == "file" {
                e["from"] = serde_json::json!(planted.display().to_string());
            }
        }
    });
    let u = runs::undo(&undo_target(&w), &run, now()).unwrap();
    assert!(!planted.exists() && !w.root.join("planted").exists(), "{u:?}");
    assert!(!u.not_undone.is_empty(), "{u:?}");
    assert!(!src.exists(), "the move stays in place when its source cannot be trusted");
    // A source renamed to another session's file name in an existing folder: refused too.
    edit_journal(&journal, |j| {
        j["undoneAt"] = serde_json::Value::Null;
        for e in j["entries"].as_array_mut().unwrap() {
            if e["kind"] == "file" {
                e["from"] = serde_json::json!(planted2.display().to_string());
            }
        }
    });
    let u = runs::undo(&undo_target(&w), &run, now()).unwrap();
    assert!(!planted2.exists(), "{u:?}");
}

#[cfg(unix)]
#[test]
fn a_backup_behind_a_link_or_with_other_bytes_is_never_restored() {
    let w = World::new();
    let (run, src, journal) = moved_run(&w);
    let placed = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
    fs::remove_file(&placed).unwrap(); // only the backup can bring the source back now
    let backup = w.data.join("runs").join(&run).join("backup");
    let secret_dir = w.root.join("secrets");
    fs::create_dir_all(&secret_dir).unwrap();
    fs::write(secret_dir.join("shadow"), b"root:x:0:0").unwrap();
    // (b) backup/00000 replaced by a link out of the run, the entry pointed into it.
    let real = backup.join("00000");
    fs::rename(&real, backup.join("kept")).unwrap();
    std::os::unix::fs::symlink(&secret_dir, &real).unwrap();
    edit_journal(&journal, |j| {
        for e in j["entries"].as_array_mut().unwrap() {
            if e["kind"] == "file" {
                e["backup"] = serde_json::json!("00000/shadow");
            }
        }
    });
    let u = runs::undo(&undo_target(&w), &run, now()).unwrap();
    assert!(!src.exists(), "a file was restored from outside the backup: {u:?}");
    assert!(u.not_undone.iter().any(|n| n.reason.contains("symbolic link")), "{u:?}");
    // A backup whose bytes changed since the run: refused by its checksum.
    fs::remove_file(&real).unwrap();
    fs::rename(backup.join("kept"), &real).unwrap();
    let bk = real.join(format!("{}.jsonl", sid(1)));
    fs::write(&bk, b"{\"forged\":true}\n").unwrap();
    edit_journal(&journal, |j| {
        j["undoneAt"] = serde_json::Value::Null;
        for e in j["entries"].as_array_mut().unwrap() {
            if e["kind"] == "file" {
                e["backup"] = serde_json::json!(format!("00000/{}.jsonl", sid(1)));
            }
        }
    });
    let u = runs::undo(&undo_target(&w), &run, now()).unwrap();
    assert!(!src.exists(), "{u:?}");
    assert!(u.not_undone.iter().any(|n| n.reason.contains("checksum")), "{u:?}");
}

// ---- 5: undoing an old run again ----

#[test]
fn undoing_an_undone_run_again_leaves_a_newer_run_alone() {
    for mode in [PlacementMode::Copy, PlacementMode::Move, PlacementMode::Link] {
        let w = World::new();
        w.session(&w.export, &sid(1), "/home/u/scratch", false);
        let r1 = w.apply(&w.plan(&alpha(), &[w.export.clone()], mode), &RealFs);
        let r1 = r1.run_id.unwrap();
        runs::undo(&undo_target(&w), &r1, now()).unwrap();
        let r2 = w.apply(&w.plan(&alpha(), &[w.export.clone()], mode), &RealFs);
        assert_eq!(r2.placed.len(), 1, "{mode:?}: {:?}", r2.skipped);
        let before = w.user_tree();
        let again = runs::undo(&undo_target(&w), &r1, now()).unwrap();
        assert_eq!(w.user_tree(), before, "{mode:?}: undoing R1 again changed R2's files");
        assert!(again.undone.is_empty() && again.not_undone.is_empty(), "{mode:?}: {again:?}");
        // Even with its undone mark erased, R1's entries do not match R2's files.
        let journal = w.data.join("runs").join(&r1).join("run.json");
        edit_journal(&journal, |j| j["undoneAt"] = serde_json::Value::Null);
        let forced = runs::undo(&undo_target(&w), &r1, now()).unwrap();
        let placed = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
        assert!(
            w.state.join("adopted-sessions").join(format!("{}.yaml", sid(1))).is_file(),
            "{mode:?}: R2's record was removed"
        );
        if mode == PlacementMode::Link {
            // A hard link is its source's inode, so it cannot be told from R1's; removing it
            // loses no byte (the source is that very file).
            assert!(w.export.join(format!("{}.jsonl", sid(1))).is_file(), "{forced:?}");
        } else {
            assert!(placed.is_file(), "{mode:?}: R2's transcript was removed: {forced:?}");
        }
    }
}

#[test]
fn a_hard_linked_session_resumed_after_the_import_is_still_undone() {
    let w = World::new();
    let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let r = w.apply(&w.plan(&alpha(), &[w.export.clone()], PlacementMode::Link), &RealFs);
    assert_eq!(r.placed[0].placed_as, Some(corral_engine::placement::PlacedAs::HardLinked));
    // Claude resumes it at the agent's folder: both names grow (one inode), its change time moves.
    std::thread::sleep(Duration::from_millis(20));
    let placed = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
    let mut f = fs::OpenOptions::new().append(true).open(&placed).unwrap();
    std::io::Write::write_all(&mut f, b"{\"type\":\"last-prompt\"}\n").unwrap();
    drop(f);
    let u = runs::undo(&undo_target(&w), &r.run_id.unwrap(), now()).unwrap();
    assert!(u.not_undone.is_empty(), "{u:?}");
    assert!(
        !placed.exists() && src.is_file(),
        "the link goes, the source (with the new turn) stays"
    );
}

// ---- 6: relative paths ----

#[test]
fn undo_pointed_at_another_home_is_never_reported_as_undone() {
    let w = World::new();
    w.session(&w.export, &sid(1), "/home/u/scratch", false);
    let report = w.apply(&w.plan(&alpha(), &[w.export.clone()], PlacementMode::Copy), &RealFs);
    let run = report.run_id.unwrap();
    let elsewhere = UndoTarget {
        claude_home: w.root.join("another-home"),
        state_dir: w.state.clone(),
        desktop_store: None,
        data_dir: w.data.clone(),
    };
    let u = runs::undo(&elsewhere, &run, now()).unwrap();
    assert!(!u.not_undone.is_empty(), "{u:?}");
    let listed = runs::runs(&w.data).unwrap();
    assert_ne!(listed[0].undo_state, runs::UndoState::Undone);
    assert!(w.alpha_folder().join(format!("{}.jsonl", sid(1))).is_file());
}

// ---- 8: folders the run created ----

#[test]
fn undo_removes_every_folder_the_run_created() {
    for mode in [PlacementMode::Copy, PlacementMode::Move] {
        let w = World::new();
        fs::remove_dir_all(w.home.join("projects")).unwrap();
        fs::remove_dir_all(&w.state).unwrap();
        let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
        let subs = w.export.join(sid(1)).join("subagents");
        fs::create_dir_all(&subs).unwrap();
        fs::write(subs.join("agent-a1.jsonl"), transcript(&sid(1), "/x", "sub", true)).unwrap();
        let (home, state, export) = (tree(&w.home), w.state.exists(), tree(&w.export));
        let report = w.apply(&w.plan(&alpha(), &[src], mode), &RealFs);
        assert_eq!(report.placed.len(), 1, "{:?}", report.skipped);
        assert!(w.state.join("adopted-sessions").is_dir());
        let u = runs::undo(&undo_target(&w), &report.run_id.unwrap(), now()).unwrap();
        assert!(u.not_undone.is_empty(), "{u:?}");
        assert_eq!(tree(&w.home), home, "{mode:?}: folders were left in the Claude home");
        assert_eq!(w.state.exists(), state, "{mode:?}: the state dir was left behind");
        assert_eq!(tree(&w.export), export, "{mode:?}");
    }
}

// ---- 9: over-long lines ----

#[test]
fn an_over_long_line_never_grows_a_reader_past_its_cap() {
    use corral_engine::jsonl::{LISTING_MAX_LINE_BYTES, LineReader};
    let cap = 1024 * 1024;
    let mut input = vec![b'x'; 40 * cap];
    input.push(b'\n');
    input.extend_from_slice(b"{\"a\":1}\n");
    let mut r = LineReader::with_max_line(std::io::Cursor::new(input), 0, cap);
    let line = r.next_line().unwrap().unwrap().bytes.to_vec();
    assert_eq!(line, b"{\"a\":1}");
    assert_eq!(r.oversized_lines(), 1);
    assert!(r.buffer_capacity() <= cap + 512 * 1024, "buffer grew to {}", r.buffer_capacity());
    const { assert!(LISTING_MAX_LINE_BYTES <= 16 * 1024 * 1024) };
}

// ---- 10: file modes ----

#[cfg(unix)]
#[test]
fn a_private_transcript_stays_private_in_its_copy_move_and_backup() {
    use std::os::unix::fs::PermissionsExt;
    let mode_of = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    for (mode, cross) in
        [(PlacementMode::Copy, false), (PlacementMode::Move, false), (PlacementMode::Move, true)]
    {
        let w = World::new();
        let src = w.session(&w.export, &sid(1), "/home/u/scratch", false);
        fs::set_permissions(&src, fs::Permissions::from_mode(0o600)).unwrap();
        let plan = w.plan(&alpha(), &[src], mode);
        let report =
            if cross { w.apply(&plan, &SimulatedCrossDevice) } else { w.apply(&plan, &RealFs) };
        let placed = w.alpha_folder().join(format!("{}.jsonl", sid(1)));
        assert_eq!(mode_of(&placed), 0o600, "{mode:?} cross={cross}");
        if mode == PlacementMode::Move {
            let bk = w
                .data
                .join("runs")
                .join(report.run_id.unwrap())
                .join("backup/00000")
                .join(format!("{}.jsonl", sid(1)));
            assert_eq!(mode_of(&bk), 0o600, "the backup of a {mode:?}");
        }
    }
}

// ---- 12: fleet amplification ----

#[test]
fn a_diamond_of_sub_fleets_around_a_huge_leaf_is_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // 20,000 distinct agents from one file (each reference overrides the name): valid, unique,
    // and multiplied by every path through the diamond unless references are budgeted.
    let mut leaf = String::from("agents:\n");
    for i in 0..20_000 {
        leaf.push_str(&format!("  - path: ./a.yaml\n    overrides: {{name: a{i}}}\n"));
    }
    fs::write(root.join("leaf.yaml"), leaf).unwrap();
    fs::write(root.join("a.yaml"), "name: a\n").unwrap();
    for side in ["l", "r"] {
        fs::write(
            root.join(format!("{side}.yaml")),
            "fleets:\n  - path: ./leaf.yaml\n    name: x1\n  - path: ./leaf.yaml\n    name: x2\n",
        )
        .unwrap();
    }
    fs::write(
        root.join("herdctl.yaml"),
        "fleets:\n  - path: ./l.yaml\n    name: l\n  - path: ./r.yaml\n    name: r\n",
    )
    .unwrap();
    let file = root.join("herdctl.yaml");
    let started = std::time::Instant::now();
    let e = within(60, "loading the diamond", move || {
        corral_engine::fleet::Fleet::load(&file).unwrap_err().to_string()
    });
    assert!(e.contains("more than 10000 agents"), "{e}");
    println!("diamond refused in {:?}: {e}", started.elapsed());
}

// ---- 13: odd working directories ----

#[test]
fn a_relative_working_directory_is_no_import_destination() {
    let w = World::new();
    for (n, cwd) in [(1, "rel/dir"), (2, "."), (3, "")] {
        w.session(&w.export, &sid(n), cwd, false);
    }
    let plan = w.plan(&ImportTarget::ClaudeHome, &[w.export.clone()], PlacementMode::Copy);
    assert!(plan.placements.is_empty(), "{:?}", plan.placements);
    assert_eq!(plan.skipped.len(), 3, "{:?}", plan.skipped);
    assert!(plan.skipped.iter().all(|s| s.reason == SkipReason::Unreadable), "{:?}", plan.skipped);
}

#[test]
fn the_resume_command_survives_a_folder_starting_with_a_dash_and_any_quoting() {
    use corral_engine::catalog::resume_command;
    assert_eq!(resume_command("-rf", "abc", None), "cd -- -rf && claude --resume abc");
    let out = Command::new("sh")
        .arg("-c")
        .arg(
            resume_command("-x 'y' $(z)\n", "abc", None)
                .replace(" && claude --resume abc", " && pwd"),
        )
        .current_dir(tempfile::tempdir().unwrap().path())
        .output()
        .unwrap();
    // The folder does not exist: `cd` says so about that exact name instead of reading options.
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("invalid option") && !err.contains("Illegal option"), "{err}");
}

// ---- 2026-12 round, 1: Corral deletes what is not its own ----

/// A data dir a person chose (it holds their files) is marked before Corral writes into it, and a
/// folder marked by someone else is written into not at all: the listing still answers, with a
/// warning naming the folder. (The search index's side of the rule: `search::opening_the_index_
/// removes_only_what_corral_can_prove_it_made`.)
#[test]
fn a_data_dir_corral_did_not_create_is_marked_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let claude = tmp.path().join("claude");
    let folder = claude.join("projects").join("-w-app");
    fs::create_dir_all(&folder).unwrap();
    let text = transcript(&sid(1), "/w/app", "hello", false);
    fs::write(folder.join(format!("{}.jsonl", sid(1))), text).unwrap();
    let open = |data: &Path| {
        corral_engine::Catalog::open(corral_engine::CatalogConfig {
            claude_home: claude.clone(),
            fleet_file: None,
            state_dir: None,
            data_dir: data.to_path_buf(),
        })
        .unwrap()
    };
    let marker = corral_engine::owned::MARKER;

    let mine = tmp.path().join("Documents");
    fs::create_dir_all(&mine).unwrap();
    fs::write(mine.join("notes.txt"), "mine").unwrap();
    let listing = open(&mine).all_sessions(Default::default()).unwrap();
    assert_eq!(listing.groups.len(), 1);
    assert!(listing.warnings.is_empty(), "{:?}", listing.warnings);
    assert_eq!(
        fs::read_to_string(mine.join(marker)).unwrap(),
        "{\"owner\":\"corral\",\"kind\":\"data-dir\"}\n"
    );
    assert!(mine.join("index").is_dir(), "the listing index is written after the marker");
    assert_eq!(fs::read_to_string(mine.join("notes.txt")).unwrap(), "mine");

    let theirs = tmp.path().join("theirs");
    fs::create_dir_all(&theirs).unwrap();
    fs::write(theirs.join(marker), "another program's").unwrap();
    let before = tree(&theirs);
    let listing = open(&theirs).all_sessions(Default::default()).unwrap();
    assert_eq!(listing.groups.len(), 1, "browsing still works");
    assert!(
        listing.warnings.iter().any(|w| w.message.contains("not Corral's")),
        "{:?}",
        listing.warnings
    );
    assert_eq!(tree(&theirs), before, "nothing is written into a folder marked by another");
}

// ---- 2026-12 round, 8: a folder another process just created ----

/// Four imports into one agent at once, into a home where the agent's transcript folder and the
/// adoption store do not exist yet: each run creates the folders it finds missing, and a folder
/// another run made meanwhile is success, journaled as not this run's. Every session is placed
/// with its record, nothing is skipped; undoing every run removes every file and record and
/// leaves every folder that was there before. Before the fix, one run in most rounds failed with "File
/// exists" and its transcript stood without its record.
#[test]
fn imports_at_once_each_place_their_session_with_its_record() {
    for round in 0..5 {
        let w = World::new();
        let plans: Vec<_> = (1..=4)
            .map(|n| {
                let src = w.session(&w.export, &sid(n), "/home/u/scratch", false);
                w.plan(&alpha(), &[src], PlacementMode::Copy)
            })
            .collect();
        let before = w.user_tree();
        let barrier = std::sync::Barrier::new(plans.len());
        let reports: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = plans
                .iter()
                .map(|plan| {
                    let (w, barrier) = (&w, &barrier);
                    s.spawn(move || {
                        barrier.wait();
                        w.apply(plan, &RealFs)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in &reports {
            assert!(r.skipped.is_empty(), "round {round}: {:?}", r.skipped);
            assert_eq!(r.placed.len(), 1, "round {round}: {r:?}");
            let placed = &r.placed[0];
            assert!(Path::new(&placed.to).is_file(), "round {round}: {placed:?}");
            assert!(placed.record.as_deref().is_some_and(|p| Path::new(p).is_file()), "{placed:?}");
        }
        for r in &reports {
            let u = runs::undo(&undo_target(&w), r.run_id.as_deref().unwrap(), now()).unwrap();
            assert!(u.not_undone.is_empty(), "round {round}: {u:?}");
        }
        // Every file and record is gone. A folder one run made and another run's file kept full
        // when its maker was undone stays behind empty (as with runs undone out of order one
        // after another): never a file, and never a folder that was there before.
        let after = w.user_tree();
        for (path, node) in &before {
            assert_eq!(after.get(path), Some(node), "round {round}: {path}");
        }
        for (path, node) in after.iter().filter(|(p, _)| !before.contains_key(*p)) {
            assert_eq!(node, &crate::world::Node::Dir, "round {round}: {path} is left");
            assert!(!after.keys().any(|k| k.starts_with(&format!("{path}/"))), "{path}");
        }
    }
}
