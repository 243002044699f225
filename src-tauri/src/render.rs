//! How the window is drawn. WebKitGTK composites a page with OpenGL. Without a GPU (virtual
//! machines, containers, remote or headless X servers) Mesa draws that OpenGL in software
//! (llvmpipe), and compositing then costs more than it saves. Measured on 10,000 sessions under
//! Xvfb on a 2-core machine: a scroll frame took 20–33 ms composited and 16 ms (the display's own
//! interval) drawn directly; a fast scroll 62 ms against 26 ms; the web process held 85–113 MB more.
//! So the app composites only where a GPU can do it, unless the person says otherwise.

use std::path::Path;

/// Where Linux lists GPU render nodes (`renderD128`, …).
pub const DRI_DIR: &str = "/dev/dri";

/// The environment variable that overrides the choice: `on` or `off` (anything else: automatic).
pub const CHOICE_VAR: &str = "CORRAL_COMPOSITING";

/// Whether WebKit should composite with OpenGL: the person's choice (`on`/`off`), else only
/// where `dri` holds a GPU render node.
pub fn gpu_compositing(choice: Option<&str>, dri: &Path) -> bool {
    match choice.map(str::trim) {
        Some(c) if c.eq_ignore_ascii_case("on") => true,
        Some(c) if c.eq_ignore_ascii_case("off") => false,
        _ => has_render_node(dri),
    }
}

/// True when `dri` lists a render node (a GPU the system can draw with).
pub fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).is_ok_and(|entries| {
        entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Turns WebKit's compositing off in the main window when there is no GPU to do it. Called from
/// the setup hook: the window exists and its page has not drawn yet.
#[cfg(target_os = "linux")]
pub fn apply<R: tauri::Runtime>(app: &tauri::App<R>) {
    use tauri::Manager;
    use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};

    let choice = std::env::var(CHOICE_VAR).ok();
    if gpu_compositing(choice.as_deref(), Path::new(DRI_DIR)) {
        return;
    }
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.with_webview(|webview| {
            if let Some(settings) = webview.inner().settings() {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
        });
    }
}

/// Other platforms' webviews choose well on their own.
#[cfg(not(target_os = "linux"))]
pub fn apply<R: tauri::Runtime>(_app: &tauri::App<R>) {}
