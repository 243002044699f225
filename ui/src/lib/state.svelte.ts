// Application state shared by every view (Svelte 5 runes). Data comes only through api.ts.
import * as api from './api';
import { emit } from './events.svelte';
import { displayName, exportFileName, setHomeDir } from './format';
import { newlyWaiting, waitingNotification } from './notify';
import { newestFirst } from './search';
import type {
  AgentSummary,
  AppError,
  DesktopPlacement,
  DesktopReport,
  DirectoryGroup,
  ExportFormat,
  IndexStatus,
  LiveStatus,
  SessionSummary,
  Settings,
  Warning,
} from './types';

export type View = 'fleet' | 'chats' | 'import' | 'history' | 'desktop' | 'settings';
export type Toast = {
  id: number;
  text: string;
  kind: 'info' | 'error';
  detail?: string;
  action?: { label: string; run: () => void };
};
/** A place in a transcript to open at: a search hit's line, and the words to mark there. */
export type TranscriptAnchor = {
  sessionId: string;
  /** Set for a hit in a subagent's transcript. */
  agentId: string | null;
  offset: number;
  uuid: string;
  toolUseId: string | null;
  /** The matched words, as the snippet marked them. */
  terms: string[];
  /** The search that found it: the viewer's find bar opens with it, at this hit. */
  query?: string;
};

export type WizardStart = {
  step?: 1 | 2;
  agent?: string | null;
  claudeHome?: boolean;
  paths?: string[];
  sessionIds?: string[];
  /** Deep links (screenshots, e2e): advance automatically up to this step. */
  advanceTo?: number;
};

/** Least time between two list refreshes caused by changes on disk. */
export const REFRESH_GAP_MS = 1000;
/** How often the process table is sampled while the window is visible. */
export const LIVE_EVERY_MS = 5000;
/** Most terminals "Resume selected" opens at once. */
export const RESUME_AT_ONCE = 8;
/** A hidden window samples once this long after the last transcript write (a little more than
 *  the engine's 15 s grace for a tool call that is still running). */
export const HIDDEN_SAMPLE_DELAY_MS = 16_000;

class AppState {
  view = $state<View>('fleet');
  settings = $state<Settings | null>(null);
  settingsError = $state<AppError | null>(null);

  agents = $state.raw<AgentSummary[] | null>(null);
  agentsError = $state<AppError | null>(null);
  agentSessions = $state.raw<Record<string, SessionSummary[] | undefined>>({});
  agentSessionErrors = $state<Record<string, AppError | undefined>>({});

  groups = $state.raw<DirectoryGroup[] | null>(null);
  warnings = $state.raw<Warning[]>([]);
  listingError = $state<AppError | null>(null);
  includeTemp = $state(false);

  /** Custom names set in this run of the app (optimistic): sessionId → name (null = cleared). */
  names = $state<Record<string, string | null>>({});

  /** The session open in the transcript pane. */
  openId = $state<string | null>(null);
  openSummary = $state.raw<SessionSummary | null>(null);
  /** Where the open transcript opens: a search hit (its page loads, not the newest). */
  openAnchor = $state.raw<TranscriptAnchor | null>(null);
  /** Viewer panels a deep link opens (`#…&panels=usage,rewound`; screenshots and e2e). */
  openPanels = $state.raw<Set<string>>(new Set());
  /** cliSessionId → the desktop app's sidebar entries for it (the "Desktop" badge). */
  desktopPlacements = $state.raw<Map<string, DesktopPlacement[]>>(new Map());
  /** sessionId → what a claude process on it is doing (sessions no process is on are absent). */
  live = $state.raw<Map<string, LiveStatus>>(new Map());
  /** Set when the process table cannot be read: whether sessions run is not known, and why. */
  liveUnknown = $state<string | null>(null);
  /** The "Now" filter: only sessions a claude process is on. */
  nowOnly = $state(false);
  /** The background search indexer's status (null until the shell reports it). */
  indexStatus = $state.raw<IndexStatus | null>(null);

  /** Sessions selected in All Chats for "Adopt into agent…". */
  selected = $state<string[]>([]);

