// What the lists show: the fleet's agents and their sessions, every session by folder (All
// Chats), the names given in this run, the desktop app's sidebar badges, the search index's
// progress and the sessions selected for an action; loading and refreshing them.
import * as api from './api';
import { newestFirst } from './listfilter';
import type {
  AgentSummary,
  AppError,
  DesktopPlacement,
  DesktopReport,
  DirectoryGroup,
  Listing as ListingReply,
  IndexStatus,
  ScanProgress,
  SessionSummary,
  Warning,
} from './types';

/** Least time between two list refreshes caused by changes on disk. */
export const REFRESH_GAP_MS = 1000;
/** Least time between two listings so far asked for while a pass reads many files. */
export const SO_FAR_GAP_MS = 2000;

class Listing {
  agents = $state.raw<AgentSummary[] | null>(null);
  agentsError = $state<AppError | null>(null);
  agentSessions = $state.raw<Record<string, SessionSummary[] | undefined>>({});
  agentSessionErrors = $state<Record<string, AppError | undefined>>({});

  groups = $state.raw<DirectoryGroup[] | null>(null);
  warnings = $state.raw<Warning[]>([]);
  error = $state<AppError | null>(null);
  includeTemp = $state(false);
  /** Sessions of temp folders the listing left out (while `includeTemp` is off). */
  leftOutTemp = $state(0);
  /** How far the listing's pass has read while the lists show what it knows so far (rows not
   *  read yet are `pending`); null once the listing is complete. */
  progress = $state.raw<ScanProgress | null>(null);
  /** Counts calls of {@link loadListing}: only the newest call's answers are shown. */
  private generation = 0;

  /** Custom names set in this run of the app (optimistic): sessionId → name (null = cleared). */
  names = $state<Record<string, string | null>>({});
  /** cliSessionId → the desktop app's sidebar entries for it (the "Desktop" badge). */
  desktopPlacements = $state.raw<Map<string, DesktopPlacement[]>>(new Map());
  /** The background search indexer's status (null until the shell reports it). */
  indexStatus = $state.raw<IndexStatus | null>(null);
  /** Sessions selected (All Chats, Fleet) for an action on many: resume, adopt, delete. */
  selected = $state<string[]>([]);

  /** Each agent's name as a person sees it, by qualified name (the engine's choice: `gamma`, or
   * `team.gamma` when another agent is called `gamma` too). */
  agentNames = $derived(new Map((this.agents ?? []).map((a) => [a.name, a.displayName])));

  /** The name shown for an agent everywhere; the qualified name goes in its tooltip. */
  agentLabel(name: string): string {
    return this.agentNames.get(name) ?? name;
  }

  /** The agents shown are the complete pass's (not a pass's so far). */
  private agentsComplete = false;

  async loadAgents(): Promise<void> {
    try {
      this.agents = await api.listAgents();
      this.agentsError = null;
    } catch (e) {
      this.agentsError = api.toAppError(e);
      this.agents = [];
    }
    this.agentsComplete = true;
  }

  /** Shows or hides the sessions of temp folders (the listing is read again). */
  setIncludeTemp(on: boolean): Promise<void> {
    this.includeTemp = on;
    return this.loadListing();
  }

  /** Loads the listing. While nothing complete is shown and the shell's pass reads many files
   *  (a first start), what it knows so far is shown as it reads, with its progress. */
  async loadListing(): Promise<void> {
    const generation = ++this.generation;
    const includeTemp = this.includeTemp;
    const stop = this.groups === null || this.progress ? this.followPass(generation, includeTemp) : null;
    try {
      const l = await api.listSessions(includeTemp);
      if (generation !== this.generation) return;
      this.show(l);
    } catch (e) {
      if (generation !== this.generation) return;
      this.error = api.toAppError(e);
      this.groups = [];
    } finally {
      stop?.();
      if (generation === this.generation) this.progress = null;
    }
  }

  private show(l: ListingReply): void {
    this.groups = newestFirst(l.groups);
    this.warnings = l.warnings;
    this.leftOutTemp = l.leftOutTemp;
    this.error = null;
  }

  /** Shows the pass's listing so far now and as `listing-progress` says it reads on (at most
   *  every {@link SO_FAR_GAP_MS}); returns the stop. */
  private followPass(generation: number, includeTemp: boolean): () => void {
    let stopped = false;
    let asking = false;
    let askedAt = 0;
    const ask = async (): Promise<void> => {
      asking = true;
      askedAt = Date.now();
      try {
        const soFar = await api.listingSoFar(includeTemp);
        if (stopped || generation !== this.generation || !soFar) return;
        this.show(soFar.listing);
        if (!this.agentsComplete) this.agents = soFar.agents;
        this.progress = soFar.progress;
      } catch {
        // The complete listing says what went wrong.
      } finally {
        asking = false;
      }
    };
    const unsubscribe = api.onListingProgress((p) => {
      if (stopped || generation !== this.generation) return;
      if (this.progress) this.progress = p;
      if (!asking && (!this.progress || Date.now() - askedAt >= SO_FAR_GAP_MS)) void ask();
    });
    void ask();
    return () => {
      stopped = true;
      void unsubscribe.then((u) => u()).catch(() => {});
    };
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

  private refreshing = false;
  private refreshAgain = false;

  /** {@link refresh}, at most about once a second while changes keep coming. */
  async throttledRefresh(): Promise<void> {
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

  /** Forgets everything listed (another Claude home or fleet is opening). */
  clear(): void {
    this.agentSessions = {};
    this.names = {};
    this.agents = null;
    this.agentsComplete = false;
    this.groups = null;
    this.progress = null;
  }

  /** The desktop app's sidebars, for the listing's badges; a store that cannot be read shows none. */
  async loadDesktop(): Promise<void> {
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

  customName(s: SessionSummary): string | null {
    return Object.prototype.hasOwnProperty.call(this.names, s.sessionId) ? this.names[s.sessionId] : s.customName;
  }

  /** The summary with any rename made in this run applied. */
  withName(s: SessionSummary): SessionSummary {
    return Object.prototype.hasOwnProperty.call(this.names, s.sessionId)
      ? { ...s, customName: this.names[s.sessionId] }
      : s;
  }
}

export const listing = new Listing();

/** `rec[key]` for own keys only — an agent named `constructor` must not read Object.prototype. */
export function own<T>(rec: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(rec, key) ? rec[key] : undefined;
}
