// The demo as a backend (the same interface as the app's shell): commands answered from memory,
// events among the demo's own listeners, the browser's drag events for the drop overlay, and
// dialogs that answer with fixed paths.
import type { Backend, DragState, Unsubscribe } from '../lib/backend/backend';
import {
  demoApplyImport,
  demoDelete,
  demoDesktopRestore,
  demoEmit,
  demoInvoke,
  demoListen,
  demoPick,
  demoReopenStream,
  demoSavePath,
} from './demo';

export const demoBackend: Backend = {
  call: demoInvoke,
  async stream(cmd, args, onProgress) {
    // The streamed commands, each with its own progress type.
    const a = args as unknown as Record<string, never>;
    if (cmd === 'apply_import') return (await demoApplyImport(a.plan, onProgress as never)) as never;
    if (cmd === 'delete_sessions') return (await demoDelete(a.request, onProgress as never)) as never;
    if (cmd === 'reopen') return (await demoReopenStream(a.choices, onProgress as never)) as never;
    return (await demoDesktopRestore(a.plan, onProgress as never)) as never;
  },
  listen: async (event, cb) => demoListen(event, cb as (p: unknown) => void),
  windowDrag: async (cb) => browserDrag(cb),
  pickPaths: demoPick,
  pickSavePath: (defaultName) => demoSavePath(defaultName),
  notify: async () => false,
};

/** The browser's own drag events drive the overlay, and a drop becomes the demo's
 * `files-dropped` (the browser cannot see real paths, only file names). */
function browserDrag(cb: (s: DragState) => void): Unsubscribe {
  const hasFiles = (e: DragEvent) => !!e.dataTransfer && [...e.dataTransfer.types].includes('Files');
  const over = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    cb({ type: 'over', x: e.clientX, y: e.clientY });
  };
  const leave = (e: DragEvent) => {
    if (!e.relatedTarget) cb({ type: 'leave' });
  };
  const drop = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    cb({ type: 'drop', x: e.clientX, y: e.clientY });
    const names = [...(e.dataTransfer?.files ?? [])].map((f) => f.name);
    const agent = (e.target as HTMLElement | null)?.closest<HTMLElement>('[data-agent]')?.dataset.agent ?? null;
    demoEmit('files-dropped', { paths: names.map((n) => `~/Downloads/${n}`), agent });
  };
  window.addEventListener('dragover', over);
  window.addEventListener('dragleave', leave);
  window.addEventListener('drop', drop);
  return () => {
    window.removeEventListener('dragover', over);
    window.removeEventListener('dragleave', leave);
    window.removeEventListener('drop', drop);
  };
}
