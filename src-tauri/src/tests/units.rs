use std::path::PathBuf;

use serde_json::json;

use crate::settings::{Effective, LaunchEnv, SavedSettings, SettingsPatch};

/// A patch as `set_settings` takes it: deserialized, then checked.
fn patch_from(args: &serde_json::Value) -> Result<SettingsPatch, String> {
    let patch: SettingsPatch = serde_json::from_value(args.clone()).map_err(|e| e.to_string())?;
    patch.check().map_err(|e| e.to_string())?;
    Ok(patch)
}

#[test]
fn settings_patch_tells_absent_from_null() {
    let p = patch_from(&json!({})).unwrap();
    assert_eq!(p, SettingsPatch::default());
    let p = patch_from(&json!({"fleetFile": null})).unwrap();
    assert_eq!(p.fleet_file, Some(None));
    assert_eq!(p.claude_home, None);
    let p = patch_from(&json!({"claudeHome": "/h/.claude"})).unwrap();
    assert_eq!(p.claude_home, Some(Some(PathBuf::from("/h/.claude"))));
    assert!(patch_from(&json!("x")).is_err());
    assert!(patch_from(&json!({"claudeHome": "a\u{0}b"})).is_err());
}

#[test]
fn the_launch_environment_overrides_saved_settings() {
    let saved = SavedSettings {
        claude_home: Some("/saved/claude".into()),
        fleet_file: Some("/saved/herdctl.yaml".into()),
        data_dir: Some("/saved/data".into()),
        desktop_store: Some("/saved/store".into()),
        ..SavedSettings::default()
    };
    let env = LaunchEnv {
        claude_config_dir: Some("/env/claude".into()),
        corral_fleet: Some("/env/herdctl.yaml".into()),
        home_dir: Some("/home/u".into()),
        ..LaunchEnv::default()
    };
    let e = Effective::at_launch(&env, &saved).unwrap();
    assert_eq!(e.claude_home, PathBuf::from("/env/claude"));
    assert_eq!(e.fleet_file, Some(PathBuf::from("/env/herdctl.yaml")));
    assert_eq!(e.data_dir, PathBuf::from("/saved/data"));
    assert_eq!(e.desktop_store, Some(PathBuf::from("/saved/store")));
    // Without environment: saved values; without those: defaults.
    let bare = LaunchEnv {
        home_dir: Some("/home/u".into()),
        platform_data_dir: Some("/home/u/.local/share".into()),
        ..LaunchEnv::default()
    };
    let e = Effective::at_launch(&bare, &saved).unwrap();
    assert_eq!(e.claude_home, PathBuf::from("/saved/claude"));
    let e = Effective::at_launch(&bare, &SavedSettings::default()).unwrap();
    assert_eq!(e.claude_home, PathBuf::from("/home/u/.claude"));
    assert_eq!(e.fleet_file, None);
    assert_eq!(e.data_dir, PathBuf::from("/home/u/.local/share/corral"));
    // The desktop app's store: the platform's place for it, under the home (or
    // $XDG_CONFIG_HOME on Linux; %APPDATA%, absent here, on Windows); a patch sets it,
    // `null` puts the default back.
    let store = e
        .desktop_store
        .clone()
        .unwrap_or_else(|| PathBuf::from("/home/u/Claude/claude-code-sessions"));
    assert!(
        store.starts_with("/home/u") && store.ends_with("Claude/claude-code-sessions"),
        "{store:?}"
    );
    let p = patch_from(&json!({"desktopStore": "/picked/store"})).unwrap();
    let next = p.apply(&bare, &e).unwrap();
    assert_eq!(next.desktop_store, Some(PathBuf::from("/picked/store")));
    let back = patch_from(&json!({"desktopStore": null})).unwrap();
    assert_eq!(back.apply(&bare, &next).unwrap().desktop_store, e.desktop_store);
    assert!(patch_from(&json!({"desktopStore": "relative"})).is_err());
}

#[test]
fn a_corrupt_settings_file_is_reported_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("settings.json");
    std::fs::write(&file, "{not json").unwrap();
    let err = crate::settings::load(&file).unwrap_err();
    assert_eq!(err.kind(), corral_engine::ErrorKind::Corrupt);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "{not json");
    assert_eq!(
        crate::settings::load(&tmp.path().join("absent.json")).unwrap(),
        SavedSettings::default()
    );
}

/// A FIFO where the settings file belongs would block a plain read forever (the window would
/// never open); it is refused at once as unreadable.
#[cfg(unix)]
#[test]
fn a_fifo_as_the_settings_file_is_refused_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("settings.json");
    assert!(std::process::Command::new("mkfifo").arg(&file).status().unwrap().success());
    let (tx, rx) = std::sync::mpsc::channel();
    let f = file.clone();
    std::thread::spawn(move || {
        let _ = tx.send(crate::settings::load(&f).map_err(|e| (e.kind(), e.to_string())));
    });
    let got = rx.recv_timeout(std::time::Duration::from_secs(20)).expect("load hangs on a FIFO");
    let (kind, message) = got.unwrap_err();
    assert_eq!(kind, corral_engine::ErrorKind::Corrupt);
    assert!(message.contains("FIFO"), "{message}");
}

