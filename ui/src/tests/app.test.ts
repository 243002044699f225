import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as fx from './fixtures';
import { group, session } from './fixtures';
import type { FilesDropped, SessionsChanged, Settings } from '../lib/types';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { listing } = await import('../lib/listing.svelte');
const { nav } = await import('../lib/navigation.svelte');
const { default: App } = await import('../App.svelte');

const settings = (o: Partial<Settings> = {}) => fx.settings({ claudeHome: '/home/ada/.claude', ...o });

describe('the app shell', () => {
  let dropped: ((p: FilesDropped) => void) | null;
  let changed: ((p: SessionsChanged) => void) | null;
  beforeEach(() => {
    vi.clearAllMocks();
    dropped = null;
    changed = null;
    nav.wizard = null;
    nav.view = 'fleet';
    nav.open(null);
    listing.groups = null; // the state is a singleton: start each test from a fresh load
    listing.agents = null;
    vi.mocked(api.getSettings).mockResolvedValue(settings());
    vi.mocked(api.listSessions).mockResolvedValue({
      groups: [group('/home/ada/src/a', [session({ workingDirectory: '/home/ada/src/a' })])],
      warnings: [],
      leftOutTemp: 0,
    });
    vi.mocked(api.onFilesDropped).mockImplementation(async (cb) => ((dropped = cb), () => {}));
    vi.mocked(api.onSessionsChanged).mockImplementation(async (cb) => ((changed = cb), () => {}));
  });

  it('has the four places and shows the open Claude home and fleet', async () => {
    render(App);
    for (const id of ['nav-fleet', 'nav-all-chats', 'nav-import', 'nav-history'])
      expect(screen.getByTestId(id)).toBeTruthy();
    await vi.waitFor(() => expect(screen.getByTestId('claude-home').textContent).toContain('~/.claude'));
    expect(screen.getByTestId('fleet-file').textContent).toContain('open herdctl.yaml');
    await fireEvent.click(screen.getByTestId('nav-all-chats'));
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(1));
  });

  it('the appearance switch forces light or dark, remembers it, and System follows the OS', async () => {
    const { theme } = await import('../lib/theme.svelte');
    theme.set('system');
    render(App);
    const root = document.documentElement;
    expect(root.dataset.theme).toBe('light'); // jsdom reports no dark preference
    expect(screen.getByTestId('theme-system').getAttribute('aria-checked')).toBe('true');
    await fireEvent.click(screen.getByTestId('theme-dark'));
    expect(root.dataset.theme).toBe('dark');
    expect(localStorage.getItem('corral:theme')).toBe('dark');
    expect(screen.getByTestId('theme-dark').getAttribute('aria-checked')).toBe('true');
    expect(screen.getByTestId('theme-system').getAttribute('aria-checked')).toBe('false');
    await fireEvent.click(screen.getByTestId('theme-light'));
    expect(root.dataset.theme).toBe('light');
    await fireEvent.click(screen.getByTestId('theme-system'));
    expect(localStorage.getItem('corral:theme')).toBeNull();
    expect(root.dataset.theme).toBe('light');
  });

  it('says so when live updates are polled instead of watched', async () => {
    vi.mocked(api.getSettings).mockResolvedValue(
      settings({ liveUpdatesNote: 'Live updates check for changes every 3 s: the system refused more file watches' }),
    );
    render(App);
    await vi.waitFor(() => expect(screen.getByTestId('live-updates-note').textContent).toContain('every 3 s'));
  });

  it('shows no live-updates note when files are watched', async () => {
    render(App);
    await vi.waitFor(() => expect(api.getSettings).toHaveBeenCalled());
    await vi.waitFor(() => expect(screen.queryByTestId('live-updates-note')).toBeNull());
  });

  it('first run without a Claude home says so and offers to pick one', async () => {
    vi.mocked(api.getSettings).mockResolvedValue(
      settings({ claudeHome: '/home/ada/.claude', claudeHomeExists: false }),
    );
    vi.mocked(api.pickPaths).mockResolvedValue(['/mnt/backup/.claude']);
    vi.mocked(api.setSettings).mockResolvedValue(settings({ claudeHome: '/mnt/backup/.claude' }));
    render(App);
    await vi.waitFor(() =>
      expect(screen.getByTestId('no-claude-home').textContent).toContain('No Claude home at ~/.claude'),
    );
    await fireEvent.click(screen.getByText('Choose Claude home…'));
    await vi.waitFor(() => expect(api.setSettings).toHaveBeenCalledWith({ claudeHome: '/mnt/backup/.claude' }));
  });

  it('files dropped on the window open the wizard at step 2 with those paths', async () => {
    render(App);
    await vi.waitFor(() => expect(dropped).not.toBeNull());
    dropped!({ paths: ['/tmp/export/-home-x', '/tmp/notes.txt'], agent: null });
    await vi.waitFor(() => expect(screen.getByTestId('wizard').dataset.step).toBe('2'));
    expect(screen.getByTestId('source-list').textContent).toContain('/tmp/export/-home-x');
    expect(screen.getByTestId('source-list').textContent).toContain('/tmp/notes.txt');
  });

  it('sessions-changed refreshes the listing', async () => {
    render(App);
    await vi.waitFor(() => expect(changed).not.toBeNull());
    const before = vi.mocked(api.listSessions).mock.calls.length;
    changed!({ folders: ['/home/ada/.claude/projects/-home-ada-src-a'] });
    await vi.waitFor(() => expect(vi.mocked(api.listSessions).mock.calls.length).toBe(before + 1));
  });

  it('Escape closes the open transcript; "/" jumps to the search box', async () => {
    render(App);
    await fireEvent.click(screen.getByTestId('nav-all-chats'));
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(1));
    vi.mocked(api.sessionMessages).mockResolvedValue(fx.messagePage());
    await fireEvent.click(screen.getByTestId('session-row'));
    expect(nav.openId).not.toBeNull();
    await vi.waitFor(() => expect(screen.getByTestId('transcript')).toBeTruthy());
    await fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(screen.queryByTestId('transcript')).toBeNull();
    await fireEvent.keyDown(document.body, { key: '/' });
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('search')));
  });

  it('Ctrl+F right after clicking a session finds in its transcript, not in the list (#43)', async () => {
    render(App);
    await fireEvent.click(screen.getByTestId('nav-all-chats'));
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(1));
    vi.mocked(api.sessionMessages).mockResolvedValue(fx.messagePage());
    const row = screen.getByTestId('session-row');
    await fireEvent.click(row);
    await vi.waitFor(() => expect(screen.getByTestId('transcript')).toBeTruthy());
    // The focus is in the list (where the click was), not in the transcript.
    screen.getByTestId('chats-list').focus();
    await fireEvent.keyDown(document.activeElement!, { key: 'f', ctrlKey: true });
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('find-input')));
    nav.open(null);
  });

  it('a burst of changes on disk causes few list reloads, and the last change is never missed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      render(App);
      await vi.waitFor(() => expect(changed).not.toBeNull());
      const before = vi.mocked(api.listSessions).mock.calls.length;
      for (let i = 0; i < 20; i++) changed!({ folders: ['/home/ada/.claude/projects/-x'] });
      await vi.advanceTimersByTimeAsync(2500);
      const after = vi.mocked(api.listSessions).mock.calls.length - before;
      expect(after).toBeGreaterThanOrEqual(2); // the first, and one more for the rest of the burst
      expect(after).toBeLessThanOrEqual(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('dragging a splitter selects no text, and the width moves with the pointer and the arrows (#43)', async () => {
    localStorage.removeItem('corral:panes');
    render(App);
    const [sidebar] = screen.getAllByRole('separator');
    // A real drag begins with a press whose default (starting a text selection) is prevented.
    expect(await fireEvent.pointerDown(sidebar, { button: 0, clientX: 220, pointerId: 1 })).toBe(false);
    expect(document.documentElement.classList.contains('resizing')).toBe(true);
    await fireEvent.pointerMove(sidebar, { clientX: 300, pointerId: 1 });
    expect(sidebar.getAttribute('aria-valuenow')).toBe('300');
    await fireEvent.pointerUp(sidebar, { clientX: 300, pointerId: 1 });
    expect(document.documentElement.classList.contains('resizing')).toBe(false);
    expect(JSON.parse(localStorage.getItem('corral:panes')!).side).toBe(300);
    await fireEvent.keyDown(sidebar, { key: 'ArrowLeft' });
    expect(sidebar.getAttribute('aria-valuenow')).toBe('284');
    await fireEvent.keyDown(sidebar, { key: 'End' });
    expect(sidebar.getAttribute('aria-valuenow')).toBe('340');
    expect(sidebar.tabIndex).toBe(0);
  });

  it('a narrow window makes the sidebar a rail of icons, opened over the page on demand (#43)', async () => {
    const wide = window.innerWidth;
    Object.defineProperty(window, 'innerWidth', { configurable: true, value: 900 });
    try {
      render(App);
      const side = screen.getByTestId('sidebar');
      expect(side.classList.contains('compact')).toBe(true);
      expect(screen.getByTestId('nav-all-chats').getAttribute('aria-label')).toBe('All Chats');
      expect(screen.queryByTestId('claude-home')).toBeNull();
      expect(screen.getAllByRole('separator').map((s) => s.getAttribute('aria-label'))).toEqual(['Resize the list']);
      await fireEvent.click(screen.getByTestId('sidebar-toggle'));
      expect(side.classList.contains('overlay')).toBe(true);
      expect(screen.getByTestId('claude-home')).toBeTruthy();
      await fireEvent.click(screen.getByTestId('nav-all-chats'));
      expect(side.classList.contains('compact')).toBe(true);
      expect(nav.view).toBe('chats');
      await fireEvent.click(screen.getByTestId('sidebar-toggle'));
      await fireEvent.click(screen.getByTestId('sidebar-scrim'));
      expect(side.classList.contains('compact')).toBe(true);
    } finally {
      Object.defineProperty(window, 'innerWidth', { configurable: true, value: wide });
    }
  });
});
