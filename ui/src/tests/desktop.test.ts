import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DesktopReport, DesktopRestorePlan } from '../lib/types';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { default: DesktopView } = await import('../lib/components/DesktopView.svelte');
const { default: SessionRow } = await import('../lib/components/SessionRow.svelte');
const { listing } = await import('../lib/listing.svelte');
const { session } = await import('./fixtures');

const A = 'a0000000-0000-4000-8000-00000000000a';
const A1 = 'a1000000-0000-4000-8000-0000000000a1';
const A2 = 'a2000000-0000-4000-8000-0000000000a2';
const ref = (org: string) => ({ account: A, org, file: 'local_1.json' });
const unnamed = { accountLabel: null, orgLabel: null };

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
        accountLabel: null,
        orgLabel: null,
      },
      { account: A, org: A2, target: true, entries: 0, live: 0, newestActivity: null, current: true, ...unnamed },
      {
        account: 'evil\u001b[31m',
        org: A1,
        target: false,
        entries: 1,
        live: 1,
        newestActivity: null,
        current: false,
        ...unnamed,
      },
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
        canReplace: false,
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
        canReplace: false,
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
    expect(screen.getByTestId('desktop-current').textContent).toContain("— it holds this session's own entry");
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
    listing.setDesktop(
      report({
        placements: [
          { cliSessionId: 'c1', account: A, org: A1, archived: false, current: false },
          { cliSessionId: 'c1', account: A, org: A2, archived: true, current: true },
        ],
      }),
    );
    const { unmount } = render(SessionRow, { session: s, onopen: () => {} });
    const badge = screen.getByTestId('desktop-badge');
    expect(badge.textContent?.trim()).toBe(`Desktop: ${A2.slice(0, 8)} · archived`);
    expect(badge.querySelector('[data-icon=monitor]')).not.toBeNull();
    expect(badge.getAttribute('title')).toContain(`${A}/${A1}`);
    unmount();
    listing.setDesktop(report({ placements: [] }));
    render(SessionRow, { session: s, onopen: () => {} });
    expect(screen.queryByTestId('desktop-badge')).toBeNull();
  });
});