fn read_json(rel: &str) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_ui_gets_only_core_the_open_and_save_dialogs_and_notifications() {
    let cap = read_json("capabilities/default.json");
    assert_eq!(cap["windows"], json!(["main"]));
    assert_eq!(
        cap["permissions"],
        json!(["core:default", "dialog:allow-open", "dialog:allow-save", "notification:default"])
    );
}

#[test]
fn the_csp_is_strict() {
    let conf = read_json("tauri.conf.json");
    let csp = &conf["app"]["security"]["csp"];
    assert_eq!(csp["default-src"], json!("'self'"));
    assert_eq!(csp["script-src"], json!("'self'"));
    assert_eq!(csp["object-src"], json!("'none'"));
    let all = csp.to_string();
    assert!(!all.contains("unsafe-eval"), "{all}");
    assert!(!all.contains('*'), "no wildcard sources: {all}");
    assert_eq!(conf["app"]["windows"][0]["title"], json!("Corral"));
    assert_eq!(conf["app"]["windows"][0]["minWidth"], json!(900));
}

#[test]
fn an_export_goes_only_to_an_absolute_file_path() {
    use crate::commands::check_export_path;
    let dir = tempfile::tempdir().unwrap();
    let ok = dir.path().join("chat.md");
    assert_eq!(check_export_path(ok.to_str().unwrap()).unwrap(), ok);
    for bad in ["chat.md", "", "relative/chat.md", "/tmp/a\u{7}b.md"] {
        let e = check_export_path(bad).unwrap_err();
        assert_eq!(e.kind, corral_engine::ErrorKind::InvalidInput, "{bad:?}");
    }
}

#[test]
fn compositing_needs_a_gpu_render_node_unless_the_person_chooses() {
    use crate::render::{gpu_compositing, has_render_node};
    let dir = tempfile::tempdir().unwrap();
    let dri = dir.path().join("dri");
    // No /dev/dri at all (a VM or container), then one with only a primary node: no GPU to draw.
    assert!(!has_render_node(&dri));
    std::fs::create_dir(&dri).unwrap();
    std::fs::write(dri.join("card0"), "").unwrap();
    assert!(!has_render_node(&dri));
    assert!(!gpu_compositing(None, &dri));
    assert!(!gpu_compositing(Some("auto"), &dri));
    assert!(gpu_compositing(Some(" ON "), &dri));
    std::fs::write(dri.join("renderD128"), "").unwrap();
    assert!(has_render_node(&dri));
    assert!(gpu_compositing(None, &dri));
    assert!(gpu_compositing(Some(""), &dri));
    assert!(!gpu_compositing(Some("off"), &dri));
}

#[test]
fn help_version_and_a_missing_display_are_answered_on_the_terminal() {
    use crate::launch::{Display, terminal_answer};
    let args = |a: &[&str]| a.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
    let here = Display { present: true };
    let help = terminal_answer(&args(&["--help"]), here).unwrap();
    assert!(help.text.contains("corral-cli") && help.text.contains("CORRAL_FLEET"), "{help:?}");
    assert_eq!((help.code, help.to_stderr), (0, false));
    assert_eq!(terminal_answer(&args(&["-h"]), Display { present: false }).unwrap().code, 0);
    let version = terminal_answer(&args(&["--version"]), here).unwrap();
    assert_eq!(version.text, format!("corral {}", env!("CARGO_PKG_VERSION")));
    // No display: a sentence on stderr, not a toolkit panic.
    let none = terminal_answer(&[], Display { present: false }).unwrap();
    assert!(none.to_stderr && none.code == 1 && none.text.contains("no display"), "{none:?}");
    // A display and no flag (or one the platform adds): the window opens.
    assert_eq!(terminal_answer(&[], here), None);
    assert_eq!(terminal_answer(&args(&["-psn_0_12345"]), here), None);
}

#[test]
fn the_session_bus_is_found_from_its_address_or_the_runtime_dir_socket() {
    use crate::launch::{NO_SESSION_BUS, SessionBus};
    use std::ffi::OsStr;
    let runtime = tempfile::tempdir().unwrap();
    let (addr, dir) = (Some(OsStr::new("unix:path=/run/user/1000/bus")), Some(runtime.path()));
    assert_eq!(SessionBus::of(addr, None), SessionBus::Present);
    assert_eq!(SessionBus::of(Some(OsStr::new(NO_SESSION_BUS)), dir), SessionBus::Disabled);
    // No address and no socket: GLib and libdbus would start one, so the app restarts first.
    assert_eq!(SessionBus::of(None, dir), SessionBus::Missing);
    assert_eq!(SessionBus::of(Some(OsStr::new("")), None), SessionBus::Missing);
    // The user's bus socket in the runtime dir is found as the libraries find it.
    std::fs::write(runtime.path().join("bus"), "").unwrap();
    assert_eq!(SessionBus::of(None, dir), SessionBus::Present);
    assert!(SessionBus::Present.reachable());
    assert!(!SessionBus::Disabled.reachable() && !SessionBus::Missing.reachable());
}
