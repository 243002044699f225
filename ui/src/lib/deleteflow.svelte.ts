// Deleting sessions into the quarantine: 1 preview (a plan of what moves, with sizes; writes
// nothing) → 2 run (progress, cancel between sessions) → result (undo). Chosen sessions come from
// a selection; a clean-up starts with no ids and picks by rules the person sets in the preview
// (some may be set already: a folder's or an agent's sessions); a sweep takes leftovers the
// Storage view found, with no rule to choose.
import * as api from './api';
import { formatCount } from './format';
import type { DeleteStart } from './navigation.svelte';
import { RunState } from './runstate.svelte';
import type { AppError, DeletePlan, DeleteProgress, DeleteReport, DeleteRules, LeftoverSweep } from './types';

export const DELETE_STEPS = ['Preview', 'Delete', 'Result'] as const;

export const NO_RULES: DeleteRules = {
  olderThanDays: null,
  empty: false,
  largerThan: null,
  folderGone: false,
  workingDirectory: null,
  agent: null,
};
export const NO_SWEEP: LeftoverSweep = { orphaned: false, debugLogsOlderThanDays: null };

export class DeleteFlow extends RunState<DeleteProgress, DeleteReport> {
  step = $state<number>(1);
  sessionIds = $state<string[]>([]);
  /** A clean-up (rules, no ids) or a delete of chosen sessions. */
  readonly byRule: boolean;
  /** Leftovers only: the plan is made once, with no rule to choose. */
  readonly sweep: LeftoverSweep;
  readonly scope: string | null;
  rules = $state<DeleteRules>({ ...NO_RULES, olderThanDays: 90 });
  plan = $state.raw<DeletePlan | null>(null);
  planning = $state(false);
  planError = $state<AppError | null>(null);
  #gen = 0;
  readonly onclose: (changed: boolean) => void;

  constructor(start: DeleteStart, onclose: (changed: boolean) => void) {
    super();
    this.sessionIds = start.sessionIds ?? [];
    this.sweep = start.sweep ?? NO_SWEEP;
    this.byRule = this.sessionIds.length === 0 && !this.isSweep;
    if (!this.byRule) this.rules = { ...NO_RULES };
    if (start.rules) this.rules = { ...this.rules, ...start.rules };
    this.scope = start.scope ?? null;
    this.onclose = onclose;
  }

  get isSweep(): boolean {
    return this.sweep.orphaned || this.sweep.debugLogsOlderThanDays != null;
  }
  /** "3 sessions", or for a sweep "3 sets of leftovers". */
  countText(n: number): string {
    return this.isSweep ? formatCount(n, 'set of leftovers', 'sets of leftovers') : formatCount(n, 'session');
  }
  get request() {
    return { sessionIds: this.sessionIds, rules: this.rules, sweep: this.sweep };
  }
  readonly hasRule = $derived(
    !!this.rules.olderThanDays ||
      this.rules.empty ||
      this.rules.largerThan != null ||
      this.rules.folderGone ||
      this.rules.workingDirectory != null ||
      this.rules.agent != null,
  );
  readonly canRun = $derived(
    this.step === 1 && !!this.plan && !this.planning && this.plan.sessions.length > 0 && !this.running,
  );

  async makePlan() {
    const gen = ++this.#gen;
    if (this.byRule && !this.hasRule) {
      this.plan = null;
      this.planError = null;
      return;
    }
    this.planning = true;
    this.planError = null;
    try {
      const p = await api.planDelete($state.snapshot(this.request));
      if (gen === this.#gen) this.plan = p;
    } catch (e) {
      if (gen === this.#gen) this.planError = api.toAppError(e);
    } finally {
      if (gen === this.#gen) this.planning = false;
    }
  }

  setRules(rules: Partial<DeleteRules>) {
    this.rules = { ...this.rules, ...rules };
    void this.makePlan();
  }

  /** Adds sessions to a delete of chosen ones (the other half of a continued conversation). */
  addSessions(ids: string[]) {
    if (this.byRule || this.isSweep) return;
    this.sessionIds = [...new Set([...this.sessionIds, ...ids])];
    void this.makePlan();
  }

  async run() {
    const plan = this.plan;
    if (!this.canRun || !plan) return;
    this.step = 2;
    const first = { done: 0, total: plan.sessions.length, bytes: 0 };
    // The engine plans again against the process table as it is now; ids pin what was previewed
    // (a sweep's leftovers are no sessions: it is planned again as it was asked for).
    const request = this.isSweep
      ? $state.snapshot(this.request)
      : {
          sessionIds: plan.sessions.map((s) => s.sessionId),
          rules: $state.snapshot(this.rules),
          sweep: NO_SWEEP,
        };
    if (await this.runWith(first, (onProgress) => api.deleteSessions(request, onProgress))) this.step = 3;
  }

  async cancelRun() {
    await super.cancelRun('the delete');
  }

  close() {
    if (this.running) return;
    this.onclose(!!this.report?.runId && !this.undone);
  }
}
