import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ImportPlan, ImportProgress, ImportReport, RunSummary, SkipReason } from '../lib/types';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { config } = await import('../lib/config.svelte');
const { listing } = await import('../lib/listing.svelte');
const { nav } = await import('../lib/navigation.svelte');
const { default: ImportWizard } = await import('../lib/components/ImportWizard.svelte');
const { default: HistoryView } = await import('../lib/components/HistoryView.svelte');
const { companionText, skipReasonText, targetText } = await import('../lib/importtext');
const { group, session } = await import('./fixtures');

const ALL_REASONS: SkipReason[] = [
  'sidechain',
  'already-adopted',
  'destination-exists',
  'attributed-to-run',
  'unreadable',
  'not-a-transcript',
  'occupied',
  'placement-failed',
  'record-failed',
];

function plan(mode: ImportPlan['mode'] = 'copy', o: Partial<ImportPlan> = {}): ImportPlan {
  return {
    target: { kind: 'agent', name: 'team.alpha' },
    mode,
    placements: [
      {
        sessionId: 'aaaa1111-0000-4000-a000-000000000001',
        name: 'Fix the login redirect',
        from: '/backup/a.jsonl',
        to: '/h/.claude/projects/-w-alpha/a.jsonl',
        sourceCwd: '/old',
        recordOnly: false,
        warning: null,
        companions: ['subagents/agent-a1.jsonl', 'subagents/agent-a1.meta.json', 'subagents/agent-b2.jsonl'],
      },
      {
        sessionId: 'bbbb2222-0000-4000-a000-000000000002',
        name: null,
        from: '/backup/b.jsonl',
        to: '/h/.claude/projects/-w-alpha/b.jsonl',
        sourceCwd: '/old',
        recordOnly: false,
        warning: 'a claude process may be writing this session',
        companions: [],
      },
    ],
    skipped: ALL_REASONS.map((reason, i) => ({
      sessionId: `skip-${i}`,
      path: `/backup/s${i}.jsonl`,
      reason,
      detail: `detail ${i}`,
      ownedBy: reason === 'already-adopted' || reason === 'attributed-to-run' ? 'team.gamma' : null,
    })),
    occupancyUnknown: null,
    ...o,
  };
}

const next = () => screen.getByTestId('wizard-next') as HTMLButtonElement;
const step = () => Number(screen.getByTestId('wizard').dataset.step);

