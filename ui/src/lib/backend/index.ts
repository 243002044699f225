// Chooses the backend once, at the first call: the app's shell inside Tauri; outside it (a plain
// browser: `vite` dev, tests, `--mode demo` screenshots) the in-memory demo. A production build
// holds no demo code at all (the mode is constant there, so the import below is dropped; `make
// test` checks ui/dist).
import type { Backend } from './backend';
import { tauriBackend } from './tauri';

export type { Backend, DragState, PickKind, Streamed, Unsubscribe } from './backend';

/** Whether the UI runs inside the app (Tauri's IPC is there). */
export function inTauri(): boolean {
  return typeof window !== 'undefined' && '__TAURI_INTERNALS__' in window;
}

let chosen: Promise<Backend> | null = null;

/** The backend this window talks to (the same one for every call). */
export function backend(): Promise<Backend> {
  chosen ??= choose();
  return chosen;
}

async function choose(): Promise<Backend> {
  if (inTauri()) return tauriBackend;
  if (import.meta.env.MODE === 'production') {
    throw { kind: 'ipc', message: 'Corral’s backend is not available here' };
  }
  return (await import('../../demo')).demoBackend;
}