  wizard = $state<WizardStart | null>(null);
  /** The agent row under a drag in progress (drop target highlight). */
  dropAgent = $state<string | null>(null);
  /** Agent to reveal in the Fleet view (set by "agent" links elsewhere). */
  focusAgent = $state<string | null>(null);
  /** A search for All Chats to show (deep links); taken by the view. */
  pendingQuery = $state<string | null>(null);
  toasts = $state<Toast[]>([]);
  private toastSeq = 0;

  /** Each agent's name as a person sees it, by qualified name (the engine's choice: `gamma`, or
   * `team.gamma` when another agent is called `gamma` too). */
  agentNames = $derived(new Map((this.agents ?? []).map((a) => [a.name, a.displayName])));

  /** The name shown for an agent everywhere; the qualified name goes in its tooltip. */
  agentLabel(name: string): string {
    return this.agentNames.get(name) ?? name;
  }

  /** A herdctl fleet is open (agents, adoption and the Fleet view mean something). */
  get hasFleet(): boolean {
    return !!this.settings?.fleetFile;
  }

  private starting: Promise<void> | null = null;

  /** Starts {@link init} before the first render (main.ts), so its requests overlap the mount. */
  start(): void {
    this.starting ??= this.load();
  }

  /** Loads what the first screen shows: the run {@link start} began, else a new one. */
  init(): Promise<void> {
    const run = this.starting ?? this.load();
    this.starting = null;
    return run;
  }

  private async load(): Promise<void> {
    // All three asked at once: the listing, the slowest, does not wait for a settings round trip.
    // Marks for the UI benchmark's start-up breakdown (bench_ui.py reads them): set here, once,
    // not in the loaders, which every refresh calls (the page's timeline would grow all day).
    performance.mark('corral:lists-asked');
    const lists = Promise.all([
      this.loadAgents().then(() => performance.mark('corral:agents-got')),
      this.loadListing().then(() => performance.mark('corral:listing-got')),
    ]);
    await this.loadSettings();
    // Without a fleet the Fleet view has nothing to show: open where the sessions are.
    if (this.settings && !this.hasFleet && this.view === 'fleet') this.view = 'chats';
    await lists;
    // Which desktop-app sidebars hold each session (badges): after the first paint, not before.
    void this.loadDesktop();
    this.watchLive();
  }

  /** Resumes several sessions, one terminal each, one after the other (each start is verified
   *  before the next opens). At most {@link RESUME_AT_ONCE}: a slip of the shift key must not open
   *  a hundred terminals. */
  async resumeMany(list: SessionSummary[]): Promise<void> {
    if (list.length > RESUME_AT_ONCE) {
      this.toast(`Choose at most ${RESUME_AT_ONCE} sessions to resume at once (${list.length} chosen)`, {
        kind: 'error',
      });
      return;
    }
    for (const s of list) await this.resume(s);
  }

  /** Resumes a session in a terminal, and says whether claude started on it. */
  async resume(s: SessionSummary, fromHome = false): Promise<void> {
    try {
      const done = await api.resumeSession(s.sessionId, fromHome);
      if (done.started) {
        this.toast(`Resumed in ${done.terminal}${done.command.fromFallback ? ' (from your home folder)' : ''}`);
        void this.loadLive();
      } else {
        this.toast(`${done.terminal} opened, but the session ${done.reason ?? 'did not start'}`, { kind: 'error' });
      }
    } catch (e) {
      const err = api.toAppError(e);
      if (err.kind === 'invalid-input' && err.message.includes('home folder') && !fromHome) {
        this.toast(`Its folder is gone: ${s.workingDirectory}`, {
          kind: 'error',
          action: { label: 'Resume from home', run: () => void this.resume(s, true) },
        });
      } else {
        this.toastError('Could not resume the session', e);
      }
    }
  }

  /** Exports a session's conversation: the save dialog picks the file, then Corral writes it. */
  async exportSession(s: SessionSummary, format: ExportFormat, subagents = false): Promise<void> {
    const name = exportFileName(this.withName(s), format);
    try {
      const path = await api.pickSavePath(name, format);
      if (!path) return;
      // The system dialog asked before the person chose an existing file.
      const done = await api.exportSession(s.sessionId, { format, subagents }, path, true);
      const runs = done.subagents ? ` and ${done.subagents} subagent run${done.subagents === 1 ? '' : 's'}` : '';
      this.toast(`Exported ${done.messages.toLocaleString()} messages${runs} to ${done.path ?? path}`);
    } catch (e) {
      this.toastError('Could not export the conversation', e);
    }
  }

