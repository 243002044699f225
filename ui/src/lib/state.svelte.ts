// The app's start-up, and what a change on disk or of settings sets off. The state itself lives
// in modules by concern, which components import directly:
// - navigation.svelte.ts — the view, the open session, the wizard, hand-offs between views;
// - listing.svelte.ts — agents, sessions, names, badges, selection; loading them;
// - live.svelte.ts — which sessions a claude process is on, and notifications;
// - config.svelte.ts — the shell's settings and preferences;
// - toasts.svelte.ts — the messages at the foot of the window;
// - actions.svelte.ts — rename, release, export, resume;
// - events.svelte.ts — things that happen (`sessions-changed`, `focus-search`, …).
// Data comes only through api.ts.
import { config } from './config.svelte';
import { emit } from './events.svelte';
import { listing } from './listing.svelte';
import { live } from './live.svelte';
import { nav } from './navigation.svelte';
import { toasts } from './toasts.svelte';

class App {
  private starting: Promise<void> | null = null;

  /** Starts {@link init} before the first render (main.ts), so its requests overlap the mount. */
  start(): void {
    this.starting ??= this.load();
  }

  /** Loads what the first screen shows: the run {@link start} began, else a new one. */
  init(): Promise<void> {
    const run = this.starting ?? this.load();
    this.starting = null;
    return run;
  }

  private async load(): Promise<void> {
    // All three asked at once: the listing, the slowest, does not wait for a settings round trip.
    // Marks for the UI benchmark's start-up breakdown (bench_ui.py reads them): set here, once,
    // not in the loaders, which every refresh calls (the page's timeline would grow all day).
    performance.mark('corral:lists-asked');
    const lists = Promise.all([
      listing.loadAgents().then(() => performance.mark('corral:agents-got')),
      listing.loadListing().then(() => performance.mark('corral:listing-got')),
    ]);
    await config.load();
    // Without a fleet the Fleet view has nothing to show: open where the sessions are.
    if (config.settings && !config.hasFleet && nav.view === 'fleet') nav.view = 'chats';
    await lists;
    // Which desktop-app sidebars hold each session (badges): after the first paint, not before.
    if (config.settings?.desktopStore) void listing.loadDesktop();
    live.watch();
  }

  /** Opens another Claude home, fleet or desktop store: what was listed and open is forgotten
   *  and the lists load again. */
  async changeSettings(patch: {
    claudeHome?: string | null;
    fleetFile?: string | null;
    desktopStore?: string | null;
  }): Promise<void> {
    try {
      await config.changePaths(patch);
      nav.open(null);
      listing.clear();
      await Promise.all([listing.loadAgents(), listing.loadListing()]);
    } catch (e) {
      toasts.error('Could not change the settings', e);
    }
  }

  /** The open transcript reacts at once (the `sessions-changed` event); the lists refresh at most
   *  about once a second while Claude keeps writing, so a busy session never floods the window
   *  with reloads. */
  onSessionsChanged(folders: string[]): void {
    emit('sessions-changed', { folders });
    void listing.throttledRefresh();
    live.written();
  }
}

export const app = new App();
