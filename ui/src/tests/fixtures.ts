import { vi } from 'vitest';
import type { DirectoryGroup, Origin, SessionSummary, ToolCall } from '../lib/types';

let n = 0;
export function session(o: Partial<SessionSummary> = {}): SessionSummary {
  n++;
  const dir = o.workingDirectory ?? '/home/ada/src/app';
  return {
    sessionId: `00000000-0000-4000-a000-${String(n).padStart(12, '0')}`,
    workingDirectory: dir,
    encodedPath: dir.replace(/[^A-Za-z0-9]/g, '-'),
    transcriptPath: `/home/ada/.claude/projects/${dir.replace(/[^A-Za-z0-9]/g, '-')}/s${n}.jsonl`,
    mtime: new Date(Date.UTC(2026, 10, 1) + n * 60_000).toISOString(),
    origin: 'native' as Origin,
    agentName: null,
    resumable: true,
    notResumableReason: null,
    customName: null,
    autoName: `Auto name ${n}`,
    preview: `Preview text ${n}`,
    gitBranch: 'main',
    claudeCodeVersion: '2.1.3',
    firstMessageAt: null,
    lastMessageAt: null,
    messageCount: 10,
    sizeBytes: 2048,
    ...o,
  };
}

export function group(dir: string, sessions: SessionSummary[], o: Partial<DirectoryGroup> = {}): DirectoryGroup {
  return {
    workingDirectory: dir,
    encodedPath: dir.replace(/[^A-Za-z0-9]/g, '-'),
    agentName: null,
    sessionCount: sessions.length,
    isTemp: false,
    sessions,
    ...o,
  };
}

export function toolCall(o: Partial<ToolCall> = {}): ToolCall {
  return {
    toolName: 'Bash',
    toolUseId: 'toolu_1',
    emoji: '💻',
    inputSummary: 'cargo test',
    input: '{"command": "cargo test"}',
    output: 'ok',
    outputTruncated: false,
    isError: false,
    durationMs: 1500,
    pending: false,
    subagentId: null,
    ...o,
  };
}

/** The api.ts mock used by every component test. */
export function apiMock() {
  return {
    inTauri: () => false,
    toAppError: (e: unknown) =>
      e && typeof e === 'object' && 'message' in e
        ? { kind: String((e as { kind?: string }).kind ?? 'ui'), message: String((e as { message: string }).message) }
        : { kind: 'ui', message: String(e) },
    getSettings: vi.fn(),
    setSettings: vi.fn(),
    listAgents: vi.fn(async () => []),
    listSessions: vi.fn(async () => ({ groups: [], warnings: [] })),
    agentSessions: vi.fn(async () => []),
    sessionInfo: vi.fn(),
    sessionMessages: vi.fn(),
    subagentMessages: vi.fn(),
    renameSession: vi.fn(),
    adoptable: vi.fn(async () => []),
    adopt: vi.fn(),
    release: vi.fn(),
    planImport: vi.fn(),
    applyImport: vi.fn(),
    cancelImport: vi.fn(async () => undefined),
    listRuns: vi.fn(async () => []),
    planUndo: vi.fn(),
    undoRun: vi.fn(),
    revealPath: vi.fn(async () => undefined),
    onSessionsChanged: vi.fn(async () => () => {}),
    onFilesDropped: vi.fn(async () => () => {}),
    onWindowDrag: vi.fn(async () => () => {}),
    pickPaths: vi.fn(async () => []),
    copyText: vi.fn(async () => undefined),
  };
}