  /** What claude processes are on now (one look at the process table). */
  async loadLive(): Promise<void> {
    try {
      const now = await api.liveStates();
      this.liveUnknown = now.unknown;
      const before = this.live;
      this.live = new Map(now.sessions.map((s) => [s.sessionId, s]));
      // The first look is the baseline: what already waited when Corral opened is not news.
      if (this.liveLooked && this.settings?.notifyWaiting) this.notifyNewlyWaiting(before, this.live);
      this.liveLooked = true;
    } catch {
      // Not knowing is said by the banner only when the table itself cannot be read.
    }
  }
  private liveLooked = false;

  private notifyNewlyWaiting(before: ReadonlyMap<string, LiveStatus>, now: ReadonlyMap<string, LiveStatus>): void {
    for (const s of newlyWaiting(before, now)) {
      const summary = this.sessionById(s.sessionId);
      const name = summary ? (this.customName(summary) ?? displayName(summary)) : s.sessionId.slice(0, 8);
      const { title, body } = waitingNotification(s, name);
      void api.notify(title, body);
    }
  }

  /** A listed session by id (All Chats' listing, then the agents' loaded sessions). */
  sessionById(id: string): SessionSummary | undefined {
    for (const g of this.groups ?? []) {
      const s = g.sessions.find((x) => x.sessionId === id);
      if (s) return s;
    }
    for (const list of Object.values(this.agentSessions)) {
      const s = list?.find((x) => x.sessionId === id);
      if (s) return s;
    }
    return undefined;
  }

  private liveTimer: ReturnType<typeof setInterval> | null = null;
  /** Samples the process table every few seconds while the window is visible, never while it is
   *  hidden (and at once when it shows again); sessions changing on disk sample it too. */
  watchLive(): void {
    if (this.liveTimer || typeof document === 'undefined') return;
    const visible = () => document.visibilityState === 'visible';
    if (visible()) void this.loadLive();
    this.liveTimer = setInterval(() => {
      if (visible()) void this.loadLive();
    }, LIVE_EVERY_MS);
    document.addEventListener('visibilitychange', () => {
      if (visible()) void this.loadLive();
    });
  }

  /** The desktop app's sidebars, for the listing's badges; a store that cannot be read shows none. */
  async loadDesktop(): Promise<void> {
    if (!this.settings?.desktopStore) return;
    try {
      this.setDesktop(await api.desktopReport());
    } catch {
      this.desktopPlacements = new Map();
    }
  }

  setDesktop(r: DesktopReport): void {
    const m = new Map<string, DesktopPlacement[]>();
    for (const p of r.placements) m.set(p.cliSessionId, [...(m.get(p.cliSessionId) ?? []), p]);
    this.desktopPlacements = m;
  }

  async loadSettings(): Promise<void> {
    try {
      this.settings = await api.getSettings();
      this.settingsError = null;
      setHomeDir(this.settings.homeDir ?? homeFromClaudeHome(this.settings.claudeHome));
    } catch (e) {
      this.settingsError = api.toAppError(e);
    }
  }

  async loadAgents(): Promise<void> {
    try {
      this.agents = await api.listAgents();
      this.agentsError = null;
    } catch (e) {
      this.agentsError = api.toAppError(e);
      this.agents = [];
    }
  }

  async loadListing(): Promise<void> {
    try {
      const l = await api.listSessions(this.includeTemp);
      this.groups = newestFirst(l.groups);
      this.warnings = l.warnings;
      this.listingError = null;
    } catch (e) {
      this.listingError = api.toAppError(e);
      this.groups = [];
    }
  }

  private inflight = new Map<string, Promise<void>>();

  /** Loads an agent's sessions; concurrent calls for the same agent share one request. */
  loadAgentSessions(agent: string): Promise<void> {
    const running = this.inflight.get(agent);
    if (running) return running;
    const p = this.fetchAgentSessions(agent).finally(() => this.inflight.delete(agent));
    this.inflight.set(agent, p);
    return p;
  }

  private async fetchAgentSessions(agent: string): Promise<void> {
    try {
      const list = await api.agentSessions(agent);
      this.agentSessions = { ...this.agentSessions, [agent]: list };
      this.agentSessionErrors[agent] = undefined;
    } catch (e) {
      this.agentSessionErrors[agent] = api.toAppError(e);
    }
  }

