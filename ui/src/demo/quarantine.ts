// The demo's deletes: sessions move out of the demo's list into an in-memory quarantine, as runs
// History lists; restore puts them back, emptying marks them as sent to the trash.
import type {
  DeletePlan,
  DeleteProgress,
  DeleteReport,
  DeleteRequest,
  EmptyReport,
  LeftoverItem,
  PlannedSession,
  Orphaned,
  QuarantineRun,
  RunSummary,
  SessionSummary,
  StorageReport,
  UndoReport,
} from '../lib/types';
import { debugLogBytes, demoOrphans, demoStorage } from './storage';

type MakeRun = (id: string, agoMs: number, o: Partial<RunSummary>) => RunSummary;

const DAY = 86_400_000;
const ORPHANED_NAME = 'Leftovers of a session that is gone';
const NOT_REMOVED = [
  "the session's lines in history.jsonl (Claude Code appends to that file all the time; no tool should rewrite it)",
  "the desktop app's sidebar entries for it while the app is running (quit it first and they go too)",
];

export class DemoQuarantine {
  readonly #held = new Map<string, { run: QuarantineRun; sessions: SessionSummary[] }>();
  cancelled = false;
  orphans: Orphaned[];
  readonly debugSwept = new Set<string>();

  constructor(
    private readonly sessions: SessionSummary[],
    private readonly runs: RunSummary[],
    private readonly makeRun: MakeRun,
    private readonly home: string,
    private readonly dataDir: string,
  ) {
    this.orphans = demoOrphans(home);
  }

