// What a stepped dialog that carries out a run keeps (the import wizard, the desktop restore):
// whether it runs, its progress, its report or error, and the state of its undo.
import * as api from './api';
import { toasts } from './toasts.svelte';
import type { AppError } from './types';

export class RunState<Progress, Report> {
  running = $state(false);
  cancelling = $state(false);
  progress = $state<Progress | null>(null);
  report = $state.raw<Report | null>(null);
  runError = $state<AppError | null>(null);
  showUndo = $state(false);
  undone = $state(false);

  /** Runs `start` (which streams progress to its callback) unless a run is going; true when it
   * finished with a report, false when it failed (`runError` says why). */
  protected async runWith(
    first: Progress,
    start: (onProgress: (p: Progress) => void) => Promise<Report>,
  ): Promise<boolean> {
    if (this.running) return false;
    this.running = true;
    this.runError = null;
    this.progress = first;
    try {
      this.report = await start((p) => (this.progress = p));
      return true;
    } catch (e) {
      this.runError = api.toAppError(e);
      return false;
    } finally {
      this.running = false;
      this.cancelling = false;
    }
  }

  /** Asks the running run to stop between items (what is done stays an undoable run); `what`
   * names it in the message when that fails. */
  async cancelRun(what = 'the run') {
    this.cancelling = true;
    try {
      await api.cancelRun();
    } catch (e) {
      this.cancelling = false;
      toasts.error(`Could not cancel ${what}`, e);
    }
  }
}