  /** Refetches everything that is on screen (after a change on disk or an action). */
  async refresh(): Promise<void> {
    const loaded = Object.keys(this.agentSessions);
    await Promise.all([this.loadAgents(), this.loadListing(), ...loaded.map((a) => this.loadAgentSessions(a))]);
  }

  /** Changes a preference (no new catalog): the error's message when the backend refused it. */
  async changePreferences(patch: { terminal?: string | null; notifyWaiting?: boolean }): Promise<string | null> {
    try {
      this.settings = await api.setSettings(patch);
      return null;
    } catch (e) {
      return api.toAppError(e).message;
    }
  }

  async changeSettings(patch: {
    claudeHome?: string | null;
    fleetFile?: string | null;
    desktopStore?: string | null;
  }): Promise<void> {
    try {
      this.settings = await api.setSettings(patch);
      setHomeDir(this.settings.homeDir ?? homeFromClaudeHome(this.settings.claudeHome));
      this.agentSessions = {};
      this.openId = null;
      this.openSummary = null;
      this.names = {};
      this.agents = null;
      this.groups = null;
      await Promise.all([this.loadAgents(), this.loadListing()]);
    } catch (e) {
      this.toastError('Could not change the settings', e);
    }
  }

  customName(s: SessionSummary): string | null {
    return Object.prototype.hasOwnProperty.call(this.names, s.sessionId) ? this.names[s.sessionId] : s.customName;
  }

  /** The summary with any rename made in this run applied. */
  withName(s: SessionSummary): SessionSummary {
    return Object.prototype.hasOwnProperty.call(this.names, s.sessionId)
      ? { ...s, customName: this.names[s.sessionId] }
      : s;
  }

  /** Optimistic rename: shows the new name everywhere at once, rolls back if the engine refuses. */
  async rename(s: SessionSummary, raw: string): Promise<boolean> {
    const name = raw.trim() === '' ? null : raw.trim();
    const had = s.sessionId in this.names;
    const before = this.names[s.sessionId];
    this.names[s.sessionId] = name;
    try {
      const { session: updated, runId } = await api.renameSession(s.sessionId, name);
      this.names[s.sessionId] = updated.customName;
      const previous = had ? (before ?? null) : s.customName;
      const undo = runId ? { label: 'Undo', run: () => void this.undoRename(updated, runId, previous) } : undefined;
      this.toast(name ? `Renamed to “${name}”` : 'Custom name cleared — showing the automatic name again', {
        action: undo,
      });
      return true;
    } catch (e) {
      if (had) this.names[s.sessionId] = before ?? null;
      else delete this.names[s.sessionId];
      this.toastError('Could not rename the session', e);
      return false;
    }
  }

  /** Undoes a rename run (as History does) and shows the name it brought back. */
  async undoRename(s: SessionSummary, runId: string, before: string | null): Promise<void> {
    try {
      const report = await api.undoRun(runId);
      if (report.notUndone.length) {
        this.toast(`Not everything could be undone: ${report.notUndone[0].reason}`, { kind: 'error' });
      } else {
        this.names[s.sessionId] = before;
        this.toast(before ? `Name is “${before}” again` : 'Custom name removed again');
      }
    } catch (e) {
      this.toastError('Could not undo the rename', e);
    }
  }

  async release(agent: string, s: SessionSummary): Promise<void> {
    try {
      const ok = await api.release(agent, s.sessionId);
      if (ok) {
        this.toast(
          `Released from ${this.agentLabel(agent)}. The transcript is still on disk and now shows in All Chats.`,
        );
        const list = own(this.agentSessions, agent);
        if (list)
          this.agentSessions = { ...this.agentSessions, [agent]: list.filter((x) => x.sessionId !== s.sessionId) };
      } else {
        this.toast(`${this.agentLabel(agent)} did not hold an adoption record for this session; nothing changed.`);
      }
      await this.refresh();
    } catch (e) {
      this.toastError('Could not release the session', e);
    }
  }

  open(s: SessionSummary | null, anchor: TranscriptAnchor | null = null): void {
    this.openId = s?.sessionId ?? null;
    this.openSummary = s;
    this.openAnchor = s ? anchor : null;
  }

