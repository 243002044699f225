import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { session } from './fixtures';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { config } = await import('../lib/config.svelte');
const { listing } = await import('../lib/listing.svelte');
const { live } = await import('../lib/live.svelte');
const { toasts } = await import('../lib/toasts.svelte');
const { default: FleetView } = await import('../lib/components/FleetView.svelte');

const adopted = session({
  origin: 'adopted',
  agentName: 'team.alpha',
  autoName: 'Adopted chat',
  workingDirectory: '/home/ada/work/alpha',
});
const native = session({
  origin: 'web',
  agentName: 'team.alpha',
  autoName: 'Web chat',
  workingDirectory: '/home/ada/work/alpha',
});

/** The engine's answer to a release of the adopted session from alpha, as run `runId`. */
function releasedAs(runId: string) {
  vi.mocked(api.release).mockResolvedValue({
    sessionId: adopted.sessionId,
    agentName: 'team.alpha',
    released: true,
    runId,
  });
}

/** All Chats' listing of alpha's folder, holding both sessions. */
function alphaGroups() {
  return [
    {
      workingDirectory: '/home/ada/work/alpha',
      encodedPath: '-home-ada-work-alpha',
      agentName: 'team.alpha',
      sessionCount: 2,
      owners: [],
      tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      isTemp: false,
      sessions: [adopted, native],
    },
  ];
}

