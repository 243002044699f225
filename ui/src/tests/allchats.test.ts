import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { group, session } from './fixtures';
import type { DirectoryGroup } from '../lib/types';
import { emit } from '../lib/events.svelte';

import * as fx from './fixtures';
vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { actions } = await import('../lib/actions.svelte');
const { config } = await import('../lib/config.svelte');
const { listing } = await import('../lib/listing.svelte');
const { live } = await import('../lib/live.svelte');
const { nav } = await import('../lib/navigation.svelte');
const { app } = await import('../lib/state.svelte');
const { toasts } = await import('../lib/toasts.svelte');
const { default: AllChats } = await import('../lib/components/AllChats.svelte');
const { buildIndex, filterIndex, highlightParts } = await import('../lib/listfilter');

function small(): DirectoryGroup[] {
  return [
    group(
      '/home/ada/work/alpha',
      [
        session({
          workingDirectory: '/home/ada/work/alpha',
          agentName: 'team.alpha',
          origin: 'discord',
          autoName: 'Deploy checklist',
        }),
        session({
          workingDirectory: '/home/ada/work/alpha',
          agentName: 'team.alpha',
          origin: 'schedule',
          autoName: 'Nightly report',
        }),
      ],
      { agentName: 'team.alpha' },
    ),
    group('/home/ada/src/corral', [
      session({ workingDirectory: '/home/ada/src/corral', autoName: 'Build the UI', customName: 'Corral UI work' }),
      session({ workingDirectory: '/home/ada/src/corral', autoName: null, preview: 'Why does deploy fail?' }),
      session({ workingDirectory: '/home/ada/src/corral', autoName: 'Third' }),
    ]),
  ];
}

function big(): DirectoryGroup[] {
  const groups: DirectoryGroup[] = [];
  for (let g = 0; g < 1000; g++) {
    const dir = `/home/ada/src/project-${g}`;
    const ss = [];
    for (let i = 0; i < 10; i++)
      ss.push(session({ workingDirectory: dir, autoName: `Task ${g}-${i}`, preview: `Preview for ${g}/${i}` }));
    groups.push(group(dir, ss));
  }
  return groups;
}

