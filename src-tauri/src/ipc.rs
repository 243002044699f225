//! The IPC surface, declared once: every command the UI may call, with its arguments and its
//! result, in one list (`surface!` below). From that list come
//! - the `#[tauri::command]` entry points ([`entry`]), which take exactly the declared arguments
//!   under exactly the declared names and call the command of the same name in
//!   [`crate::commands`] (so its signature must agree, or the build fails);
//! - the command table the app registers ([`handlers`]);
//! - the TypeScript interface `Commands` (`ui/src/lib/bindings/Commands.ts`, written with the other
//!   bindings), which the UI's backends implement and call through, so an argument renamed or
//!   retyped here fails the UI's type check.
//!
//! An argument that does not deserialize comes back as `{kind: "invalid-input", message}`, like
//! every other error.
//!
//! Adding a command: a line here, its function in `commands.rs`, `make bindings`, and its caller in
//! the UI's backends (CONTRIBUTING.md walks through it).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use corral_engine::adopt::{AdoptResult, AdoptableSession, ReleaseResult};
use corral_engine::catalog::PageAt;
use corral_engine::costs::{CostBy, CostReport};
use corral_engine::desktop;
use corral_engine::export::{ExportRequest, ExportSummary};
use corral_engine::import::{ImportPlan, ImportProgress, ImportReport, ImportTarget};
use corral_engine::live::LiveNow;
use corral_engine::lost_questions::LostQuestion;
use corral_engine::model::{AgentSummary, AttachmentData, MessagePage, ModelUsage, SessionSummary};
use corral_engine::placement::PlacementMode;
use corral_engine::quarantine::{
    DeletePlan, DeleteProgress, DeleteReport, DeleteRequest, EmptyReport, QuarantineRun,
};
use corral_engine::renames::Renamed;
use corral_engine::reopen::{GitState, RecentWork, ReopenChoice, ReopenOutcome, ReopenReport};
use corral_engine::resume::ResumeOutcome;
use corral_engine::runs::{RunSummary, UndoPlan, UndoReport};
use corral_engine::search::{IndexStatus, SearchResults, TranscriptMatches};
use corral_engine::storage::StorageReport;
use corral_engine::{ErrorKind, ErrorPayload, Listing, ListingSoFar, SessionDetails};
use serde::de::DeserializeOwned;
use tauri::Runtime;
use tauri::ipc::{Channel, CommandArg, CommandItem, InvokeError};
use ts_rs::{Config, TS};

use crate::settings::{Settings, SettingsPatch};

