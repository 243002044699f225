// The ONLY module that talks to the shell: one typed function per IPC command (declared once in
// ./commands.ts),
// the event subscriptions, and the file dialog. Outside Tauri (a plain browser, for development
// and screenshots) it falls back to the in-memory demo backend in ./demo.ts, which is never
// loaded inside the app.
import { invoke as tauriInvoke, Channel } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import type { Args, Command, Result, SettingsPatch } from './commands';
import type {
  AppError,
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
  SessionsChanged,
} from './types';

export function inTauri(): boolean {
  return typeof window !== 'undefined' && '__TAURI_INTERNALS__' in window;
}

type DemoModule = typeof import('./demo');
let demoModule: Promise<DemoModule> | null = null;
/** The development demo backend, outside Tauri only: in `vite` dev, tests and `--mode demo` builds.
 * A production build holds no demo code at all (the condition is constant there, so the import
 * below is dropped; `make test` checks ui/dist). */
function demo(): Promise<DemoModule> {
  if (import.meta.env.MODE === 'production') {
    return Promise.reject({ kind: 'ipc', message: 'Corral’s backend is not available here' });
  }
  demoModule ??= import('./demo');
  return demoModule;
}

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

/** Calls one command of the declared IPC surface (./commands.ts). */
async function call<K extends Command>(cmd: K, args: Args<K>): Promise<Result<K>> {
  try {
    if (inTauri()) return await tauriInvoke<Result<K>>(cmd, args);
    return await (await demo()).demoInvoke(cmd, args);
  } catch (e) {
    throw toAppError(e);
  }
}

export const getSettings = () => call('get_settings', {});
export const setSettings = (patch: SettingsPatch) => call('set_settings', patch);
export const listAgents = () => call('list_agents', {});
export const listSessions = (includeTemp: boolean) => call('list_sessions', { includeTemp });
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
export const cancelImport = () => call('cancel_import', {});
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
export const listRuns = () => call('list_runs', {});
export const planUndo = (runId: string) => call('plan_undo', { runId });
export const undoRun = (runId: string) => call('undo_run', { runId });
export const revealPath = (path: string) => call('reveal_path', { path });

/** The commands that stream progress over a Tauri channel while they run. */
type Streamed = 'apply_import' | 'desktop_restore';

/** Runs `cmd` on `plan`, streaming its progress to `onProgress` (through the demo's `demoRun`
 * outside Tauri). */
async function streamed<K extends Streamed, P>(
  cmd: K,
  plan: Args<K>['plan'],
  onProgress: (p: P) => void,
  demoRun: (d: DemoModule) => Promise<Result<K>>,
): Promise<Result<K>> {
  try {
    if (inTauri()) {
      const channel = new Channel<P>();
      channel.onmessage = onProgress;
      return await tauriInvoke<Result<K>>(cmd, { plan, onProgress: channel } as Args<K>);
    }
    return await demoRun(await demo());
  } catch (e) {
    throw toAppError(e);
  }
}

/** Carries out a restore plan as an undoable run, streaming progress (entries done / total). */
export const desktopRestore = (
  plan: DesktopRestorePlan,
  onProgress: (p: DesktopRestoreProgress) => void,
): Promise<DesktopRestoreReport> =>
  streamed('desktop_restore', plan, onProgress, (d) => d.demoDesktopRestore(plan, onProgress));

/** Runs an import plan, streaming progress (files done / total, current file) to `onProgress`. */
export const applyImport = (plan: ImportPlan, onProgress: (p: ImportProgress) => void): Promise<ImportReport> =>
  streamed('apply_import', plan, onProgress, (d) => d.demoApplyImport(plan, onProgress));

export type Unsubscribe = () => void;

async function subscribe<T>(event: string, cb: (payload: T) => void): Promise<Unsubscribe> {
  if (inTauri()) return await listen<T>(event, (e) => cb(e.payload));
  return (await demo()).demoListen(event, cb as (p: unknown) => void);
}

export const onSessionsChanged = (cb: (p: SessionsChanged) => void) =>
  subscribe<SessionsChanged>('sessions-changed', cb);
export const onSearchStatus = (cb: (p: IndexStatus) => void) => subscribe<IndexStatus>('search-status', cb);
export const onFilesDropped = (cb: (p: FilesDropped) => void) => subscribe<FilesDropped>('files-dropped', cb);

/** Window-level drag state (for the drop overlay): enter/over with a CSS-pixel position, leave, drop. */
export type DragState =
  { type: 'over'; x: number; y: number } | { type: 'leave' } | { type: 'drop'; x: number; y: number };
