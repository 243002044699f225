// What Corral reads from (the Claude home, the fleet file, the desktop app's store) and the
// person's preferences: the shell's settings, and changing them.
import * as api from './api';
import { setHomeDir } from './format';
import type { AppError, Settings } from './types';

class Config {
  settings = $state<Settings | null>(null);
  error = $state<AppError | null>(null);

  /** A herdctl fleet is open (agents, adoption and the Fleet view mean something). */
  get hasFleet(): boolean {
    return !!this.settings?.fleetFile;
  }

  async load(): Promise<void> {
    try {
      this.adopt(await api.getSettings());
      this.error = null;
    } catch (e) {
      this.error = api.toAppError(e);
    }
  }

  /** Changes a preference (no new catalog): the error's message when the backend refused it. */
  async changePreferences(patch: {
    terminal?: string | null;
    notifyWaiting?: boolean;
    reopenRemoteControl?: boolean;
    emptyQuarantineAfterDays?: number | null;
  }): Promise<string | null> {
    try {
      this.settings = await api.setSettings(patch);
      return null;
    } catch (e) {
      return api.toAppError(e).message;
    }
  }

  /** Changes where Corral reads; the caller reloads what is shown (see `app.changeSettings`). */
  async changePaths(patch: { claudeHome?: string | null; fleetFile?: string | null; desktopStore?: string | null }) {
    this.adopt(await api.setSettings(patch));
  }

  private adopt(s: Settings): void {
    this.settings = s;
    setHomeDir(s.homeDir ?? homeFromClaudeHome(s.claudeHome));
  }
}

/** The user's home, when the Claude home is the usual `<home>/.claude` (Settings carries no home). */
export function homeFromClaudeHome(claudeHome: string): string | null {
  const m = /^(.*)[\\/]\.claude[\\/]*$/.exec(claudeHome);
  return m && m[1] ? m[1] : null;
}

export const config = new Config();
