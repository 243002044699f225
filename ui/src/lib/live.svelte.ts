// Which sessions a claude process is on now and what each is doing: the process table sampled
// every few seconds while the window is visible, never while it is hidden (then a write to a
// transcript samples it once, for the "waiting on you" notification).
import * as api from './api';
import { config } from './config.svelte';
import { displayName } from './format';
import { listing } from './listing.svelte';
import { newlyWaiting, waitingNotification } from './notify';
import type { LiveStatus } from './types';

/** How often the process table is sampled while the window is visible. */
export const LIVE_EVERY_MS = 5000;
/** Least time between two samples caused by writes to transcripts. */
const WRITE_GAP_MS = 1000;
/** A hidden window samples once this long after the last transcript write (a little more than
 *  the engine's 15 s grace for a tool call that is still running). */
export const HIDDEN_SAMPLE_DELAY_MS = 16_000;

class Live {
  /** sessionId → what a claude process on it is doing (sessions no process is on are absent). */
  sessions = $state.raw<Map<string, LiveStatus>>(new Map());
  /** Set when the process table cannot be read: whether sessions run is not known, and why. */
  unknown = $state<string | null>(null);
  /** The "Now" filter: only sessions a claude process is on. */
  nowOnly = $state(false);
  /** The process table has been read once: a session absent from `sessions` has no process. */
  looked = $state(false);
  private timer: ReturnType<typeof setInterval> | null = null;
  private writeAt = 0;
  private hiddenSample: ReturnType<typeof setTimeout> | null = null;

  /** What claude processes are on now (one look at the process table). */
  async load(): Promise<void> {
    try {
      const now = await api.liveStates();
      this.unknown = now.unknown;
      const before = this.sessions;
      this.sessions = new Map(now.sessions.map((s) => [s.sessionId, s]));
      // The first look is the baseline: what already waited when Corral opened is not news.
      if (this.looked && config.settings?.notifyWaiting) notifyNewlyWaiting(before, this.sessions);
      this.looked = true;
    } catch {
      // Not knowing is said by the banner only when the table itself cannot be read.
    }
  }

  /** Samples the process table every few seconds while the window is visible, never while it is
   *  hidden (and at once when it shows again). */
  watch(): void {
    if (this.timer || typeof document === 'undefined') return;
    const visible = () => document.visibilityState === 'visible';
    if (visible()) void this.load();
    this.timer = setInterval(() => {
      if (visible()) void this.load();
    }, LIVE_EVERY_MS);
    document.addEventListener('visibilitychange', () => {
      if (visible()) void this.load();
    });
  }

  /** Transcripts were written: sample now (at most about once a second) while the window shows;
   *  with notifications on and the window hidden, once, a little after the writes stop (so a tool
   *  call left without a result has become "waiting"). Quiet homes are never sampled. */
  written(): void {
    const now = Date.now();
    const visible = typeof document === 'undefined' || document.visibilityState === 'visible';
    if (visible && now - this.writeAt >= WRITE_GAP_MS) {
      this.writeAt = now;
      void this.load();
    } else if (!visible && config.settings?.notifyWaiting) {
      if (this.hiddenSample) clearTimeout(this.hiddenSample);
      this.hiddenSample = setTimeout(() => {
        this.hiddenSample = null;
        void this.load();
      }, HIDDEN_SAMPLE_DELAY_MS);
    }
  }
}

function notifyNewlyWaiting(before: ReadonlyMap<string, LiveStatus>, now: ReadonlyMap<string, LiveStatus>): void {
  for (const s of newlyWaiting(before, now)) {
    const summary = listing.sessionById(s.sessionId);
    const name = summary ? (listing.customName(summary) ?? displayName(summary)) : s.sessionId.slice(0, 8);
    const { title, body } = waitingNotification(s, name);
    void api.notify(title, body);
  }
}

export const live = new Live();
