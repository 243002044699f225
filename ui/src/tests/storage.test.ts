import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeletePlan, StorageReport } from '../lib/types';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { nav } = await import('../lib/navigation.svelte');
const { emit } = await import('../lib/events.svelte');
const { default: StorageView } = await import('../lib/components/StorageView.svelte');
const { default: DeleteDialog } = await import('../lib/components/DeleteDialog.svelte');
const { default: AgentRow } = await import('../lib/components/AgentRow.svelte');

const A = 'aaaa1111-0000-4000-a000-000000000001';
const B = 'bbbb2222-0000-4000-a000-000000000002';
const GONE = 'dead0000-0000-4000-a000-000000000000';

function report(o: Partial<StorageReport> = {}): StorageReport {
  return {
    claudeHome: '/h/.claude',
    totalBytes: 52_000_000,
    areas: [
      { name: 'projects', what: 'Transcripts, subagent runs and tool results', bytes: 40_000_000, entries: 90 },
      { name: 'debug', what: "Claude Code's debug logs", bytes: 12_000_000, entries: 30 },
    ],
    folders: [{ key: '/w/old-alpha', sessions: 2, bytes: 30_000_000, gone: true }],
    agents: [
      { key: 'team.alpha', sessions: 1, bytes: 20_000_000, gone: false },
      { key: null, sessions: 1, bytes: 10_000_000, gone: false },
    ],
    largest: [
      {
        sessionId: A,
        name: 'Fix the login redirect',
        workingDirectory: '/w/old-alpha',
        agentName: 'team.alpha',
        lastActivityAt: '2026-10-01T10:00:00Z',
        transcriptBytes: 18_000_000,
        bytes: 20_000_000,
      },
    ],
    orphaned: [{ sessionId: GONE, items: [], bytes: 3_000_000 }],
    orphanedSessions: 1,
    orphanedBytes: 3_000_000,
    debugLogs: {
      files: 30,
      bytes: 12_000_000,
      older: [
        { days: 7, files: 20, bytes: 9_000_000 },
        { days: 30, files: 10, bytes: 4_000_000 },
        { days: 90, files: 0, bytes: 0 },
      ],
    },
    quarantineBytes: 0,
    ...o,
  };
}

function swept(): DeletePlan {
  const items = [{ kind: 'file-history' as const, path: `/h/.claude/file-history/${GONE}`, bytes: 3_000_000 }];
  return {
    sessions: [
      {
        sessionId: GONE,
        name: 'Leftovers of a session that is gone',
        workingDirectory: '',
        items,
        bytes: 3_000_000,
        notes: [],
        names: [],
        related: [],
      },
    ],
    refused: [],
    bytes: 3_000_000,
    notRemoved: [],
  };
}

beforeEach(() => {
  vi.clearAllMocks();
  nav.deleting = null;
});