  /** Opens the listed session `id` (at `anchor`), or says it is not listed; whether it opened. */
  openListed(id: string, anchor: TranscriptAnchor | null = null): boolean {
    const s = (this.groups ?? []).flatMap((g) => g.sessions).find((x) => x.sessionId === id);
    if (!s) {
      this.toast('This session is not in the list (is it in a temp folder that is hidden?)');
      return false;
    }
    this.open(s, anchor);
    return true;
  }

  openWizard(start: WizardStart = {}): void {
    this.wizard = { step: 1, ...start };
  }

  toast(text: string, opts: Partial<Omit<Toast, 'id' | 'text'>> = {}): void {
    const id = ++this.toastSeq;
    this.toasts = [...this.toasts, { id, text, kind: 'info', ...opts }];
    setTimeout(() => this.dismiss(id), opts.kind === 'error' ? 12_000 : 5_000);
  }

  toastError(text: string, e: unknown): void {
    const err = api.toAppError(e);
    this.toast(text, { kind: 'error', detail: `${err.message} (${err.kind})` });
  }

  dismiss(id: number): void {
    this.toasts = this.toasts.filter((t) => t.id !== id);
  }

  private refreshing = false;
  private refreshAgain = false;

  /** The open transcript reacts at once (the `sessions-changed` event); the lists refresh at most
   *  about once a second while Claude keeps writing, so a busy session never floods the window
   *  with reloads. */
  onSessionsChanged(folders: string[]): void {
    emit('sessions-changed', { folders });
    void this.throttledRefresh();
    const now = Date.now();
    const visible = typeof document === 'undefined' || document.visibilityState === 'visible';
    if (visible && now - this.liveAt >= REFRESH_GAP_MS) {
      this.liveAt = now;
      void this.loadLive();
    } else if (!visible && this.settings?.notifyWaiting) {
      this.sampleHiddenAfterWrite();
    }
  }
  private liveAt = 0;
  private hiddenSample: ReturnType<typeof setTimeout> | null = null;

  /** With notifications on and the window hidden, nothing is polled: a write to a transcript
   *  samples the process table once, a little after the writes stop (so a tool call left
   *  without a result has become "waiting"). Quiet homes are never sampled. */
  private sampleHiddenAfterWrite(): void {
    if (this.hiddenSample) clearTimeout(this.hiddenSample);
    this.hiddenSample = setTimeout(() => {
      this.hiddenSample = null;
      void this.loadLive();
    }, HIDDEN_SAMPLE_DELAY_MS);
  }

  private async throttledRefresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.refreshAgain = false;
        await this.refresh();
        if (this.refreshAgain) await new Promise((r) => setTimeout(r, REFRESH_GAP_MS));
      } while (this.refreshAgain);
    } finally {
      this.refreshing = false;
    }
  }
}

/** The user's home, when the Claude home is the usual `<home>/.claude` (Settings carries no home). */
export function homeFromClaudeHome(claudeHome: string): string | null {
  const m = /^(.*)[\\/]\.claude[\\/]*$/.exec(claudeHome);
  return m && m[1] ? m[1] : null;
}

export const app = new AppState();

/** `rec[key]` for own keys only — an agent named `constructor` must not read Object.prototype. */
export function own<T>(rec: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(rec, key) ? rec[key] : undefined;
}

/** Does a sessions-changed folder list concern this session? Folders may be absolute or encoded names. */
export function folderConcerns(
  folders: string[],
  s: Pick<SessionSummary, 'encodedPath' | 'transcriptPath' | 'workingDirectory'>,
): boolean {
  if (!folders.length) return true;
  return folders.some((f) => {
    const clean = f.replace(/[\\/]+$/, '');
    return (
      clean === s.encodedPath ||
      clean.endsWith('/' + s.encodedPath) ||
      clean.endsWith('\\' + s.encodedPath) ||
      s.transcriptPath.startsWith(clean + '/') ||
      s.transcriptPath.startsWith(clean + '\\') ||
      clean === s.workingDirectory
    );
  });
}

/** Is keyboard focus inside the transcript pane? (F2 then renames the open session, not a list row.) */
export function inTranscript(): boolean {
  return typeof document !== 'undefined' && !!document.activeElement?.closest('[data-testid="transcript"]');
}
