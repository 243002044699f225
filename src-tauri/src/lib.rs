//! # corral (the desktop shell)
//!
//! A thin Tauri 2 layer over `corral-engine`: typed IPC commands, settings, live updates from a
//! filesystem watcher, and drag-and-drop. Everything that reads or writes sessions is the
//! engine's; this crate validates what the UI sends and moves work off the main thread.

pub mod bindings;
pub mod commands;
pub mod events;
pub mod ipc;
pub mod launch;
pub mod render;
pub mod reveal;
pub mod settings;
pub mod state;

#[cfg(test)]
mod tests;

use std::process::ExitCode;
use std::sync::Arc;

use tauri::{AppHandle, DragDropEvent, Emitter, Runtime, WindowEvent};

use corral_engine::ScanProgress;
use corral_engine::search::IndexStatus;

use crate::events::{
    FILES_DROPPED, FilesDropped, LISTING_PROGRESS, SEARCH_STATUS, SESSIONS_CHANGED, SessionsChanged,
};
use crate::settings::LaunchEnv;
use crate::state::AppState;

/// Wires a builder (real or mock) with the state, the commands, live updates and drag-and-drop.
pub fn configure<R: Runtime>(builder: tauri::Builder<R>, state: AppState) -> tauri::Builder<R> {
    let for_setup = state.clone();
    builder
        .manage(state)
        .invoke_handler(ipc::handlers())
        .setup(move |app| {
            render::apply(app);
            start_live_updates(&for_setup, app.handle().clone(), std::time::Duration::ZERO);
            Ok(())
        })
        .on_window_event(|window, event| {
            if let WindowEvent::DragDrop(DragDropEvent::Drop { paths, .. }) = event {
                let paths = paths.iter().map(|p| p.display().to_string()).collect();
                let _ = window.emit(FILES_DROPPED, FilesDropped { paths, agent: None });
            }
        })
}

/// When no window asks for a listing, the search index starts this long after launch anyway.
const INDEX_FALLBACK: std::time::Duration = std::time::Duration::from_secs(5);

/// Sends `sessions-changed`, `listing-progress` and `search-status` through `handle`, starts the watcher and the
/// background search indexer (called once the app exists),
/// waiting at most `wait` for its watches (the app does not wait: its window comes first).
pub fn start_live_updates<R: Runtime>(
    state: &AppState,
    handle: AppHandle<R>,
    wait: std::time::Duration,
) {
    let (for_search, for_listing) = (handle.clone(), handle.clone());
    state.set_scan_notifier(Arc::new(move |progress: &ScanProgress| {
        let _ = for_listing.emit(LISTING_PROGRESS, progress);
    }));
    state.set_notifier(Arc::new(move |changed: SessionsChanged| {
        let _ = handle.emit(SESSIONS_CHANGED, changed);
    }));
    state.set_search_notifier(Arc::new(move |status: &IndexStatus| {
        let _ = for_search.emit(SEARCH_STATUS, status);
    }));
    state.restart_watcher(wait);
    // The listing starts now; the search index is brought up to date behind it.
    state.start_first_listing(INDEX_FALLBACK);
}

/// Runs the desktop app (after answering `--help`, `--version` or a missing display on the
/// terminal).
pub fn run() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if let Some(answer) = launch::terminal_answer(&args, launch::Display::of_process()) {
        #[allow(clippy::print_stdout, clippy::print_stderr, reason = "answered on the terminal")]
        if answer.to_stderr {
            eprintln!("{}", answer.text);
        } else {
            println!("{}", answer.text);
        }
        return ExitCode::from(answer.code);
    }
    #[cfg(all(unix, not(target_os = "macos")))]
    if let Some(e) = launch::restart_without_bus_autolaunch(launch::SessionBus::of_process()) {
        #[allow(clippy::print_stderr, reason = "the window is not open yet")]
        {
            eprintln!("corral: could not restart without starting a session bus: {e}");
        }
    }
    let state = AppState::launch(LaunchEnv::from_process(), Arc::new(reveal::open_in_file_manager));
    let builder = configure(tauri::Builder::default(), state)
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init());
    match builder.run(tauri::generate_context!()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            #[allow(clippy::print_stderr, reason = "the app failed to start; there is no window")]
            {
                eprintln!("corral: {e}");
            }
            ExitCode::FAILURE
        }
    }
}