describe('import wizard', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    config.settings = {
      claudeHome: '/h/.claude',
      claudeHomeExists: true,
      fleetFile: '/f.yaml',
      stateDir: '/s',
      dataDir: '/h/.local/share/corral',
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
        workingDirectory: '/w/alpha',
        docker: false,
        sessionCount: 3,
        lastActivityAt: null,
        tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
      },
    ];
    listing.groups = [];
    vi.mocked(api.adoptable).mockResolvedValue([
      {
        sessionId: 'cccc3333-0000-4000-a000-000000000003',
        sourceCwd: '/w/other',
        mtime: '2026-11-01T00:00:00Z',
        autoName: 'Adoptable chat',
        preview: 'hello',
        sizeBytes: 4096,
        transcriptPath: '/h/.claude/projects/-w-other/c.jsonl',
      },
    ]);
  });

  it('step 1: Next stays disabled until a target is chosen', async () => {
    nav.wizard = { step: 1 };
    render(ImportWizard);
    expect(step()).toBe(1);
    expect(next().disabled).toBe(true);
    const options = screen.getAllByTestId('target-option');
    expect(options).toHaveLength(2); // the agent and "this Claude home"
    expect(options[1].textContent).toContain('This Claude home');
    await fireEvent.click(options[0].querySelector('input')!);
    expect(next().disabled).toBe(false);
    await fireEvent.click(next());
    expect(step()).toBe(2);
  });

  it('step 2: needs at least one source; the adoptable list and dropped paths both count', async () => {
    nav.wizard = { step: 2, agent: 'team.alpha' };
    render(ImportWizard);
    expect(next().disabled).toBe(true);
    await vi.waitFor(() => expect(screen.getByTestId('adoptable-list')).toBeTruthy());
    expect(api.adoptable).toHaveBeenCalledWith('team.alpha', null, false);
    await fireEvent.click(screen.getByTestId('adoptable-list').querySelector('input')!);
    expect(next().disabled).toBe(false);
    await fireEvent.click(screen.getByTestId('all-folders'));
    await vi.waitFor(() => expect(api.adoptable).toHaveBeenCalledWith('team.alpha', null, true));
  });

  it('the adoptable list says each name once and selects all at once', async () => {
    const chat = (n: number, autoName: string, preview: string) => ({
      sessionId: `cccc3333-0000-4000-a000-00000000000${n}`,
      sourceCwd: '/w/other',
      mtime: '2026-11-01T00:00:00Z',
      autoName,
      preview,
      sizeBytes: 4096,
      transcriptPath: `/h/.claude/projects/-w-other/${n}.jsonl`,
    });
    vi.mocked(api.adoptable).mockResolvedValue([
      chat(1, 'Fix the flaky login redirect test', 'Fix the flaky login redirect test'),
      chat(2, 'Fix the flaky login redirect test…', 'Fix the flaky login redirect test and explain why'),
      chat(3, 'Login tests', 'hello there'),
    ]);
    nav.wizard = { step: 2, agent: 'team.alpha' };
    render(ImportWizard);
    const list = await vi.waitFor(() => screen.getByTestId('adoptable-list'));
    const rows = [...list.querySelectorAll('label')];
    expect(rows.map((r) => r.querySelectorAll('.prev').length)).toEqual([0, 0, 1]);
    await fireEvent.click(screen.getByTestId('adopt-all'));
    expect(rows.every((r) => r.querySelector('input')!.checked)).toBe(true);
    expect(screen.getByTestId('adopt-all').textContent).toBe('Select none');
    expect(next().disabled).toBe(false);
    await fireEvent.click(screen.getByTestId('adopt-all'));
    expect(rows.some((r) => r.querySelector('input')!.checked)).toBe(false);
    expect(screen.getByTestId('adopt-all').textContent).toBe('Select all 3');
  });

  it('step 3 previews the dry run: nothing written, every skip reason in plain words', async () => {
    vi.mocked(api.planImport).mockResolvedValue(plan());
    listing.groups = [
      group('/w/gamma', [session({ sessionId: 'skip-1', autoName: 'Known elsewhere', workingDirectory: '/w/gamma' })]),
    ];
    nav.wizard = { step: 2, agent: 'team.alpha', paths: ['/backup'] };
    render(ImportWizard);
    expect(screen.getByTestId('source-list').textContent).toContain('/backup');
    await fireEvent.click(next());
    await vi.waitFor(() => expect(screen.getByTestId('plan-table')).toBeTruthy());
    expect(api.planImport).toHaveBeenCalledWith({ kind: 'agent', name: 'team.alpha' }, ['/backup'], 'copy');
    expect(screen.getByTestId('nothing-written').textContent).toContain('Nothing has been written yet');
    const reasons = screen.getAllByTestId('skip-reason').map((r) => r.textContent);
    expect(reasons).toHaveLength(ALL_REASONS.length);
    for (const r of ALL_REASONS)
      expect(
        reasons.some((t) =>
          t?.includes(
            skipReasonText({
              reason: r,
              ownedBy: r === 'already-adopted' || r === 'attributed-to-run' ? 'team.gamma' : null,
            }),
          ),
        ),
      ).toBe(true);
    expect(screen.getByTestId('plan-table').textContent).toContain('a claude process may be writing this session');
    // A session is shown by its name when it has one, else by the start of its id.
    const firstCells = [...screen.getByTestId('plan-table').querySelectorAll('tbody tr.ok td:first-child')].map(
      (td) => td.textContent,
    );
    expect(firstCells).toEqual(['Fix the login redirect', 'bbbb2222']);
    // The one destination folder is said once; each row shows its file whole.
    expect(screen.getByTestId('dest-folder').textContent).toContain('/h/.claude/projects/-w-alpha');
    const toCells = [...screen.getByTestId('plan-table').querySelectorAll('tbody tr.ok td:nth-child(3)')].map((td) =>
      td.firstChild?.textContent?.trim(),
    );
    expect(toCells).toEqual(['→ a.jsonl', '→ b.jsonl']);
    // A skipped session the listing knows is shown by its name too.
    expect(screen.getAllByTestId('skip-row')[1].querySelector('td')!.textContent).toBe('Known elsewhere');
    // Its own folder travels with it, and the preview says so.
    expect(screen.getAllByTestId('companions').map((c) => c.textContent)).toEqual([
      '+ its folder: 2 subagent runs and 1 other file',
    ]);
  });

  it('a session folder is described by what is in it', () => {
    expect(companionText(['subagents/agent-a.jsonl'])).toBe('1 subagent run');
    expect(companionText(['subagents/agent-a.jsonl', 'subagents/agent-a.meta.json'])).toBe(
      '1 subagent run and 1 other file',
    );
    expect(companionText(['tool-results/x.txt', 'tool-results/y.txt'])).toBe('2 files');
  });

  it('skip reasons read as plain words', () => {
    const t = (reason: SkipReason, ownedBy: string | null = null) => skipReasonText({ reason, ownedBy });
    expect(t('sidechain')).toMatch(/subagent \(sidechain\)/);
    expect(t('already-adopted', 'team.gamma')).toBe('Already adopted by team.gamma');
    expect(t('destination-exists')).toMatch(/already at the destination.*never overwrites/);
    expect(t('attributed-to-run', 'scribe')).toBe('Owned by agent scribe through a herdctl run');
    expect(t('occupied')).toMatch(/running claude process/);
    expect(t('unreadable')).toBe('Could not be read');
    expect(t('not-a-transcript')).toBe('Not a Claude Code transcript');
    expect(t('placement-failed')).toBe('Could not be placed');
    expect(t('record-failed')).toMatch(/adoption record could not be written/);
  });

  it('a plan with nothing to place cannot go on', async () => {
    vi.mocked(api.planImport).mockResolvedValue(plan('copy', { placements: [] }));
    nav.wizard = { step: 2, agent: 'team.alpha', paths: ['/backup'] };
    render(ImportWizard);
    await fireEvent.click(next());
    await vi.waitFor(() => expect(screen.getByTestId('plan-table')).toBeTruthy());
    expect(next().disabled).toBe(true);
    expect(screen.getByText(/nothing to import/)).toBeTruthy();
  });

  it('step 4 explains each mode in one sentence; choosing Move re-plans before running', async () => {
    vi.mocked(api.planImport).mockImplementation(async (_t, _s, m) => plan(m));
    nav.wizard = { step: 2, agent: 'team.alpha', paths: ['/backup'] };
    render(ImportWizard);
    await fireEvent.click(next());
    await vi.waitFor(() => expect(next().disabled).toBe(false));
    await fireEvent.click(next());
    expect(step()).toBe(4);
    const modes = screen.getAllByTestId('mode-option');
    expect(modes.map((m) => m.textContent)).toEqual([
      expect.stringContaining('your original stays untouched'),
      expect.stringContaining('refused for sessions in use'),
      expect.stringContaining('One file shared by both'),
    ]);
    expect((modes[0].querySelector('input') as HTMLInputElement).checked).toBe(true);
    await fireEvent.click(modes[1].querySelector('input')!);
    await fireEvent.click(next());
    expect(step()).toBe(5);
    await vi.waitFor(() =>
      expect(api.planImport).toHaveBeenLastCalledWith({ kind: 'agent', name: 'team.alpha' }, ['/backup'], 'move'),
    );
    await vi.waitFor(() => expect(screen.getByTestId('wizard-run').textContent).toContain('Move 2 sessions'));
    expect(screen.getByTestId('wizard').textContent).toContain('/runs/<this run>/backup/');
  });

  it('runs with streamed progress, can be cancelled, shows the result and undoes it', async () => {
    vi.mocked(api.planImport).mockResolvedValue(plan());
    let release: (r: ImportReport) => void = () => {};
    vi.mocked(api.applyImport).mockImplementation((p: ImportPlan, onProgress: (x: ImportProgress) => void) => {
      onProgress({ done: 1, total: 2, sessionId: p.placements[1].sessionId });
      return new Promise<ImportReport>((r) => (release = r));
    });
    vi.mocked(api.planUndo).mockResolvedValue({
      runId: 'run-1',
      steps: [
        { path: '/h/.claude/projects/-w-alpha/a.jsonl', action: 'removed', sessionId: 'a' },
        { path: '/s/adopted-sessions/a.yaml', action: 'record-removed', sessionId: 'a' },
      ],
      notUndone: [],
    });
    vi.mocked(api.undoRun).mockResolvedValue({
      runId: 'run-1',
      undone: [{ path: '/x', action: 'removed', sessionId: 'a' }],
      notUndone: [
        { path: '/h/.claude/projects/-w-alpha/b.jsonl', reason: 'it changed after the import', sessionId: 'b' },
      ],
    });
    nav.wizard = { step: 2, agent: 'team.alpha', paths: ['/backup'] };
    render(ImportWizard);
    await fireEvent.click(next());
    await vi.waitFor(() => expect(next().disabled).toBe(false));
    await fireEvent.click(next());
    await fireEvent.click(next());
    await fireEvent.click(screen.getByTestId('wizard-run'));
    const prog = screen.getByTestId('progress');
    expect(prog.textContent).toContain('1 of 2 files');
    expect(screen.getByTestId('progress-current').textContent).toBe('/backup/b.jsonl');
    expect(prog.querySelector('[role="progressbar"]')?.getAttribute('aria-valuenow')).toBe('1');
    await fireEvent.click(screen.getByTestId('wizard-cancel'));
    expect(api.cancelRun).toHaveBeenCalled();
    release({
      runId: 'run-1',
      runDir: '/d/runs/run-1',
      placed: [
        {
          sessionId: 'aaaa1111-0000-4000-a000-000000000001',
          from: '/backup/a.jsonl',
          to: '/h/.claude/projects/-w-alpha/a.jsonl',
          placedAs: 'copied',
          record: '/s/a.yaml',
          warning: null,
          companions: 2,
        },
      ],
      skipped: plan().skipped,
      cancelled: true,
      dryRun: false,
    });
    await vi.waitFor(() => expect(step()).toBe(6));
    const result = screen.getByTestId('result');
    expect(result.textContent).toContain('Import cancelled');
    expect(result.textContent).toMatch(/1\s*placed,\s*9\s*skipped/);
    expect(result.textContent).toContain('copied + 2 files of its folder');
    expect(result.textContent).toContain('Fix the login redirect'); // named, not just a path
    expect(screen.getByTestId('open-in-fleet').textContent).toBe('Open in Fleet view');
    await fireEvent.click(screen.getByTestId('undo-import'));
    await vi.waitFor(() => expect(screen.getByTestId('confirm-undo')).toBeTruthy());
    expect(api.planUndo).toHaveBeenCalledWith('run-1');
    expect(screen.getByTestId('undo-panel').textContent).toContain('Remove the imported file');
    expect(api.undoRun).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId('confirm-undo'));
    await vi.waitFor(() => expect(screen.getByTestId('undo-report')).toBeTruthy());
    expect(api.undoRun).toHaveBeenCalledWith('run-1');
    expect(screen.getByTestId('undo-report').textContent).toContain('it changed after the import');
  });

  it('adopting sessions already in place reads as adopting, not as a copy (#43)', async () => {
    const inPlace = plan('copy', { skipped: [] });
    inPlace.placements = [{ ...inPlace.placements[0], recordOnly: true, companions: [] }];
    vi.mocked(api.planImport).mockResolvedValue(inPlace);
    vi.mocked(api.applyImport).mockResolvedValue({
      runId: 'r',
      runDir: '/d',
      placed: [
        {
          sessionId: inPlace.placements[0].sessionId,
          from: '/a',
          to: '/a',
          placedAs: null,
          record: '/s/x.yaml',
          warning: null,
          companions: 0,
        },
      ],
      skipped: [],
      cancelled: false,
      dryRun: false,
    });
    nav.wizard = { step: 2, agent: 'team.alpha', paths: ['/h/.claude/projects/-w-alpha/a.jsonl'] };
    render(ImportWizard);
    await vi.waitFor(() => expect(next().disabled).toBe(false));
    await fireEvent.click(next());
    await vi.waitFor(() => expect(step()).toBe(3));
    await vi.waitFor(() => expect(next().disabled).toBe(false));
    expect(screen.getByTestId('wizard').textContent).toContain('Adopt into alpha');
    // No copy, move or link to choose: straight to the confirmation.
    await fireEvent.click(next());
    expect(step()).toBe(5);
    expect(screen.queryAllByTestId('mode-option')).toHaveLength(0);
    expect(screen.getByTestId('adopt-confirm').textContent).toMatch(/Ready to adopt\s+1 session\s+into\s+alpha/);
    expect(screen.getByTestId('wizard').textContent).not.toMatch(/Ready to copy/);
    await fireEvent.click(screen.getByTestId('wizard-back'));
    expect(step()).toBe(3);
    await fireEvent.click(next());
    await fireEvent.click(screen.getByTestId('wizard-run'));
    await vi.waitFor(() => expect(step()).toBe(6));
    expect(screen.getByTestId('result').textContent).toMatch(/1\s+adopted,\s+0\s+skipped/);
    expect(screen.getByTestId('undo-import').textContent).toBe('Undo this adoption');
    nav.wizard = null;
  });

  it('History says what an adoption did in its own words', async () => {
    const { runCounts } = await import('../lib/importtext');
    expect(runCounts(0, 0, 1)).toBe('1 adopted · 0 skipped');
    expect(runCounts(2, 1, 2)).toBe('2 placed · 1 skipped · 2 adopted');
    expect(runCounts(3, 0, 0)).toBe('3 placed · 0 skipped');
  });

  it('"Open in Fleet view" reveals the target agent', async () => {
    vi.mocked(api.planImport).mockResolvedValue(plan());
    vi.mocked(api.applyImport).mockResolvedValue({
      runId: 'r',
      runDir: '/d',
      placed: [
        { sessionId: 'a', from: '/a', to: '/b', placedAs: 'copied', record: null, warning: null, companions: 0 },
      ],
      skipped: [],
      cancelled: false,
      dryRun: false,
    });
    nav.wizard = { step: 2, agent: 'team.alpha', paths: ['/backup'], advanceTo: 6 };
    nav.view = 'chats';
    render(ImportWizard);
    await vi.waitFor(() => expect(step()).toBe(6), { timeout: 4000 });
    await fireEvent.click(screen.getByTestId('open-in-fleet'));
    expect(nav.view).toBe('fleet');
    expect(nav.focusAgent).toBe('team.alpha');
    expect(nav.wizard).toBeNull();
  });

  it('dropped paths open at step 2 and list non-transcripts as skipped in the preview', async () => {
    vi.mocked(api.planImport).mockResolvedValue(
      plan('copy', {
        skipped: [
          {
            sessionId: 'notes.txt',
            path: '/d/notes.txt',
            reason: 'not-a-transcript',
            detail: 'not a .jsonl file',
            ownedBy: null,
          },
        ],
      }),
    );
    nav.wizard = { step: 2, paths: ['/d/export', '/d/notes.txt'], agent: null };
    render(ImportWizard);
    expect(step()).toBe(2);
    expect(next().disabled).toBe(true); // no target yet
    // "Where to" was skipped, not done: no tick on it until a target is chosen.
    const whereTo = () => screen.getByRole('list', { name: 'Steps' }).querySelector('li')!;
    expect(whereTo().classList.contains('done')).toBe(false);
    expect(whereTo().querySelector('svg')).toBeNull();
    await fireEvent.change(screen.getByTestId('target-select'), { target: { value: 'team.alpha' } });
    expect(next().disabled).toBe(false);
    expect(whereTo().classList.contains('done')).toBe(true);
    await fireEvent.click(next());
    await vi.waitFor(() => expect(screen.getAllByTestId('skip-row')).toHaveLength(1));
    expect(screen.getByTestId('skip-row').textContent).toContain('Not a Claude Code transcript');
    expect(screen.getByTestId('skip-row').querySelector('td')!.textContent).toBe('notes.txt'); // its file name, whole
  });
});

