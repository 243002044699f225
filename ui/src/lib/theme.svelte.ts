// Appearance: follow the system, or force light or dark. The choice is kept in localStorage and
// applied as `data-theme` on <html> (app.css keys the dark palette on it).

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'corral:theme';
const DARK = '(prefers-color-scheme: dark)';

function stored(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

function systemDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia(DARK).matches;
}

class Theme {
  choice = $state<ThemeChoice>(stored());
  #systemDark = $state(systemDark());

  /** The palette in force. */
  get resolved(): 'light' | 'dark' {
    return this.choice === 'system' ? (this.#systemDark ? 'dark' : 'light') : this.choice;
  }

  /** Applies the stored choice now and follows system changes (call once at start-up). */
  start() {
    if (typeof matchMedia === 'function') {
      matchMedia(DARK).addEventListener?.('change', (e) => {
        this.#systemDark = e.matches;
        this.#apply();
      });
    }
    this.#apply();
  }

  set(choice: ThemeChoice) {
    this.choice = choice;
    try {
      if (choice === 'system') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, choice);
    } catch {
      // Private mode or storage full: the choice still applies for this run.
    }
    this.#apply();
  }

  #apply() {
    document.documentElement.dataset.theme = this.resolved;
  }
}

export const theme = new Theme();
