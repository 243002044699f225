//! The IPC commands, each under the name, arguments and result declared in [`crate::ipc`] (which
//! documents what each one does and registers it). Each one checks its arguments, then hands the
//! work to the engine on a blocking thread. Errors cross IPC as `{kind, message}` only.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use chrono::Utc;
use corral_engine::adopt::{self, AdoptResult, AdoptableSession, ReleaseResult};
use corral_engine::import::{
    self, ApplyOptions, ImportPlan, ImportProgress, ImportReport, ImportTarget,
};
use corral_engine::occupancy::{OccupancySnapshot, SystemProcesses};
use corral_engine::placement::PlacementMode;
use corral_engine::quarantine;
use corral_engine::renames::Renamed;
use corral_engine::reopen;
use corral_engine::runs::{self, RunSummary, UndoPlan, UndoReport};

use corral_engine::catalog::PageAt;
use corral_engine::desktop;
use corral_engine::export::{ExportRequest, ExportSummary};
use corral_engine::lost_questions::LostQuestion;
use corral_engine::model::{AgentSummary, AttachmentData, MessagePage, ModelUsage, SessionSummary};
use corral_engine::search::{IndexStatus, SearchOptions, SearchResults, TranscriptMatches};
use corral_engine::{
    Catalog, ErrorKind, ErrorPayload, ListOptions, Listing, ListingSoFar, SessionDetails,
};
use tauri::State;

use crate::ipc::Progress;
use crate::reveal;
use crate::settings::{Settings, SettingsPatch};
use crate::state::{AppState, invalid};

/// What every command returns: its result, or an error as `{kind, message}`.
pub type Reply<T> = Result<T, ErrorPayload>;

/// Most messages one page may ask for.
pub const MAX_PAGE: u32 = 2000;
/// Most matches a find in one transcript lists (the count is exact beyond it).
const MAX_FIND_MATCHES: usize = 5000;
/// Most sessions one search may ask for.
const MAX_SEARCH_SESSIONS: u32 = 500;
/// Longest query accepted (the engine says what is wrong with shorter ones).
const MAX_QUERY_CHARS: usize = corral_engine::search::query::MAX_QUERY_CHARS;
/// Longest agent name accepted.
const MAX_AGENT_CHARS: usize = 256;

/// Runs `work` on a blocking thread with the open catalog.
async fn with_catalog<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&Catalog) -> Result<T, corral_engine::Error> + Send + 'static,
) -> Reply<T> {
    let catalog = state.catalog()?;
    blocking(move || work(&catalog)).await
}