describe('The Storage view', () => {
  it('shows where the space goes and opens the clean-up each part offers', async () => {
    vi.mocked(api.storage).mockResolvedValue(report());
    render(StorageView);
    expect((await screen.findByTestId('storage-total')).textContent).toBe('50 MB in /h/.claude');
    expect(screen.getAllByTestId('storage-areas-row')).toHaveLength(2);
    expect(screen.getByTestId('storage-folders').textContent).toContain('gone');
    // Debug logs by age: the figure follows the chosen age.
    expect(screen.getByTestId('storage-debug').textContent).toMatch(/3\.8 MB in 10 logs/);
    await fireEvent.change(screen.getByTestId('debug-age'), { target: { value: '90' } });
    expect((screen.getByTestId('sweep-debug') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.change(screen.getByTestId('debug-age'), { target: { value: '7' } });
    await fireEvent.click(screen.getByTestId('sweep-debug'));
    expect(nav.deleting).toEqual({ sweep: { orphaned: false, debugLogsOlderThanDays: 7 } });
    await fireEvent.click(screen.getByTestId('sweep-orphaned'));
    expect(nav.deleting).toEqual({ sweep: { orphaned: true, debugLogsOlderThanDays: null } });
    await fireEvent.click(screen.getByTestId('storage-cleanup-folder'));
    expect(nav.deleting).toMatchObject({ rules: { workingDirectory: '/w/old-alpha' } });
    // Only an agent's sessions can be picked by agent: "nobody's" has no clean-up.
    expect(screen.getAllByTestId('storage-cleanup-agent')).toHaveLength(1);
    await fireEvent.click(screen.getByTestId('storage-delete-session'));
    expect(nav.deleting).toEqual({ sessionIds: [A] });
    // What a delete moved is measured again once its dialog closes.
    expect(api.storage).toHaveBeenCalledTimes(1);
    emit('quarantine-changed', null);
    await waitFor(() => expect(api.storage).toHaveBeenCalledTimes(2));
  });

  it('says so when nothing was left behind, and when it cannot measure', async () => {
    vi.mocked(api.storage).mockResolvedValue(report({ orphaned: [], orphanedSessions: 0, orphanedBytes: 0 }));
    const { unmount } = render(StorageView);
    expect((await screen.findByTestId('storage-orphaned')).textContent).toContain('No session that is gone');
    expect((screen.getByTestId('sweep-orphaned') as HTMLButtonElement).disabled).toBe(true);
    unmount();
    vi.mocked(api.storage).mockRejectedValue({ kind: 'io', message: 'cannot read /h/.claude' });
    render(StorageView);
    expect((await screen.findByRole('alert')).textContent).toContain('cannot read /h/.claude');
  });
});

describe('Sweeping up leftovers', () => {
  it('plans the sweep with no rule to choose and runs it as it was asked for', async () => {
    vi.mocked(api.planDelete).mockResolvedValue(swept());
    vi.mocked(api.deleteSessions).mockResolvedValue({
      runId: 'r9',
      deleted: [GONE],
      refused: [],
      bytes: 3_000_000,
      cancelled: false,
    });
    const sweep = { orphaned: true, debugLogsOlderThanDays: null };
    render(DeleteDialog, { start: { sweep }, onclose: vi.fn() });
    expect((await screen.findByTestId('delete-summary')).textContent).toMatch(/1 set of leftovers, 2\.9 MB/);
    expect(screen.queryByTestId('cleanup-rules')).toBeNull();
    expect(screen.getByTestId('delete-run').textContent).toContain('Move 1 set of leftovers');
    await fireEvent.click(screen.getByTestId('delete-run'));
    await screen.findByTestId('delete-result');
    const asked = vi.mocked(api.deleteSessions).mock.calls[0][0];
    expect(asked.sweep).toEqual(sweep);
    expect(asked.sessionIds).toEqual([]);
  });

  it('adds the rest of a continued conversation in one click', async () => {
    const p = swept();
    p.sessions[0] = { ...p.sessions[0], sessionId: A, name: 'Fix it', related: [B] };
    vi.mocked(api.planDelete).mockResolvedValue(p);
    render(DeleteDialog, { start: { sessionIds: [A] }, onclose: vi.fn() });
    await fireEvent.click(await screen.findByTestId('delete-add-related'));
    await waitFor(() => expect(vi.mocked(api.planDelete).mock.calls.at(-1)?.[0].sessionIds).toEqual([A, B]));
  });

  it('a folder clean-up names its scope and keeps it in every plan', async () => {
    vi.mocked(api.planDelete).mockResolvedValue(swept());
    render(DeleteDialog, {
      start: { rules: { workingDirectory: '/w/a' }, scope: 'in /w/a' },
      onclose: vi.fn(),
    });
    expect((await screen.findByTestId('cleanup-scope')).textContent).toBe('in /w/a');
    await fireEvent.click(screen.getByTestId('rule-older'));
    await waitFor(() =>
      expect(vi.mocked(api.planDelete).mock.calls.at(-1)?.[0].rules).toMatchObject({
        olderThanDays: null,
        workingDirectory: '/w/a',
      }),
    );
    expect(screen.queryByText('Choose at least one rule.')).toBeNull();
  });
});

describe('Cleaning up from the Fleet view', () => {
  it("an agent's Clean up… picks its sessions by rule, and an agent with none offers nothing", async () => {
    const agent = {
      name: 'team.alpha',
      displayName: 'alpha',
      fleetPath: ['team'],
      workingDirectory: '/w/alpha',
      docker: false,
      sessionCount: 3,
      lastActivityAt: null,
      tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
    const props = { depth: 0, current: true, open: false, running: undefined, onactivate: vi.fn() };
    const { unmount } = render(AgentRow, { agent, ...props });
    await fireEvent.click(screen.getByTestId('agent-cleanup'));
    expect(nav.deleting).toEqual({ rules: { agent: 'team.alpha' }, scope: 'of alpha' });
    expect(props.onactivate).not.toHaveBeenCalled();
    unmount();
    render(AgentRow, { agent: { ...agent, sessionCount: 0 }, ...props });
    expect(screen.queryByTestId('agent-cleanup')).toBeNull();
  });
});
