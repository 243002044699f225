import { render, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { group, session } from './fixtures';
import type { AgentSummary, Listing, ListingSoFar, ScanProgress, SessionSummary } from '../lib/types';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { config } = await import('../lib/config.svelte');
const { listing, SO_FAR_GAP_MS } = await import('../lib/listing.svelte');
const { nav } = await import('../lib/navigation.svelte');
const { default: AllChats } = await import('../lib/components/AllChats.svelte');

const DIR = '/home/ada/src/app';
const unread = (id: string): SessionSummary =>
  session({
    sessionId: id,
    workingDirectory: DIR,
    autoName: null,
    preview: null,
    gitBranch: null,
    messageCount: 0,
    pending: true,
  });
const read = (id: string, name: string): SessionSummary =>
  session({ sessionId: id, workingDirectory: DIR, autoName: name });

function soFar(sessions: SessionSummary[], p: Partial<ScanProgress>, agents: AgentSummary[] = []): ListingSoFar {
  const progress = { read: 0, toRead: 3, bytesRead: 0, bytesToRead: 300, ...p };
  return { listing: { groups: [group(DIR, sessions)], warnings: [], leftOutTemp: 0 }, agents, progress };
}

const agent = (sessionCount: number): AgentSummary => ({
  name: 'team.alpha',
  displayName: 'alpha',
  fleetPath: ['team'],
  workingDirectory: DIR,
  docker: false,
  sessionCount,
  lastActivityAt: null,
  tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
});

/** The shell's `list_sessions`, answered when the test says. */
function pendingListing(): (l: Listing) => Promise<void> {
  let answer: (l: Listing) => void = () => {};
  vi.mocked(api.listSessions).mockImplementationOnce(() => new Promise<Listing>((r) => (answer = r)));
  return async (l) => {
    answer(l);
    await vi.waitFor(() => expect(listing.progress).toBeNull());
  };
}

/** The `listing-progress` subscription the listing makes. */
function progressEvents(): (p: ScanProgress) => void {
  let cb: (p: ScanProgress) => void = () => {};
  vi.mocked(api.onListingProgress).mockImplementation(async (f) => {
    cb = f;
    return () => (cb = () => {});
  });
  return (p) => cb(p);
}

describe('the listing while its first pass reads', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    listing.clear();
    listing.names = {};
    nav.view = 'chats';
    config.settings = null;
  });

  it('paints the rows the walk found, fills them in as they are read, and settles', async () => {
    let now = 1_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const tell = progressEvents();
    const finish = pendingListing();
    vi.mocked(api.listingSoFar).mockResolvedValueOnce(
      soFar([read('s-3', 'Newest, read first'), unread('s-2'), unread('s-1')], { read: 1, bytesRead: 100 }),
    );
    const loading = listing.loadListing();
    render(AllChats);
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')).toHaveLength(3));

    // Every row is there before the pass ends; those not read yet say so.
    expect(screen.getByTestId('listing-progress').textContent).toContain('Reading 1 of 3 sessions…');
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('33');
    const rows = screen.getAllByTestId('session-row');
    expect(rows[0].textContent).toContain('Newest, read first');
    expect(within(rows[1]).getByTestId('row-pending').textContent).toBe('reading…');
    expect(rows[1].textContent).toContain('Not read yet…');
    expect(rows[1].classList.contains('pending')).toBe(true);

    // Progress moves the line at once; the listing so far is asked again only after the gap.
    tell({ read: 2, toRead: 3, bytesRead: 200, bytesToRead: 300 });
    await tick();
    expect(screen.getByTestId('listing-progress').textContent).toContain('Reading 2 of 3 sessions…');
    expect(api.listingSoFar).toHaveBeenCalledTimes(1);

    // After the gap a row read since fills in, in place: same session, now with its name.
    now += SO_FAR_GAP_MS;
    vi.mocked(api.listingSoFar).mockResolvedValueOnce(
      soFar([read('s-3', 'Newest, read first'), read('s-2', 'Second, read now'), unread('s-1')], {
        read: 2,
        bytesRead: 200,
      }),
    );
    tell({ read: 2, toRead: 3, bytesRead: 210, bytesToRead: 300 });
    await vi.waitFor(() => expect(screen.getAllByTestId('session-row')[1].textContent).toContain('Second, read now'));
    expect(api.listingSoFar).toHaveBeenCalledTimes(2);
    expect(screen.getAllByTestId('session-row')[1].getAttribute('data-session-id')).toBe('s-2');

    // The pass ends: its listing replaces what was known, sorted on every fact.
    await finish({
      groups: [group(DIR, [read('s-1', 'Oldest file, newest message'), read('s-3', 'Newest'), read('s-2', 'Second')])],
      warnings: [],
      leftOutTemp: 0,
    });
    await loading;
    await tick();
    expect(screen.queryByTestId('listing-progress')).toBeNull();
    expect(screen.queryAllByTestId('row-pending')).toHaveLength(0);
    expect(screen.getAllByTestId('session-row')[0].textContent).toContain('Oldest file, newest message');
    expect(screen.getByTestId('result-count').textContent).toContain('3 sessions in 1 folder');

    // Late progress events change nothing and ask nothing.
    now += SO_FAR_GAP_MS;
    tell({ read: 3, toRead: 3, bytesRead: 300, bytesToRead: 300 });
    await tick();
    expect(api.listingSoFar).toHaveBeenCalledTimes(2);
    expect(listing.progress).toBeNull();
  });

  it("shows the fleet's agents so far until their complete counts arrive", async () => {
    let now = 2_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => now);
    const tell = progressEvents();
    const finish = pendingListing();
    let agentsDone: (a: AgentSummary[]) => void = () => {};
    vi.mocked(api.listAgents).mockImplementationOnce(() => new Promise((r) => (agentsDone = r)));
    vi.mocked(api.listingSoFar).mockResolvedValueOnce(soFar([unread('s-1'), unread('s-2')], { read: 0 }, [agent(2)]));
    const agents = listing.loadAgents();
    const loading = listing.loadListing();
    await vi.waitFor(() => expect(listing.agents?.[0].sessionCount).toBe(2));
    agentsDone([agent(1)]);
    await agents;
    expect(listing.agents?.[0].sessionCount).toBe(1);

    // A listing so far that lands after the complete agents updates the rows, not the agents.
    now += SO_FAR_GAP_MS;
    vi.mocked(api.listingSoFar).mockResolvedValueOnce(
      soFar([read('s-1', 'One, read now'), unread('s-2')], { read: 1 }, [agent(5)]),
    );
    tell({ read: 1, toRead: 3, bytesRead: 100, bytesToRead: 300 });
    await vi.waitFor(() => expect(listing.sessionById('s-1')?.autoName).toBe('One, read now'));
    expect(listing.agents?.[0].sessionCount).toBe(1);
    await finish({ groups: [group(DIR, [read('s-1', 'One')])], warnings: [], leftOutTemp: 0 });
    await loading;
  });

  it('asks nothing so far once a complete listing is shown, and shows no stale answer', async () => {
    listing.groups = [group(DIR, [read('s-1', 'Shown')])];
    await listing.loadListing();
    expect(api.listingSoFar).not.toHaveBeenCalled();

    // A so-far answer that lands after the complete listing is dropped.
    listing.clear();
    let late: (v: ListingSoFar | null) => void = () => {};
    vi.mocked(api.listingSoFar).mockImplementationOnce(() => new Promise((r) => (late = r)));
    vi.mocked(api.listSessions).mockResolvedValueOnce({
      groups: [group(DIR, [read('s-1', 'Complete')])],
      warnings: [],
      leftOutTemp: 0,
    });
    await listing.loadListing();
    late(soFar([unread('s-1')], { read: 0 }));
    await tick();
    expect(listing.progress).toBeNull();
    expect(listing.groups?.[0].sessions[0].pending).toBeUndefined();
  });
});