/// Runs `work` on a blocking thread; its error (an engine error or a payload) becomes the reply's.
async fn blocking<T: Send + 'static, E: Into<ErrorPayload> + Send + 'static>(
    work: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Reply<T> {
    let done = tauri::async_runtime::spawn_blocking(work).await.map_err(|e| ErrorPayload {
        kind: ErrorKind::Io,
        message: format!("background task failed: {e}"),
    })?;
    done.map_err(Into::into)
}

pub async fn get_settings(state: State<'_, AppState>) -> Reply<Settings> {
    state.settings()
}

pub async fn set_settings(state: State<'_, AppState>, patch: SettingsPatch) -> Reply<Settings> {
    patch.check()?;
    let state = state.inner().clone();
    blocking(move || state.update(&patch)).await
}

pub async fn list_agents(state: State<'_, AppState>) -> Reply<Vec<AgentSummary>> {
    let catalog = state.fleet_catalog()?;
    blocking(move || catalog.agents()).await
}

pub async fn list_sessions(state: State<'_, AppState>, include_temp: bool) -> Reply<Listing> {
    let listing =
        with_catalog(&state, move |c| c.all_sessions(ListOptions { limit: None, include_temp }))
            .await;
    state.listing_served();
    listing
}

pub async fn listing_so_far(
    state: State<'_, AppState>,
    include_temp: bool,
) -> Reply<Option<ListingSoFar>> {
    let catalog = state.catalog()?;
    let opts = ListOptions { limit: None, include_temp };
    blocking(move || Ok::<_, ErrorPayload>(catalog.listing_so_far(opts))).await
}

pub async fn agent_sessions(
    state: State<'_, AppState>,
    agent: String,
) -> Reply<Vec<SessionSummary>> {
    check_agent(&agent)?;
    let catalog = state.fleet_catalog()?;
    blocking(move || catalog.agent_sessions(&agent, ListOptions::default())).await
}

pub async fn session_info(state: State<'_, AppState>, session_id: String) -> Reply<SessionDetails> {
    check_session_id(&session_id)?;
    with_catalog(&state, move |c| c.session_details(&session_id)).await
}

pub async fn session_messages(
    state: State<'_, AppState>,
    session_id: String,
    before: Option<u64>,
    limit: u32,
) -> Reply<MessagePage> {
    check_session_id(&session_id)?;
    let limit = check_limit(limit)?;
    with_catalog(&state, move |c| c.messages_page(&session_id, before, limit)).await
}

pub async fn subagent_messages(
    state: State<'_, AppState>,
    session_id: String,
    agent_id: String,
    before: Option<u64>,
    limit: u32,
) -> Reply<MessagePage> {
    check_session_id(&session_id)?;
    check_agent_id(&agent_id)?;
    let limit = check_limit(limit)?;
    with_catalog(&state, move |c| c.subagent_page(&session_id, &agent_id, before, limit)).await
}

/// A page of a session's transcript, or of one of its subagents', where `at` says (`around` a
/// search hit's offset, `after` a page's `laterCursor`, `before` an `earlierCursor`).
pub async fn transcript_page(
    state: State<'_, AppState>,
    session_id: String,
    agent_id: Option<String>,
    at: PageAt,
    limit: u32,
) -> Reply<MessagePage> {
    check_session_id(&session_id)?;
    if let Some(id) = &agent_id {
        check_agent_id(id)?;
    }
    let limit = check_limit(limit)?;
    with_catalog(&state, move |c| c.page(&session_id, agent_id.as_deref(), at, limit)).await
}

/// The messages of one rewound branch of a session (a page's `rewinds[].branch`).
pub async fn rewound_branch(
    state: State<'_, AppState>,
    session_id: String,
    branch: u64,
    limit: u32,
) -> Reply<MessagePage> {
    check_session_id(&session_id)?;
    let limit = check_limit(limit)?;
    with_catalog(&state, move |c| c.rewound_branch(&session_id, branch, limit)).await
}

/// The bytes of an image attached to a prompt (`attachments[].offset` and `.index` of a page's
/// message), checked to be the image type it claims, for a thumbnail.
pub async fn transcript_attachment(
    state: State<'_, AppState>,
    session_id: String,
    agent_id: Option<String>,
    offset: u64,
    index: u32,
) -> Reply<AttachmentData> {
    check_session_id(&session_id)?;
    if let Some(id) = &agent_id {
        check_agent_id(id)?;
    }
    with_catalog(&state, move |c| c.attachment(&session_id, agent_id.as_deref(), offset, index))
        .await
}

/// Token usage by model over the branch `claude --resume` continues (read when asked: it reads
/// the whole transcript).
pub async fn session_usage(
    state: State<'_, AppState>,
    session_id: String,
) -> Reply<Vec<ModelUsage>> {
    check_session_id(&session_id)?;
    with_catalog(&state, move |c| c.usage_by_model(&session_id)).await
}

/// Exports a session's transcript to `path` (chosen in a save dialog, which asked before
/// replacing a file: `replace`). Written beside it and renamed into place when complete.
pub async fn export_session(
    state: State<'_, AppState>,
    session_id: String,
    request: ExportRequest,
    path: String,
    replace: bool,
) -> Reply<ExportSummary> {
    check_session_id(&session_id)?;
    let path = check_export_path(&path)?;
    with_catalog(&state, move |c| {
        corral_engine::export::export_to_file(c, &session_id, request, &path, replace)
    })
    .await
}

/// Searches every conversation the index covers (the last commit; the background indexer keeps
/// it up to date). `limit` counts sessions.
pub async fn search(state: State<'_, AppState>, query: String, limit: u32) -> Reply<SearchResults> {
    check_query(&query)?;
    if limit == 0 || limit > MAX_SEARCH_SESSIONS {
        return Err(invalid(format!("limit must be between 1 and {MAX_SEARCH_SESSIONS}")));
    }
    let index = state.search_index()?;
    let opts = SearchOptions { limit: limit as usize, ..SearchOptions::default() };
    with_catalog(&state, move |c| index.search(c, &query, opts)).await
}

/// Every match of `query` in one transcript (a session's, or one of its subagents' runs), in file
/// order: find in the viewer.
pub async fn find_in_transcript(
    state: State<'_, AppState>,
    session_id: String,
    agent_id: Option<String>,
    query: String,
) -> Reply<TranscriptMatches> {
    check_session_id(&session_id)?;
    if let Some(id) = &agent_id {
        check_agent_id(id)?;
    }
    check_query(&query)?;
    let index = state.search_index()?;
    with_catalog(&state, move |c| {
        let path = c.transcript_path(&session_id, agent_id.as_deref())?;
        index.find_in_transcript(&path, &query, MAX_FIND_MATCHES)
    })
    .await
}

pub async fn search_status(state: State<'_, AppState>) -> Reply<IndexStatus> {
    state.search_status()
}

/// `name` null or empty (after trimming) clears the custom name. The reply names the run that
/// undoes the rename (`undo_run`).
pub async fn rename_session(
    state: State<'_, AppState>,
    session_id: String,
    name: Option<String>,
) -> Reply<Renamed> {
    check_session_id(&session_id)?;
    with_catalog(&state, move |c| {
        corral_engine::renames::renamed_at(c, &session_id, name.as_deref(), Utc::now())
    })
    .await
}

/// Opens a folder of an import run in the file manager. Only paths inside `<data dir>/runs/`.
pub async fn reveal_path(state: State<'_, AppState>, path: String) -> Reply<()> {
    let data_dir = state.settings()?.data_dir;
    let opener = state.opener();
    blocking(move || {
        let folder = reveal::allowed_folder(Path::new(&data_dir), &path)?;
        opener(&folder)
            .map_err(|e| ErrorPayload::from(corral_engine::Error::io_at("open", &folder, e)))
    })
    .await
}

// ---- argument checks (before anything touches the disk) ----

/// An export's destination: an absolute path to a file.
pub fn check_export_path(path: &str) -> Reply<PathBuf> {
    let p = PathBuf::from(path);
    if path.chars().any(char::is_control) || !p.is_absolute() || p.file_name().is_none() {
        return Err(invalid(format!("not a file path to export to: {path:?}")));
    }
    Ok(p)
}

pub fn check_session_id(id: &str) -> Reply<()> {
    Ok(corral_engine::paths::validate_session_id(id).map(|_| ())?)
}

fn check_agent(agent: &str) -> Reply<()> {
    if agent.trim().is_empty() {
        return Err(invalid("agent must not be empty"));
    }
    if agent.chars().count() > MAX_AGENT_CHARS || agent.chars().any(char::is_control) {
        return Err(invalid(format!("invalid agent name {agent:?}")));
    }
    Ok(())
}

fn check_agent_id(id: &str) -> Reply<()> {
    let ok = !id.is_empty()
        && id.len() <= 128
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok { Ok(()) } else { Err(invalid(format!("invalid subagent id {id:?}"))) }
}

fn check_query(query: &str) -> Reply<()> {
    if query.chars().count() > MAX_QUERY_CHARS {
        return Err(invalid(format!("the query is longer than {MAX_QUERY_CHARS} characters")));
    }
    Ok(())
}

fn check_limit(limit: u32) -> Reply<usize> {
    if limit == 0 || limit > MAX_PAGE {
        return Err(invalid(format!("limit must be between 1 and {MAX_PAGE}, got {limit}")));
    }
    usize::try_from(limit).map_err(|_| invalid("limit is too large"))
}

// ---- adoption, import and undo ----

/// Most sources one import may name (files or folders; folders are expanded by the engine).
const MAX_SOURCES: usize = 10_000;

pub async fn adoptable(
    state: State<'_, AppState>,
    agent: String,
    from: Option<String>,
    all_folders: bool,
) -> Reply<Vec<AdoptableSession>> {
    check_agent(&agent)?;
    let from = from.map(|f| check_abs_path("from", &f)).transpose()?;
    let catalog = state.fleet_catalog()?;
    blocking(move || adopt::adoptable(&catalog, &agent, from.as_deref(), all_folders)).await
}

pub async fn adopt(
    state: State<'_, AppState>,
    agent: String,
    session_id: String,
) -> Reply<AdoptResult> {
    check_agent(&agent)?;
    check_session_id(&session_id)?;
    let catalog = state.fleet_catalog()?;
    blocking(move || adopt::adopt(&catalog, &agent, &session_id, Utc::now())).await
}

pub async fn release(
    state: State<'_, AppState>,
    agent: String,
    session_id: String,
) -> Reply<ReleaseResult> {
    check_agent(&agent)?;
    check_session_id(&session_id)?;
    let catalog = state.fleet_catalog()?;
    blocking(move || adopt::release(&catalog, &agent, &session_id, Utc::now())).await
}

pub async fn plan_import(
    state: State<'_, AppState>,
    target: ImportTarget,
    sources: Vec<String>,
    mode: PlacementMode,
) -> Reply<ImportPlan> {
    if let ImportTarget::Agent { name } = &target {
        check_agent(name)?;
    }
    let sources = check_sources(&sources)?;
    with_catalog(&state, move |c| {
        let occupancy = OccupancySnapshot::capture(&SystemProcesses);
        import::plan_import(c, &target, &sources, mode, &occupancy)
    })
    .await
}

/// Applies a plan (re-validated by the engine: a plan may come from anywhere), sending an
/// `ImportProgress` before each file. `cancel_run` stops it between files.
pub async fn apply_import(
    state: State<'_, AppState>,
    plan: ImportPlan,
    on_progress: Progress<ImportProgress>,
) -> Reply<ImportReport> {
    let cancel = state.run_cancel();
    cancel.store(false, Ordering::SeqCst);
    with_catalog(&state, move |c| {
        let occupancy = OccupancySnapshot::capture(&SystemProcesses);
        let opts = ApplyOptions { occupancy: Some(&occupancy), ..ApplyOptions::default() };
        import::apply_with(c, &plan, Utc::now(), &opts, &mut |progress| {
            let _ = on_progress.0.send(progress);
            !cancel.load(Ordering::SeqCst)
        })
    })
    .await
}

pub async fn cancel_run(state: State<'_, AppState>) -> Reply<()> {
    state.run_cancel().store(true, Ordering::SeqCst);
    Ok(())
}

/// The desktop app's sidebars and what the current one is missing: against `account` and
/// `org` when given, else the sidebar the rules name.
pub async fn desktop_report(
    state: State<'_, AppState>,
    account: Option<String>,
    org: Option<String>,
) -> Reply<desktop::Report> {
    let store = desktop_store(&state)?;
    with_catalog(&state, move |c| {
        desktop::report_in(c, &store, (account.as_deref(), org.as_deref()), None, None)
    })
    .await
}

/// The desktop app's store in force, or why there is none.
fn desktop_store(state: &AppState) -> Reply<PathBuf> {
    state.desktop_store()?.ok_or_else(|| {
        invalid("this platform has no default desktop app store; choose its folder in Settings")
    })
}

/// Plans restoring `request` into the sidebar `account`/`org` (writes nothing), with whether
/// the desktop app runs now.
pub async fn desktop_plan_restore(
    state: State<'_, AppState>,
    account: String,
    org: String,
    request: desktop::RestoreRequest,
) -> Reply<desktop::RestorePreview> {
    if request.ids.len() > MAX_SOURCES {
        return Err(invalid(format!("at most {MAX_SOURCES} conversations at once")));
    }
    let store = desktop_store(&state)?;
    blocking(move || {
        let store = desktop::Store::read(&store);
        desktop::RestorePreview::of(&store, (&account, &org), &request, &SystemProcesses)
    })
    .await
}

/// Carries out a restore plan as an undoable run (the engine plans it again and refuses what
/// changed), sending a `RestoreProgress` before each entry; `cancel_run` stops it between
/// entries.
pub async fn desktop_restore(
    state: State<'_, AppState>,
    plan: desktop::RestorePlan,
    on_progress: Progress<desktop::RestoreProgress>,
) -> Reply<desktop::RestoreReport> {
    let store = desktop_store(&state)?;
    let cancel = state.run_cancel();
    cancel.store(false, Ordering::SeqCst);
    with_catalog(&state, move |c| {
        let run = desktop::RestoreRun {
            data_dir: c.data_dir(),
            processes: &SystemProcesses,
            now: Utc::now(),
            clock: Utc::now,
        };
        desktop::restore(&store, &plan, &run, &mut |progress| {
            let _ = on_progress.0.send(progress);
            !cancel.load(Ordering::SeqCst)
        })
    })
    .await
}

/// Questions the desktop app rejected when it quit, from the search index (as far as it is
/// built), newest first.
pub async fn lost_questions(state: State<'_, AppState>) -> Reply<Vec<LostQuestion>> {
    let index = state.search_index()?;
    with_catalog(&state, move |c| corral_engine::lost_questions::lost_questions(&index, c)).await
}

/// Which sessions a `claude` process is on now and what each is doing (one look at the process
/// table; the UI asks every few seconds while its window is visible, never while hidden).
pub async fn live_states(state: State<'_, AppState>) -> Reply<corral_engine::live::LiveNow> {
    with_catalog(&state, |c| corral_engine::live::live_now_in(c, &SystemProcesses, Utc::now()))
        .await
}

/// Opens a terminal resuming the session (the platform's terminals, `$TERMINAL` first) and waits
/// up to 5 s for `claude` to be on it; `from_home` resumes from the home folder when the
/// session's own folder is gone.
pub async fn resume_session(
    state: State<'_, AppState>,
    session_id: String,
    from_home: bool,
) -> Reply<corral_engine::resume::ResumeOutcome> {
    check_session_id(&session_id)?;
    let terminals = corral_engine::resume::terminals_to_try(
        state.terminal()?.as_deref(),
        std::env::var("TERMINAL").ok().as_deref(),
    )?;
    with_catalog(&state, move |c| {
        corral_engine::resume::resume_in(c, &session_id, from_home, &terminals, &SystemProcesses)
    })
    .await
}

/// What deleting `request` would move into the quarantine (writes nothing).
pub async fn plan_delete(
    state: State<'_, AppState>,
    mut request: quarantine::DeleteRequest,
) -> Reply<quarantine::DeletePlan> {
    check_delete(&request)?;
    request.desktop_store = state.desktop_store()?;
    with_catalog(&state, move |c| {
        quarantine::plan_delete_in(c, &request, &SystemProcesses, Utc::now())
    })
    .await
}

/// Deletes `request` into the quarantine as an undoable run, sending a `DeleteProgress` after
/// each session; `cancel_run` stops it between sessions.
pub async fn delete_sessions(
    state: State<'_, AppState>,
    mut request: quarantine::DeleteRequest,
    on_progress: Progress<quarantine::DeleteProgress>,
) -> Reply<quarantine::DeleteReport> {
    check_delete(&request)?;
    request.desktop_store = state.desktop_store()?;
    let cancel = state.run_cancel();
    cancel.store(false, Ordering::SeqCst);
    with_catalog(&state, move |c| {
        let mut progress = |p| {
            let _ = on_progress.0.send(p);
        };
        quarantine::delete_in(c, &request, &SystemProcesses, Utc::now(), &mut progress, &cancel)
    })
    .await
}

fn check_delete(request: &quarantine::DeleteRequest) -> Reply<()> {
    if request.session_ids.len() > MAX_SOURCES {
        return Err(invalid(format!("at most {MAX_SOURCES} sessions at once")));
    }
    Ok(())
}

/// Every delete run and what its quarantine folder holds, newest first.
pub async fn quarantine(state: State<'_, AppState>) -> Reply<Vec<quarantine::QuarantineRun>> {
    with_catalog(&state, |c| quarantine::quarantine(c.data_dir())).await
}

/// Puts a delete run's sessions back (only `session_id`'s when given).
pub async fn restore_deleted(
    state: State<'_, AppState>,
    run_id: String,
    session_id: Option<String>,
) -> Reply<UndoReport> {
    check_run_id(&run_id)?;
    let store = state.desktop_store()?;
    with_catalog(&state, move |c| {
        quarantine::restore_in(c, store, &run_id, session_id.as_deref(), Utc::now())
    })
    .await
}

/// Sends delete runs' quarantine folders to the system's trash.
pub async fn empty_quarantine(
    state: State<'_, AppState>,
    run_ids: Vec<String>,
) -> Reply<quarantine::EmptyReport> {
    for id in &run_ids {
        check_run_id(id)?;
    }
    with_catalog(&state, move |c| {
        quarantine::empty(c.data_dir(), &run_ids, &quarantine::SystemTrash, Utc::now())
    })
    .await
}

/// Where the Claude home's space goes.
pub async fn storage(state: State<'_, AppState>) -> Reply<corral_engine::storage::StorageReport> {
    with_catalog(&state, |c| corral_engine::storage::storage(c, Utc::now())).await
}

pub async fn list_runs(state: State<'_, AppState>) -> Reply<Vec<RunSummary>> {
    with_catalog(&state, |c| runs::runs(c.data_dir())).await
}

pub async fn plan_undo(state: State<'_, AppState>, run_id: String) -> Reply<UndoPlan> {
    check_run_id(&run_id)?;
    let store = state.desktop_store()?;
    with_catalog(&state, move |c| runs::plan_undo_in(c, store, &run_id)).await
}

pub async fn undo_run(state: State<'_, AppState>, run_id: String) -> Reply<UndoReport> {
    check_run_id(&run_id)?;
    let store = state.desktop_store()?;
    with_catalog(&state, move |c| runs::undo_in(c, store, &run_id, Utc::now())).await
}

fn check_run_id(run_id: &str) -> Reply<()> {
    Ok(runs::validate_run_id(run_id).map(|_| ())?)
}

fn check_abs_path(what: &str, value: &str) -> Reply<PathBuf> {
    let path = PathBuf::from(value);
    if value.is_empty() || value.contains('\0') || !path.is_absolute() {
        return Err(invalid(format!("{what} must be an absolute path, got {value:?}")));
    }
    Ok(path)
}

fn check_sources(sources: &[String]) -> Reply<Vec<PathBuf>> {
    if sources.is_empty() {
        return Err(invalid("choose at least one transcript or folder to import"));
    }
    if sources.len() > MAX_SOURCES {
        return Err(invalid(format!("at most {MAX_SOURCES} sources per import")));
    }
    sources.iter().map(|s| check_abs_path("each source", s)).collect()
}

/// What sessions cost at list price, rolled up `by`, from UTC day `since`.
pub async fn cost_report(
    state: State<'_, AppState>,
    by: corral_engine::costs::CostBy,
    since: Option<String>,
) -> Reply<corral_engine::costs::CostReport> {
    with_catalog(&state, move |c| corral_engine::costs::report(c, by, since.as_deref())).await
}

/// The longest "recent" a person can ask for (a year).
const MAX_REOPEN_DAYS: u32 = 366;
/// The most folders one `git_states` call reads.
const MAX_GIT_FOLDERS: usize = 1000;

/// Recent work: each folder's newest conversation of the last `days` days and the folder's
/// state now (`every_surface`: `-p`, SDK and desktop-app conversations too). Git states come
/// from `git_states`.
pub async fn recent_work(
    state: State<'_, AppState>,
    days: u32,
    every_surface: bool,
) -> Reply<reopen::RecentWork> {
    if !(1..=MAX_REOPEN_DAYS).contains(&days) {
        return Err(invalid(format!("days must be 1 to {MAX_REOPEN_DAYS}, got {days}")));
    }
    let store = state.desktop_store()?;
    with_catalog(&state, move |c| {
        reopen::recent_work_in(
            c,
            &SystemProcesses,
            days,
            every_surface,
            store.as_deref(),
            Utc::now(),
        )
    })
    .await
}

/// Each folder's git state, in order (nothing a repository plants runs; each bounded in time).
pub async fn git_states(
    state: State<'_, AppState>,
    folders: Vec<String>,
) -> Reply<Vec<reopen::GitState>> {
    if folders.len() > MAX_GIT_FOLDERS {
        return Err(invalid(format!("at most {MAX_GIT_FOLDERS} folders at once")));
    }
    let dirs: Vec<PathBuf> = folders.iter().map(PathBuf::from).collect();
    if let Some(bad) = dirs.iter().find(|d| !d.is_absolute()) {
        return Err(invalid(format!("{} is not an absolute folder", bad.display())));
    }
    with_catalog(&state, move |_| Ok(reopen::git_states(&reopen::Git::default(), &dirs))).await
}

/// Starts the chosen conversations, each in a terminal of its own, guarded again just before
/// and verified by its id, sending each outcome; `cancel_run` stops it before the next start.
pub async fn reopen(
    state: State<'_, AppState>,
    choices: Vec<reopen::ReopenChoice>,
    on_progress: Progress<reopen::ReopenOutcome>,
) -> Reply<reopen::ReopenReport> {
    if choices.len() > MAX_GIT_FOLDERS {
        return Err(invalid(format!("at most {MAX_GIT_FOLDERS} conversations at once")));
    }
    for c in &choices {
        check_session_id(&c.session_id)?;
    }
    let terminals = corral_engine::resume::terminals_to_try(
        state.terminal()?.as_deref(),
        std::env::var("TERMINAL").ok().as_deref(),
    )?;
    let remote_control = state.reopen_remote_control()?;
    let cancel = state.run_cancel();
    cancel.store(false, Ordering::SeqCst);
    with_catalog(&state, move |c| {
        let trust = reopen::TrustReader::of(c);
        let settings = reopen::StartSettings {
            terminals: &terminals,
            processes: &SystemProcesses,
            timeout: corral_engine::resume::START_TIMEOUT * 2,
            spacing: reopen::START_SPACING,
            remote_control,
            trusted: &|f| trust.trusted(f),
            cancel: &cancel,
        };
        reopen::reopen_in(c, &choices, &settings, &mut |o, _| {
            let _ = on_progress.0.send(o.clone());
        })
    })
    .await
}