/// Declares the surface: `/// doc` lines, then `name(arg: Type, …) -> Result;` for each command.
macro_rules! surface {
    ($( $(#[doc = $doc:literal])* $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> $res:ty ; )*) => {
        /// The entry points Tauri calls: one per declared command, each calling its namesake in
        /// [`crate::commands`] with the state and the declared arguments.
        pub mod entry {
            #[allow(clippy::wildcard_imports, reason = "the declared types, as written in the list")]
            use super::*;
            $(
                $(#[doc = $doc])*
                #[tauri::command]
                pub async fn $name(
                    state: tauri::State<'_, crate::state::AppState>,
                    $($arg: Arg<$ty>),*
                ) -> Result<$res, ErrorPayload> {
                    crate::commands::$name(state, $($arg.0),*).await
                }
            )*
        }

        /// The command table, shared by the app and the command tests.
        pub fn handlers<R: Runtime>(
        ) -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$(entry::$name),*]
        }

        /// Every declared command, as TypeScript sees it.
        pub fn declared(cfg: &Config, names: &mut BTreeSet<String>) -> Vec<Declared> {
            vec![$(
                Declared {
                    name: stringify!($name),
                    doc: concat!($($doc, "\n"),*),
                    args: vec![$((stringify!($arg), <$ty as IpcType>::ts(cfg, names))),*],
                    result: <$res as IpcType>::ts(cfg, names),
                }
            ),*]
        }
    };
}

surface! {
    get_settings() -> Settings;
    /// For each field of the patch: absent = unchanged; `claudeHome: null` = back to the default,
    /// `fleetFile: null` = close the fleet.
    set_settings(patch: SettingsPatch) -> Settings;
    list_agents() -> Vec<AgentSummary>;
    list_sessions(include_temp: bool) -> Listing;
    /// While the listing's full pass reads many transcripts (a first start): the listing as far
    /// as it knows it, rows not read yet marked `pending`, and how far it has read (`null` when
    /// no such pass is under way: ask `list_sessions`). Never waits for the pass.
    listing_so_far(include_temp: bool) -> Option<ListingSoFar>;
    agent_sessions(agent: String) -> Vec<SessionSummary>;
    session_info(session_id: String) -> SessionDetails;
    session_messages(session_id: String, before: Option<u64>, limit: u32) -> MessagePage;
    subagent_messages(session_id: String, agent_id: String, before: Option<u64>, limit: u32)
        -> MessagePage;
    /// A page of a session's transcript, or of one of its subagents', where `at` says (`around` a
    /// search hit's offset, `after` a page's `laterCursor`, `before` an `earlierCursor`).
    transcript_page(session_id: String, agent_id: Option<String>, at: PageAt, limit: u32)
        -> MessagePage;
    /// The bytes of an image attached to a prompt (`attachments[].offset` and `.index` of a
    /// page's message), checked to be the image type it claims, for a thumbnail.
    transcript_attachment(session_id: String, agent_id: Option<String>, offset: u64, index: u32)
        -> AttachmentData;
    /// The messages of one rewound branch of a session (a page's `rewinds[].branch`).
    rewound_branch(session_id: String, branch: u64, limit: u32) -> MessagePage;
    /// Token usage by model over the branch `claude --resume` continues (read when asked: it
    /// reads the whole transcript).
    session_usage(session_id: String) -> Vec<ModelUsage>;
    /// Exports a session's transcript to `path` (chosen in a save dialog, which asked before
    /// replacing a file: `replace`). Written beside it and renamed into place when complete.
    export_session(session_id: String, request: ExportRequest, path: String, replace: bool)
        -> ExportSummary;
    /// Searches every conversation the index covers. `limit` counts sessions.
    search(query: String, limit: u32) -> SearchResults;
    search_status() -> IndexStatus;
    /// Every match of `query` in one transcript (a session's, or one of its subagents' runs), in
    /// file order: find in the viewer.
    find_in_transcript(session_id: String, agent_id: Option<String>, query: String)
        -> TranscriptMatches;
    /// `name` null or empty (after trimming) clears the custom name. The reply names the run
    /// that undoes the rename (`undo_run`).
    rename_session(session_id: String, name: Option<String>) -> Renamed;
    /// Opens a folder of an import run in the file manager. Only paths inside
    /// `<data dir>/runs/`.
    reveal_path(path: String) -> ();
    adoptable(agent: String, from: Option<String>, all_folders: bool) -> Vec<AdoptableSession>;
    adopt(agent: String, session_id: String) -> AdoptResult;
    release(agent: String, session_id: String) -> ReleaseResult;
    plan_import(target: ImportTarget, sources: Vec<String>, mode: PlacementMode) -> ImportPlan;
    /// Applies a plan (re-validated by the engine: a plan may come from anywhere), sending an
    /// `ImportProgress` before each file. `cancel_run` stops it between files.
    apply_import(plan: ImportPlan, on_progress: Progress<ImportProgress>) -> ImportReport;
    /// Stops the import or desktop restore under way, between two files or entries.
    cancel_run() -> ();
    /// The desktop app's sidebars and what the current one is missing: against `account` and
    /// `org` when given, else the sidebar the rules name.
    desktop_report(account: Option<String>, org: Option<String>) -> desktop::Report;
    /// Plans restoring `request` into the sidebar `account`/`org` (writes nothing), with whether
    /// the desktop app runs now.
    desktop_plan_restore(account: String, org: String, request: desktop::RestoreRequest)
        -> desktop::RestorePreview;
    /// Carries out a restore plan as an undoable run (the engine plans it again and refuses what
    /// changed), sending a `RestoreProgress` before each entry; `cancel_run` stops it between
    /// entries.
    desktop_restore(plan: desktop::RestorePlan, on_progress: Progress<desktop::RestoreProgress>)
        -> desktop::RestoreReport;
    /// Questions the desktop app rejected when it quit, from the search index (as far as it is
    /// built), newest first.
    lost_questions() -> Vec<LostQuestion>;
    /// Which sessions a `claude` process is on now and what each is doing (one look at the
    /// process table; the UI asks every few seconds while its window is visible).
    live_states() -> LiveNow;
    /// Opens a terminal resuming the session and waits up to 5 s for `claude` to be on it;
    /// `fromHome` resumes from the home folder when the session's own folder is gone.
    resume_session(session_id: String, from_home: bool) -> ResumeOutcome;
    /// What deleting `request` would move into the quarantine (writes nothing).
    plan_delete(request: DeleteRequest) -> DeletePlan;
    /// Deletes `request` into the quarantine as an undoable run (planned again against the
    /// process table as it is now), sending a `DeleteProgress` after each session; `cancel_run`
    /// stops it between sessions.
    delete_sessions(request: DeleteRequest, on_progress: Progress<DeleteProgress>) -> DeleteReport;
    /// Every delete run and what its quarantine folder holds, newest first.
    quarantine() -> Vec<QuarantineRun>;
    /// Puts a delete run's sessions back (only `sessionId`'s when given).
    restore_deleted(run_id: String, session_id: Option<String>) -> UndoReport;
    /// Sends delete runs' quarantine folders to the system's trash.
    empty_quarantine(run_ids: Vec<String>) -> EmptyReport;
    /// Where the Claude home's space goes: its folders, sessions by working directory and by
    /// agent, the largest sessions, gone sessions' leftovers and debug logs.
    storage() -> StorageReport;
    /// What sessions cost at list price, rolled up `by` session, agent, folder, model, day or
    /// herdctl job (beside the job's own figure), from UTC day `since` (`YYYY-MM-DD`).
    cost_report(by: CostBy, since: Option<String>) -> CostReport;
    /// Recent work: each folder's newest conversation of the last `days` days and the folder's
    /// state now (`everySurface`: `-p`, SDK and desktop-app conversations too).
    recent_work(days: u32, every_surface: bool) -> RecentWork;
    /// Each folder's git state, in order (nothing a repository plants runs; bounded in time).
    git_states(folders: Vec<String>) -> Vec<GitState>;
    /// Starts the chosen conversations, each in a terminal of its own, guarded again and
    /// verified, sending a `ReopenOutcome` after each; `cancel_run` stops before the next start.
    reopen(choices: Vec<ReopenChoice>, on_progress: Progress<ReopenOutcome>) -> ReopenReport;
    list_runs() -> Vec<RunSummary>;
    plan_undo(run_id: String) -> UndoPlan;
    undo_run(run_id: String) -> UndoReport;
}

/// One declared command in TypeScript terms.
#[derive(Debug)]
pub struct Declared {
    pub name: &'static str,
    pub doc: &'static str,
    /// Each argument's name (as in Rust) and TypeScript type.
    pub args: Vec<(&'static str, String)>,
    pub result: String,
}

/// A declared argument: deserialized from the key Tauri names (camelCase), or refused with an
/// `invalid-input` error payload.
pub struct Arg<T>(pub T);

/// How an argument is read from an IPC call: JSON for every type, a channel for [`Progress`].
pub trait FromIpc<'de, R: Runtime>: Sized {
    /// Reads the argument `item.key` of the call.
    fn from_ipc(item: CommandItem<'de, R>) -> Result<Self, InvokeError>;
}

impl<'de, R: Runtime, T: DeserializeOwned> FromIpc<'de, R> for T {
    fn from_ipc(item: CommandItem<'de, R>) -> Result<Self, InvokeError> {
        let (command, key) = (item.name, item.key);
        serde::Deserialize::deserialize(item).map_err(|e| {
            refusal(ErrorPayload {
                kind: ErrorKind::InvalidInput,
                message: format!("{command}: argument `{key}`: {e}"),
            })
        })
    }
}

impl<'de, R: Runtime, T: FromIpc<'de, R>> CommandArg<'de, R> for Arg<T> {
    fn from_command(item: CommandItem<'de, R>) -> Result<Self, InvokeError> {
        T::from_ipc(item).map(Arg)
    }
}

/// A channel the UI passes for progress reports (TypeScript: `Channel<T>`).
pub struct Progress<T>(pub Channel<T>);

impl<'de, R: Runtime, T> FromIpc<'de, R> for Progress<T> {
    fn from_ipc(item: CommandItem<'de, R>) -> Result<Self, InvokeError> {
        Channel::from_command(item).map(Progress)
    }
}

fn refusal(payload: ErrorPayload) -> InvokeError {
    match serde_json::to_value(&payload) {
        Ok(value) => InvokeError(value),
        Err(_) => InvokeError::from(payload.message),
    }
}

/// A type's name in TypeScript; the binding types it names are added to `names` (to import).
pub trait IpcType {
    /// The TypeScript type.
    fn ts(cfg: &Config, names: &mut BTreeSet<String>) -> String;
}

impl<T: TS> IpcType for T {
    fn ts(cfg: &Config, names: &mut BTreeSet<String>) -> String {
        let ts = T::name(cfg);
        names.extend(type_names(&ts));
        ts
    }
}

impl<T: TS> IpcType for Progress<T> {
    fn ts(cfg: &Config, names: &mut BTreeSet<String>) -> String {
        format!("Channel<{}>", T::ts(cfg, names))
    }
}

/// Capitalised identifiers in a TypeScript type (the generic `Array` aside): binding names.
fn type_names(ts: &str) -> impl Iterator<Item = String> + '_ {
    ts.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_uppercase()) && *w != "Array")
        .map(str::to_owned)
}

