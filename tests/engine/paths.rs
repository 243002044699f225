//! Path encoding (herdctl's per-UTF-16-unit rule and hash suffix), ids, temp dirs.

use corral_engine::paths::{
    cwd_is_within, encode_path, folder_is_descendant_of, folder_is_for, is_same_or_inside,
    is_temp_directory, resolve_claude_home, resolve_data_dir, validate_session_id,
};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

#[test]
fn encoding_matches_herdctl_vectors() {
    for (input, want) in [
        ("/", "-"),
        ("/path//double", "-path--double"),
        ("/tmp/.leading", "-tmp--leading"),
        ("C:\\Users\\test", "C--Users-test"),
        ("\\\\server\\share\\folder", "--server-share-folder"),
        ("", ""),
        ("/a/b-c", "-a-b-c"),
        ("/a-b/c", "-a-b-c"),
        ("/a/b/c", "-a-b-c"),
        (
            "/Users/dain/workspace/danieldemmel.me-next",
            "-Users-dain-workspace-danieldemmel-me-next",
        ),
        // An astral character is two UTF-16 units, so two '-' (a per-char port would give one).
        ("/home/u/😀/café", "-home-u----caf-"),
    ] {
        assert_eq!(encode_path(input), want, "{input:?}");
    }
}

#[test]
fn long_paths_get_herdctls_hash_suffix() {
    // Expected values computed with herdctl's JavaScript rule (`((h<<5)-h+code)|0`, base 36).
    let p = format!("/home/user/{}", "very-long-directory-name/".repeat(10));
    let e = encode_path(&p);
    assert_eq!(e.len(), 207);
    assert!(e.ends_with("-dire-htyxs3"), "{e}");
    let q = format!("/home/u/😀/{}", "é".repeat(250));
    assert!(encode_path(&q).ends_with("--wdzju9"));
    assert!(folder_is_for(&e, &p));
    // Claude Code's CLI hashes differently from the SDK, so long folders match by prefix.
    let other_hash = format!("{}-zzzzzz", &e[..200]);
    assert!(folder_is_for(&other_hash, &p));
    assert!(!folder_is_for(&e[..200], &p));
}

#[test]
fn worktree_prefix_and_cwd_confirmation() {
    assert!(folder_is_descendant_of("-home-u-my-app--claude-worktrees-x", "/home/u/my-app"));
    assert!(folder_is_descendant_of("-home-u-my-app--claude-worktrees-x", "/home/u/my-app/"));
    assert!(!folder_is_descendant_of("-home-u-my-app", "/home/u/my-app"));
    // The encoding alone cannot tell these apart; the recorded cwd does.
    assert!(folder_is_descendant_of("-home-u-proj-other", "/home/u/proj"));
    assert!(!cwd_is_within("/home/u/proj-other", "/home/u/proj"));
    assert!(cwd_is_within("/home/u/proj/sub", "/home/u/proj"));
    assert!(cwd_is_within("/home/u/proj", "/home/u/proj"));
}

#[test]
fn session_ids() {
    for ok in ["0f3c2a1b-1111-4111-8111-111111111111", "abc", "A-1"] {
        assert!(validate_session_id(ok).is_ok(), "{ok}");
    }
    for bad in
        ["", "../../etc/passwd", "a/b", "a\\b", "a.b", "a b", "..", "a\0b", "ü", &"a".repeat(200)]
    {
        assert!(validate_session_id(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn temp_directories_need_the_separator() {
    assert!(is_temp_directory("/tmp/x"));
    assert!(is_temp_directory("/tmp"));
    assert!(is_temp_directory("/private/tmp/x"));
    assert!(is_temp_directory("/var/folders/ab/T/x"));
    assert!(!is_temp_directory("/tmpfoo"));
    assert!(!is_temp_directory("/tmpfoo/bar"));
    assert!(!is_temp_directory("/home/u/tmp/x"));
    let os_tmp = std::env::temp_dir().join("work");
    assert!(is_temp_directory(&os_tmp.to_string_lossy()));
}

#[test]
fn claude_home_and_data_dir_resolution() {
    let home = Path::new("/home/u");
    let explicit = Path::new("/x/claude");
    assert_eq!(
        resolve_claude_home(Some(explicit), Some(Path::new("/env")), Some(home)).unwrap(),
        explicit
    );
    assert_eq!(
        resolve_claude_home(None, Some(Path::new("/env")), Some(home)).unwrap(),
        PathBuf::from("/env")
    );
    assert_eq!(
        resolve_claude_home(None, Some(Path::new("  ")), Some(home)).unwrap(),
        home.join(".claude")
    );
    assert_eq!(resolve_claude_home(None, None, Some(home)).unwrap(), home.join(".claude"));
    assert!(resolve_claude_home(None, None, None).is_err());
    let data = Path::new("/home/u/.local/share");
    assert_eq!(resolve_data_dir(None, None, Some(data)).unwrap(), data.join("corral"));
    assert_eq!(
        resolve_data_dir(None, Some(Path::new("/d")), Some(data)).unwrap(),
        PathBuf::from("/d")
    );
}

#[test]
fn same_or_inside_resolves_links_and_missing_tails() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    std::fs::create_dir(&store).unwrap();
    assert!(is_same_or_inside(&store, &store));
    assert!(is_same_or_inside(&store.join("a/b/not-yet"), &store));
    assert!(!is_same_or_inside(&tmp.path().join("storex"), &store));
    #[cfg(unix)]
    {
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&store, &link).unwrap();
        assert!(is_same_or_inside(&link.join("backups"), &store));
    }
}

proptest! {
    #[test]
    fn encoding_is_one_dash_or_alnum_per_utf16_unit(s in "\\PC{0,120}") {
        let e = encode_path(&s);
        let units = s.encode_utf16().count();
        prop_assert_eq!(e.len(), units);
        prop_assert!(e.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
        for (c, out) in s.encode_utf16().zip(e.bytes()) {
            let keep = u8::try_from(c).is_ok_and(|b| b.is_ascii_alphanumeric());
            prop_assert_eq!(keep, out != b'-');
        }
    }

    #[test]
    fn long_encodings_are_prefix_dash_hash(s in "[a-z/._-]{201,400}") {
        let e = encode_path(&s);
        prop_assert!(e.len() > 201);
        prop_assert_eq!(e.as_bytes()[200], b'-');
        prop_assert!(e[201..].bytes().all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()));
        prop_assert!(folder_is_for(&e, &s));
    }

    #[test]
    fn any_string_is_a_valid_id_or_a_typed_error(s in "\\PC{0,64}") {
        match validate_session_id(&s) {
            Ok(id) => prop_assert!(id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')),
            Err(e) => prop_assert_eq!(e.kind(), corral_engine::ErrorKind::InvalidInput),
        }
    }
}