describe('restoring from the desktop app view', () => {
  beforeEach(() => vi.clearAllMocks());
  const plan = (items: number): DesktopRestorePlan => ({
    request: { all: false, ids: ['c1'], allowSharedFolder: false, replaceOlder: false },
    store: '/h/.config/Claude/claude-code-sessions',
    account: A,
    org: A2,
    targetDir: `/h/.config/Claude/claude-code-sessions/${A}/${A2}`,
    items: Array.from({ length: items }, () => ({
      cliSessionId: 'c1',
      title: 'Fix the login redirect',
      sourcePath: `/s/${A}/${A1}/local_1.json`,
      targetPath: `/s/${A}/${A2}/local_1.json`,
      action: 'create' as const,
    })),
    refused: [],
    backup: { files: 12, bytes: 48_213, leftOut: [], tooLarge: false },
  });
  const click = (id: string) => fireEvent.click(screen.getByTestId(id));

  it('previews the chosen rows, waits for the app to quit, runs with progress, and offers undo', async () => {
    vi.mocked(api.desktopReport).mockResolvedValue(report());
    const running = {
      state: 'running' as const,
      processes: [{ pid: 7, path: '/Applications/Claude.app/Contents/MacOS/Claude' }],
    };
    vi.mocked(api.desktopPlanRestore)
      .mockResolvedValueOnce({ plan: plan(1), app: running })
      .mockResolvedValue({ plan: plan(1), app: { state: 'closed' } });
    vi.mocked(api.desktopRestore).mockImplementation(async (p, onProgress) => {
      onProgress({ done: 0, total: 1, cliSessionId: 'c1' });
      return {
        runId: '20261201T100000Z-1',
        runDir: '/d/runs/20261201T100000Z-1',
        dryRun: false,
        restored: [
          { cliSessionId: 'c1', title: 'Fix the login redirect', file: p.items[0].targetPath, replaced: false },
        ],
        refused: [],
        cancelled: false,
        app: { state: 'closed' },
        backup: p.backup,
      };
    });
    render(DesktopView);
    await vi.waitFor(() => expect(screen.getAllByTestId('desktop-pick')).toHaveLength(2));
    const picks = screen.getAllByTestId('desktop-pick') as HTMLInputElement[];
    expect(picks[1].disabled).toBe(true); // ambiguous copies cannot be restored
    expect((screen.getByTestId('desktop-restore') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(screen.getByTestId('desktop-pick-all'));
    expect(picks[0].checked).toBe(true);
    await click('desktop-restore');
    expect(api.desktopPlanRestore).toHaveBeenCalledWith(A, A2, {
      all: false,
      ids: ['c1'],
      allowSharedFolder: false,
      replaceOlder: false,
    });
    // The app runs: said, with its process, and the restore cannot go on until it has quit.
    const banner = await vi.waitFor(() => screen.getByTestId('restore-app-running'));
    expect(banner.textContent).toContain('quit it first');
    expect(banner.textContent).toContain('pid 7');
    expect(screen.getAllByTestId('restore-item')).toHaveLength(1);
    expect((screen.getByTestId('restore-next') as HTMLButtonElement).disabled).toBe(true);
    await click('restore-check-again');
    await vi.waitFor(() => expect(screen.queryByTestId('restore-app-running')).toBeNull());
    expect((screen.getByTestId('restore-next') as HTMLButtonElement).disabled).toBe(false);
    await click('restore-next');
    expect(screen.getByTestId('restore-dialog-step-2').textContent).toContain('the whole store is copied');
    await click('restore-run');
    const result = await vi.waitFor(() => screen.getByTestId('restore-result'));
    expect(result.textContent).toMatch(/1\s*restored,\s*0\s*refused/);
    expect(screen.getByTestId('restored-row').textContent).toContain('Fix the login redirect');
    expect(vi.mocked(api.desktopRestore).mock.calls[0][0]).toEqual(plan(1));
    vi.mocked(api.planUndo).mockResolvedValue({ runId: '20261201T100000Z-1', steps: [], notUndone: [] });
    await click('undo-restore');
    await vi.waitFor(() => expect(screen.getByTestId('undo-panel')).toBeTruthy());
    expect(api.planUndo).toHaveBeenCalledWith('20261201T100000Z-1');
    // Done reads the store again (what is missing has changed).
    const reads = vi.mocked(api.desktopReport).mock.calls.length;
    await click('restore-done');
    await vi.waitFor(() => expect(vi.mocked(api.desktopReport).mock.calls.length).toBe(reads + 1));
    expect(screen.queryByTestId('restore-dialog')).toBeNull();
  });

  it('says what the backup takes, and a store too large to back up cannot be restored into', async () => {
    vi.mocked(api.desktopReport).mockResolvedValue(report());
    const leftOut = [{ path: '/s/a/cache/blob-1', bytes: 60 * 1024 * 1024 }];
    vi.mocked(api.desktopPlanRestore)
      .mockResolvedValueOnce({
        plan: { ...plan(1), backup: { files: 17, bytes: 272 * 1024 * 1024, leftOut: [], tooLarge: true } },
        app: { state: 'closed' },
      })
      .mockResolvedValue({
        plan: { ...plan(1), backup: { files: 12, bytes: 48_213, leftOut, tooLarge: false } },
        app: { state: 'closed' },
      });
    render(DesktopView);
    await vi.waitFor(() => expect(screen.getAllByTestId('desktop-pick')).toHaveLength(2));
    await fireEvent.click(screen.getAllByTestId('desktop-pick')[0]);
    await click('desktop-restore');
    const banner = await vi.waitFor(() => screen.getByTestId('restore-backup-too-large'));
    expect(banner.textContent).toContain('272 MB in 17 files');
    expect(screen.queryByTestId('restore-backup-size')).toBeNull();
    expect((screen.getByTestId('restore-next') as HTMLButtonElement).disabled).toBe(true);
    // What is not the app's moved out, planned again: the backup's size is said, with what it leaves out.
    await click('restore-backup-check-again');
    const size = await vi.waitFor(() => screen.getByTestId('restore-backup-size'));
    expect(size.textContent).toContain('12 files, 47 KB');
    expect(size.textContent).toContain('blob-1');
    expect(size.textContent).toContain('60 MB');
    expect(screen.queryByTestId('restore-backup-too-large')).toBeNull();
    expect((screen.getByTestId('restore-next') as HTMLButtonElement).disabled).toBe(false);
  });

  it('says so when the app started before the run, and nothing was written', async () => {
    vi.mocked(api.desktopReport).mockResolvedValue(report());
    vi.mocked(api.desktopPlanRestore).mockResolvedValue({ plan: plan(1), app: { state: 'closed' } });
    vi.mocked(api.desktopRestore).mockRejectedValue({
      kind: 'app-running',
      message: 'the Claude desktop app is running',
    });
    render(DesktopView);
    await vi.waitFor(() => expect(screen.getAllByTestId('desktop-pick')).toHaveLength(2));
    await fireEvent.click(screen.getAllByTestId('desktop-pick')[0]);
    await click('desktop-restore');
    await vi.waitFor(() => expect(screen.getAllByTestId('restore-item')).toHaveLength(1));
    await click('restore-next');
    await click('restore-run');
    const err = await vi.waitFor(() => screen.getByTestId('restore-error'));
    expect(err.textContent).toContain('nothing was written');
    expect(screen.queryByTestId('restore-result')).toBeNull();
  });
});

describe('the sidebar a restore writes into', () => {
  beforeEach(() => vi.clearAllMocks());

  it('is never one the rules only guessed: the person chooses it', async () => {
    vi.mocked(api.desktopReport).mockResolvedValue(
      report({ current: { account: A, org: A2, rule: 'scratch-transcript-folder' } }),
    );
    render(DesktopView);
    await vi.waitFor(() => expect(screen.getAllByTestId('desktop-pick')).toHaveLength(2));
    await fireEvent.click(screen.getAllByTestId('desktop-pick')[0]);
    expect((screen.getByTestId('desktop-restore') as HTMLButtonElement).disabled).toBe(true);
    const select = screen.getByTestId('desktop-target') as HTMLSelectElement;
    expect(select.value).toBe('');
    vi.mocked(api.desktopReport).mockResolvedValue(report({ current: { account: A, org: A2, rule: 'given' } }));
    await fireEvent.change(select, { target: { value: `${A}/${A2}` } });
    await vi.waitFor(() => expect(api.desktopReport).toHaveBeenLastCalledWith(A, A2));
    await vi.waitFor(() => expect(screen.getByTestId('desktop-current').textContent).toContain('— you chose it'));
    await fireEvent.click(screen.getAllByTestId('desktop-pick')[0]);
    expect((screen.getByTestId('desktop-restore') as HTMLButtonElement).disabled).toBe(false);
  });

  it('names a sidebar by the email and organisation Claude Code is signed in with (#43)', async () => {
    const r = report();
    r.sidebars[1] = { ...r.sidebars[1], accountLabel: 'ada@example.com', orgLabel: 'Example Ltd' };
    r.sidebars[0] = { ...r.sidebars[0], accountLabel: 'ada@example.com' };
    vi.mocked(api.desktopReport).mockResolvedValue(r);
    render(DesktopView);
    await vi.waitFor(() => expect(screen.getAllByTestId('desktop-sidebar')).toHaveLength(3));
    const current = screen.getByTestId('desktop-current').textContent!;
    expect(current).toContain('Current sidebar: ada@example.com · Example Ltd');
    expect(current).not.toContain('a0000000…');
    const rows = screen.getAllByTestId('desktop-sidebar');
    expect(rows[1].textContent).toContain('Example Ltd');
    // The other org of the same account: the email, and the org's id (its name is not known).
    expect(rows[0].textContent).toContain('ada@example.com');
    expect(rows[0].textContent).toContain('a1000000…');
  });

  it('"Select all that can come back" ticks only what the restore will take, and no note cites a flag', async () => {
    const base = report().missing[0];
    const r = report({
      current: { account: A, org: A2, rule: 'given' },
      missing: [
        base,
        {
          ...base,
          cliSessionId: 'c3',
          status: 'shared-folder',
          note: 'a session here already uses this folder; allowing a second entry for it brings it back',
        },
        { ...base, cliSessionId: 'c4', status: 'replace-older', canReplace: true, note: '' },
        { ...base, cliSessionId: 'c5', status: 'replace-older', canReplace: false, note: '' },
      ],
    });
    vi.mocked(api.desktopReport).mockResolvedValue(r);
    render(DesktopView);
    await vi.waitFor(() => expect(screen.getAllByTestId('desktop-pick')).toHaveLength(4));
    expect(screen.getByTestId('desktop-view').textContent).not.toMatch(/--[a-z]/);
    const ticked = () => screen.getAllByTestId('desktop-pick').map((c) => (c as HTMLInputElement).checked);
    await fireEvent.click(screen.getByTestId('desktop-pick-all'));
    expect(ticked()).toEqual([true, false, false, false]);
    await fireEvent.click(screen.getByTestId('desktop-allow-shared'));
    await fireEvent.click(screen.getByTestId('desktop-replace-older'));
    await fireEvent.click(screen.getByTestId('desktop-pick-all'));
    expect(ticked()).toEqual([true, true, true, false]);
    // Turning an option off unticks what needed it.
    await fireEvent.click(screen.getByTestId('desktop-allow-shared'));
    expect(ticked()).toEqual([true, false, true, false]);
  });
});
