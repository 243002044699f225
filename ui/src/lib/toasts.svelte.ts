// The short messages at the foot of the window: what an action did, or why it failed, sometimes
// with one action (Undo, Resume from home). Errors, and toasts that offer an action, stay longer.
import { toAppError } from './api';

export type Toast = {
  id: number;
  text: string;
  kind: 'info' | 'error';
  detail?: string;
  action?: { label: string; run: () => void };
};

class Toasts {
  list = $state<Toast[]>([]);
  private seq = 0;

  show(text: string, opts: Partial<Omit<Toast, 'id' | 'text'>> = {}): void {
    const id = ++this.seq;
    this.list = [...this.list, { id, text, kind: 'info', ...opts }];
    setTimeout(() => this.dismiss(id), opts.kind === 'error' ? 12_000 : opts.action ? 10_000 : 5_000);
  }

  /** An error toast: `text` says what failed, the detail says why (the backend's message). */
  error(text: string, e: unknown): void {
    const err = toAppError(e);
    this.show(text, { kind: 'error', detail: `${err.message} (${err.kind})` });
  }

  dismiss(id: number): void {
    this.list = this.list.filter((t) => t.id !== id);
  }
}

export const toasts = new Toasts();
