// Things that happen, by name, with what each carries. A view that must react subscribes with
// `onEvent` (for its lifetime); whoever saw it happen calls `emit`. One place to grep: "who reacts
// when sessions change" is every `onEvent('sessions-changed', …)`.
import { untrack } from 'svelte';

export type AppEvents = {
  /** `/` or Ctrl/Cmd+F outside the viewer: the visible list view focuses its search box. */
  'focus-search': null;
  /** Ctrl/Cmd+F in the viewer: the open transcript shows its find bar. */
  'find-in-transcript': null;
  /** F2: the visible view renames its current row (the viewer: its session). */
  'rename-current': null;
  /** Transcripts or Corral's records changed on disk (the shell's `sessions-changed`): these
   *  transcript folders, the projects folder (anything may have changed) or the state dir. */
  'sessions-changed': { folders: string[] };
  /** A delete, clean-up or sweep moved something into the quarantine (its dialog closed). */
  'quarantine-changed': null;
};
export type AppEvent = keyof AppEvents;

type Handler<K extends AppEvent> = (payload: AppEvents[K]) => void;
const handlers = new Map<AppEvent, Set<Handler<never>>>();

/** Tells every subscriber of `name`, in the order they subscribed. */
export function emit<K extends AppEvent>(name: K, payload: AppEvents[K]): void {
  for (const fn of [...(handlers.get(name) ?? [])]) (fn as Handler<K>)(payload);
}

/** Subscribes `fn` to `name`; returns the unsubscribe. */
export function on<K extends AppEvent>(name: K, fn: Handler<K>): () => void {
  let set = handlers.get(name);
  if (!set) handlers.set(name, (set = new Set()));
  set.add(fn as Handler<never>);
  return () => set.delete(fn as Handler<never>);
}

/** Subscribes `fn` to `name` for the life of the component being initialised (call it there).
 *  `fn` runs untracked: what it reads does not make anything re-run. */
export function onEvent<K extends AppEvent>(name: K, fn: Handler<K>): void {
  $effect(() => on(name, (payload) => untrack(() => fn(payload))));
}
