import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeletePlan, DeleteReport, QuarantineRun } from '../lib/types';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { default: DeleteDialog } = await import('../lib/components/DeleteDialog.svelte');
const { default: QuarantineView } = await import('../lib/components/QuarantineView.svelte');

const A = 'aaaa1111-0000-4000-a000-000000000001';
const B = 'bbbb2222-0000-4000-a000-000000000002';

function plan(): DeletePlan {
  return {
    sessions: [
      {
        sessionId: A,
        name: 'Fix the login redirect',
        workingDirectory: '/w/alpha',
        items: [
          { kind: 'transcript', path: `/h/.claude/projects/-w-alpha/${A}.jsonl`, bytes: 1_200_000 },
          { kind: 'file-history', path: `/h/.claude/file-history/${A}`, bytes: 300_000 },
        ],
        bytes: 1_500_000,
        notes: ['its 2 subagent runs go with it'],
        names: [{ agentKey: 'team.alpha', name: 'Release notes' }],
        related: [],
      },
    ],
    refused: [{ sessionId: B, reason: 'not deleted: claude process 4242 holds this session (--resume)' }],
    bytes: 1_500_000,
    notRemoved: ["the session's lines in history.jsonl"],
  };
}

function quarantined(o: Partial<QuarantineRun> = {}): QuarantineRun {
  return {
    runId: '20261206T101010Z-42',
    deletedAt: '2026-12-06T10:10:10Z',
    sessions: [
      {
        sessionId: A,
        name: 'Fix the login redirect',
        workingDirectory: '/w/alpha',
        bytes: 1_500_000,
        items: 2,
        restored: false,
      },
      { sessionId: B, name: 'Draft notes', workingDirectory: '/w/beta', bytes: 524_288, items: 1, restored: false },
    ],
    bytes: 2_097_152,
    undone: false,
    emptiedAt: null,
    folder: '/d/quarantine/20261206T101010Z-42',
    ...o,
  };
}

beforeEach(() => vi.clearAllMocks());

describe('Deleting sessions', () => {
  it('previews each session with its size and what it left behind, names the refused, then moves them', async () => {
    vi.mocked(api.planDelete).mockResolvedValue(plan());
    const report: DeleteReport = {
      runId: 'r1',
      deleted: [A],
      refused: plan().refused,
      bytes: 1_500_000,
      cancelled: false,
    };
    vi.mocked(api.deleteSessions).mockImplementation(async (_req, onProgress) => {
      onProgress({ done: 1, total: 1, bytes: 1_500_000 });
      return report;
    });
    const onclose = vi.fn();
    render(DeleteDialog, { start: { sessionIds: [A, B] }, onclose });
    const summary = await screen.findByTestId('delete-summary');
    expect(summary.textContent).toMatch(/1 session, 1\.4 MB/);
    expect(screen.getByTestId('delete-refused').textContent).toContain('claude process 4242');
    expect(screen.queryByTestId('cleanup-rules')).toBeNull();
    await fireEvent.click(screen.getByText('Fix the login redirect'));
    expect(screen.getByTestId('delete-preview').textContent).toContain('Copies of edited files');
    expect(screen.getByTestId('delete-preview').textContent).toContain(
      "herdctl's name “Release notes” under team.alpha",
    );
    await fireEvent.click(screen.getByTestId('delete-run'));
    const result = await screen.findByTestId('delete-result');
    expect(result.textContent).toMatch(/1 session.*moved into the quarantine/s);
    // The engine is asked for exactly what was previewed.
    expect(vi.mocked(api.deleteSessions).mock.calls[0][0].sessionIds).toEqual([A]);
    await fireEvent.click(screen.getByTestId('delete-done'));
    expect(onclose).toHaveBeenCalledWith(true);
  });

  it('a clean-up plans by the rules the person sets and asks for nothing without one', async () => {
    vi.mocked(api.planDelete).mockResolvedValue(plan());
    render(DeleteDialog, { start: {}, onclose: vi.fn() });
    await screen.findByTestId('delete-summary');
    expect(vi.mocked(api.planDelete).mock.calls[0][0].rules.olderThanDays).toBe(90);
    await fireEvent.click(screen.getByTestId('rule-older'));
    expect(await screen.findByText('Choose at least one rule.')).toBeTruthy();
    await fireEvent.click(screen.getByTestId('rule-empty'));
    await waitFor(() =>
      expect(vi.mocked(api.planDelete).mock.calls.at(-1)?.[0].rules).toMatchObject({
        olderThanDays: null,
        empty: true,
      }),
    );
  });
});

describe('The quarantine', () => {
  it('puts one session back, then the run, and empties after a confirmation naming the total', async () => {
    vi.mocked(api.quarantine).mockResolvedValue([quarantined()]);
    vi.mocked(api.restoreDeleted).mockResolvedValue({ runId: 'r', undone: [], notUndone: [] });
    vi.mocked(api.emptyQuarantine).mockResolvedValue({ emptied: ['20261206T101010Z-42'], bytes: 2_000_000, kept: [] });
    render(QuarantineView);
    const rows = await screen.findAllByTestId('quarantined-session');
    expect(rows).toHaveLength(2);
    await fireEvent.click(screen.getAllByTestId('restore-session')[1]);
    expect(api.restoreDeleted).toHaveBeenCalledWith('20261206T101010Z-42', B);
    await fireEvent.click(await screen.findByTestId('restore-run'));
    expect(api.restoreDeleted).toHaveBeenLastCalledWith('20261206T101010Z-42', null);
    await fireEvent.click(screen.getByTestId('empty-quarantine'));
    const confirm = await screen.findByTestId('confirm-dialog');
    expect(confirm.textContent).toContain('2 sessions (2.0 MB)');
    expect(api.emptyQuarantine).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId('confirm-button'));
    expect(api.emptyQuarantine).toHaveBeenCalledWith(['20261206T101010Z-42']);
  });

  it('says what it is for when empty, and an emptied run offers nothing to put back', async () => {
    vi.mocked(api.quarantine).mockResolvedValue([]);
    const { unmount } = render(QuarantineView);
    expect((await screen.findByTestId('quarantine-empty')).textContent).toContain('nothing is lost');
    unmount();
    vi.mocked(api.quarantine).mockResolvedValue([quarantined({ emptiedAt: '2026-12-06T11:00:00Z', bytes: 0 })]);
    render(QuarantineView);
    await screen.findAllByTestId('quarantined-session');
    expect(screen.queryByTestId('restore-run')).toBeNull();
    expect(screen.queryByTestId('restore-session')).toBeNull();
    expect((screen.getByTestId('empty-quarantine') as HTMLButtonElement).disabled).toBe(true);
  });
});