describe('Fleet view: grouping and release', () => {
  beforeEach(() => {
    localStorage.clear();
    localStorage.setItem('corral:fleet:expanded', JSON.stringify({ 'agent:team.alpha': true }));
    config.settings = {
      claudeHome: '/home/ada/.claude',
      claudeHomeExists: true,
      fleetFile: '/home/ada/fleet/herdctl.yaml',
      stateDir: '/s',
      dataDir: '/d',
      terminal: null,
      terminals: [],
      notifyWaiting: false,
      reopenRemoteControl: false,
      emptyQuarantineAfterDays: null,
    };
    listing.agents = [
      {
        name: 'team.alpha',
        displayName: 'alpha',
        fleetPath: ['team'],
        workingDirectory: '/home/ada/work/alpha',
        docker: false,
        sessionCount: 2,
        lastActivityAt: adopted.mtime,
        tokens: { inputTokens: 1_000, outputTokens: 200_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 99_000 },
        cost: { usd: 12.345, unpriced: false, source: 'claudeCode' },
      },
      {
        name: 'team.gamma',
        displayName: 'gamma',
        fleetPath: ['team'],
        workingDirectory: '/home/ada/work/gamma',
        docker: false,
        sessionCount: 0,
        lastActivityAt: null,
        tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
      {
        name: 'scribe',
        displayName: 'scribe',
        fleetPath: [],
        workingDirectory: '/home/ada/work/scribe',
        docker: false,
        sessionCount: 1234,
        lastActivityAt: null,
        tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        cost: { usd: 0.5, unpriced: true, source: 'table' },
      },
    ];
    listing.agentSessions = { 'team.alpha': [adopted, native] };
    vi.mocked(api.release).mockReset();
  });

  it('groups agents under their fleet path with true session counts', () => {
    render(FleetView);
    const groups = screen.getAllByTestId('fleet-group');
    expect(groups.map((g) => g.textContent)).toEqual([expect.stringContaining('team')]);
    expect(groups[0].textContent).toContain('2 sessions');
    const rows = screen.getAllByTestId('agent-row');
    expect(rows.map((r) => r.dataset.agent)).toEqual(['scribe', 'team.alpha', 'team.gamma']);
    expect(rows[0].textContent).toContain('1,234 sessions');
  });

  it('shows what each agent and sub-fleet cost at list price, and where the figure came from', () => {
    render(FleetView);
    const row = (name: string) => screen.getAllByTestId('agent-row').find((r) => r.dataset.agent === name)!;
    const alpha = within(row('team.alpha')).getByTestId('cost');
    expect(alpha.textContent).toBe('$12.35');
    expect(alpha.title).toContain("Claude Code's own figure");
    expect(alpha.title).toContain('list price');
    // Requests of a model with no price are left out, and said.
    expect(within(row('scribe')).getByTestId('cost').textContent).toBe('$0.50+');
    expect(within(row('team.gamma')).queryByTestId('cost')).toBeNull();
    expect(within(screen.getByTestId('fleet-group')).getByTestId('cost').textContent).toBe('$12.35');
  });

  it('shows the tokens of each agent and sub-fleet, with the kinds in the tooltip', () => {
    render(FleetView);
    const alpha = screen.getAllByTestId('agent-row').find((r) => r.dataset.agent === 'team.alpha')!;
    const count = within(alpha).getByTestId('token-count');
    expect(count.textContent).toBe('1.3M tokens');
    expect(count.title).toContain('output 200,000');
    expect(count.title).toContain('cache read 1,000,000');
    // The sub-fleet adds its agents up; an agent that spent nothing shows no count.
    expect(within(screen.getByTestId('fleet-group')).getByTestId('token-count').textContent).toBe('1.3M tokens');
    const gamma = screen.getAllByTestId('agent-row').find((r) => r.dataset.agent === 'team.gamma')!;
    expect(within(gamma).queryByTestId('token-count')).toBeNull();
  });

  it('counts the live sessions of each agent beside its sessions', () => {
    listing.groups = alphaGroups();
    live.sessions = new Map([
      [
        adopted.sessionId,
        { sessionId: adopted.sessionId, state: 'waiting', why: 'a question waits', pid: 1, job: null },
      ],
      [native.sessionId, { sessionId: native.sessionId, state: 'running', why: 'working', pid: 2, job: null }],
    ]);
    render(FleetView);
    const badges = screen.getAllByTestId('agent-live');
    expect(badges.map((l) => l.textContent?.trim())).toEqual(['1 running · 1 waiting']);
    expect(badges[0].closest('[data-agent]')?.getAttribute('data-agent')).toBe('team.alpha');
    live.sessions = new Map();
    listing.groups = null;
  });

  it('shows the files the listing could not read, as All Chats does', () => {
    listing.warnings = [{ path: '/s/jobs/job-1.yaml', message: 'not read: invalid YAML' }];
    render(FleetView);
    expect(screen.getByTestId('listing-warnings').textContent).toContain('job-1.yaml');
    listing.warnings = [];
  });

  it('says so when the filter matches no agent, and clears it', async () => {
    render(FleetView);
    await fireEvent.input(screen.getByTestId('agent-search'), { target: { value: 'nobody-here' } });
    expect(screen.getByTestId('no-agent-match').textContent).toContain('No agent matches “nobody-here”');
    // The count says what the filter left, never "3 agents · 0 sessions".
    expect(screen.getByTestId('fleet-count').textContent?.replace(/\s+/g, ' ').trim()).toBe('0 of 3 agents');
    await fireEvent.click(screen.getByText('Clear the filter'));
    expect(screen.getAllByTestId('agent-row')).toHaveLength(3);
    expect(screen.getByTestId('fleet-count').textContent).toMatch(/^3 agents · [\d,]+ sessions?$/);
  });

  it('↓ from the filter goes into the tree at its first line (#43)', async () => {
    render(FleetView);
    const filter = screen.getByTestId('agent-search');
    filter.focus();
    await fireEvent.keyDown(filter, { key: 'ArrowDown' });
    const tree = screen.getByTestId('fleet-keys');
    expect(document.activeElement).toBe(tree);
    const lines = [...tree.querySelectorAll('[aria-selected]')];
    expect(lines.filter((l) => l.getAttribute('aria-selected') === 'true')).toEqual([lines[0]]);
  });

  it('collapsing a fleet group is remembered', async () => {
    const { unmount } = render(FleetView);
    await fireEvent.click(screen.getByTestId('fleet-group'));
    expect(screen.queryAllByTestId('agent-row').map((r) => r.dataset.agent)).toEqual(['scribe']);
    unmount();
    render(FleetView);
    expect(screen.queryAllByTestId('agent-row').map((r) => r.dataset.agent)).toEqual(['scribe']);
  });

  it("sorts each agent's sessions, and remembers the order", async () => {
    listing.agentSessions = {
      'team.alpha': [
        { ...adopted, messageCount: 2 },
        { ...native, messageCount: 99 },
      ],
    };
    render(FleetView);
    const names = () => screen.getAllByTestId('session-row').map((r) => (r.textContent ?? '').includes('Web chat'));
    expect(names()).toEqual([false, true]);
    await fireEvent.change(screen.getByTestId('sort'), { target: { value: 'name' } });
    expect(names()).toEqual([false, true]);
    await fireEvent.change(screen.getByTestId('sort'), { target: { value: 'messages' } });
    expect(names()).toEqual([true, false]);
    expect(localStorage.getItem('corral.fleet.sort')).toBe('messages');
  });

  it('offers Release only on adopted sessions', () => {
    render(FleetView);
    expect(screen.getAllByTestId('release-button')).toHaveLength(1);
  });

  it('asks before releasing and says the transcript stays on disk', async () => {
    releasedAs('run-1');
    vi.mocked(api.listAgents).mockResolvedValue(listing.agents!);
    vi.mocked(api.agentSessions).mockResolvedValue([native]);
    render(FleetView);
    await fireEvent.click(screen.getByTestId('release-button'));
    const dialog = screen.getByTestId('confirm-dialog');
    expect(dialog.textContent).toContain('The transcript stays on disk');
    expect(dialog.textContent).toContain(adopted.transcriptPath);
    expect(api.release).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId('confirm-button'));
    expect(api.release).toHaveBeenCalledWith('team.alpha', adopted.sessionId);
    await vi.waitFor(() => expect(screen.queryAllByTestId('session-row')).toHaveLength(1));
    expect(screen.getByTestId('session-row').textContent).toContain('Web chat');
    const toast = toasts.list.at(-1)!;
    expect(toast.text).toContain('still on disk');
    // The toast's Undo undoes the release's run, as History does.
    vi.mocked(api.undoRun).mockResolvedValue({ runId: 'run-1', undone: [], notUndone: [] });
    toast.action!.run();
    await vi.waitFor(() => expect(api.undoRun).toHaveBeenCalledWith('run-1'));
    await vi.waitFor(() => expect(toasts.list.at(-1)?.text).toBe('Adopted by alpha again'));
  });

  it('says when the undo of a release cannot put the record back', async () => {
    releasedAs('run-2');
    vi.mocked(api.undoRun).mockResolvedValue({
      runId: 'run-2',
      undone: [],
      notUndone: [
        { path: '/s/x.yaml', reason: "the session has an adoption record again (beta's); it stays", sessionId: null },
      ],
    });
    render(FleetView);
    await fireEvent.click(screen.getByTestId('release-button'));
    await fireEvent.click(screen.getByTestId('confirm-button'));
    await vi.waitFor(() => expect(toasts.list.at(-1)?.action).toBeTruthy());
    toasts.list.at(-1)!.action!.run();
    await vi.waitFor(() => expect(toasts.list.at(-1)?.text).toContain('Not adopted again'));
    expect(toasts.list.at(-1)?.kind).toBe('error');
  });

  it('cancelling the confirmation releases nothing', async () => {
    render(FleetView);
    await fireEvent.click(screen.getByTestId('release-button'));
    await fireEvent.click(screen.getByTestId('cancel-button'));
    expect(screen.queryByTestId('confirm-dialog')).toBeNull();
    expect(api.release).not.toHaveBeenCalled();
  });

  it('explains how to open a fleet when none is open', () => {
    config.settings = { ...config.settings!, fleetFile: null };
    listing.agents = [];
    render(FleetView);
    expect(screen.getByTestId('no-fleet').textContent).toContain('herdctl.yaml');
  });

  it('an agent named like an Object property ("constructor") works like any other', async () => {
    listing.agents = [
      {
        name: 'constructor',
        displayName: 'constructor',
        fleetPath: [],
        workingDirectory: '/w/c',
        docker: false,
        sessionCount: 1,
        lastActivityAt: null,
        tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ];
    listing.agentSessions = {};
    localStorage.setItem('corral:fleet:expanded', JSON.stringify({ 'agent:constructor': true }));
    vi.mocked(api.agentSessions).mockResolvedValue([native]);
    render(FleetView);
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(1));
    expect(api.agentSessions).toHaveBeenCalledWith('constructor');
  });

  it('virtualises: an agent with 5,000 sessions draws a few screens of rows, all of them listed', () => {
    const many = Array.from({ length: 5000 }, (_, i) =>
      session({ agentName: 'team.alpha', autoName: `Run ${i}`, workingDirectory: '/home/ada/work/alpha' }),
    );
    listing.agentSessions = { 'team.alpha': many };
    render(FleetView);
    const rows = screen.getAllByTestId('session-row').length;
    expect(rows).toBeGreaterThan(5);
    expect(rows).toBeLessThan(80);
    // Every session is in the tree (no "show more"): the lines are agents, groups and sessions.
    expect(Number(screen.getByTestId('fleet-tree').dataset.count)).toBeGreaterThanOrEqual(5000 + 3);
    expect(screen.queryByText(/more of/)).toBeNull();
  });

  it('sessions picked in the tree get the selection bar, whose Delete takes them all', async () => {
    const { nav } = await import('../lib/navigation.svelte');
    listing.selected = [];
    listing.groups = alphaGroups();
    render(FleetView);
    expect(screen.queryByTestId('selection-bar')).toBeNull();
    const checks = screen.getAllByTestId('session-check');
    expect(checks).toHaveLength(2);
    await fireEvent.click(checks[0]);
    await fireEvent.click(checks[1]);
    expect(screen.getByTestId('selection-bar').textContent).toContain('2 selected');
    await fireEvent.click(screen.getByTestId('delete-selected'));
    expect(new Set(nav.deleting?.sessionIds)).toEqual(new Set([adopted.sessionId, native.sessionId]));
    await fireEvent.click(checks[0]);
    expect(listing.selected).toHaveLength(1);
    listing.selected = [];
    nav.deleting = null;
  });
});
