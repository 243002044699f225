// The desktop-sidebar restore's state and actions, shared by its dialog and its three step
// components: 1 preview (a plan, writes nothing) → 2 confirm & run (progress) → 3 result (undo).
import * as api from './api';
import { RunState } from './runstate.svelte';
import type {
  AppError,
  DesktopAppState,
  DesktopRestorePreview,
  DesktopRestoreProgress,
  DesktopRestoreReport,
  DesktopRestoreRequest,
} from './types';

export const RESTORE_STEPS = ['Preview', 'Confirm', 'Result'] as const;

/** The sidebar a restore writes into. */
export interface RestoreTarget {
  account: string;
  org: string;
}

export class RestoreFlow extends RunState<DesktopRestoreProgress, DesktopRestoreReport> {
  step = $state<number>(1);
  readonly target: RestoreTarget;
  readonly request: DesktopRestoreRequest;

  preview = $state.raw<DesktopRestorePreview | null>(null);
  planning = $state(false);
  planError = $state<AppError | null>(null);
  #planGen = 0;

  /** Called when the dialog closes (with whether the store may have changed). */
  readonly onclose: (changed: boolean) => void;

  constructor(target: RestoreTarget, request: DesktopRestoreRequest, onclose: (changed: boolean) => void) {
    super();
    this.target = target;
    this.request = request;
    this.onclose = onclose;
  }

  readonly plan = $derived(this.preview?.plan ?? null);
  /** The app as the last look saw it (a restore refuses unless it is closed). */
  readonly app = $derived<DesktopAppState | null>(this.preview?.app ?? null);
  readonly appBlocks = $derived(!!this.app && this.app.state !== 'closed');
  readonly titleOf = $derived(new Map((this.plan?.items ?? []).map((i) => [i.cliSessionId, i.title])));
  readonly canNext = $derived.by(() => {
    if (this.step !== 1) return false;
    return !!this.plan && !this.planning && this.plan.items.length > 0 && !this.appBlocks && !this.plan.backup.tooLarge;
  });

  async makePlan() {
    const gen = ++this.#planGen;
    this.planning = true;
    this.planError = null;
    try {
      const p = await api.desktopPlanRestore(this.target.account, this.target.org, this.request);
      if (gen === this.#planGen) this.preview = p;
    } catch (e) {
      if (gen === this.#planGen) this.planError = api.toAppError(e);
    } finally {
      if (gen === this.#planGen) this.planning = false;
    }
  }

  next() {
    if (this.canNext) this.step = 2;
  }
  back() {
    if (this.running || this.step !== 2) return;
    this.step = 1;
    this.runError = null;
    void this.makePlan();
  }

  async run() {
    const plan = this.plan;
    if (!plan) return;
    const first = { done: 0, total: plan.items.length, cliSessionId: '' };
    if (await this.runWith(first, (onProgress) => api.desktopRestore(plan, onProgress))) this.step = 3;
  }
  async cancelRun() {
    await super.cancelRun('the restore');
  }

  close() {
    if (this.running) return;
    this.onclose(!!this.report?.runId);
  }
}
