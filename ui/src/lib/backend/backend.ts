// What the UI needs from whatever answers it: the app's shell inside Tauri (./tauri.ts), or the
// in-memory demo in a plain browser (../../demo). api.ts chooses one, once (./index.ts), and
// talks only to it.
import type { Args, Command, Result } from '../commands';
import type { DeleteProgress, DesktopRestoreProgress, ExportFormat, ImportProgress, ReopenOutcome } from '../types';

export type Unsubscribe = () => void;

/** The commands that stream progress while they run, and what each streams. */
export type Streamed = {
  apply_import: ImportProgress;
  desktop_restore: DesktopRestoreProgress;
  delete_sessions: DeleteProgress;
  reopen: ReopenOutcome;
};

/** A streamed command's arguments but its progress channel. */
export type StreamArgs<K extends keyof Streamed> = Omit<Args<K>, 'onProgress'>;

/** Window-level drag state (for the drop overlay): enter/over with a CSS-pixel position, leave, drop. */
export type DragState =
  { type: 'over'; x: number; y: number } | { type: 'leave' } | { type: 'drop'; x: number; y: number };

/** What a file dialog is for (its title, filters, and whether it picks folders). */
export type PickKind = 'claude-home' | 'fleet' | 'desktop-store' | 'import-folders' | 'import-files';

export interface Backend {
  /** Calls one command of the declared IPC surface; rejects with what the backend threw. */
  call<K extends Command>(cmd: K, args: Args<K>): Promise<Result<K>>;
  /** Runs a command that streams its progress to `onProgress` while it runs. */
  stream<K extends keyof Streamed>(
    cmd: K,
    args: StreamArgs<K>,
    onProgress: (p: Streamed[K]) => void,
  ): Promise<Result<K>>;
  /** Subscribes to an event the backend sends (`sessions-changed`, `search-status`, `files-dropped`). */
  listen<T>(event: string, cb: (payload: T) => void): Promise<Unsubscribe>;
  /** Follows files dragged over the window. */
  windowDrag(cb: (s: DragState) => void): Promise<Unsubscribe>;
  /** The paths chosen in a file dialog (empty when cancelled). */
  pickPaths(kind: PickKind): Promise<string[]>;
  /** A file to write an export to (a save dialog that asks before replacing); null when cancelled. */
  pickSavePath(defaultName: string, format: ExportFormat): Promise<string | null>;
  /** Shows a desktop notification; resolves to whether it was shown. */
  notify(title: string, body: string): Promise<boolean>;
}
