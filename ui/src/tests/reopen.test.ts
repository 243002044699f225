import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RecentWork, ReopenOutcome, ReopenRow } from '../lib/types';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { default: ReopenView } = await import('../lib/components/ReopenView.svelte');
const { gitWords, reopenFlow } = await import('../lib/reopenflow.svelte');

const A = 'aaaa1111-0000-4000-a000-000000000001';
const B = 'bbbb2222-0000-4000-a000-000000000002';
const C = 'cccc3333-0000-4000-a000-000000000003';

function row(o: Partial<ReopenRow>): ReopenRow {
  return {
    folder: '/w/alpha',
    sessionId: A,
    name: 'Fix the login redirect',
    lastActive: new Date(Date.now() - 3_600_000).toISOString(),
    conversations: 1,
    state: 'free',
    why: null,
    remoteName: 'alpha',
    trusted: true,
    git: null,
    ...o,
  };
}

function work(): RecentWork {
  return {
    days: 21,
    since: '2026-11-16T00:00:00.000Z',
    rows: [
      row({ conversations: 3 }),
      row({
        folder: '/w/beta',
        sessionId: B,
        name: 'Beta work',
        state: 'occupied',
        why: 'claude process 42 runs in /w/beta (--continue), so it may be on this session',
      }),
      row({ folder: '/w/gamma', sessionId: C, name: 'Gamma work', trusted: false, remoteName: 'gamma' }),
    ],
    leftOut: [
      {
        folder: '/w/printed',
        sessionId: 'dddd',
        name: 'a print run',
        lastActive: '2026-12-01T00:00:00Z',
        reason: 'not-interactive',
        why: 'started by claude -p, not in a terminal',
      },
    ],
  };
}

describe('Reopen recent work', () => {
  beforeEach(() => {
    vi.mocked(api.recentWork).mockReset().mockResolvedValue(work());
    vi.mocked(api.gitStates)
      .mockReset()
      .mockResolvedValue([
        { kind: 'repository', branch: 'main', upstream: 'origin/main', ahead: 1, behind: 2, changed: 3, untracked: 1 },
        { kind: 'notARepository' },
        { kind: 'unreadable', why: 'git did not answer within 3 s' },
      ]);
    reopenFlow.work = null;
    reopenFlow.outcomes = {};
    reopenFlow.report = null;
  });

  it('offers the free folders chosen, the held one named and not choosable, with git and trust', async () => {
    render(ReopenView);
    await waitFor(() => expect(screen.getAllByTestId('reopen-row')).toHaveLength(3));
    const boxes = screen.getAllByRole('checkbox', { name: /^Reopen / }) as HTMLInputElement[];
    expect(boxes.map((b) => [b.checked, b.disabled])).toEqual([
      [true, false],
      [false, true],
      [true, false],
    ]);
    expect(screen.getAllByTestId('reopen-state').map((s) => s.textContent)).toEqual(['Free', 'Occupied', 'Free']);
    expect(screen.getByText(/runs in \/w\/beta \(--continue\)/)).toBeTruthy();
    await waitFor(() => expect(screen.getAllByTestId('reopen-git')).toHaveLength(3));
    expect(screen.getAllByTestId('reopen-git').map((g) => g.textContent?.trim())).toEqual([
      'main ±4 ↑1 ↓2',
      'not a git repository',
      'git: git did not answer within 3 s',
    ]);
    expect(api.gitStates).toHaveBeenCalledWith(['/w/alpha', '/w/beta', '/w/gamma']);
    expect(screen.getByText(/will first ask whether you trust this folder/)).toBeTruthy();
    expect(screen.getByText('· newest of 3')).toBeTruthy();
    expect(screen.getByText(/Left out: 1 conversation/)).toBeTruthy();
    expect((screen.getByTestId('reopen-start') as HTMLButtonElement).textContent).toContain('Start 2 conversations');
  });

  it('starts the chosen, shows each outcome as it comes, and never calls a failed one started', async () => {
    const outcomes: ReopenOutcome[] = [
      { sessionId: A, folder: '/w/alpha', result: 'started', why: null, terminal: 'kitty', pid: 77, command: null },
      {
        sessionId: C,
        folder: '/w/gamma',
        result: 'failed-to-start',
        why: 'did not start: no claude process resumed it within 10 s',
        terminal: 'kitty',
        pid: null,
        command: null,
      },
    ];
    vi.mocked(api.reopen).mockImplementation(async (choices, onProgress) => {
      outcomes.forEach(onProgress);
      return { started: 1, failed: 1, skipped: 0, cancelled: false, rows: outcomes };
    });
    render(ReopenView);
    await waitFor(() => expect(screen.getAllByTestId('reopen-row')).toHaveLength(3));
    await fireEvent.click(screen.getByTestId('reopen-start'));
    await waitFor(() => expect(screen.getByTestId('reopen-report').textContent).toContain('1 started'));
    expect(api.reopen).toHaveBeenCalledWith(
      [
        { sessionId: A, remoteName: 'alpha' },
        { sessionId: C, remoteName: 'gamma' },
      ],
      expect.any(Function),
    );
    expect(screen.getByTestId('reopen-report').textContent).toContain('1 failed to start');
    const shown = screen.getAllByTestId('reopen-outcome').map((o) => o.textContent?.replace(/\s+/g, ' ').trim());
    expect(shown[0]).toContain('Started (claude process 77)');
    expect(shown[1]).toContain('Failed to start: did not start');
  });

  it('a change on disk keeps the choices made and reads git only for new folders', async () => {
    render(ReopenView);
    await waitFor(() => expect(screen.getAllByTestId('reopen-git')).toHaveLength(3));
    await fireEvent.click(screen.getByRole('checkbox', { name: /^Reopen Fix the login redirect/ }));
    const D = 'dddd4444-0000-4000-a000-000000000004';
    const next = work();
    next.rows.push(row({ folder: '/w/delta', sessionId: D, name: 'Delta work', remoteName: 'delta' }));
    next.rows[2] = { ...next.rows[2], state: 'occupied', why: 'claude process 9 holds this session (--resume)' };
    vi.mocked(api.recentWork).mockResolvedValue(next);
    vi.mocked(api.gitStates)
      .mockClear()
      .mockResolvedValue([{ kind: 'notARepository' }]);
    await reopenFlow.load(false);
    await waitFor(() => expect(screen.getAllByTestId('reopen-row')).toHaveLength(4));
    expect(api.gitStates).toHaveBeenCalledWith(['/w/delta']);
    expect([...reopenFlow.chosen].sort()).toEqual([D]);
    expect(screen.getAllByTestId('reopen-git')).toHaveLength(4);
  });

  it('says so when there is nothing recent, and a git state reads in words', async () => {
    vi.mocked(api.recentWork).mockResolvedValue({ ...work(), rows: [], leftOut: [] });
    render(ReopenView);
    await waitFor(() =>
      expect(screen.getByTestId('reopen-empty').textContent).toContain('No conversation in the last 21 days'),
    );
    expect(
      gitWords({ kind: 'repository', branch: null, upstream: null, ahead: 0, behind: 0, changed: 0, untracked: 0 }),
    ).toBe('(detached)');
  });
});
