// The import wizard's state and actions, shared by its shell and its six step components:
// 1 where to → 2 what → 3 preview (dry run) → 4 how → 5 confirm & run → 6 result.
import * as api from './api';
import { displayName } from './format';
import { RunState } from './runstate.svelte';
import { listing } from './listing.svelte';
import { nav, type WizardStart } from './navigation.svelte';
import { toasts } from './toasts.svelte';
import type {
  AdoptableSession,
  AppError,
  ImportPlan,
  ImportProgress,
  ImportReport,
  ImportTarget,
  PlacementMode,
} from './types';

export const STEPS = ['Where to', 'What', 'Preview', 'How', 'Confirm', 'Result'] as const;

export class ImportFlow extends RunState<ImportProgress, ImportReport> {
  step = $state<number>(1);
  target = $state<ImportTarget | null>(null);
  paths = $state<string[]>([]);
  sessionIds = $state<string[]>([]);
  mode = $state<PlacementMode>('copy');

  // step 2: the agent's adoptable list
  adoptables = $state.raw<AdoptableSession[] | null>(null);
  adoptableError = $state<AppError | null>(null);
  scanning = $state(false);
  allFolders = $state(false);
  picked = $state<Record<string, boolean>>({});
  #scanGen = 0;

  // steps 3 and 5: the plan
  plan = $state.raw<ImportPlan | null>(null);
  planMode = $state<PlacementMode | null>(null);
  planning = $state(false);
  planError = $state<AppError | null>(null);
  #planGen = 0;

  constructor(start: WizardStart) {
    super();
    this.step = start.step ?? 1;
    this.target = start.agent ? { kind: 'agent', name: start.agent } : start.claudeHome ? { kind: 'claudeHome' } : null;
    this.paths = [...(start.paths ?? [])];
    this.sessionIds = [...(start.sessionIds ?? [])];
  }

  readonly agents = $derived(listing.agents ?? []);
  /** Every listed session by id (the listing is in display order). */
  readonly listed = $derived(new Map((listing.groups ?? []).flatMap((g) => g.sessions).map((x) => [x.sessionId, x])));
  readonly selectedSessions = $derived.by(() => {
    const want = new Set(this.sessionIds);
    return [...this.listed.values()].filter((s) => want.has(s.sessionId));
  });
  readonly pickedAdoptables = $derived((this.adoptables ?? []).filter((a) => this.picked[a.transcriptPath]));
  /** Every chosen source path, each once. */
  readonly sources = $derived([
    ...new Set([
      ...this.paths,
      ...this.selectedSessions.map((s) => s.transcriptPath),
      ...this.pickedAdoptables.map((a) => a.transcriptPath),
    ]),
  ]);
  readonly targetAgent = $derived.by(() => {
    const t = this.target;
    return t?.kind === 'agent' ? (this.agents.find((a) => a.name === t.name) ?? null) : null;
  });
  readonly canNext = $derived.by(() => {
    switch (this.step) {
      case 1:
        return !!this.target;
      case 2:
        return !!this.target && this.sources.length > 0;
      case 3:
        return !!this.plan && !this.planning && this.plan.placements.length > 0;
      case 4:
        return true;
      default:
        return false;
    }
  });
  /** Every planned session is already in place: adopting writes only a record for each — no
   *  copy, move or link to choose. */
  readonly adoptOnly = $derived(!!this.plan?.placements.length && this.plan.placements.every((p) => p.recordOnly));
  readonly placementById = $derived(new Map((this.plan?.placements ?? []).map((p) => [p.sessionId, p])));
  readonly adoptableById = $derived(new Map((this.adoptables ?? []).map((a) => [a.sessionId, a])));

  /** What people call a session: the plan's name, else the adoptable list's, else the listing's. */
  nameOf(sid: string): string | null {
    const known = this.listed.get(sid);
    return (
      this.placementById.get(sid)?.name ??
      this.adoptableById.get(sid)?.autoName ??
      (known ? displayName(listing.withName(known)) : null)
    );
  }

  async scan(agent: string, all: boolean) {
    const gen = ++this.#scanGen;
    this.scanning = true;
    this.adoptableError = null;
    try {
      const list = await api.adoptable(agent, null, all);
      if (gen === this.#scanGen) this.adoptables = list;
    } catch (e) {
      if (gen === this.#scanGen) this.adoptableError = api.toAppError(e);
    } finally {
      if (gen === this.#scanGen) this.scanning = false;
    }
  }
  cancelScan() {
    this.#scanGen++;
    this.scanning = false;
    if (!this.adoptables) this.adoptables = [];
  }

  async makePlan(m: PlacementMode) {
    if (!this.target) return;
    const gen = ++this.#planGen;
    this.planning = true;
    this.planError = null;
    try {
      const p = await api.planImport($state.snapshot(this.target) as ImportTarget, [...this.sources], m);
      if (gen === this.#planGen) {
        this.plan = p;
        this.planMode = m;
      }
    } catch (e) {
      if (gen === this.#planGen) this.planError = api.toAppError(e);
    } finally {
      if (gen === this.#planGen) this.planning = false;
    }
  }

  async next() {
    if (!this.canNext) return;
    if (this.step === 2) {
      this.plan = null;
      this.step = 3;
      await this.makePlan(this.mode);
      return;
    }
    if (this.step === 4 || (this.step === 3 && this.adoptOnly)) {
      this.step = 5;
      if (this.planMode !== this.mode && !this.adoptOnly) await this.makePlan(this.mode);
      return;
    }
    this.step++;
  }
  back() {
    if (this.running) return;
    if (this.step === 3) this.#planGen++;
    if (this.step === 5 && this.adoptOnly) this.step = 3;
    else if (this.step > 1 && this.step < 6) this.step--;
  }

  async run() {
    const plan = this.plan;
    if (!plan) return;
    const first = { done: 0, total: plan.placements.length, sessionId: '' };
    if (await this.runWith(first, (onProgress) => api.applyImport(plan, onProgress))) {
      this.step = 6;
      void listing.refresh();
    }
  }
  async cancelRun() {
    await super.cancelRun('the import');
  }

  close() {
    if (this.running) return;
    if (this.step === 6 && this.report?.placed.length) listing.selected = [];
    nav.wizard = null;
  }

  addPaths(more: readonly string[]) {
    this.paths = [...new Set([...this.paths, ...more])];
  }
  async addPicked(kind: 'import-folders' | 'import-files') {
    try {
      this.addPaths(await api.pickPaths(kind));
    } catch (e) {
      toasts.error('Could not open the file dialog', e);
    }
  }

  openInFleet() {
    if (this.target?.kind === 'agent') nav.focusAgent = this.target.name;
    nav.view = this.target?.kind === 'agent' ? 'fleet' : 'chats';
    listing.selected = [];
    nav.wizard = null;
  }
}
