// The ONLY module the UI's state and components reach the backend through: one typed function
// per IPC command (declared once in Rust, src-tauri/src/ipc.rs, generated into
// ./bindings/Commands.ts), the event subscriptions, the file dialogs and notifications. Which
// backend answers (the app's shell, or the demo in a plain browser) is chosen once, in ./backend.
import { backend } from './backend';
import type { DragState, PickKind, Unsubscribe } from './backend';
import type { Args, Command, Result, SettingsPatch } from './commands';
import type {
  AppError,
  CostBy,
  DeleteProgress,
  DeleteReport,
  DeleteRequest,
  FilesDropped,
  DesktopRestorePlan,
  DesktopRestoreProgress,
  DesktopRestoreReport,
  DesktopRestoreRequest,
  ExportFormat,
  ExportRequest,
  ImportPlan,
  ImportProgress,
  ImportReport,
  ImportTarget,
  IndexStatus,
  PageAt,
  PlacementMode,
  ReopenChoice,
  ReopenOutcome,
  ReopenReport,
  ScanProgress,
  SessionsChanged,
} from './types';

export type { DragState, PickKind, Unsubscribe };

/** Turns anything thrown across IPC into `{kind, message}`. */
export function toAppError(e: unknown): AppError {
  if (e && typeof e === 'object' && 'message' in e) {
    const o = e as { kind?: unknown; message?: unknown };
    const kind = typeof o.kind === 'string' ? (o.kind as AppError['kind']) : 'ui';
    return { kind, message: String(o.message) };
  }
  if (typeof e === 'string') {
    // Tauri reports unknown commands and argument errors as plain strings.
    return { kind: 'ipc', message: e };
  }
  return { kind: 'ui', message: String(e) };
}

/** Runs `work` against the backend, turning whatever it throws into an `AppError`. */
async function on<T>(work: (b: Awaited<ReturnType<typeof backend>>) => Promise<T>): Promise<T> {
  try {
    return await work(await backend());
  } catch (e) {
    throw toAppError(e);
  }
}

/** Calls one command of the declared IPC surface. */
const call = <K extends Command>(cmd: K, args: Args<K>): Promise<Result<K>> => on((b) => b.call(cmd, args));

export const getSettings = () => call('get_settings', {});
export const setSettings = (patch: SettingsPatch) => call('set_settings', { patch });
export const listAgents = () => call('list_agents', {});
export const listSessions = (includeTemp: boolean) => call('list_sessions', { includeTemp });
/** The listing as far as the full pass under way knows it (rows not read yet are `pending`);
 *  null when no pass with much to read is under way. Never waits. */
export const listingSoFar = (includeTemp: boolean) => call('listing_so_far', { includeTemp });
export const agentSessions = (agent: string) => call('agent_sessions', { agent });
export const sessionInfo = (sessionId: string) => call('session_info', { sessionId });
export const sessionMessages = (sessionId: string, before: number | null, limit: number) =>
  call('session_messages', { sessionId, before, limit });
export const subagentMessages = (sessionId: string, agentId: string, before: number | null, limit: number) =>
  call('subagent_messages', { sessionId, agentId, before, limit });
export const transcriptPage = (sessionId: string, agentId: string | null, at: PageAt, limit: number) =>
  call('transcript_page', { sessionId, agentId, at, limit });
export const transcriptAttachment = (sessionId: string, agentId: string | null, offset: number, index: number) =>
  call('transcript_attachment', { sessionId, agentId, offset, index });
export const rewoundBranch = (sessionId: string, branch: number, limit: number) =>
  call('rewound_branch', { sessionId, branch, limit });
export const sessionUsage = (sessionId: string) => call('session_usage', { sessionId });
export const exportSession = (sessionId: string, request: ExportRequest, path: string, replace: boolean) =>
  call('export_session', { sessionId, request, path, replace });
export const search = (query: string, limit: number) => call('search', { query, limit });
export const searchStatus = () => call('search_status', {});
export const findInTranscript = (sessionId: string, agentId: string | null, query: string) =>
  call('find_in_transcript', { sessionId, agentId, query });
export const renameSession = (sessionId: string, name: string | null) => call('rename_session', { sessionId, name });
export const adoptable = (agent: string, from: string | null, allFolders: boolean) =>
  call('adoptable', { agent, from, allFolders });
export const adopt = (agent: string, sessionId: string) => call('adopt', { agent, sessionId });
export const release = (agent: string, sessionId: string) => call('release', { agent, sessionId });
export const planImport = (target: ImportTarget, sources: string[], mode: PlacementMode) =>
  call('plan_import', { target, sources, mode });
export const cancelRun = () => call('cancel_run', {});
/** The desktop app's sidebars, compared with the current one (or with `account`/`org`). */
export const desktopReport = (account: string | null = null, org: string | null = null) =>
  call('desktop_report', { account, org });
