//! Placing one file: exclusive creation in every mode, mtimes kept, cross-device paths (injected
//! EXDEV and, when available, a real second filesystem).
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use corral_engine::placement::{
    PlaceOutcome, PlacedAs, PlacementFs, PlacementMode, RealFs, SimulatedCrossDevice, place,
    temp_path_for,
};

const MODES: [PlacementMode; 3] = [PlacementMode::Copy, PlacementMode::Link, PlacementMode::Move];

fn source(dir: &Path) -> (PathBuf, SystemTime) {
    let p = dir.join("src.jsonl");
    fs::write(&p, b"{\"type\":\"user\"}\n{\"type\":\"assistant\"}\n").unwrap();
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    fs::File::options().write(true).open(&p).unwrap().set_modified(old).unwrap();
    (p, old)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn fresh_destination_every_mode_same_and_cross_device() {
    let fss: [(&dyn PlacementFs, bool); 2] = [(&RealFs, false), (&SimulatedCrossDevice, true)];
    for mode in MODES {
        for (fs_ops, cross) in fss {
            let tmp = tempfile::tempdir().unwrap();
            let (src, mtime) = source(tmp.path());
            let bytes = fs::read(&src).unwrap();
            let src_ino = fs::metadata(&src).unwrap().ino();
            let dest_dir = tmp.path().join("dest");
            fs::create_dir(&dest_dir).unwrap();
            let to = dest_dir.join("s.jsonl");
            let out = place(fs_ops, mode, &src, &to, "run1").unwrap();
            let ctx = format!("{mode:?} cross={cross}");
            let expected = match (mode, cross) {
                (PlacementMode::Copy, _) => PlacedAs::Copied,
                (PlacementMode::Link, false) => PlacedAs::HardLinked,
                (PlacementMode::Link, true) => PlacedAs::Symlinked,
                (PlacementMode::Move, false) => PlacedAs::Moved,
                (PlacementMode::Move, true) => PlacedAs::MovedByCopy,
            };
            assert_eq!(out, PlaceOutcome::Placed(expected), "{ctx}");
            assert_eq!(fs::read(&to).unwrap(), bytes, "{ctx}");
            assert_eq!(fs::metadata(&to).unwrap().modified().unwrap(), mtime, "{ctx}: mtime kept");
            assert_eq!(src.exists(), mode != PlacementMode::Move, "{ctx}");
            match expected {
                PlacedAs::HardLinked | PlacedAs::Moved => {
                    assert_eq!(fs::metadata(&to).unwrap().ino(), src_ino, "{ctx}");
                }
                PlacedAs::Symlinked => {
                    assert_eq!(
                        fs::read_link(&to).unwrap(),
                        fs::canonicalize(&src).unwrap(),
                        "{ctx}"
                    );
                }
                _ => assert_ne!(fs::metadata(&to).unwrap().ino(), src_ino, "{ctx}"),
            }
            assert_eq!(names(&dest_dir), vec!["s.jsonl"], "{ctx}: no temp left");
        }
    }
}

#[test]
fn an_existing_file_or_a_dangling_symlink_is_never_replaced() {
    let fss: [&dyn PlacementFs; 2] = [&RealFs, &SimulatedCrossDevice];
    for mode in MODES {
        for fs_ops in fss {
            for dangling in [false, true] {
                let tmp = tempfile::tempdir().unwrap();
                let (src, _) = source(tmp.path());
                let bytes = fs::read(&src).unwrap();
                let to = tmp.path().join("s.jsonl");
                let nowhere = tmp.path().join("nowhere");
                if dangling {
                    std::os::unix::fs::symlink(&nowhere, &to).unwrap();
                } else {
                    fs::write(&to, b"theirs").unwrap();
                }
                let out = place(fs_ops, mode, &src, &to, "run1").unwrap();
                let ctx = format!("{mode:?} dangling={dangling}");
                assert_eq!(out, PlaceOutcome::DestinationExists, "{ctx}");
                assert_eq!(fs::read(&src).unwrap(), bytes, "{ctx}: source untouched");
                if dangling {
                    assert_eq!(fs::read_link(&to).unwrap(), nowhere, "{ctx}");
                    assert!(!nowhere.exists(), "{ctx}: the dangling link was followed");
                } else {
                    assert_eq!(fs::read(&to).unwrap(), b"theirs", "{ctx}");
                }
                assert!(!temp_path_for(&to, "run1").exists(), "{ctx}");
            }
        }
    }
}

#[test]
fn a_missing_source_is_an_error_and_creates_nothing() {
    for mode in MODES {
        let tmp = tempfile::tempdir().unwrap();
        let to = tmp.path().join("s.jsonl");
        assert!(
            place(&RealFs, mode, &tmp.path().join("gone.jsonl"), &to, "r").is_err(),
            "{mode:?}"
        );
        assert!(names(tmp.path()).is_empty(), "{mode:?}");
    }
}

#[test]
fn moving_a_symlink_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, _) = source(tmp.path());
    let link = tmp.path().join("link.jsonl");
    std::os::unix::fs::symlink(&src, &link).unwrap();
    let to = tmp.path().join("s.jsonl");
    assert!(place(&RealFs, PlacementMode::Move, &link, &to, "r").is_err());
    assert!(!to.exists());
    assert!(fs::symlink_metadata(&link).is_ok());
}

/// A real second filesystem: /dev/shm (tmpfs) is usually another device than the temp dir.
#[test]
fn real_cross_device_placement_when_a_second_filesystem_exists() {
    let shm = Path::new("/dev/shm");
    let tmp = tempfile::tempdir().unwrap();
    let Ok(other) = tempfile::tempdir_in(shm) else {
        println!("notice: /dev/shm unavailable; real cross-device test skipped");
        return;
    };
    if fs::metadata(tmp.path()).unwrap().dev() == fs::metadata(other.path()).unwrap().dev() {
        println!(
            "notice: /dev/shm is on the same device as the temp dir; real cross-device test skipped"
        );
        return;
    }
    for mode in MODES {
        let (src, mtime) = source(tmp.path());
        let bytes = fs::read(&src).unwrap();
        let to = other.path().join(format!("{}.jsonl", mode.as_str()));
        let out = place(&RealFs, mode, &src, &to, "run1").unwrap();
        let expected = match mode {
            PlacementMode::Copy => PlacedAs::Copied,
            PlacementMode::Link => PlacedAs::Symlinked,
            PlacementMode::Move => PlacedAs::MovedByCopy,
        };
        assert_eq!(out, PlaceOutcome::Placed(expected), "{mode:?}");
        assert_eq!(fs::read(&to).unwrap(), bytes, "{mode:?}");
        if mode != PlacementMode::Link {
            assert_eq!(fs::metadata(&to).unwrap().modified().unwrap(), mtime, "{mode:?}");
        }
        assert_eq!(src.exists(), mode != PlacementMode::Move, "{mode:?}");
        // And again: the destination is now taken.
        if mode != PlacementMode::Move {
            assert_eq!(
                place(&RealFs, mode, &src, &to, "run2").unwrap(),
                PlaceOutcome::DestinationExists
            );
        }
        if src.exists() {
            fs::remove_file(&src).unwrap();
        }
    }
}

#[test]
fn modes_parse_and_serialize_in_lowercase() {
    for mode in MODES {
        assert_eq!(PlacementMode::parse(mode.as_str()), Some(mode));
        assert_eq!(serde_json::to_value(mode).unwrap(), mode.as_str());
    }
    assert_eq!(PlacementMode::default(), PlacementMode::Copy);
    assert_eq!(PlacementMode::parse("rename"), None);
}