describe('History', () => {
  const run = (o: Partial<RunSummary>): RunSummary => ({
    runId: 'r',
    createdAt: '2026-11-20T10:00:00Z',
    target: { kind: 'agent', name: 'team.alpha' },
    sidebar: null,
    rename: null,
    delete: null,
    release: null,
    released: 0,
    restoredSessions: [],
    emptiedAt: null,
    quarantineDir: null,
    quarantineBytes: 0,
    mode: 'copy',
    placed: 3,
    records: 3,
    skipped: 1,
    finished: true,
    cancelled: false,
    undoState: 'not-undone',
    undoneAt: null,
    runDir: '/d/runs/r',
    backupDir: '/d/runs/r/backup',
    backupBytes: 2048,
    problem: null,
    ...o,
  });

  it('lists runs with target, mode, counts, state and backup, and offers Undo only where it applies', async () => {
    vi.mocked(api.listRuns).mockResolvedValue([
      run({ runId: 'r1' }),
      run({ runId: 'r2', undoState: 'undone', mode: 'move', target: { kind: 'claudeHome' } }),
    ]);
    render(HistoryView);
    await vi.waitFor(() => expect(screen.getAllByTestId('run-row')).toHaveLength(2));
    const [a, b] = screen.getAllByTestId('run-row');
    expect(a.textContent).toContain('Copy into alpha'); // the name shown everywhere, not the qualified one
    expect(a.textContent).toContain('3 placed · 1 skipped');
    expect(a.textContent).toContain('2.0 KB');
    expect(b.textContent).toContain('Move into this Claude home');
    expect(b.textContent).toContain('Undone');
    expect(screen.getAllByTestId('undo-run')).toHaveLength(1);
    await fireEvent.click(screen.getByText('Reveal in file manager', { selector: '[data-state="not-undone"] button' }));
    expect(api.revealPath).toHaveBeenCalledWith('/d/runs/r');
  });

  it('shows a rename with the names before and after, and offers its undo', async () => {
    vi.mocked(api.listRuns).mockResolvedValue([
      run({
        runId: 'r3',
        target: null,
        placed: 0,
        records: 0,
        skipped: 0,
        rename: { sessionId: 'abcdef12-0000-4000-8000-000000000001', from: null, to: 'CI flake hunt' },
      }),
    ]);
    render(HistoryView);
    await vi.waitFor(() => expect(screen.getByTestId('run-rename')).toBeTruthy());
    const row = screen.getByTestId('run-row');
    expect(screen.getByTestId('run-rename').textContent).toMatch(/Rename an unnamed chat\s*→\s*“CI flake hunt”/);
    expect(row.textContent).toContain('abcdef12');
    expect(row.textContent).not.toContain('placed');
    expect(screen.getAllByTestId('undo-run')).toHaveLength(1);
  });

  it('shows a rename to the same name as putting it in Claude Code’s resume list', async () => {
    vi.mocked(api.listRuns).mockResolvedValue([
      run({
        runId: 'r4',
        target: null,
        rename: { sessionId: 'abcdef12-0000-4000-8000-000000000002', from: 'X', to: 'X' },
      }),
    ]);
    render(HistoryView);
    await vi.waitFor(() => expect(screen.getByTestId('run-rename')).toBeTruthy());
    expect(screen.getByTestId('run-rename').textContent).toMatch(/Show “X” in Claude Code’s\s+resume list/);
  });

  it('shows a release with its agent and session, and offers its undo (#43)', async () => {
    const sessionId = 'abcdef12-0000-4000-8000-000000000003';
    vi.mocked(api.listRuns).mockResolvedValue([
      run({
        runId: 'r5',
        target: null,
        mode: 'move',
        placed: 0,
        records: 0,
        skipped: 0,
        release: { sessionId, agentName: 'team.alpha', adoptedAt: '2026-11-20T09:00:00Z', name: 'Disk check' },
      }),
      run({ runId: 'r6', placed: 0, records: 1, skipped: 0, released: 1 }),
      run({ runId: 'r7', placed: 0, records: 2, skipped: 0, released: 1 }),
    ]);
    render(HistoryView);
    await vi.waitFor(() => expect(screen.getByTestId('run-release')).toBeTruthy());
    const [release, adopted, half] = screen.getAllByTestId('run-row');
    expect(screen.getByTestId('run-release').textContent).toMatch(/Release “Disk check” from\s+alpha/);
    expect(release.textContent).toContain('abcdef12');
    expect(release.textContent).not.toContain('placed');
    expect(within(release).getByTestId('run-state').textContent).toBe('Active');
    expect(within(release).getByTestId('undo-run')).toBeTruthy();
    // The run that adopted it no longer reads as an active adoption.
    expect(adopted.textContent).toContain('Adopt into alpha');
    expect(adopted.textContent).toContain('1 adopted · 0 skipped · 1 released since');
    expect(within(adopted).getByTestId('run-state').textContent).toBe('Released');
    expect(within(half).getByTestId('run-state').textContent).toBe('Partly released');
    // Its undo speaks of a release, not of an import.
    vi.mocked(api.planUndo).mockResolvedValue({
      runId: 'r5',
      steps: [{ path: '/s/adopted-sessions/x.yaml', action: 'record-put-back', sessionId }],
      notUndone: [],
    });
    await fireEvent.click(within(release).getByTestId('undo-run'));
    await vi.waitFor(() => expect(screen.getByTestId('undo-panel').textContent).toContain('Adopt it again'));
    expect(screen.getByTestId('undo-note').textContent).toContain('unless the chat was adopted again since');
    expect(screen.getByTestId('confirm-undo').textContent).toBe('Undo this release');
  });

  it('shows an empty state that leads to the wizard', async () => {
    vi.mocked(api.listRuns).mockResolvedValue([]);
    render(HistoryView);
    await vi.waitFor(() => expect(screen.getByTestId('history-empty')).toBeTruthy());
  });

  it('undo from History shows what will change, then the report — which stays after the list refreshes', async () => {
    vi.mocked(api.listRuns)
      .mockResolvedValueOnce([run({ runId: 'r1' })])
      .mockResolvedValue([run({ runId: 'r1', undoState: 'partly-undone', undoneAt: '2026-11-29T12:00:00Z' })]);
    vi.mocked(api.planUndo).mockResolvedValue({
      runId: 'r1',
      steps: [{ path: '/h/x.jsonl', action: 'restored-source', sessionId: 'x' }],
      notUndone: [],
    });
    vi.mocked(api.undoRun).mockResolvedValue({
      runId: 'r1',
      undone: [],
      notUndone: [{ path: '/h/y.jsonl', reason: 'it changed after the import', sessionId: 'y' }],
    });
    render(HistoryView);
    await vi.waitFor(() => expect(screen.getByTestId('undo-run')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('undo-run'));
    await vi.waitFor(() =>
      expect(screen.getByTestId('undo-panel').textContent).toContain('Put the moved transcript back where it was'),
    );
    await fireEvent.click(screen.getByTestId('confirm-undo'));
    await vi.waitFor(() => expect(screen.getByTestId('run-row').dataset.state).toBe('partly-undone'));
    expect(screen.getByTestId('undo-report').textContent).toContain('it changed after the import');
  });
});

describe('Import targets', () => {
  it('are named as agents are everywhere: the display name, the qualified one only when needed', () => {
    const saved = listing.agents;
    const agent = (name: string, displayName: string) => ({
      name,
      displayName,
      fleetPath: name.split('.').slice(0, -1),
      workingDirectory: null,
      docker: false,
      sessionCount: 0,
      lastActivityAt: null,
      tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    listing.agents = [agent('team.gamma', 'gamma')];
    expect(targetText({ kind: 'agent', name: 'team.gamma' })).toBe('gamma');
    expect(targetText({ kind: 'agent', name: 'not.listed' })).toBe('not.listed');
    expect(targetText({ kind: 'claudeHome' })).toBe('this Claude home');
    listing.agents = saved;
  });
});
