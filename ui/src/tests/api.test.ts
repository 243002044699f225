import { afterEach, describe, expect, it, vi } from 'vitest';

const invoke = vi.fn();
const listen = vi.fn(async () => () => {});
class FakeChannel<T> {
  onmessage: (m: T) => void = () => {};
}
vi.mock('@tauri-apps/api/core', () => ({ invoke: (...a: unknown[]) => invoke(...a), Channel: FakeChannel }));
vi.mock('@tauri-apps/api/event', () => ({
  listen: (...a: unknown[]) => (listen as (...x: unknown[]) => unknown)(...a),
}));
vi.mock('../demo', () => {
  throw new Error('the demo backend must never load inside Tauri');
});

const api = await import('../lib/api');

describe('api.ts inside Tauri', () => {
  (window as unknown as Record<string, unknown>).__TAURI_INTERNALS__ = {};
  afterEach(() => invoke.mockReset());

  it('calls each command by its IPC name with camelCase arguments', async () => {
    invoke.mockResolvedValue({ groups: [], warnings: [] });
    await api.listSessions(true);
    expect(invoke).toHaveBeenLastCalledWith('list_sessions', { includeTemp: true });
    await api.sessionMessages('sid', null, 100);
    expect(invoke).toHaveBeenLastCalledWith('session_messages', { sessionId: 'sid', before: null, limit: 100 });
    await api.subagentMessages('sid', 'agent-1', 500, 50);
    expect(invoke).toHaveBeenLastCalledWith('subagent_messages', {
      sessionId: 'sid',
      agentId: 'agent-1',
      before: 500,
      limit: 50,
    });
    await api.renameSession('sid', null);
    expect(invoke).toHaveBeenLastCalledWith('rename_session', { sessionId: 'sid', name: null });
    await api.adoptable('a', null, true);
    expect(invoke).toHaveBeenLastCalledWith('adoptable', { agent: 'a', from: null, allFolders: true });
    await api.planImport({ kind: 'agent', name: 'a' }, ['/x'], 'copy');
    expect(invoke).toHaveBeenLastCalledWith('plan_import', {
      target: { kind: 'agent', name: 'a' },
      sources: ['/x'],
      mode: 'copy',
    });
    await api.setSettings({ fleetFile: null });
    expect(invoke).toHaveBeenLastCalledWith('set_settings', { patch: { fleetFile: null } });
    await api.planUndo('r1');
    expect(invoke).toHaveBeenLastCalledWith('plan_undo', { runId: 'r1' });
  });

  it('streams apply_import progress through a Channel', async () => {
    const seen: unknown[] = [];
    invoke.mockImplementation(async (_cmd: string, args: { onProgress: FakeChannel<unknown> }) => {
      args.onProgress.onmessage({ done: 1, total: 2, sessionId: 's' });
      return { runId: 'r', placed: [], skipped: [] };
    });
    const plan = {
      target: { kind: 'claudeHome' as const },
      mode: 'copy' as const,
      placements: [],
      skipped: [],
      occupancyUnknown: null,
    };
    const r = await api.applyImport(plan, (p) => seen.push(p));
    expect(invoke.mock.calls[0][0]).toBe('apply_import');
    expect(invoke.mock.calls[0][1].plan).toBe(plan);
    expect(seen).toEqual([{ done: 1, total: 2, sessionId: 's' }]);
    expect(r.runId).toBe('r');
  });

  it('normalises every error to {kind, message}', async () => {
    invoke.mockRejectedValue({ kind: 'refused', message: 'owned by team.gamma' });
    await expect(api.adopt('a', 's')).rejects.toEqual({ kind: 'refused', message: 'owned by team.gamma' });
    invoke.mockRejectedValue('command plan_import not found');
    await expect(api.listRuns()).rejects.toEqual({ kind: 'ipc', message: 'command plan_import not found' });
    invoke.mockRejectedValue(new Error('boom'));
    await expect(api.listRuns()).rejects.toEqual({ kind: 'ui', message: 'boom' });
  });

  it('subscribes to the shell events by name', async () => {
    await api.onSessionsChanged(() => {});
    await api.onFilesDropped(() => {});
    expect(listen.mock.calls.map((c) => (c as unknown[])[0])).toEqual(['sessions-changed', 'files-dropped']);
  });
});
