// "Reopen recent work": each recent folder's newest conversation, chosen and started again, each
// in its own terminal. The rows come from the engine (with each folder's state now); git states
// follow (each folder's git is bounded in time, so they may come a moment later); starts stream
// their outcomes as they are verified.
import * as api from './api';
import { toAppError } from './api';
import { SvelteSet } from 'svelte/reactivity';
import type { AppError, GitState, RecentWork, ReopenOutcome, ReopenReport, ReopenRow, StartResult } from './types';

/** The windows a person can choose, in days. */
export const REOPEN_DAYS = [7, 14, 21, 30, 60, 90] as const;
export const DEFAULT_REOPEN_DAYS = 21;

/** A git state in a few words: `main ±3 ↑1 ↓2`, "not a repository", or why it is unknown. */
export function gitWords(g: GitState | undefined): string {
  if (!g) return '';
  switch (g.kind) {
    case 'notARepository':
      return 'not a git repository';
    case 'unreadable':
      return 'git: ' + g.why;
    case 'repository': {
      const words = [g.branch ?? '(detached)'];
      const changes = g.changed + g.untracked;
      if (changes) words.push(`±${changes}`);
      if (g.ahead) words.push(`↑${g.ahead}`);
      if (g.behind) words.push(`↓${g.behind}`);
      return words.join(' ');
    }
  }
}

/** What a git state's counts mean, for a tooltip. */
export function gitTitle(g: GitState | undefined): string {
  if (g?.kind !== 'repository') return '';
  const parts = [
    `${g.changed} changed, ${g.untracked} untracked`,
    g.upstream ? `${g.ahead} ahead of, ${g.behind} behind ${g.upstream}` : 'no upstream branch',
  ];
  return parts.join('; ');
}

/** The word a start result is shown with. */
export function resultWord(r: StartResult): string {
  return { started: 'Started', 'failed-to-start': 'Failed to start', skipped: 'Skipped', 'not-tried': 'Not tried' }[r];
}

class ReopenFlow {
  days = $state<number>(DEFAULT_REOPEN_DAYS);
  everySurface = $state(false);
  work = $state.raw<RecentWork | null>(null);
  git = $state.raw<Record<string, GitState>>({});
  error = $state<AppError | null>(null);
  loading = $state(false);
  chosen = new SvelteSet<string>();
  running = $state(false);
  outcomes = $state.raw<Record<string, ReopenOutcome>>({});
  report = $state.raw<ReopenReport | null>(null);
  private generation = 0;

  /** Reads the recent work again (the folders' states are of this moment), then their git states.
   *  `fresh`: the choices go back to every free folder and every git state is read again; else
   *  (a change on disk) the person's choices stand, a new free folder is chosen, a folder no
   *  longer free is not, and git is read only for folders not read yet. */
  async load(fresh = true) {
    const mine = ++this.generation;
    this.loading = true;
    try {
      const work = await api.recentWork(this.days, this.everySurface);
      if (mine !== this.generation) return;
      const before = fresh || !this.work ? null : new Set(this.work.rows.map((r) => r.sessionId));
      this.work = work;
      this.error = null;
      if (!before) {
        this.git = {};
        this.chosen.clear();
      }
      for (const r of work.rows) {
        if (r.state !== 'free') this.chosen.delete(r.sessionId);
        else if (!before?.has(r.sessionId)) this.chosen.add(r.sessionId);
      }
      const folders = work.rows.map((r) => r.folder).filter((f) => !(f in this.git));
      if (folders.length) {
        const states = await api.gitStates(folders);
        if (mine !== this.generation) return;
        this.git = { ...this.git, ...Object.fromEntries(folders.map((f, i) => [f, states[i]])) };
      }
    } catch (e) {
      if (mine === this.generation) this.error = toAppError(e);
    } finally {
      if (mine === this.generation) this.loading = false;
    }
  }

  private pending: ReturnType<typeof setTimeout> | null = null;
  /** Sessions changed on disk: reads again in a moment (changes come in bursts while Claude
   *  Code writes), never while starting. */
  changed() {
    if (this.pending) clearTimeout(this.pending);
    this.pending = setTimeout(() => {
      this.pending = null;
      if (!this.running) void this.load(false);
    }, 1000);
  }

  /** Whether a row can be started (its folder is free, and nothing is starting now). */
  startable(r: ReopenRow): boolean {
    return r.state === 'free' && !this.running;
  }

  toggle(r: ReopenRow) {
    if (!this.startable(r)) return;
    if (this.chosen.has(r.sessionId)) this.chosen.delete(r.sessionId);
    else this.chosen.add(r.sessionId);
  }

  /** The chosen rows, in the list's order. */
  get chosenRows(): ReopenRow[] {
    return (this.work?.rows ?? []).filter((r) => this.chosen.has(r.sessionId) && r.state === 'free');
  }

  /** Starts the chosen rows; each outcome shows as it is verified. */
  async start() {
    const rows = this.chosenRows;
    if (!rows.length || this.running) return;
    this.running = true;
    this.outcomes = {};
    this.report = null;
    try {
      const choices = rows.map((r) => ({ sessionId: r.sessionId, remoteName: r.remoteName }));
      this.report = await api.reopen(choices, (o) => {
        this.outcomes = { ...this.outcomes, [o.sessionId]: o };
      });
      this.error = null;
      this.chosen.clear();
    } catch (e) {
      this.error = toAppError(e);
    } finally {
      this.running = false;
    }
    // The folders just started are held now: the rows say so (the outcomes stay shown).
    await this.load(false);
  }

  /** Stops before the next start (the one starting now finishes). */
  cancel() {
    void api.cancelRun();
  }
}

export const reopenFlow = new ReopenFlow();