export async function onWindowDrag(cb: (s: DragState) => void): Promise<Unsubscribe> {
  if (!inTauri()) return browserDrag(cb);
  const { getCurrentWebview } = await import('@tauri-apps/api/webview');
  return await getCurrentWebview().onDragDropEvent((e) => {
    const p = e.payload;
    const scale = window.devicePixelRatio || 1;
    if (p.type === 'enter' || p.type === 'over') cb({ type: 'over', x: p.position.x / scale, y: p.position.y / scale });
    else if (p.type === 'drop') cb({ type: 'drop', x: p.position.x / scale, y: p.position.y / scale });
    else cb({ type: 'leave' });
  });
}

/** Outside Tauri (development, screenshots): the browser's own drag events drive the overlay, and a
 * drop becomes the demo's `files-dropped` (the browser cannot see real paths, only file names). */
function browserDrag(cb: (s: DragState) => void): Unsubscribe {
  const hasFiles = (e: DragEvent) => !!e.dataTransfer && [...e.dataTransfer.types].includes('Files');
  const over = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    cb({ type: 'over', x: e.clientX, y: e.clientY });
  };
  const leave = (e: DragEvent) => {
    if (!e.relatedTarget) cb({ type: 'leave' });
  };
  const drop = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    cb({ type: 'drop', x: e.clientX, y: e.clientY });
    const names = [...(e.dataTransfer?.files ?? [])].map((f) => f.name);
    const agent = (e.target as HTMLElement | null)?.closest<HTMLElement>('[data-agent]')?.dataset.agent ?? null;
    void demo().then((d) => d.demoEmit('files-dropped', { paths: names.map((n) => `~/Downloads/${n}`), agent }));
  };
  window.addEventListener('dragover', over);
  window.addEventListener('dragleave', leave);
  window.addEventListener('drop', drop);
  return () => {
    window.removeEventListener('dragover', over);
    window.removeEventListener('dragleave', leave);
    window.removeEventListener('drop', drop);
  };
}

export type PickKind = 'claude-home' | 'fleet' | 'desktop-store' | 'import-folders' | 'import-files';

/** Opens the native file dialog; returns the chosen paths (empty when cancelled). */
/** A file to write an export to (the system's save dialog, which asks before replacing one); `null` when cancelled. */
export async function pickSavePath(defaultName: string, format: ExportFormat): Promise<string | null> {
  if (!inTauri()) return (await demo()).demoSavePath(defaultName);
  const names: Record<ExportFormat, string> = { md: 'Markdown', html: 'HTML page', json: 'JSON' };
  try {
    const { save } = await import('@tauri-apps/plugin-dialog');
    return await save({
      title: 'Export the conversation',
      defaultPath: defaultName,
      filters: [{ name: names[format], extensions: [format] }],
    });
  } catch (e) {
    throw toAppError(e);
  }
}

export async function pickPaths(kind: PickKind): Promise<string[]> {
  if (!inTauri()) return (await demo()).demoPick(kind);
  try {
    const { open } = await import('@tauri-apps/plugin-dialog');
    const opts =
      kind === 'claude-home'
        ? { directory: true, multiple: false, title: 'Choose a Claude home (the folder that holds projects/)' }
        : kind === 'desktop-store'
          ? { directory: true, multiple: false, title: "Choose the Claude desktop app's claude-code-sessions folder" }
          : kind === 'fleet'
            ? {
                directory: false,
                multiple: false,
                title: 'Open a herdctl fleet file',
                filters: [{ name: 'herdctl fleet', extensions: ['yaml', 'yml'] }],
              }
            : kind === 'import-folders'
              ? { directory: true, multiple: true, title: 'Choose folders with transcripts' }
              : {
                  directory: false,
                  multiple: true,
                  title: 'Choose transcripts',
                  filters: [{ name: 'Claude Code transcripts', extensions: ['jsonl'] }],
                };
    const r = await open(opts);
    if (r == null) return [];
    return Array.isArray(r) ? r : [r];
  } catch (e) {
    throw toAppError(e);
  }
}

/** Shows a desktop notification (asking the system's permission the first time); outside the
 *  app, or when the system refuses, nothing is shown. Resolves to whether it was shown. */
export async function notify(title: string, body: string): Promise<boolean> {
  if (!inTauri()) return false;
  try {
    const n = await import('@tauri-apps/plugin-notification');
    let granted = await n.isPermissionGranted();
    if (!granted) granted = (await n.requestPermission()) === 'granted';
    if (granted) n.sendNotification({ title, body });
    return granted;
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