describe('All Chats', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    listing.names = {};
    listing.selected = [];
    nav.view = 'chats';
    listing.agents = [
      {
        name: 'team.alpha',
        displayName: 'alpha',
        fleetPath: ['team'],
        workingDirectory: '/home/ada/work/alpha',
        docker: false,
        sessionCount: 2,
        lastActivityAt: null,
        tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ];
    config.settings = {
      claudeHome: '/home/ada/.claude',
      claudeHomeExists: true,
      fleetFile: '/f.yaml',
      stateDir: '/s',
      dataDir: '/d',
      terminal: null,
      terminals: [],
      notifyWaiting: false,
      reopenRemoteControl: false,
      emptyQuarantineAfterDays: null,
    };
  });

  it("shows what each folder's sessions cost beside their tokens", () => {
    const groups = small();
    groups[0].tokens = { inputTokens: 10, outputTokens: 2_000, cacheReadTokens: 40_000, cacheWriteTokens: 0 };
    groups[0].cost = { usd: 3.2, unpriced: false, source: 'mixed' };
    groups[1].cost = { usd: 0, unpriced: true, source: 'table' };
    listing.groups = groups;
    render(AllChats);
    const [alpha, other] = screen.getAllByTestId('group-header');
    expect(within(alpha).getByTestId('token-count').textContent).toBe('42k tokens');
    const cost = within(alpha).getByTestId('cost');
    expect(cost.textContent).toBe('$3.20');
    expect(cost.title).toContain("Claude Code's own figures and Corral's prices");
    expect(within(other).getByTestId('cost').textContent).toBe('price unknown');
  });

  it('groups by working directory with path, agent link or "no agent", and count', () => {
    listing.groups = small();
    render(AllChats);
    const headers = screen.getAllByTestId('group-header');
    expect(headers).toHaveLength(2);
    expect(headers[0].textContent).toContain('/home/ada/work/alpha');
    // The agent by the one name it has everywhere (the engine's), its qualified id in the tooltip.
    const link = within(headers[0]).getByTestId('group-agent');
    expect(link.textContent?.trim()).toBe('alpha');
    expect(link.getAttribute('title')).toBe('team.alpha works in this folder');
    expect(within(headers[0]).getByTestId('group-counts').textContent).toBe(
      '2 sessions in this folder · 2 owned by alpha',
    );
    expect(headers[1].textContent).toContain('no agent');
    expect(within(headers[1]).getByTestId('group-counts').textContent).toBe('3 sessions');
    expect(screen.getAllByTestId('session-row')).toHaveLength(5);
    expect(screen.getByTestId('result-count').textContent).toContain('5 sessions in 2 folders');
  });

  it("says what each number counts, so a folder agrees with the Fleet's agents", () => {
    listing.agents = [
      ...listing.agents!,
      {
        ...listing.agents![0],
        name: 'team.gamma',
        displayName: 'gamma',
        workingDirectory: '/w/gamma',
        sessionCount: 0,
      },
    ];
    const typed = (dir: string) => session({ workingDirectory: dir, autoName: 'Typed here' });
    listing.groups = [
      // gamma's folder, where nobody ran gamma: its sessions are not gamma's.
      group('/w/gamma', [typed('/w/gamma'), typed('/w/gamma')], { agentName: 'team.gamma' }),
      // A worktree of alpha's: no agent works there, but one session is alpha's.
      group('/w/alpha-worktrees/fix', [
        session({ workingDirectory: '/w/alpha-worktrees/fix', agentName: 'team.alpha', origin: 'adopted' }),
        typed('/w/alpha-worktrees/fix'),
      ]),
    ];
    render(AllChats);
    const [gamma, tree] = screen.getAllByTestId('group-header');
    expect(within(gamma).getByTestId('group-counts').textContent).toBe('2 sessions in this folder · 0 owned by gamma');
    expect(tree.textContent).not.toContain('no agent');
    expect(within(tree).getByTestId('group-counts').textContent).toBe('2 sessions · 1 owned by alpha');
    // The agent filter names each agent the same way.
    const options = [...screen.getByTestId('agent-filter').querySelectorAll('option')].map((o) => o.textContent);
    expect(options).toEqual(['Any agent', 'No agent', 'alpha', 'gamma']);
  });

  it('search narrows instantly across names, previews and folders, highlighting matches', async () => {
    listing.groups = small();
    render(AllChats);
    await fireEvent.input(screen.getByTestId('search'), { target: { value: 'deploy' } });
    const rows = screen.getAllByTestId('session-row');
    expect(rows).toHaveLength(2);
    const marks = [...document.querySelectorAll('mark')].map((m) => m.textContent?.toLowerCase());
    expect(marks).toContain('deploy');
    expect(screen.getByTestId('result-count').textContent).toContain('2 sessions match by name or folder');
    // matches found only in the preview show the matching snippet under the name
    await fireEvent.input(screen.getByTestId('search'), { target: { value: 'preview text' } });
    expect(screen.getAllByTestId('session-row')).toHaveLength(4);
    const snips = screen.getAllByTestId('match-snippet');
    expect(snips).toHaveLength(4);
    expect(snips[0].querySelector('mark')?.textContent).toBe('Preview');
    await fireEvent.input(screen.getByTestId('search'), { target: { value: 'corral ui' } });
    expect(screen.getAllByTestId('session-row')).toHaveLength(1);
    expect(screen.getByTestId('result-count').textContent).toContain('1 session matches by name or folder · 1 folder');
    await fireEvent.input(screen.getByTestId('search'), { target: { value: 'zzz-nothing' } });
    expect(screen.getByTestId('no-results').textContent).toContain('No session names or folders match');
  });

  it('filters by origin and by agent', async () => {
    listing.groups = small();
    render(AllChats);
    await fireEvent.change(screen.getByTestId('origin-filter'), { target: { value: 'schedule' } });
    expect(screen.getAllByTestId('session-row')).toHaveLength(1);
    // Without words typed, nothing else is counted: the count needs no "by name".
    expect(screen.getByTestId('result-count').textContent?.trim()).toBe('1 session matches · 1 folder');
    await fireEvent.change(screen.getByTestId('origin-filter'), { target: { value: '' } });
    await fireEvent.change(screen.getByTestId('agent-filter'), { target: { value: '__none__' } });
    expect(screen.getAllByTestId('session-row')).toHaveLength(3);
  });

  it('groups are ordered newest first', async () => {
    const { newestFirst } = await import('../lib/listfilter');
    const old = group('/old', [
      session({ workingDirectory: '/old', mtime: '2026-01-01T00:00:00Z', lastMessageAt: null }),
    ]);
    const fresh = group('/fresh', [
      session({ workingDirectory: '/fresh', mtime: '2026-01-01T00:00:00Z', lastMessageAt: '2026-06-01T00:00:00Z' }),
    ]);
    expect(newestFirst([old, fresh]).map((g) => g.workingDirectory)).toEqual(['/fresh', '/old']);
  });

  it('sorts by size, messages, name or oldest, folders by their first session, and remembers it', async () => {
    const { sortGroups } = await import('../lib/listfilter');
    const s = (dir: string, name: string, size: number, msgs: number, at: string) =>
      session({ workingDirectory: dir, autoName: name, sizeBytes: size, messageCount: msgs, lastMessageAt: at });
    const a = group('/a', [
      s('/a', 'beta', 10, 5, '2026-03-01T00:00:00Z'),
      s('/a', 'Alpha', 300, 1, '2026-01-01T00:00:00Z'),
    ]);
    const b = group('/b', [s('/b', 'gamma', 200, 90, '2026-02-01T00:00:00Z')]);
    const groups = filterIndex(buildIndex([a, b], {}), { query: '', origins: [], agent: null, only: null }).groups;
    const names = (key: Parameters<typeof sortGroups>[1]) =>
      sortGroups(groups, key, (x) => x.autoName ?? '').map((g) => g.sessions.map((x) => x.autoName).join(','));
    expect(names('recent')).toEqual(names('recent'));
    expect(names('size')).toEqual(['Alpha,beta', 'gamma']);
    expect(names('messages')).toEqual(['gamma', 'beta,Alpha']);
    expect(names('oldest')).toEqual(['Alpha,beta', 'gamma']);
    expect(names('name')).toEqual(['Alpha,beta', 'gamma']);

    listing.groups = [a, b];
    render(AllChats);
    await fireEvent.change(screen.getByTestId('sort'), { target: { value: 'size' } });
    const rows = screen.getAllByTestId('session-row').map((r) => r.textContent ?? '');
    expect(rows[0]).toContain('Alpha');
    expect(localStorage.getItem('corral.chats.sort')).toBe('size');
    localStorage.removeItem('corral.chats.sort');
  });

  it('search matches session ids, agents and origin labels', () => {
    const groups = small();
    const index = buildIndex(groups, {});
    const id = groups[1].sessions[2].sessionId;
    expect(filterIndex(index, { query: id.slice(-6), origins: [], agent: null }).count).toBe(1);
    expect(filterIndex(index, { query: 'team.alpha', origins: [], agent: null }).count).toBe(2);
    expect(filterIndex(index, { query: 'discord', origins: [], agent: null }).count).toBe(1);
    expect(highlightParts('Deploy the deployment', ['deploy'])).toEqual([
      { t: 'Deploy', m: true },
      { t: ' the ', m: false },
      { t: 'deploy', m: true },
      { t: 'ment', m: false },
    ]);
  });

  it('selects sessions with checkboxes and shift-click ranges; adopts the unowned, resumes the idle', async () => {
    listing.groups = small();
    const ids = listing.groups.flatMap((g) => g.sessions.map((s) => s.sessionId));
    live.sessions = new Map([[ids[2], { sessionId: ids[2], state: 'running', why: 'resumes it', pid: 5, job: null }]]);
    vi.mocked(api.resumeSession).mockImplementation(async (sessionId) => ({
      command: { sessionId, program: 'claude', args: [], cwd: '/', env: [], fromFallback: false, display: '' },
      terminal: 'xterm',
      started: true,
      pid: 9,
      reason: null,
    }));
    render(AllChats);
    const checks = screen.getAllByTestId('session-check');
    expect(checks).toHaveLength(5);
    await fireEvent.click(checks[0]);
    await fireEvent.click(checks[4], { shiftKey: true });
    expect(listing.selected).toHaveLength(5);
    expect(screen.getByTestId('selection-bar').textContent).toContain('5 selected');
    // Two belong to an agent: adoption takes the other three.
    expect(screen.getByTestId('adopt-selected').textContent).toContain('Adopt 3 into agent');
    await fireEvent.click(screen.getByTestId('adopt-selected'));
    expect(nav.wizard?.sessionIds).toHaveLength(3);
    nav.wizard = null;
    // One already runs: the other four open, one terminal each.
    expect(screen.getByTestId('resume-selected').textContent).toContain('Resume 4 in terminals');
    await fireEvent.click(screen.getByTestId('resume-selected'));
    await vi.waitFor(() => expect(api.resumeSession).toHaveBeenCalledTimes(4));
    expect(vi.mocked(api.resumeSession).mock.calls.map((c) => c[0])).not.toContain(ids[2]);
    // One chosen: one terminal, said in the singular.
    listing.selected = [ids[0]];
    await vi.waitFor(() =>
      expect(screen.getByTestId('resume-selected').textContent).toContain('Resume 1 in a terminal'),
    );
    listing.selected = [];
  });

  it('never opens more than eight terminals at once', async () => {
    const many = Array.from({ length: 9 }, () => session({ workingDirectory: '/w' }));
    await actions.resumeMany(many);
    expect(api.resumeSession).not.toHaveBeenCalled();
    expect(toasts.list.at(-1)?.text).toContain('at most 8');
  });

  it('virtualises: 10,000 sessions in 1,000 folders render only a screenful of rows', () => {
    listing.groups = big();
    render(AllChats);
    const rows = screen.getAllByTestId('session-row').length;
    expect(rows).toBeGreaterThan(5);
    expect(rows).toBeLessThan(60);
    expect(screen.getByTestId('result-count').textContent).toContain('10,000 sessions in 1,000 folders');
  });

  it('searching 10,000 sessions takes well under 100 ms', () => {
    const index = buildIndex(big(), {});
    const t0 = performance.now();
    for (const q of ['t', 'ta', 'tas', 'task 9', 'task 99', 'preview for 999/9'])
      filterIndex(index, { query: q, origins: [], agent: null });
    const perQuery = (performance.now() - t0) / 6;
    expect(perQuery).toBeLessThan(100);
    expect(filterIndex(index, { query: 'preview for 999/9', origins: [], agent: null }).count).toBe(1);
  });

  it('teaches what to do when there are no sessions', async () => {
    listing.groups = [];
    render(AllChats);
    const empty = screen.getByTestId('empty-state');
    expect(empty.textContent).toContain('No Claude Code sessions found in /home/ada/.claude');
    expect(empty.textContent).toContain('pick another Claude home');
    expect(empty.querySelector('button')?.textContent).toBe('Choose Claude home…');
    // ... and how sessions get there.
    expect(screen.getByTestId('empty-how').textContent).toMatch(/run claude\s+in a terminal/);
    await fireEvent.click(screen.getByText('Import transcripts…'));
    expect(nav.view).toBe('import');
  });

  it('speaks of temp folders only when the list left some out (#43)', async () => {
    listing.groups = [];
    listing.leftOutTemp = 0;
    const { unmount } = render(AllChats);
    expect(screen.getByTestId('empty-state').textContent).not.toMatch(/temp/i);
    unmount();
    listing.groups = [];
    listing.leftOutTemp = 3;
    render(AllChats);
    expect(screen.getByTestId('empty-temp').textContent).toContain('temporary folders (3 sessions)');
    await fireEvent.click(screen.getByTestId('show-temp'));
    expect(listing.includeTemp).toBe(true);
    expect(api.listSessions).toHaveBeenCalledWith(true);
    listing.includeTemp = false;
    listing.leftOutTemp = 0;
  });

  it('a rename shows in the list at once (shared name state)', async () => {
    const groups = small();
    listing.groups = groups;
    render(AllChats);
    listing.names[groups[1].sessions[2].sessionId] = 'Renamed elsewhere';
    await vi.waitFor(() => expect(screen.getByText('Renamed elsewhere')).toBeTruthy());
  });

  it('keyboard: arrows move, Enter opens, F2 renames the current row, Esc cancels', async () => {
    const groups = small();
    listing.groups = groups;
    nav.openId = null;
    render(AllChats);
    const wrap = document.querySelector('.list-wrap') as HTMLElement;
    await fireEvent.keyDown(wrap, { key: 'ArrowDown' });
    await fireEvent.keyDown(wrap, { key: 'ArrowDown' });
    await fireEvent.keyDown(wrap, { key: 'Enter' });
    expect(nav.openId).toBe(groups[0].sessions[1].sessionId);
    emit('rename-current', null);
    await vi.waitFor(() => expect(screen.getByTestId('rename-input')).toBeTruthy());
    const row = screen.getByTestId('rename-input').closest('[data-testid="session-row"]') as HTMLElement;
    expect(row.dataset.sessionId).toBe(groups[0].sessions[1].sessionId);
    await fireEvent.keyDown(screen.getByTestId('rename-input'), { key: 'Escape' });
    expect(screen.queryByTestId('rename-input')).toBeNull();
    emit('rename-current', null);
    await vi.waitFor(() => expect(screen.getByTestId('rename-input')).toBeTruthy());
    nav.open(null);
  });

  it('one focus model: the list keeps the focus, its cursor is the marked row, Tab skips row controls (#43)', async () => {
    listing.groups = small();
    render(AllChats);
    const wrap = screen.getByTestId('chats-list');
    const ids = () => screen.getAllByTestId('session-row').map((r) => r.dataset.sessionId!);
    const order = ids();
    nav.open(listing.groups.flatMap((g) => g.sessions).find((x) => x.sessionId === order[1])!);
    // Nothing inside a row is a Tab stop: Tab goes from the list to what follows it.
    const stops = [...wrap.querySelectorAll<HTMLElement>('input, button, [tabindex]')].filter((e) => e.tabIndex >= 0);
    expect(stops).toEqual([]);
    // The list takes the keyboard at the open session's row, and the arrows move from there.
    await fireEvent.focus(wrap);
    const cursorRow = () => (wrap.querySelector('.row.cursor') as HTMLElement | null)?.dataset.sessionId;
    expect(cursorRow()).toBe(order[1]);
    await fireEvent.keyDown(wrap, { key: 'ArrowDown' });
    expect(cursorRow()).toBe(order[2]);
    // The open row stays marked as open; the cursor is its own mark.
    expect(wrap.querySelectorAll('.row.selected')).toHaveLength(1);
    // Space ticks the cursor row; a click on a check moves the cursor there.
    await fireEvent.keyDown(wrap, { key: ' ' });
    expect(listing.selected).toEqual([order[2]]);
    await fireEvent.click(screen.getAllByTestId('session-check')[0]);
    expect(cursorRow()).toBe(order[0]);
    // The Menu key opens the cursor row's menu.
    await fireEvent.keyDown(wrap, { key: 'ContextMenu' });
    await vi.waitFor(() => expect(screen.getByRole('menu')).toBeTruthy());
    listing.selected = [];
    nav.open(null);
  });

  it('"/" focuses the search box', async () => {
    listing.groups = small();
    nav.view = 'chats';
    render(AllChats);
    emit('focus-search', null);
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('search')));
  });

  it('survives the same session id in two folders (a copy made by an import)', () => {
    const a = session({ workingDirectory: '/a' });
    const copy = {
      ...a,
      workingDirectory: '/b',
      encodedPath: '-b',
      transcriptPath: '/h/.claude/projects/-b/x.jsonl',
      origin: 'adopted' as const,
      agentName: 'team.alpha',
    };
    listing.groups = [group('/a', [a]), group('/b', [copy])];
    render(AllChats);
    expect(screen.getAllByTestId('session-row')).toHaveLength(2);
  });

  it('renders even if the engine sends the same transcript twice', () => {
    const a = session({ workingDirectory: '/a' });
    listing.groups = [group('/a', [a, { ...a }])];
    render(AllChats);
    expect(screen.getAllByTestId('session-row')).toHaveLength(2);
  });
});