/// `session_id` → `sessionId` (Tauri's key for an argument).
fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `ui/src/lib/bindings/Commands.ts`: the interface `Commands`, one member per command with its
/// `args` and `result`.
pub fn commands_ts() -> String {
    // u64 arguments travel as JSON numbers.
    let cfg = Config::new().with_large_int("number");
    let mut names = BTreeSet::new();
    let commands = declared(&cfg, &mut names);
    let mut out = String::from(
        "// Generated from src-tauri/src/ipc.rs (`make bindings`); do not edit.\n\
         import type { Channel } from '@tauri-apps/api/core';\n",
    );
    for name in &names {
        let _ = writeln!(out, "import type {{ {name} }} from './{name}';");
    }
    out.push_str("\n/** Every command the shell registers: its arguments and its result. */\n");
    out.push_str("export interface Commands {\n");
    for c in &commands {
        if !c.doc.is_empty() {
            out.push_str("  /**\n");
            for line in c.doc.lines() {
                let _ = writeln!(out, "   *{}", line.trim_end());
            }
            out.push_str("   */\n");
        }
        let args: Vec<String> =
            c.args.iter().map(|(name, ts)| format!("{}: {ts}", camel(name))).collect();
        let args = if args.is_empty() {
            "Record<string, never>".to_owned()
        } else {
            format!("{{ {} }}", args.join("; "))
        };
        let _ = writeln!(out, "  {}: {{ args: {args}; result: {} }};", c.name, c.result);
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_names_become_tauri_keys() {
        assert_eq!(camel("session_id"), "sessionId");
        assert_eq!(camel("from_home"), "fromHome");
        assert_eq!(camel("query"), "query");
    }

    #[test]
    fn the_typescript_names_every_type_it_uses() {
        let ts = commands_ts();
        assert!(ts.contains("import type { SessionDetails } from './SessionDetails';"), "{ts}");
        assert!(
            ts.contains(
                "  session_messages: { args: { sessionId: string; before: number | null; \
                 limit: number }; result: MessagePage };"
            ),
            "{ts}"
        );
        assert!(ts.contains("onProgress: Channel<ImportProgress>"), "{ts}");
        assert!(ts.contains("  get_settings: { args: Record<string, never>; result: Settings };"));
        assert!(ts.contains("  reveal_path: { args: { path: string }; result: null };"), "{ts}");
    }
}
