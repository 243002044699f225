use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets,
};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow, WebviewWindowBuilder};
use tempfile::TempDir;

use crate::settings::LaunchEnv;
use crate::state::AppState;

pub const ALPHA_JOB: &str = "a1a1a1a1-0000-4000-8000-000000000001";
pub const ALPHA_NATIVE: &str = "a1a1a1a1-0000-4000-8000-000000000002";
pub const CART: &str = "b2b2b2b2-0000-4000-8000-000000000001";
pub const CART_SUBAGENT: &str = "a36efb2a1231c41e2";

pub fn fixture_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/e2e-home")
}

pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

pub struct Harness {
    pub tmp: TempDir,
    pub app: App<MockRuntime>,
    pub window: WebviewWindow<MockRuntime>,
    pub state: AppState,
    pub opened: Arc<Mutex<Vec<PathBuf>>>,
}

impl Harness {
    pub fn home(&self) -> PathBuf {
        self.tmp.path().join("e2e/claude")
    }
    pub fn fleet_dir(&self) -> PathBuf {
        self.tmp.path().join("e2e/fleet")
    }
    pub fn data_dir(&self) -> PathBuf {
        self.tmp.path().join("data")
    }
    pub fn settings_file(&self) -> PathBuf {
        self.tmp.path().join("config/corral/settings.json")
    }

    /// Invokes a command as the UI would; `Err` holds the error value that crossed IPC.
    pub fn invoke(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        invoke(&self.window, cmd, args)
    }

    pub fn ok(&self, cmd: &str, args: Value) -> Value {
        self.invoke(cmd, args).unwrap_or_else(|e| panic!("{cmd} failed: {e}"))
    }

    /// The `kind` of the error a command returns.
    pub fn err_kind(&self, cmd: &str, args: Value) -> String {
        let err = self.invoke(cmd, args).expect_err("the command should fail");
        // Errors cross IPC as {kind, message} and nothing else.
        let obj = err.as_object().unwrap_or_else(|| panic!("not an object: {err}"));
        assert_eq!(obj.len(), 2, "{err}");
        assert!(obj["message"].as_str().is_some_and(|m| !m.is_empty()), "{err}");
        obj["kind"].as_str().unwrap().to_owned()
    }
}

pub fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        window,
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
    .map(|body| body.deserialize::<Value>().unwrap())
}

/// A mock app over a fresh copy of the fixture home (with its fleet unless `with_fleet` is false).
pub fn harness(with_fleet: bool) -> Harness {
    let tmp = tempfile::tempdir().unwrap();
    let env = fixture_env(tmp.path(), with_fleet);
    harness_with(tmp, env)
}

/// The launch environment of [`harness`]: a fresh copy of the fixture home under `root`, every
/// path under `root`.
pub fn fixture_env(root: &Path, with_fleet: bool) -> LaunchEnv {
    copy_tree(&fixture_root(), &root.join("e2e"));
    let fleet = with_fleet.then(|| root.join("e2e/fleet/herdctl.yaml"));
    LaunchEnv {
        claude_config_dir: Some(root.join("e2e/claude")),
        corral_data_dir: Some(root.join("data")),
        corral_fleet: fleet,
        home_dir: Some(root.join("home")),
        platform_data_dir: Some(root.join("share")),
        settings_file: Some(root.join("config/corral/settings.json")),
        xdg_config_home: None,
        appdata: None,
        // One known terminal "installed", for the terminals Settings offers.
        path: Some(fake_terminal_bin(root).into_os_string()),
        no_session_bus: false,
    }
}

/// A `bin/` folder holding an empty program (execute bit set) named as the platform's first
/// known terminal.
fn fake_terminal_bin(root: &std::path::Path) -> std::path::PathBuf {
    let bin = root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let program = bin.join(corral_engine::resume::known_terminals()[0]);
    std::fs::write(&program, "").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

pub fn harness_with(tmp: TempDir, env: LaunchEnv) -> Harness {
    let opened = Arc::new(Mutex::new(Vec::new()));
    let record = opened.clone();
    let state = AppState::launch(
        env,
        Arc::new(move |p: &Path| {
            record.lock().unwrap().push(p.to_path_buf());
            Ok(())
        }),
    );
    let app =
        crate::configure(mock_builder(), state.clone()).build(mock_context(noop_assets())).unwrap();
    let window = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    // The mock app never reaches `Ready`, so its setup hook does not run: start what it starts,
    // and wait for the watches so that a test's first change is seen.
    crate::start_live_updates(&state, app.handle().clone(), std::time::Duration::from_secs(10));
    Harness { tmp, app, window, state, opened }
}

/// Every session id in a `Listing`, in order.
pub fn listing_ids(listing: &Value) -> Vec<String> {
    listing["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["sessions"].as_array().unwrap().iter())
        .map(|s| s["sessionId"].as_str().unwrap().to_owned())
        .collect()
}