describe('live sessions in All Chats', () => {
  beforeEach(() => {
    listing.names = {};
    live.nowOnly = false;
    live.unknown = null;
  });

  it('badges the sessions a claude process is on, counts them per folder, and "Now" shows only them', async () => {
    const groups = small();
    listing.groups = groups;
    const [deploy, nightly] = groups[0].sessions;
    const ui = groups[1].sessions[0];
    live.sessions = new Map([
      [
        deploy.sessionId,
        { sessionId: deploy.sessionId, state: 'waiting', why: 'a question waits for your answer', pid: 7, job: null },
      ],
      [
        nightly.sessionId,
        { sessionId: nightly.sessionId, state: 'running', why: 'claude process 8 resumes it', pid: 8, job: null },
      ],
      [ui.sessionId, { sessionId: ui.sessionId, state: 'idle', why: 'its turn finished', pid: 9, job: null }],
    ]);
    render(AllChats);
    const badges = await vi.waitFor(() => {
      const b = screen.getAllByTestId('live-badge');
      expect(b).toHaveLength(3);
      return b;
    });
    const waiting = badges.find((b) => b.dataset.state === 'waiting')!;
    expect(waiting.textContent).toContain('Waiting on you');
    expect(waiting.getAttribute('title')).toBe('a question waits for your answer');
    const counts = screen.getAllByTestId('group-live').map((g) => g.textContent?.trim());
    expect(counts).toEqual(['1 running · 1 waiting', '1 idle']);
    expect(screen.getAllByTestId('session-row')).toHaveLength(5);
    await fireEvent.click(screen.getByTestId('now-filter'));
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(3));
    expect(screen.getByTestId('now-filter').getAttribute('aria-pressed')).toBe('true');
    // Nobody on any: the filter says so, and clearing it brings everything back.
    live.sessions = new Map();
    await vi.waitFor(() => expect(screen.queryAllByTestId('session-row')).toHaveLength(0));
    expect(screen.getByText(/among the sessions a claude process is on now/)).toBeTruthy();
    await fireEvent.click(screen.getByText('Clear search and filters'));
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(5));
  });

  it('says when whether sessions run cannot be told', async () => {
    listing.groups = small();
    live.sessions = new Map();
    live.unknown = 'the process table cannot be read: no /proc';
    render(AllChats);
    expect((await screen.findByTestId('live-unknown')).textContent).toContain('no /proc');
  });
});