/** What restoring `request` into the sidebar `account`/`org` would do (writes nothing), and the app's state. */
export const desktopPlanRestore = (account: string, org: string, request: DesktopRestoreRequest) =>
  call('desktop_plan_restore', { account, org, request });
/** Questions the desktop app rejected when it quit (from the search index). */
export const lostQuestions = () => call('lost_questions', {});
/** Which sessions a claude process is on now, and what each is doing (one look at the process table). */
export const liveStates = () => call('live_states', {});
/** Opens a terminal resuming the session and waits (up to 5 s) for claude to be on it. */
export const resumeSession = (sessionId: string, fromHome = false) => call('resume_session', { sessionId, fromHome });
/** What deleting `request` would move into the quarantine (writes nothing). */
export const planDelete = (request: DeleteRequest) => call('plan_delete', { request });
/** Deletes into the quarantine as an undoable run, streaming progress (sessions done / total). */
export const deleteSessions = (
  request: DeleteRequest,
  onProgress: (p: DeleteProgress) => void,
): Promise<DeleteReport> => on((b) => b.stream('delete_sessions', { request }, onProgress));
/** Every delete run and what the quarantine holds of it, newest first. */
export const quarantine = () => call('quarantine', {});
/** Where the Claude home's space goes, and what each part holds. */
export const storage = () => call('storage', {});
/** Each recent folder's newest conversation of the last `days` days, with the folder's state now. */
export const costReport = (by: CostBy, since: string | null) => call('cost_report', { by, since });
export const recentWork = (days: number, everySurface = false) => call('recent_work', { days, everySurface });
/** Each folder's git state, in order (read so nothing a repository plants runs). */
export const gitStates = (folders: string[]) => call('git_states', { folders });
/** Starts the chosen conversations, each in its own terminal, verified; streams each outcome. */
export const reopen = (choices: ReopenChoice[], onProgress: (o: ReopenOutcome) => void): Promise<ReopenReport> =>
  on((b) => b.stream('reopen', { choices }, onProgress));
/** Puts a delete run's sessions back (only `sessionId`'s when given). */
export const restoreDeleted = (runId: string, sessionId: string | null = null) =>
  call('restore_deleted', { runId, sessionId });
/** Sends delete runs' quarantine folders to the system's trash. */
export const emptyQuarantine = (runIds: string[]) => call('empty_quarantine', { runIds });
export const listRuns = () => call('list_runs', {});
export const planUndo = (runId: string) => call('plan_undo', { runId });
export const undoRun = (runId: string) => call('undo_run', { runId });
export const revealPath = (path: string) => call('reveal_path', { path });

/** Carries out a restore plan as an undoable run, streaming progress (entries done / total). */
export const desktopRestore = (
  plan: DesktopRestorePlan,
  onProgress: (p: DesktopRestoreProgress) => void,
): Promise<DesktopRestoreReport> => on((b) => b.stream('desktop_restore', { plan }, onProgress));

/** Runs an import plan, streaming progress (files done / total, current file) to `onProgress`. */
export const applyImport = (plan: ImportPlan, onProgress: (p: ImportProgress) => void): Promise<ImportReport> =>
  on((b) => b.stream('apply_import', { plan }, onProgress));

function subscribe<T>(event: string, cb: (payload: T) => void): Promise<Unsubscribe> {
  return on((b) => b.listen<T>(event, cb));
}

export const onSessionsChanged = (cb: (p: SessionsChanged) => void) =>
  subscribe<SessionsChanged>('sessions-changed', cb);
/** How far the listing's full pass has read (about ten a second while it reads many files). */
export const onListingProgress = (cb: (p: ScanProgress) => void) => subscribe<ScanProgress>('listing-progress', cb);
export const onSearchStatus = (cb: (p: IndexStatus) => void) => subscribe<IndexStatus>('search-status', cb);
export const onFilesDropped = (cb: (p: FilesDropped) => void) => subscribe<FilesDropped>('files-dropped', cb);

/** Follows files dragged over the window (for the drop overlay). */
export const onWindowDrag = (cb: (s: DragState) => void): Promise<Unsubscribe> => on((b) => b.windowDrag(cb));

/** Opens the file dialog for `kind`; returns the chosen paths (empty when cancelled). */
export const pickPaths = (kind: PickKind): Promise<string[]> => on((b) => b.pickPaths(kind));

/** A file to write an export to (the system's save dialog, which asks before replacing one); `null` when cancelled. */
export const pickSavePath = (defaultName: string, format: ExportFormat): Promise<string | null> =>
  on((b) => b.pickSavePath(defaultName, format));

/** Shows a desktop notification (asking the system's permission the first time); outside the
 *  app, or when the system refuses, nothing is shown. Resolves to whether it was shown. */
export async function notify(title: string, body: string): Promise<boolean> {
  try {
    return await (await backend()).notify(title, body);
  } catch {
    return false;
  }
}

/** Copies text to the clipboard; falls back to a hidden textarea where the async API is missing. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.appendChild(ta);
    ta.select();
    document.execCommand('copy');
    ta.remove();
  }
}
