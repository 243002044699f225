import { vi } from 'vitest';
import type {
  AppError,
  DirectoryGroup,
  MessagePage,
  Origin,
  SessionSummary,
  Settings,
  ToolCall,
  TranscriptMessage,
} from '../lib/types';

/** Settings as the backend gives them: a home, no fleet, automatic terminal, no notifications. */
export function settings(o: Partial<Settings> = {}): Settings {
  return {
    claudeHome: '/h/.claude',
    claudeHomeExists: true,
    fleetFile: null,
    stateDir: '/s',
    dataDir: '/d',
    terminal: null,
    terminals: [],
    notifyWaiting: false,
    reopenRemoteControl: false,
    emptyQuarantineAfterDays: null,
    ...o,
  };
}

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
    entrypoint: 'cli',
    firstMessageAt: null,
    lastMessageAt: null,
    messageCount: 10,
    sizeBytes: 2048,
    rewoundPrompts: 0,
    tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    continuedFrom: null,
    continuedIn: null,
    ...o,
  };
}

/** A folder group as the engine makes it: `owners` counted from its sessions' agents. */
export function group(dir: string, sessions: SessionSummary[], o: Partial<DirectoryGroup> = {}): DirectoryGroup {
  const owners = new Map<string, number>();
  for (const s of sessions) if (s.agentName) owners.set(s.agentName, (owners.get(s.agentName) ?? 0) + 1);
  return {
    workingDirectory: dir,
    encodedPath: dir.replace(/[^A-Za-z0-9]/g, '-'),
    agentName: null,
    sessionCount: sessions.length,
    owners: [...owners].map(([agentName, sessionCount]) => ({ agentName, sessionCount })),
    tokens: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
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
    subagentMissing: false,
    form: { kind: 'command', command: 'cargo test', description: null },
    rejected: false,
    outputDetails: null,
    ...o,
  };
}

/** The api.ts mock used by every component test. */
type Api = typeof import('../lib/api');
/** Every function `api.ts` exports, with its exact type. */
type ApiFunctions = { [K in keyof Api as Api[K] extends (...args: never[]) => unknown ? K : never]: Api[K] };

/** The UI tests' backend: every function of `api.ts`, typed as `api.ts` declares it (a missing,
 *  extra or mistyped one is a compile error in `svelte-check`). */
/** Message `i` of a fake transcript (user and assistant in turn, at byte offset `i * 100`). */
/** A page of messages as the engine sends it: none earlier or later unless `o` says so. */
export function messagePage(messages: TranscriptMessage[] = [], o: Partial<MessagePage> = {}): MessagePage {
  return {
    messages,
    earlierCursor: null,
    laterCursor: null,
    sizeBytes: 0,
    rewinds: [],
    openBranch: null,
    inherited: 0,
    ...o,
  };
}

export function message(i: number, o: Partial<TranscriptMessage> = {}): TranscriptMessage {
  return {
    role: i % 2 ? 'assistant' : 'user',
    content: `message ${i}`,
    uuid: `u${i}`,
    timestamp: null,
    thinking: null,
    toolCall: null,
    originKind: null,
    attachments: [],
    offset: i * 100,
    ...o,
  };
}

export function apiMock(): ApiFunctions {
  const fn = <K extends keyof ApiFunctions>(impl?: ApiFunctions[K]) => vi.fn<ApiFunctions[K]>(impl);
  return {
    toAppError: (e: unknown) =>
      e && typeof e === 'object' && 'message' in e
        ? { kind: (e as { kind?: AppError['kind'] }).kind ?? 'ui', message: String((e as { message: string }).message) }
        : { kind: 'ui', message: String(e) },
    getSettings: fn<'getSettings'>(),
    setSettings: fn<'setSettings'>(),
    listAgents: fn<'listAgents'>(async () => []),
    listSessions: fn<'listSessions'>(async () => ({ groups: [], warnings: [], leftOutTemp: 0 })),
    listingSoFar: fn<'listingSoFar'>(async () => null),
    agentSessions: fn<'agentSessions'>(async () => []),
    sessionInfo: fn<'sessionInfo'>(),
    sessionMessages: fn<'sessionMessages'>(),
    subagentMessages: fn<'subagentMessages'>(),
    transcriptPage: fn<'transcriptPage'>(),
    rewoundBranch: fn<'rewoundBranch'>(),
    transcriptAttachment: fn<'transcriptAttachment'>(),
    exportSession: fn<'exportSession'>(),
    sessionUsage: fn<'sessionUsage'>(async () => []),
    pickSavePath: fn<'pickSavePath'>(),
    search: fn<'search'>(),
    findInTranscript: fn<'findInTranscript'>(),
    desktopReport: fn<'desktopReport'>(),
    lostQuestions: fn<'lostQuestions'>(async () => []),
    liveStates: fn<'liveStates'>(async () => ({ sessions: [], unknown: null })),
    resumeSession: fn<'resumeSession'>(),
    desktopPlanRestore: fn<'desktopPlanRestore'>(),
    desktopRestore: fn<'desktopRestore'>(),
    searchStatus: fn<'searchStatus'>(async () => ({
      building: false,
      done: 0,
      total: 0,
      indexed: 0,
      busy: false,
      error: null,
    })),
    onSearchStatus: fn<'onSearchStatus'>(async () => () => {}),
    onListingProgress: fn<'onListingProgress'>(async () => () => {}),
    renameSession: fn<'renameSession'>(),
    adoptable: fn<'adoptable'>(async () => []),
    adopt: fn<'adopt'>(),
    release: fn<'release'>(),
    planImport: fn<'planImport'>(),
    applyImport: fn<'applyImport'>(),
    cancelRun: fn<'cancelRun'>(async () => null),
    planDelete: fn<'planDelete'>(),
    deleteSessions: fn<'deleteSessions'>(),
    quarantine: fn<'quarantine'>(async () => []),
    storage: fn<'storage'>(),
    costReport: fn<'costReport'>(),
    recentWork: fn<'recentWork'>(),
    gitStates: fn<'gitStates'>(async () => []),
    reopen: fn<'reopen'>(),
    restoreDeleted: fn<'restoreDeleted'>(),
    emptyQuarantine: fn<'emptyQuarantine'>(),
    listRuns: fn<'listRuns'>(async () => []),
    planUndo: fn<'planUndo'>(),
    undoRun: fn<'undoRun'>(),
    revealPath: fn<'revealPath'>(async () => null),
    onSessionsChanged: fn<'onSessionsChanged'>(async () => () => {}),
    onFilesDropped: fn<'onFilesDropped'>(async () => () => {}),
    onWindowDrag: fn<'onWindowDrag'>(async () => () => {}),
    pickPaths: fn<'pickPaths'>(async () => []),
    copyText: fn<'copyText'>(async () => undefined),
    notify: fn<'notify'>(async () => true),
  };
}
