import { untrack } from 'svelte';

/**
 * App-wide commands (Ctrl+F to search, F2 to rename) reach the views as counters in the shared
 * state. `onTick` runs `fn`, untracked, each time `tick()` moves on after the call (call it while a
 * component initialises).
 */
export function onTick(tick: () => number, fn: () => void): void {
  let seen = untrack(tick);
  $effect(() => {
    const t = tick();
    if (t === seen) return;
    seen = t;
    untrack(fn);
  });
}