describe('sampling what runs', () => {
  it('keeps the sessions a process is on, and the reason when the table cannot be read', async () => {
    const api = await import('../lib/api');
    vi.mocked(api.liveStates).mockResolvedValueOnce({
      sessions: [{ sessionId: 'b', state: 'running', why: 'claude process 3 resumes it', pid: 3, job: null }],
      unknown: null,
    });
    await live.load();
    expect([...live.sessions.keys()]).toEqual(['b']);
    expect(live.unknown).toBeNull();
    vi.mocked(api.liveStates).mockResolvedValueOnce({
      sessions: [],
      unknown: 'the process table cannot be read: denied',
    });
    await live.load();
    expect(live.sessions.size).toBe(0);
    expect(live.unknown).toContain('denied');
  });
});

describe('resuming in a terminal', () => {
  it('says where it opened, why it did not start, and offers the home folder when the folder is gone', async () => {
    const api = await import('../lib/api');
    const s = small()[1].sessions[0];
    toasts.list = [];
    const outcome = (started: boolean) => ({
      command: {
        sessionId: s.sessionId,
        program: 'claude',
        args: ['--resume', s.sessionId],
        cwd: s.workingDirectory,
        env: [],
        fromFallback: false,
        display: '',
      },
      terminal: 'konsole',
      started,
      pid: started ? 12 : null,
      reason: started ? null : 'did not start: no claude process resumed it within 5 s',
    });
    vi.mocked(api.resumeSession).mockResolvedValueOnce(outcome(true));
    await actions.resume(s);
    expect(toasts.list.at(-1)?.text).toBe('Resumed in konsole');
    vi.mocked(api.resumeSession).mockResolvedValueOnce(outcome(false));
    await actions.resume(s);
    expect(toasts.list.at(-1)).toMatchObject({ kind: 'error' });
    expect(toasts.list.at(-1)?.text).toContain('no claude process resumed it');
    vi.mocked(api.resumeSession).mockRejectedValueOnce({
      kind: 'invalid-input',
      message: 'its working directory is not there any more; resume it from your home folder instead',
    });
    await actions.resume(s);
    const gone = toasts.list.at(-1)!;
    expect(gone.action?.label).toBe('Resume from home');
    vi.mocked(api.resumeSession).mockResolvedValueOnce(outcome(true));
    gone.action!.run();
    await vi.waitFor(() => expect(api.resumeSession).toHaveBeenLastCalledWith(s.sessionId, true));
  });
});