  #picked(request: DeleteRequest): SessionSummary[] {
    const r = request.rules;
    const now = Date.now();
    const pool = request.sessionIds.length
      ? this.sessions.filter((s) => request.sessionIds.includes(s.sessionId))
      : this.sessions;
    const noRule =
      !r.olderThanDays && !r.empty && r.largerThan == null && !r.folderGone && !r.workingDirectory && !r.agent;
    if (!request.sessionIds.length && noRule) {
      if (request.sweep.orphaned || request.sweep.debugLogsOlderThanDays != null) return [];
      throw { kind: 'invalid-input', message: 'name the sessions to delete, or a rule that picks them' };
    }
    return pool.filter((s) => {
      const last = Date.parse(s.lastMessageAt ?? s.mtime);
      if (r.olderThanDays && now - last < r.olderThanDays * DAY) return false;
      if (r.empty && s.preview) return false;
      if (r.largerThan != null && s.sizeBytes <= r.largerThan) return false;
      if (r.folderGone && !s.workingDirectory.includes('old')) return false;
      if (r.workingDirectory != null && s.workingDirectory !== r.workingDirectory) return false;
      if (r.agent != null && s.agentName !== r.agent) return false;
      return true;
    });
  }

  #items(s: SessionSummary): LeftoverItem[] {
    const items: LeftoverItem[] = [{ kind: 'transcript', path: s.transcriptPath, bytes: s.sizeBytes }];
    items.push({ kind: 'file-history', path: `${this.home}/file-history/${s.sessionId}`, bytes: 18_344 });
    items.push({ kind: 'session-env', path: `${this.home}/session-env/${s.sessionId}`, bytes: 0 });
    return items;
  }

  plan(request: DeleteRequest): DeletePlan {
    const picked = this.#picked(request);
    const sessions: PlannedSession[] = picked
      .filter((s) => s.agentName !== 'team.alpha' || s.origin !== 'schedule')
      .map((s) => {
        const items = this.#items(s);
        return {
          sessionId: s.sessionId,
          name: s.customName ?? s.autoName ?? s.preview ?? 'Untitled session',
          workingDirectory: s.workingDirectory,
          items,
          bytes: items.reduce((n, i) => n + i.bytes, 0),
          notes: s.continuedIn ? [`session ${s.continuedIn} continues it`] : [],
          names: s.customName && s.agentName ? [{ agentKey: s.agentName, name: s.customName }] : [],
          related: [],
        };
      });
    const refused = picked
      .filter((s) => !sessions.some((p) => p.sessionId === s.sessionId))
      .map((s) => ({
        sessionId: s.sessionId,
        reason: 'not deleted: herdctl job job-2026-12-06-a1b2c3 of agent team.alpha is running on it',
      }));
    sessions.push(...this.#swept(request, new Set(picked.map((s) => s.sessionId))));
    return { sessions, refused, bytes: sessions.reduce((n, s) => n + s.bytes, 0), notRemoved: NOT_REMOVED };
  }

  /** What a sweep takes: gone sessions' leftovers, and old debug logs of sessions that stay. */
  #swept(request: DeleteRequest, taken: Set<string>): DeletePlan['sessions'] {
    const out: DeletePlan['sessions'] = [];
    if (request.sweep.orphaned) {
      for (const o of this.orphans)
        out.push({ ...o, name: ORPHANED_NAME, workingDirectory: '', notes: [], names: [], related: [] });
    }
    const days = request.sweep.debugLogsOlderThanDays;
    if (days != null) {
      for (const s of this.sessions) {
        if (taken.has(s.sessionId) || this.debugSwept.has(s.sessionId)) continue;
        if (Date.now() - Date.parse(s.lastMessageAt ?? s.mtime) < days * DAY) continue;
        const item = {
          kind: 'debug-log' as const,
          path: `${this.home}/debug/${s.sessionId}.txt`,
          bytes: debugLogBytes(s),
        };
        const name = `Debug log of ${s.customName ?? s.autoName ?? s.preview ?? 'Untitled session'}`;
        out.push({
          sessionId: s.sessionId,
          name,
          workingDirectory: s.workingDirectory,
          items: [item],
          bytes: item.bytes,
          notes: [],
          names: [],
          related: [],
        });
      }
    }
    return out;
  }

  /** The Storage view's figures, as the demo's sessions and quarantine stand. */
  storage(): StorageReport {
    const held = this.list().reduce((n, r) => n + (r.emptiedAt || r.undone ? 0 : r.bytes), 0);
    return demoStorage(this.sessions, this.orphans, this.debugSwept, this.home, held);
  }

  async delete(request: DeleteRequest, onProgress: (p: DeleteProgress) => void): Promise<DeleteReport> {
    this.cancelled = false;
    const plan = this.plan(request);
    const runId = `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}Z-${4000 + this.#held.size}`;
    const moved: SessionSummary[] = [];
    const movedIds = new Set<string>();
    let bytes = 0;
    for (const [i, p] of plan.sessions.entries()) {
      if (this.cancelled) break;
      await new Promise((r) => setTimeout(r, 120));
      const whole = p.items.some((it) => it.kind === 'transcript');
      const at = whole ? this.sessions.findIndex((s) => s.sessionId === p.sessionId) : -1;
      if (at >= 0) moved.push(...this.sessions.splice(at, 1));
      else if (p.name === ORPHANED_NAME) this.orphans = this.orphans.filter((o) => o.sessionId !== p.sessionId);
      else this.debugSwept.add(p.sessionId);
      movedIds.add(p.sessionId);
      bytes += p.bytes;
      onProgress({ done: i + 1, total: plan.sessions.length, bytes });
    }
    if (!movedIds.size) return { runId: null, deleted: [], refused: plan.refused, bytes: 0, cancelled: this.cancelled };
    const run: QuarantineRun = {
      runId,
      deletedAt: new Date().toISOString(),
      sessions: plan.sessions
        .filter((p) => movedIds.has(p.sessionId))
        .map((p) => ({
          sessionId: p.sessionId,
          name: p.name,
          workingDirectory: p.workingDirectory,
          bytes: p.bytes,
          items: p.items.length,
          restored: false,
        })),
      bytes,
      undone: false,
      emptiedAt: null,
      folder: `${this.dataDir}/quarantine/${runId}`,
    };
    this.#held.set(runId, { run, sessions: moved });
    this.runs.unshift(
      this.makeRun(runId, 0, {
        target: null,
        mode: 'move',
        placed: movedIds.size,
        delete: {
          sessions: run.sessions.map((s) => ({
            sessionId: s.sessionId,
            name: s.name,
            workingDirectory: s.workingDirectory,
          })),
        },
        quarantineDir: run.folder,
        quarantineBytes: bytes,
        cancelled: this.cancelled,
      }),
    );
    return { runId, deleted: [...movedIds], refused: plan.refused, bytes, cancelled: this.cancelled };
  }

  list(): QuarantineRun[] {
    return [...this.#held.values()].map((h) => ({ ...h.run, sessions: h.run.sessions.map((s) => ({ ...s })) }));
  }

  /** Puts a run (or one of its sessions) back; `undefined` when the run is no delete. */
  restore(runId: string, sessionId: string | null): UndoReport | undefined {
    const h = this.#held.get(runId);
    if (!h) return undefined;
    if (h.run.emptiedAt) {
      return {
        runId,
        undone: [],
        notUndone: h.run.sessions.map((s) => ({
          path: s.workingDirectory,
          reason: `the quarantine was emptied into the system's trash on ${h.run.emptiedAt}; restore it from there`,
          sessionId: s.sessionId,
        })),
      };
    }
    const undone: UndoReport['undone'] = [];
    for (const s of h.run.sessions) {
      if (s.restored || (sessionId && s.sessionId !== sessionId)) continue;
      s.restored = true;
      h.run.bytes -= s.bytes;
      s.bytes = 0;
      const back = h.sessions.find((x) => x.sessionId === s.sessionId);
      if (back) this.sessions.unshift(back);
      undone.push({ path: back?.transcriptPath ?? s.sessionId, action: 'unquarantined', sessionId: s.sessionId });
    }
    if (h.run.sessions.every((s) => s.restored)) {
      h.run.undone = true;
      const r = this.runs.find((x) => x.runId === runId);
      if (r) {
        r.undoState = 'undone';
        r.undoneAt = new Date().toISOString();
      }
    }
    return { runId, undone, notUndone: [] };
  }

  empty(runIds: string[]): EmptyReport {
    const report: EmptyReport = { emptied: [], bytes: 0, kept: [] };
    for (const id of runIds) {
      const h = this.#held.get(id);
      if (!h || h.run.emptiedAt) {
        report.kept.push({ runId: id, reason: h ? `run ${id} was emptied already` : `no run ${id}` });
        continue;
      }
      h.run.emptiedAt = new Date().toISOString();
      report.emptied.push(id);
      report.bytes += h.run.bytes;
      h.run.bytes = 0;
    }
    return report;
  }
}
