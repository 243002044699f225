import { render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DesktopReport } from '../lib/types';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { default: DesktopView } = await import('../lib/components/DesktopView.svelte');
const { default: SessionRow } = await import('../lib/components/SessionRow.svelte');
const { app } = await import('../lib/state.svelte');
const { session } = await import('./fixtures');

const A = 'a0000000-0000-4000-8000-00000000000a';
const A1 = 'a1000000-0000-4000-8000-0000000000a1';
const A2 = 'a2000000-0000-4000-8000-0000000000a2';
const ref = (org: string) => ({ account: A, org, file: 'local_1.json' });

function report(o: Partial<DesktopReport> = {}): DesktopReport {
  return {
    store: '/h/.config/Claude/claude-code-sessions',
    exists: true,
    current: { account: A, org: A2, rule: 'host-session' },
    sidebars: [
      {
        account: A,
        org: A1,
        target: true,
        entries: 3,
        live: 3,
        newestActivity: '2026-11-30T10:00:00.000Z',
        current: false,
      },
      { account: A, org: A2, target: true, entries: 0, live: 0, newestActivity: null, current: true },
      { account: 'evil\u001b[31m', org: A1, target: false, entries: 1, live: 1, newestActivity: null, current: false },
    ],
    missing: [
      {
        cliSessionId: 'c1',
        title: 'Fix the login redirect',
        cwd: '/w/app',
        status: 'restorable',
        source: ref(A1),
        lastActivity: '2026-11-30T10:00:00.000Z',
        alsoIn: [],
        note: '',
      },
      {
        cliSessionId: 'c2',
        title: null,
        cwd: null,
        status: 'ambiguous',
        source: ref(A1),
        lastActivity: null,
        alsoIn: [ref(A2)],
        note: 'differ in: title; equally new: …',
      },
    ],
    leftOut: { archived: 4, alreadyHere: 1, noTranscriptId: 0 },
    placements: [],
    finding: null,
    warnings: [{ path: '/h/store/x/local_bad.json', message: 'not read: it is not valid JSON' }],
    ...o,
  };
}

describe('the desktop app view', () => {
  beforeEach(() => vi.clearAllMocks());

  it('shows the sidebars, the current one and its rule, and what it is missing', async () => {
    vi.mocked(api.desktopReport).mockResolvedValue(report());
    render(DesktopView);
    await vi.waitFor(() => expect(screen.getAllByTestId('desktop-sidebar')).toHaveLength(3));
    expect(screen.getByTestId('desktop-current').textContent).toContain("this session's own entry");
    const rows = screen.getAllByTestId('desktop-sidebar');
    expect(rows[1].classList.contains('here')).toBe(true);
    // A folder name's control characters are shown, not obeyed; it is never a target.
    expect(rows[2].textContent).toContain('evil\\u{1b}');
    expect(rows[2].textContent).toContain('never a target');
    const missing = screen.getAllByTestId('desktop-missing-row');
    expect(missing.map((m) => m.dataset.status)).toEqual(['restorable', 'ambiguous']);
    expect(missing[0].textContent).toContain('Fix the login redirect');
    expect(missing[1].textContent).toContain('(no title)');
    expect(missing[1].textContent).toContain('differ in: title');
    expect(missing[1].textContent).toContain('also in 1 other sidebar');
    expect(screen.getByTestId('desktop-left-out').textContent).toMatch(/4 conversations archived.*1 already here/s);
    expect(screen.getByText(/1 file could not be read/)).toBeTruthy();
  });

  it('lists the questions the app rejected when it quit, with their text', async () => {
    vi.mocked(api.desktopReport).mockResolvedValue(report());
    vi.mocked(api.lostQuestions).mockResolvedValue([
      {
        sessionId: 's1',
        workingDirectory: '/w/app',
        customName: null,
        autoName: 'Set up the service',
        question: 'Which database should the service use?',
        askedAt: '2026-09-16T20:00:00.000Z',
        rejectedAt: '2026-09-16T22:52:10.000Z',
        sameSecond: 3,
        ownerSpokeAfter: false,
        likelyQuit: true,
      },
    ]);
    render(DesktopView);
    const row = await vi.waitFor(() => screen.getByTestId('lost-question'));
    expect(row.textContent).toContain('Which database should the service use?');
    expect(row.textContent).toContain('Likely the app quitting');
    expect(row.textContent).toContain('Set up the service');
    expect(row.textContent).toContain('with 2 other sessions in the same second');
  });

  it('says where it looked when there is no desktop app, and what a finding means', async () => {
    vi.mocked(api.desktopReport).mockResolvedValue(report({ exists: false, sidebars: [], missing: [] }));
    const { unmount } = render(DesktopView);
    await vi.waitFor(() => expect(screen.getByTestId('desktop-none').textContent).toContain('claude-code-sessions'));
    unmount();

    vi.mocked(api.desktopReport).mockResolvedValue(
      report({ missing: [], finding: 'could not read the store: 2 sidebar folders and no entry in any of them' }),
    );
    render(DesktopView);
    await vi.waitFor(() =>
      expect(screen.getByTestId('desktop-finding').textContent).toContain('could not read the store'),
    );
    expect(screen.getByTestId('desktop-nothing-missing').textContent).toContain('Nothing could be compared');
  });

  it('shows an error with a way to try again', async () => {
    vi.mocked(api.desktopReport).mockRejectedValue({ kind: 'io', message: 'permission denied' });
    render(DesktopView);
    await vi.waitFor(() => expect(screen.getByTestId('desktop-error').textContent).toContain('permission denied'));
    vi.mocked(api.desktopReport).mockResolvedValue(report());
    screen.getByText('Try again').click();
    await vi.waitFor(() => expect(screen.getAllByTestId('desktop-sidebar')).toHaveLength(3));
  });
});

describe('the listing', () => {
  it('badges a session the desktop app lists, the current sidebar first, archived said', async () => {
    const s = session({ sessionId: 'c1' });
    app.setDesktop(
      report({
        placements: [
          { cliSessionId: 'c1', account: A, org: A1, archived: false, current: false },
          { cliSessionId: 'c1', account: A, org: A2, archived: true, current: true },
        ],
      }),
    );
    const { unmount } = render(SessionRow, { session: s, onopen: () => {} });
    const badge = screen.getByTestId('desktop-badge');
    expect(badge.textContent?.trim()).toBe('▭ Desktop · archived');
    expect(badge.getAttribute('title')).toContain(`${A}/${A1}`);
    unmount();
    app.setDesktop(report({ placements: [] }));
    render(SessionRow, { session: s, onopen: () => {} });
    expect(screen.queryByTestId('desktop-badge')).toBeNull();
  });
});