describe('All Chats without a fleet', () => {
  it('offers no adoption, no agent filter, and only the origins present', async () => {
    config.settings = fx.settings();
    listing.agents = [];
    live.sessions = new Map();
    listing.groups = [
      group('/home/ada/src/corral', [session({ workingDirectory: '/home/ada/src/corral', origin: 'native' })]),
    ];
    render(AllChats);
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(1));
    // Sessions can be picked (to resume several), but there is no agent to adopt them into.
    await fireEvent.click(screen.getByTestId('session-check'));
    expect(screen.getByTestId('resume-selected')).toBeTruthy();
    expect(screen.queryByTestId('adopt-selected')).toBeNull();
    listing.selected = [];
    expect(screen.queryByTestId('agent-filter')).toBeNull();
    const origins = [...(screen.getByTestId('origin-filter') as HTMLSelectElement).options].map((o) => o.value);
    expect(origins).toEqual(['', 'native']);
  });
});

describe('where the app opens', () => {
  it('opens on All Chats when no fleet is open, and on the Fleet view when one is', async () => {
    const api = await import('../lib/api');
    const settings = (fleetFile: string | null) => fx.settings({ fleetFile });
    vi.mocked(api.getSettings).mockResolvedValueOnce(settings(null));
    nav.view = 'fleet';
    await app.init();
    expect(nav.view).toBe('chats');
    vi.mocked(api.getSettings).mockResolvedValueOnce(settings('/f/herdctl.yaml'));
    nav.view = 'fleet';
    await app.init();
    expect(nav.view).toBe('fleet');
  });
});

describe('keyboard focus in All Chats', () => {
  it('returns to the list after Esc in the search box and after a rename ends', async () => {
    config.settings = null;
    listing.groups = small();
    live.sessions = new Map();
    render(AllChats);
    const search = await screen.findByTestId('search');
    search.focus();
    await fireEvent.keyDown(search, { key: 'Escape' });
    const list = document.querySelector('.list-wrap');
    expect(document.activeElement).toBe(list);
    await fireEvent.click(screen.getAllByTestId('rename-button')[0]);
    const input = await screen.findByTestId('rename-input');
    await fireEvent.keyDown(input, { key: 'Escape' });
    await vi.waitFor(() => expect(screen.queryByTestId('rename-input')).toBeNull());
    await vi.waitFor(() => expect(document.activeElement).toBe(list));
  });
});
