// In-memory demo data and command handlers, used ONLY when the UI runs in a plain browser (not
// inside Tauri): for development and screenshots. ./index.ts makes it a backend, which
// lib/backend loads lazily and never inside the app.
// URL switches: ?demo=scale (10,000 sessions in 1,000 folders), ?demo=empty (no Claude home),
// ?demo=nofleet (no fleet open).
import type {
  DeleteProgress,
  DeleteReport,
  DeleteRequest,
  DesktopReport,
  DesktopRestorePlan,
  DesktopRestorePreview,
  DesktopRestoreProgress,
  DesktopRestoreReport,
  DesktopRestoreRequest,
  AdoptableSession,
  AgentSummary,
  DirectoryGroup,
  ImportPlan,
  ImportProgress,
  ImportReport,
  ImportSkip,
  MessagePage,
  RewindMark,
  Origin,
  PageAt,
  PlannedPlacement,
  RunSummary,
  SearchResults,
  SessionSummary,
  Settings,
  TokenTotals,
  ToolCall,
  TranscriptMessage,
  UndoItem,
  ReopenChoice,
  ReopenOutcome,
  ReopenReport,
} from '../lib/types';
import { NO_TOKENS, addCost, addTokens } from '../lib/format';
import type { PickKind } from '../lib/backend/backend';
import type { Args, Command, Handlers, Result } from '../lib/commands';
import { DemoQuarantine } from './quarantine';
import { demoCostReport } from './costs';
import { demoGitStates, demoRecentWork, demoReopen } from './reopen';

const HOME = '/home/ada';
const mode = typeof location !== 'undefined' ? (new URLSearchParams(location.search).get('demo') ?? '') : '';
const NOW = Date.now();

let seed = 42;
function rnd(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
function pick<T>(a: T[]): T {
  return a[Math.floor(rnd() * a.length)] ?? a[0];
}
function uuid(): string {
  const h = () =>
    Math.floor(rnd() * 0xffff)
      .toString(16)
      .padStart(4, '0');
  return `${h()}${h()}-${h()}-4${h().slice(1)}-a${h().slice(1)}-${h()}${h()}${h()}`;
}
function iso(msAgo: number): string {
  return new Date(NOW - msAgo).toISOString();
}

const settings: Settings = {
  claudeHome: mode === 'empty' ? `${HOME}/.claude-missing` : `${HOME}/.claude`,
  claudeHomeExists: mode !== 'empty',
  fleetFile: mode === 'nofleet' || mode === 'empty' ? null : `${HOME}/fleet/herdctl.yaml`,
  stateDir: `${HOME}/fleet/.herdctl`,
  dataDir: `${HOME}/.local/share/corral`,
  homeDir: HOME,
  desktopStore: mode === 'empty' ? undefined : `${HOME}/.config/Claude/claude-code-sessions`,
  terminal: null,
  terminals: ['x-terminal-emulator', 'gnome-terminal', 'xterm'],
  notifyWaiting: false,
  reopenRemoteControl: false,
  emptyQuarantineAfterDays: null,
};

const agentDefs = [
  { name: 'scribe', fleetPath: [] as string[], dir: `${HOME}/work/scribe`, docker: false },
  { name: 'team.alpha', fleetPath: ['team'], dir: `${HOME}/work/alpha`, docker: false },
  { name: 'team.gamma', fleetPath: ['team'], dir: `${HOME}/work/gamma`, docker: false },
  { name: 'ops.deploy', fleetPath: ['ops'], dir: `${HOME}/work/deploy`, docker: true },
];

const titles = [
  'Fix flaky login test',
  'Refactor the session cache',
  'Write release notes for 0.4',
  'Investigate slow startup',
  'Add dark mode to settings',
  'Migrate CI to the new runners',
  'Explain the attribution rules',
  'Plan the import wizard',
  'Review PR #212: path encoding',
  'Daily triage of new issues',
  'Summarise yesterday’s Discord thread',
  'Draft the onboarding email',
  'Profile the JSONL parser',
  'Bump dependencies',
  'Rename herd members',
  'Find why backups grow',
];
const previews = [
  'Can you look at why the login test fails on CI but not locally?',
  'The cache keeps stale entries after a rename — why?',
  'Please draft release notes from the merged PRs since v0.3',
  'Startup takes 9 seconds on my laptop, can you profile it?',
  'Hi! <img src=x onerror=alert(1)> <script>alert("xss")</script> please render me as text',
];
const branches = ['main', 'feat/import-wizard', 'fix/login', 'release/0.4', null];

type DemoSession = SessionSummary & { sidechainFree: true };

/** Plausible token totals: cache reads dominate, as in real sessions. */
function demoTokens(): TokenTotals {
  const turns = 2 + Math.floor(rnd() * 60);
  return {
    inputTokens: turns * Math.floor(20 + rnd() * 200),
    outputTokens: turns * Math.floor(200 + rnd() * 900),
    cacheReadTokens: turns * Math.floor(20_000 + rnd() * 60_000),
    cacheWriteTokens: turns * Math.floor(500 + rnd() * 3_000),
  };
}
/** What `t` would cost at Sonnet-like list prices; older sessions priced by the table. */
function demoCost(t: TokenTotals, version: string): SessionSummary['cost'] {
  const usd = (t.inputTokens * 3 + t.outputTokens * 15 + t.cacheReadTokens * 0.3 + t.cacheWriteTokens * 6) / 1_000_000;
  return { usd, unpriced: false, source: version.startsWith('2.0') ? 'table' : 'claudeCode' };
}
const sessions: DemoSession[] = [];

function addSession(
  dir: string,
  origin: Origin,
  agent: string | null,
  ago: number,
  opts: Partial<SessionSummary> = {},
): DemoSession {
  const id = uuid();
  const title = pick(titles);
  const s: DemoSession = {
    sessionId: id,
    workingDirectory: dir,
    encodedPath: dir.replace(/[^A-Za-z0-9]/g, '-'),
    transcriptPath: `${settings.claudeHome}/projects/${dir.replace(/[^A-Za-z0-9]/g, '-')}/${id}.jsonl`,
    mtime: iso(ago),
    origin,
    agentName: agent,
    resumable: true,
    notResumableReason: null,
    customName: null,
    autoName: rnd() < 0.8 ? title : null,
    preview: pick(previews),
    gitBranch: pick(branches),
    claudeCodeVersion: pick(['2.1.3', '2.1.7', '2.0.55']),
    entrypoint: 'cli',
    firstMessageAt: iso(ago + 3_600_000 * rnd()),
    lastMessageAt: iso(ago),
    messageCount: 4 + Math.floor(rnd() * 300),
    sizeBytes: 4_000 + Math.floor(rnd() * 3_000_000),
    rewoundPrompts: 0,
    tokens: demoTokens(),
    continuedFrom: null,
    continuedIn: null,
    sidechainFree: true,
    ...opts,
  };
  s.cost ??= demoCost(s.tokens, s.claudeCodeVersion ?? '');
  sessions.push(s);
  return s;
}

function buildDemo() {
  if (!settings.claudeHomeExists) return;
  if (mode === 'scale') {
    for (let g = 0; g < 1000; g++) {
      const dir = `${HOME}/src/project-${String(g).padStart(4, '0')}/${pick(['api', 'web', 'cli', 'docs'])}`;
      for (let i = 0; i < 10; i++) addSession(dir, 'native', null, (g * 10 + i) * 600_000);
    }
    return;
  }
  const [scribe, alpha, gamma, deploy] = agentDefs;
  addSession(scribe.dir, 'schedule', 'scribe', 5 * 60_000, {
    customName: 'Morning digest',
    autoName: 'Summarise overnight activity',
  });
  addSession(scribe.dir, 'native', 'scribe', 2 * 3_600_000);
  addSession(scribe.dir, 'adopted', 'scribe', 26 * 3_600_000, {
    workingDirectory: `${HOME}/notes`,
    resumable: false,
    notResumableReason: 'outside-agent-folder',
    autoName: 'Notes from the planning call',
  });
  addSession(alpha.dir, 'web', 'team.alpha', 40 * 60_000);
  addSession(alpha.dir, 'discord', 'team.alpha', 3 * 86_400_000);
  addSession(alpha.dir, 'slack', 'team.alpha', 9 * 86_400_000);
  addSession(alpha.dir, 'adopted', 'team.alpha', 12 * 86_400_000);
  addSession(gamma.dir, 'native', 'team.gamma', 20 * 86_400_000, { customName: null, autoName: null, preview: null });
  addSession(deploy.dir, 'schedule', 'ops.deploy', 50 * 60_000, {
    resumable: false,
    notResumableReason: 'docker',
    encodedPath: 'docker:ops.deploy',
  });
  const long = addSession(`${HOME}/src/corral`, 'native', null, 90_000, {
    autoName: 'Build the Corral UI',
    messageCount: 3000,
    sizeBytes: 48_000_000,
  });
  long.sessionId = '7f3c2a10-0000-4000-a000-000000000001';
  addSession(`${HOME}/src/corral`, 'native', null, 4 * 3_600_000, { preview: previews[4], autoName: null });
  for (let i = 0; i < 6; i++) addSession(`${HOME}/src/corral`, 'native', null, (i + 1) * 86_400_000 * 2);
  for (let i = 0; i < 4; i++) addSession(`${HOME}/notes`, 'native', null, (i + 2) * 86_400_000 * 3);
  // Named in herdctl only: Claude Code's resume list does not show the name yet.
  addSession(`${HOME}/src/website`, 'native', null, 30 * 86_400_000, { customName: 'Website relaunch' });
  addSession('/tmp/scratch-91', 'native', null, 7 * 3_600_000);
}
buildDemo();

function groupSessions(includeTemp: boolean): DirectoryGroup[] {
  const map = new Map<string, DirectoryGroup>();
  const sorted = [...sessions].sort((a, b) => (a.mtime < b.mtime ? 1 : -1));
  for (const s of sorted) {
    const isTemp = s.workingDirectory.startsWith('/tmp/');
    if (isTemp && !includeTemp) continue;
    let g = map.get(s.workingDirectory);
    if (!g) {
      const agent = agentDefs.find((a) => a.dir === s.workingDirectory);
      g = {
        workingDirectory: s.workingDirectory,
        encodedPath: s.encodedPath,
        agentName: settings.fleetFile ? (agent?.name ?? null) : null,
        sessionCount: 0,
        owners: [],
        tokens: NO_TOKENS,
        isTemp,
        sessions: [],
      };
      map.set(s.workingDirectory, g);
    }
    g.sessions.push({ ...s });
    g.sessionCount++;
    if (s.agentName) {
      const o = g.owners.find((x) => x.agentName === s.agentName);
      if (o) o.sessionCount++;
      else g.owners.push({ agentName: s.agentName, sessionCount: 1 });
    }
    g.tokens = addTokens(g.tokens, s.tokens);
    g.cost = addCost(g.cost, s.cost);
  }
  return [...map.values()];
}

function agentSummaries(): AgentSummary[] {
  if (!settings.fleetFile) return [];
  return agentDefs.map((a) => {
    const own = sessions.filter((s) => s.agentName === a.name);
    const last = own.reduce<string | null>((m, s) => (!m || s.mtime > m ? s.mtime : m), null);
    return {
      name: a.name,
      displayName: a.name.slice(a.name.lastIndexOf('.') + 1),
      fleetPath: a.fleetPath,
      workingDirectory: a.dir,
      docker: a.docker,
      sessionCount: own.length,
      lastActivityAt: last,
      tokens: own.reduce((t, s) => addTokens(t, s.tokens), NO_TOKENS),
      cost: own.reduce<SessionSummary['cost']>((c, s) => addCost(c, s.cost), undefined),
    };
  });
}

/** The desktop app's sidebars as the demo has them: an org switch left the current one nearly
 * empty; the other org and an older account still hold the conversations. */
function desktopReport(): DesktopReport {
  const store = settings.desktopStore ?? `${HOME}/.config/Claude/claude-code-sessions`;
  if (mode === 'empty') {
    return {
      store,
      exists: false,
      current: null,
      sidebars: [],
      missing: [],
      leftOut: { archived: 0, alreadyHere: 0, noTranscriptId: 0 },
      placements: [],
      finding: null,
      warnings: [],
    };
  }
  const [acct, team, home, old] = [
    '6f1c2a9e-4b7d-4e21-9c3a-0d5e8f7a1b2c',
    '2b9d4e6f-8a1c-4d3e-b5f7-9e0a2c4d6f8a',
    'c3e5a7b9-1d2f-4a6c-8e0b-2d4f6a8c0e1b',
    '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d',
  ];
  const listed = sessions.filter((s) => !s.agentName).slice(0, 9);
  const ref = (account: string, org: string, i: number) => ({
    account,
    org,
    file: `local_${String(i).padStart(8, '0')}-5d4c-4b3a-8f9e-1a2b3c4d5e6f.json`,
  });
  const status = ['restorable', 'restorable', 'ambiguous', 'restorable', 'shared-folder', 'replace-older'] as const;
  const notes = [
    '',
    'archived, not taken: ' + `${old}/${home}/local_…`,
    'differ in: title, worktreePath; equally new: two copies',
    '',
    'a session here already uses this folder; allowing a second entry for it brings it back',
    'this sidebar has local_00000005-….json for another conversation; replacing older entries replaces it',
  ];
  return {
    store,
    exists: true,
    current: { account: acct, org: home, rule: 'host-session' },
    sidebars: [
      {
        account: acct,
        org: home,
        target: true,
        entries: 3,
        live: 2,
        newestActivity: iso(3_600_000),
        current: true,
        accountLabel: 'ada@example.com',
        orgLabel: 'Personal',
      },
      {
        account: acct,
        org: team,
        target: true,
        entries: 41,
        live: 37,
        newestActivity: iso(86_400_000),
        current: false,
        accountLabel: 'ada@example.com',
        orgLabel: null,
      },
      {
        account: old,
        org: home,
        target: true,
        entries: 12,
        live: 9,
        newestActivity: iso(40 * 86_400_000),
        current: false,
        accountLabel: null,
        orgLabel: null,
      },
    ],
    missing: listed
      .slice(0, 6)
      .map((s, i) => ({
        cliSessionId: s.sessionId,
        title: s.autoName ?? s.preview,
        cwd: s.workingDirectory,
        status: status[i],
        source: ref(i === 1 ? old : acct, i === 1 ? home : team, i),
        lastActivity: s.lastMessageAt,
        alsoIn: i === 1 ? [ref(acct, team, i)] : [],
        note: notes[i],
        canReplace: status[i] === 'replace-older',
      }))
      .filter((m) => !restoredHere.has(m.cliSessionId)),
    leftOut: { archived: 4, alreadyHere: 2, noTranscriptId: 0 },
    placements: listed.map((s, i) => ({
      cliSessionId: s.sessionId,
      account: i === 1 ? old : acct,
      org: i < 6 ? (i === 1 ? home : team) : home,
      archived: i === 7,
      current: i >= 6,
    })),
    finding: null,
    warnings: [],
  };
}

/** Conversations a demo restore brought into the current sidebar (its undo takes them out). */
const restoredHere = new Map<string, string>();

function demoPlanRestore(account: string, org: string, request: DesktopRestoreRequest): DesktopRestorePreview {
  const report = desktopReport();
  const dir = `${report.store}/${account}/${org}`;
  const plan: DesktopRestorePlan = {
    request,
    store: report.store,
    account,
    org,
    targetDir: dir,
    items: [],
    refused: [],
    backup: { files: report.sidebars.reduce((n, s) => n + s.entries, 0), bytes: 48_213, leftOut: [], tooLarge: false },
  };
  for (const m of report.missing) {
    if (!request.all && !request.ids.includes(m.cliSessionId)) continue;
    const ok =
      m.status === 'restorable' ||
      (m.status === 'shared-folder' && request.allowSharedFolder) ||
      (m.status === 'replace-older' && request.replaceOlder);
    if (ok) {
      plan.items.push({
        cliSessionId: m.cliSessionId,
        title: m.title,
        sourcePath: `${report.store}/${m.source.account}/${m.source.org}/${m.source.file}`,
        targetPath: `${dir}/${m.source.file}`,
        action:
          m.status === 'replace-older'
            ? 'replace-older'
            : m.note.startsWith('archived')
              ? 'replace-archived'
              : 'create',
      });
    } else {
      plan.refused.push({
        cliSessionId: m.cliSessionId,
        reason: m.status === 'ambiguous' ? `ambiguous: ${m.note}` : `${m.note} (not asked to)`,
      });
    }
  }
  return { plan, app: { state: 'closed' } };
}

export async function demoDesktopRestore(
  plan: DesktopRestorePlan,
  onProgress: (p: DesktopRestoreProgress) => void,
): Promise<DesktopRestoreReport> {
  cancelRequested = false;
  const id = `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}Z-${1000 + Math.floor(rnd() * 8999)}`;
  const restored: DesktopRestoreReport['restored'] = [];
  for (const [i, item] of plan.items.entries()) {
    if (cancelRequested) break;
    onProgress({ done: i, total: plan.items.length, cliSessionId: item.cliSessionId });
    await delay(350);
    restored.push({
      cliSessionId: item.cliSessionId,
      title: item.title,
      file: item.targetPath,
      replaced: item.action !== 'create',
    });
    restoredHere.set(item.cliSessionId, id);
  }
  const runId = restored.length ? id : null;
  if (runId) {
    runs.unshift(
      run(runId, 0, {
        target: null,
        mode: 'copy',
        sidebar: { store: plan.store, account: plan.account, org: plan.org },
        placed: restored.length,
        backupBytes: 48_213,
        cancelled: cancelRequested,
      }),
    );
    runItems.set(
      runId,
      restored.map((r) => ({ sessionId: r.cliSessionId, to: r.file }) as PlannedPlacement),
    );
  }
  return {
    runId,
    runDir: runId ? `${settings.dataDir}/runs/${runId}` : null,
    dryRun: false,
    restored,
    refused: plan.refused,
    cancelled: cancelRequested,
    backup: runId ? plan.backup : { files: 0, bytes: 0, leftOut: [], tooLarge: false },
    app: { state: 'closed' },
  };
}

function findSession(id: string): DemoSession {
  const s = sessions.find((x) => x.sessionId === id);
  if (!s) throw { kind: 'not-found', message: `No session ${id}` };
  return s;
}

// ---- transcripts ----
function tool(
  name: string,
  emoji: string,
  summary: string | null,
  output: string,
  extra: Partial<ToolCall> = {},
): ToolCall {
  return {
    toolName: name,
    toolUseId: uuid(),
    emoji,
    inputSummary: summary,
    input: JSON.stringify({ command: summary }, null, 2),
    output,
    outputTruncated: false,
    isError: false,
    durationMs: Math.floor(rnd() * 4000),
    pending: false,
    subagentId: null,
    subagentMissing: false,
    form: null,
    rejected: false,
    outputDetails: null,
    ...extra,
  };
}

function messageAt(i: number, total: number): TranscriptMessage {
  seed = 1000 + i * 7;
  const base = {
    uuid: `m-${i}`,
    timestamp: iso((total - i) * 30_000),
    thinking: null,
    toolCall: null,
    originKind: null,
    offset: i * 1000,
    attachments: [],
  };
  const k = i % 6;
  if (i === total - 1) {
    return {
      ...base,
      role: 'tool',
      content: '',
      toolCall: tool('Bash', '💻', 'npm run build -- --watch', '', { pending: true, durationMs: null }),
    };
  }
  if (k === 0)
    return {
      ...base,
      role: 'user',
      content:
        i === 0
          ? 'Hi! <img src=x onerror=alert(1)> and <script>alert("xss")</script> — please show these as text.'
          : `Can you check step ${i}? The \`cache\` seems **stale** after a rename. [Image #1]`,
      attachments:
        i === 0
          ? []
          : [
              {
                kind: 'image',
                mediaType: 'image/png',
                title: null,
                bytes: 58_211,
                viewable: true,
                reference: null,
                offset: i * 1000,
                index: 0,
              },
            ],
    };
  if (k === 1)
    return {
      ...base,
      role: 'assistant',
      thinking: 'The user wants me to check the cache. Let me look at the invalidation path first, then run the tests.',
      content: `Looking at it now. Here is the plan:\n\n1. Read \`catalog.rs\`\n2. Run the **tests**\n3. Report back\n\n\`\`\`rust\nfn invalidate(&mut self, folder: &Path) {\n    self.cache.retain(|k, _| !k.starts_with(folder));\n}\n\`\`\``,
    };
  if (k === 2)
    return {
      ...base,
      role: 'tool',
      content: '',
      toolCall: tool(
        'Read',
        '📄',
        `${HOME}/src/corral/src-tauri/engine/src/catalog.rs`,
        'use std::path::Path;\n'.repeat(80),
        {
          toolName: 'Edit',
          form: {
            kind: 'edit',
            path: `${HOME}/src/corral/src-tauri/engine/src/catalog.rs`,
            edits: [
              {
                replaceAll: false,
                lines: [
                  { change: 'same', text: 'fn invalidate(&mut self, folder: &Path) {' },
                  { change: 'removed', text: '    self.cache.clear();' },
                  { change: 'added', text: '    self.cache.retain(|k, _| !k.starts_with(folder));' },
                  { change: 'same', text: '}' },
                ],
              },
            ],
          },
        },
      ),
    };
  if (k === 3)
    return {
      ...base,
      role: 'tool',
      content: '',
      toolCall: tool(
        'Bash',
        '💻',
        'cargo test -p corral-engine',
        '\u001b[1m\u001b[31merror[E0425]\u001b[0m\u001b[1m: cannot find value `folder` in this scope\u001b[0m\n  \u001b[34m-->\u001b[0m src/catalog.rs:88:21',
        {
          isError: true,
          form: { kind: 'command', command: 'cargo test -p corral-engine', description: 'Run the engine tests' },
        },
      ),
    };
  if (k === 4)
    return {
      ...base,
      role: 'tool',
      content: '',
      toolCall: tool('Task', '🤖', 'Explore the attribution rules', 'Found 3 places where attribution is decided.', {
        subagentId: 'agent-a1b2c3',
        durationMs: 48_200,
      }),
    };
  return {
    ...base,
    role: 'assistant',
    content: `Done — the cache now drops entries for the changed folder only. See [the docs](https://example.com/docs) for details.\n\n> Note: nothing on disk was modified.`,
  };
}

function page(total: number, before: number | null, limit: number): MessagePage {
  const end = before == null ? total : Math.min(total, Math.floor(before / 1000));
  return range(total, Math.max(0, end - limit), end);
}

/** Messages `[start, end)` of a demo transcript (message `i` sits at byte offset `i * 1000`). */
function range(total: number, start: number, end: number): MessagePage {
  const messages: TranscriptMessage[] = [];
  for (let i = start; i < end; i++) messages.push(messageAt(i, total));
  // Every demo conversation was rewound once, at its second prompt (message 6).
  const rewinds: RewindMark[] =
    total > 8 && start <= REWIND_AT && REWIND_AT < end
      ? [
          {
            at: REWIND_AT * 1000,
            branch: REWIND_AT * 1000 - 500,
            prompts: 2,
            messages: 5,
            firstPrompt: 'Try it with a global lock instead',
          },
        ]
      : [];
  return {
    messages,
    earlierCursor: start > 0 ? start * 1000 : null,
    laterCursor: end < total ? end * 1000 : null,
    sizeBytes: total * 1000,
    rewinds,
    openBranch: null,
    inherited: 0,
  };
}

const REWIND_AT = 6;

/** The demo's rewound branch: two abandoned prompts with their replies. */
function rewoundBranch(): MessagePage {
  const at = REWIND_AT * 1000 - 500;
  const m = (i: number, role: 'user' | 'assistant', content: string): TranscriptMessage => ({
    role,
    content,
    uuid: `r-${i}`,
    timestamp: iso((20 - i) * 60_000),
    thinking: null,
    toolCall: null,
    originKind: null,
    offset: at + i,
    attachments: [],
  });
  return {
    messages: [
      m(0, 'user', 'Try it with a global lock instead'),
      m(1, 'assistant', 'A global lock serialises every scan; here is the change.'),
      m(2, 'user', 'Now make the lock fair'),
      m(3, 'assistant', 'Done: waiters are served in arrival order.'),
    ],
    earlierCursor: null,
    laterCursor: null,
    sizeBytes: 0,
    rewinds: [],
    openBranch: null,
    inherited: 0,
  };
}

/** A demo page where `at` says: the page around an offset starts a few messages before it. */
function pageAt(total: number, at: PageAt, limit: number): MessagePage {
  if (at.kind === 'before') return page(total, at.offset, limit);
  const i = Math.min(total, Math.floor(at.offset / 1000));
  const start = at.kind === 'around' ? Math.max(0, i - 2) : i;
  return range(total, start, Math.min(total, start + limit));
}

/** The demo's search: names, folders and one made-up message per session that says the words. */
function demoSearch(query: string, limit: number): SearchResults {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w && !w.includes(':') && !w.startsWith('-'));
  const matching = words.length
    ? sessions.filter((s) => {
        const hay = [s.customName, s.autoName, s.preview, s.workingDirectory].join(' ').toLowerCase();
        return words.every((w) => hay.includes(w.replace(/[*"]/g, '')));
      })
    : [];
  return {
    query,
    totalSessions: matching.length,
    totalMatches: matching.length,
    totalsExact: true,
    indexedSessions: sessions.length,
    listedSessions: sessions.length,
    complete: true,
    tookMs: 3,
    sessions: matching.slice(0, limit).map((s) => {
      const text = s.preview ?? s.autoName ?? '';
      return {
        sessionId: s.sessionId,
        workingDirectory: s.workingDirectory,
        agentName: s.agentName,
        customName: s.customName,
        autoName: s.autoName,
        nameMatch: true,
        matches: 1,
        hits: [
          {
            uuid: 'm3',
            role: 'user',
            timestamp: s.mtime,
            toolName: null,
            toolUseId: null,
            agentId: null,
            offset: 3000,
            rewound: false,
            snippet: text,
            snippetParts: [{ text, hit: false }],
          },
        ],
      };
    }),
  };
}

// ---- import runs ----
function run(id: string, agoMs: number, o: Partial<RunSummary>): RunSummary {
  return {
    runId: id,
    createdAt: iso(agoMs),
    target: { kind: 'agent', name: 'team.alpha' },
    mode: 'copy',
    sidebar: null,
    rename: null,
    delete: null,
    release: null,
    released: 0,
    restoredSessions: [],
    emptiedAt: null,
    quarantineDir: null,
    quarantineBytes: 0,
    placed: 0,
    records: 0,
    skipped: 0,
    finished: true,
    cancelled: false,
    undoState: 'not-undone',
    undoneAt: null,
    runDir: `${settings.dataDir}/runs/${id}`,
    backupDir: `${settings.dataDir}/runs/${id}/backup`,
    backupBytes: 0,
    problem: null,
    ...o,
  };
}
const runs: RunSummary[] = [
  run('20261206T091200Z-5150', 3_600_000 * 2, {
    target: null,
    rename: { sessionId: '6f1c2a9e-5d4b-4c1e-9a7f-3b2d1e0c9a81', from: 'Flaky test triage', to: 'CI flake hunt' },
    backupBytes: 96,
  }),
  run('20261128T101500Z-4242', 86_400_000 * 1.2, { placed: 12, records: 12, skipped: 2 }),
  run('20261124T160200Z-3131', 86_400_000 * 5, {
    target: { kind: 'agent', name: 'scribe' },
    mode: 'link',
    placed: 4,
    records: 4,
    undoState: 'partly-undone',
    undoneAt: iso(86_400_000 * 4),
  }),
  run('20261120T083000Z-1717', 86_400_000 * 9, {
    target: { kind: 'claudeHome' },
    mode: 'move',
    placed: 3,
    skipped: 0,
    undoState: 'undone',
    undoneAt: iso(86_400_000 * 8),
    backupBytes: 2_400_000,
  }),
];
const runItems = new Map<string, PlannedPlacement[]>();
/** Sessions whose name Claude Code's picker shows (renamed in this demo). */
const claudeTitled = new Set<string>();
const renameUndo = new Map<string, () => void>();
let cancelRequested = false;

const listeners = new Map<string, Set<(p: unknown) => void>>();
export function demoListen(event: string, cb: (p: unknown) => void): () => void {
  if (!listeners.has(event)) listeners.set(event, new Set());
  listeners.get(event)!.add(cb);
  return () => listeners.get(event)?.delete(cb);
}
export function demoEmit(event: string, payload: unknown): void {
  listeners.get(event)?.forEach((cb) => cb(payload));
}

export async function demoSavePath(defaultName: string): Promise<string | null> {
  return `${HOME}/Documents/${defaultName}`;
}

export async function demoPick(kind: PickKind): Promise<string[]> {
  if (kind === 'claude-home') return [`${HOME}/.claude`];
  if (kind === 'fleet') return [`${HOME}/fleet/herdctl.yaml`];
  if (kind === 'desktop-store') return [`${HOME}/.config/Claude/claude-code-sessions`];
  if (kind === 'import-folders') return [`${HOME}/backup/projects/-home-ada-src-old`];
  return [`${HOME}/Downloads/colleague-session.jsonl`];
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function demoApplyImport(
  plan: ImportPlan,
  onProgress: (p: ImportProgress) => void,
): Promise<ImportReport> {
  cancelRequested = false;
  const placed: ImportReport['placed'] = [];
  const total = plan.placements.length;
  const id = `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}Z-${1000 + Math.floor(rnd() * 8999)}`;
  for (let i = 0; i < total; i++) {
    if (cancelRequested) break;
    const p = plan.placements[i];
    onProgress({ done: i, total, sessionId: p.sessionId });
    await delay(450);
    placed.push({
      sessionId: p.sessionId,
      from: p.from,
      to: p.to,
      placedAs: plan.mode === 'copy' ? 'copied' : plan.mode === 'move' ? 'moved' : 'hard-linked',
      record: plan.target.kind === 'agent' ? `${settings.stateDir}/adopted-sessions/${p.sessionId}.yaml` : null,
      warning: p.warning,
      companions: p.companions.length,
    });
    if (plan.target.kind === 'agent') {
      const dir = agentDefs.find((x) => x.name === (plan.target as { name: string }).name)?.dir ?? HOME;
      sessions.push({
        ...(sessions[0] ?? ({} as DemoSession)),
        sessionId: p.sessionId,
        transcriptPath: p.to,
        workingDirectory: dir,
        encodedPath: dir.replace(/[^A-Za-z0-9]/g, '-'),
        origin: 'adopted',
        agentName: plan.target.name,
        customName: null,
        autoName: 'Imported: ' + (p.from.split('/').pop() ?? p.sessionId),
        mtime: new Date().toISOString(),
      });
    }
  }
  onProgress({ done: placed.length, total, sessionId: '' });
  const runId = placed.length ? id : null;
  if (runId) {
    runs.unshift(
      run(runId, 0, {
        target: plan.target,
        mode: plan.mode,
        placed: placed.length,
        records: plan.target.kind === 'agent' ? placed.length : 0,
        skipped: plan.skipped.length,
        cancelled: cancelRequested,
      }),
    );
    runItems.set(runId, plan.placements.slice(0, placed.length));
  }
  return {
    runId,
    runDir: runId ? `${settings.dataDir}/runs/${runId}` : null,
    placed,
    skipped: plan.skipped,
    cancelled: cancelRequested,
    dryRun: false,
  };
}

// ?demo=cli — real engine output instead of generated data: after `npm run build`, put the JSON of
// `corral-cli --json sessions`, `--json agents` and `--json show <id>` into dist/cli/ as listing.json,
// agents.json and show-<id>.json, then serve dist (vite preview). Nothing is written anywhere.
type CliShow = {
  messages: TranscriptMessage[];
  usage: { inputTokens: number; outputTokens: number; turnCount: number; model: string | null };
  subagents: unknown[];
};
let cliData: Promise<{ groups: DirectoryGroup[]; agents: AgentSummary[] } | null> | null = null;
function cli() {
  cliData ??= (async () => {
    try {
      const listing = (await (await fetch('/cli/listing.json')).json()) as { groups: DirectoryGroup[] };
      const agents = (await (await fetch('/cli/agents.json')).json()) as { agents: AgentSummary[] };
      return { groups: listing.groups, agents: agents.agents };
    } catch {
      return null;
    }
  })();
  return cliData;
}
async function cliShow(id: string): Promise<CliShow | null> {
  try {
    return (await (await fetch(`/cli/show-${id}.json`)).json()) as CliShow;
  } catch {
    return null;
  }
}

/** `?demo=cli`: answers from transcripts captured with corral-cli, where there are some. */
async function cliInvoke(cmd: Command, a: Record<string, unknown>): Promise<unknown> {
  {
    const d = await cli();
    if (d) {
      const all = d.groups.flatMap((g) => g.sessions);
      const find = (id: unknown) => all.find((s) => s.sessionId === id);
      if (cmd === 'list_sessions')
        return { groups: d.groups.filter((g) => a.includeTemp || !g.isTemp), warnings: [], leftOutTemp: 0 };
      if (cmd === 'list_agents') return d.agents;
      if (cmd === 'agent_sessions') return all.filter((s) => s.agentName === a.agent);
      if (cmd === 'session_info' || cmd === 'session_messages') {
        const s = find(a.sessionId);
        const show = await cliShow(String(a.sessionId));
        if (!s || !show) throw { kind: 'not-found', message: `No captured transcript for ${String(a.sessionId)}` };
        if (cmd === 'session_info')
          return {
            summary: s,
            usage: show.usage,
            subagents: show.subagents,
            resumeCommand: `cd -- '${s.workingDirectory}' && claude --resume ${s.sessionId}`,
            nameOutOfSight: null,
          };
        const before = (a.before as number | null) ?? Infinity;
        const older = show.messages.filter((m) => m.offset < before);
        const page = older.slice(Math.max(0, older.length - Number(a.limit || 100)));
        return {
          messages: page,
          earlierCursor: page.length < older.length ? page[0].offset : null,
          laterCursor: null,
          sizeBytes: s.sizeBytes,
          rewinds: [],
          openBranch: null,
          inherited: 0,
        };
      }
    }
  }
  return undefined;
}

/** The demo's answer to every command of lib/bindings/Commands.ts (the compiler checks names and types). */
const handlers: Handlers = {
  get_settings: (a) => {
    return { ...settings };
  },
  set_settings: ({ patch: a }) => {
    if (typeof a.claudeHome === 'string') settings.claudeHome = a.claudeHome;
    if (a.fleetFile !== undefined) settings.fleetFile = a.fleetFile;
    if (a.desktopStore !== undefined) settings.desktopStore = a.desktopStore ?? undefined;
    if (a.terminal !== undefined) {
      const t = a.terminal?.trim() ?? null;
      if (t !== null && t.split(/\s+/).length > 1 && !t.split(/\s+/).includes('{command}'))
        throw {
          kind: 'invalid-input',
          message: 'a terminal with arguments is a template: put {command} where the command goes',
        };
      settings.terminal = t;
    }
    if (a.notifyWaiting !== undefined) settings.notifyWaiting = a.notifyWaiting;
    if (a.reopenRemoteControl !== undefined) settings.reopenRemoteControl = a.reopenRemoteControl;
    return { ...settings };
  },
  list_agents: (a) => {
    return agentSummaries();
  },
  list_sessions: (a) => {
    const all = groupSessions(true);
    const shown = groupSessions(Boolean(a.includeTemp));
    const count = (gs: typeof all) => gs.reduce((n, g) => n + g.sessionCount, 0);
    return { groups: shown, warnings: [], leftOutTemp: count(all) - count(shown) };
  },
  // The demo's listing is complete at once: no pass is ever under way.
  listing_so_far: () => null,
  agent_sessions: (a) => {
    return sessions
      .filter((s) => s.agentName === a.agent)
      .sort((x, y) => (x.mtime < y.mtime ? 1 : -1))
      .map((s) => ({ ...s }));
  },
  session_info: (a) => {
    const s = findSession(String(a.sessionId));
    return {
      summary: { ...s },
      usage: { inputTokens: 84_312, outputTokens: 12_940, turnCount: 37, model: 'claude-sonnet-4-5' },
      subagents: [
        {
          agentId: 'agent-a1b2c3',
          transcriptPath: s.transcriptPath.replace('.jsonl', '/subagents/agent-a1b2c3.jsonl'),
          agentType: 'Explore',
          description: 'Explore the attribution rules',
          sizeBytes: 18_000,
        },
      ],
      resumeCommand: `cd -- '${s.workingDirectory}' && claude --resume ${s.sessionId}`,
      // A name set in herdctl only: Claude Code's resume list does not show it yet.
      nameOutOfSight:
        s.customName && s.origin === 'native' && !claudeTitled.has(s.sessionId)
          ? { name: s.customName, pickerTitle: null }
          : null,
    };
  },
  session_messages: (a) => {
    const s = findSession(String(a.sessionId));
    return page(Math.max(7, s.messageCount), (a.before as number | null) ?? null, Number(a.limit) || 100);
  },
  subagent_messages: (a) => {
    return page(12, (a.before as number | null) ?? null, Number(a.limit) || 100);
  },
  transcript_page: (a) => {
    const total = a.agentId ? 12 : Math.max(7, findSession(String(a.sessionId)).messageCount);
    return pageAt(total, a.at, Number(a.limit) || 100);
  },
  rewound_branch: () => rewoundBranch(),
  // A 2×2 PNG: enough to draw a thumbnail in the demo.
  transcript_attachment: () => ({
    mediaType: 'image/png',
    data: 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGNgYPj/n4GB4T8DAwMDAwAc9wP9Yl8o3AAAAABJRU5ErkJggg==',
  }),
  session_usage: () => [
    {
      model: 'claude-opus-4-6',
      responses: 41,
      inputTokens: 3_120,
      outputTokens: 48_900,
      cacheReadTokens: 2_410_000,
      cacheWriteTokens: 188_000,
    },
    {
      model: 'claude-haiku-4-5',
      responses: 12,
      inputTokens: 800,
      outputTokens: 5_200,
      cacheReadTokens: 96_000,
      cacheWriteTokens: 14_000,
    },
  ],
  export_session: (a) => ({
    messages: Math.max(7, findSession(String(a.sessionId)).messageCount),
    subagents: a.request.subagents ? 1 : 0,
    bytes: 48_213,
    path: a.path,
  }),
  search: (a) => demoSearch(a.query, a.limit),
  find_in_transcript: (a) => {
    const total = Math.max(7, findSession(String(a.sessionId)).messageCount);
    // Every fifth demo message "matches".
    const matches = Array.from({ length: Math.floor(total / 5) }, (_, i) => ({
      offset: i * 5000,
      uuid: `m${i * 5}`,
      toolUseId: null,
      displayOffset: i * 5000,
    }));
    return { total: matches.length, matches, terms: a.query.split(/\s+/).filter(Boolean) };
  },
  search_status: () => ({
    building: false,
    done: 0,
    total: 0,
    indexed: sessions.length,
    busy: false,
    error: null,
  }),
  rename_session: (a) => {
    const s = findSession(String(a.sessionId));
    const n = typeof a.name === 'string' && a.name.trim() !== '' ? a.name.trim() : null;
    const from = s.customName;
    s.customName = n;
    claudeTitled.add(s.sessionId);
    const id = `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}Z-${1000 + Math.floor(rnd() * 8999)}`;
    runs.unshift(run(id, 0, { target: null, rename: { sessionId: s.sessionId, from, to: n }, backupBytes: 96 }));
    renameUndo.set(id, () => {
      s.customName = from;
    });
    return { session: { ...s }, runId: id };
  },
  release: (a) => {
    const s = findSession(String(a.sessionId));
    const agent = String(a.agent);
    if (s.origin !== 'adopted' || s.agentName !== agent)
      return { sessionId: s.sessionId, agentName: agent, released: false, runId: null };
    s.origin = 'native';
    s.agentName = null;
    s.resumable = true;
    s.notResumableReason = null;
    const id = `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}Z-${1000 + Math.floor(rnd() * 8999)}`;
    const adoptedAt = new Date().toISOString();
    runs.unshift(
      run(id, 0, {
        target: null,
        mode: 'move',
        release: { sessionId: s.sessionId, agentName: agent, adoptedAt, name: s.customName ?? s.autoName ?? s.preview },
        backupBytes: 140,
      }),
    );
    renameUndo.set(id, () => {
      s.origin = 'adopted';
      s.agentName = agent;
    });
    return { sessionId: s.sessionId, agentName: agent, released: true, runId: id };
  },
  adopt: (a) => {
    const s = findSession(String(a.sessionId));
    const previousOwner = s.origin === 'adopted' ? s.agentName : null;
    const alreadyAdopted = s.origin === 'adopted' && s.agentName === a.agent;
    s.origin = 'adopted';
    s.agentName = a.agent;
    return {
      sessionId: s.sessionId,
      agentName: a.agent,
      adoptedAt: new Date().toISOString(),
      recordPath: `${settings.stateDir}/adopted-sessions/${s.sessionId}.yaml`,
      alreadyAdopted,
      previousOwner: alreadyAdopted ? null : previousOwner,
    };
  },
  adoptable: (a) => {
    const list: AdoptableSession[] = sessions
      .filter((s) => !s.agentName && !s.workingDirectory.startsWith('/tmp/'))
      .sort((x, y) => (x.mtime < y.mtime ? 1 : -1))
      .map((s) => ({
        sessionId: s.sessionId,
        sourceCwd: s.workingDirectory,
        mtime: s.mtime,
        autoName: s.autoName,
        preview: s.preview,
        sizeBytes: s.sizeBytes,
        transcriptPath: s.transcriptPath,
      }));
    return list;
  },
  plan_import: (a) => {
    const target = a.target as ImportPlan['target'];
    const dest =
      target.kind === 'agent' ? (agentDefs.find((x) => x.name === target.name)?.dir ?? HOME) : `${HOME}/src/old`;
    const destFolder = `${settings.claudeHome}/projects/${dest.replace(/[^A-Za-z0-9]/g, '-')}`;
    const sources = (a.sources as string[]) ?? [];
    const placements: PlannedPlacement[] = [];
    const skipped: ImportSkip[] = [];
    const place = (sessionId: string, from: string) =>
      placements.push({
        sessionId,
        name: sessions.find((s) => s.sessionId === sessionId)?.autoName ?? null,
        from,
        to: `${destFolder}/${sessionId}.jsonl`,
        sourceCwd: `${HOME}/src/old`,
        recordOnly: false,
        warning: null,
        companions: sessionId.startsWith('a') ? ['subagents/agent-a1.jsonl', 'subagents/agent-a1.meta.json'] : [],
      });
    for (const src of sources) {
      const known = sessions.find((s) => s.transcriptPath === src);
      if (known) {
        if (known.agentName)
          skipped.push({
            sessionId: known.sessionId,
            path: src,
            reason: 'already-adopted',
            detail: `already belongs to ${known.agentName}`,
            ownedBy: known.agentName,
          });
        else place(known.sessionId, known.transcriptPath);
        continue;
      }
      if (!src.endsWith('.jsonl') && /\.[a-z0-9]+$/i.test(src)) {
        skipped.push({
          sessionId: src.split('/').pop() ?? src,
          path: src,
          reason: 'not-a-transcript',
          detail: 'not a .jsonl file',
          ownedBy: null,
        });
        continue;
      }
      if (src.endsWith('.jsonl')) {
        place(uuid(), src);
        continue;
      }
      for (let i = 0; i < 5; i++) {
        const id = uuid();
        place(id, `${src}/${id}.jsonl`);
      }
      skipped.push({
        sessionId: uuid(),
        path: `${src}/agent-0a1b.jsonl`,
        reason: 'sidechain',
        detail: 'a subagent transcript',
        ownedBy: null,
      });
      skipped.push({
        sessionId: uuid(),
        path: `${src}/x.jsonl`,
        reason: 'already-adopted',
        detail: 'adopted by team.gamma',
        ownedBy: 'team.gamma',
      });
      skipped.push({
        sessionId: uuid(),
        path: `${src}/y.jsonl`,
        reason: 'destination-exists',
        detail: 'a file with this name is already there',
        ownedBy: null,
      });
      skipped.push({
        sessionId: uuid(),
        path: `${src}/z.jsonl`,
        reason: 'attributed-to-run',
        detail: 'a herdctl job of scribe ran it',
        ownedBy: 'scribe',
      });
      if (a.mode === 'move')
        skipped.push({
          sessionId: uuid(),
          path: `${src}/w.jsonl`,
          reason: 'occupied',
          detail: 'claude (pid 4242) has it open with --resume',
          ownedBy: null,
        });
    }
    return {
      target,
      mode: a.mode as ImportPlan['mode'],
      placements,
      skipped,
      occupancyUnknown: null,
    } satisfies ImportPlan;
  },
  cancel_run: (a) => {
    if (quarantineState) quarantineState.cancelled = true;
    cancelRequested = true;
    return null;
  },
  desktop_report: () => desktopReport(),
  lost_questions: () =>
    sessions
      .filter((s) => !s.agentName)
      .slice(0, 2)
      .map((s, i) => ({
        sessionId: s.sessionId,
        workingDirectory: s.workingDirectory,
        customName: s.customName,
        autoName: s.autoName,
        question: i === 0 ? 'Which database should the service use?' : 'Deploy to staging first?',
        askedAt: iso(5 * 3_600_000 + i * 60_000),
        rejectedAt: iso(3 * 3_600_000),
        sameSecond: 2,
        ownerSpokeAfter: i === 1,
        likelyQuit: true,
      })),
  list_runs: (a) => {
    return runs.map((r) => ({ ...r }));
  },
  plan_undo: (a) => {
    const r = runs.find((x) => x.runId === a.runId);
    if (!r) throw { kind: 'not-found', message: `No run ${String(a.runId)}` };
    const items =
      runItems.get(r.runId) ??
      Array.from(
        { length: Number(r.placed) },
        () =>
          ({
            sessionId: uuid(),
            from: `${HOME}/backup/x.jsonl`,
            to: `${settings.claudeHome}/projects/-home-ada-work-alpha/${uuid()}.jsonl`,
          }) as PlannedPlacement,
      );
    const steps: UndoItem[] = [];
    if (r.rename) {
      const sid = r.rename.sessionId;
      const folder = `${settings.claudeHome}/projects/-home-ada-work-alpha`;
      steps.push(
        { path: `${settings.stateDir}/session-metadata/adhoc.json`, action: 'name-restored', sessionId: sid },
        { path: `${folder}/${sid}/custom-title.json`, action: 'sidecar-restored', sessionId: sid },
        { path: `${folder}/${sid}.jsonl`, action: 'title-appended', sessionId: sid },
      );
      return { runId: r.runId, steps, notUndone: [] };
    }
    for (const p of items) {
      if (r.sidebar) {
        steps.push({ path: p.to, action: 'removed', sessionId: p.sessionId });
        continue;
      }
      steps.push({ path: p.to, action: r.mode === 'move' ? 'restored-source' : 'removed', sessionId: p.sessionId });
      if (r.target?.kind === 'agent')
        steps.push({
          path: `${settings.stateDir}/adopted-sessions/${p.sessionId}.yaml`,
          action: 'record-removed',
          sessionId: p.sessionId,
        });
    }
    return { runId: r.runId, steps, notUndone: [] };
  },
  undo_run: (a) => {
    const r = runs.find((x) => x.runId === a.runId);
    if (!r) throw { kind: 'not-found', message: `No run ${String(a.runId)}` };
    const back = renameUndo.get(r.runId);
    if (back) {
      back();
      renameUndo.delete(r.runId);
      r.undoState = 'undone';
      r.undoneAt = new Date().toISOString();
      return { runId: r.runId, undone: [], notUndone: [] };
    }
    const placed = runItems.get(r.runId);
    r.undoState = 'undone';
    r.undoneAt = new Date().toISOString();
    if (placed) {
      for (const p of placed) {
        if (r.sidebar) {
          restoredHere.delete(p.sessionId);
          continue;
        }
        const i = sessions.findIndex((x) => x.sessionId === p.sessionId);
        if (i >= 0) sessions.splice(i, 1);
      }
      return {
        runId: r.runId,
        undone: placed.map((p) => ({ path: p.to, action: 'removed' as const, sessionId: p.sessionId })),
        notUndone: [],
      };
    }
    r.undoState = 'partly-undone';
    return {
      runId: r.runId,
      undone: [
        {
          path: `${settings.claudeHome}/projects/-home-ada-work-alpha/${uuid()}.jsonl`,
          action: 'removed' as const,
          sessionId: null,
        },
      ],
      notUndone: [
        {
          path: `${settings.claudeHome}/projects/-home-ada-work-alpha/${uuid()}.jsonl`,
          reason: 'it changed after the import (Claude wrote to it), so it was left in place',
          sessionId: null,
        },
      ],
    };
  },
  reveal_path: (a) => {
    return null;
  },
  apply_import: () => {
    throw { kind: 'invalid-input', message: 'the demo applies imports through demoApplyImport' };
  },
  desktop_plan_restore: (a) => demoPlanRestore(a.account, a.org, a.request),
  resume_session: (a) => {
    const s = findSession(a.sessionId);
    const cwd = a.fromHome ? HOME : s.workingDirectory;
    return {
      command: {
        sessionId: s.sessionId,
        program: 'claude',
        args: ['--resume', s.sessionId],
        cwd,
        env: [],
        fromFallback: a.fromHome,
        display: `cd -- '${cwd}' && claude --resume ${s.sessionId}`,
      },
      terminal: 'gnome-terminal',
      started: true,
      pid: 4300,
      reason: null,
    };
  },
  live_states: () => {
    const states = ['running', 'waiting', 'idle'] as const;
    const whys = [
      'claude process 4242 resumes it; your message is being answered',
      'claude process 4243 resumes it; a question waits for your answer',
      'claude process 4244 runs in its folder and it was written 40 s ago; its turn finished',
    ];
    return {
      sessions: [
        ...sessions.slice(0, 3).map((s, i) => ({
          sessionId: s.sessionId,
          state: states[i],
          why: whys[i],
          pid: 4242 + i,
          job: null,
        })),
        ...sessions.slice(3, 4).map((s) => ({
          sessionId: s.sessionId,
          state: 'not-running' as const,
          why: 'background agent a1b2c3d4 says working, but no claude process on it is seen here',
          pid: null,
          job: { source: 'agent-view' as const, id: 'a1b2c3d4', state: 'working', active: true, blocked: false },
        })),
      ],
      unknown: null,
    };
  },
  desktop_restore: () => {
    throw { kind: 'invalid-input', message: 'the demo restores through demoDesktopRestore' };
  },
  plan_delete: (a) => quarantined().plan(a.request),
  delete_sessions: () => {
    throw { kind: 'invalid-input', message: 'the demo deletes through demoDelete' };
  },
  quarantine: () => quarantined().list(),
  restore_deleted: (a) => {
    const r = quarantined().restore(a.runId, a.sessionId);
    if (!r) throw { kind: 'not-found', message: `No delete run ${a.runId}` };
    return r;
  },
  empty_quarantine: (a) => quarantined().empty(a.runIds),
  storage: () => quarantined().storage(),
  cost_report: (a) => demoCostReport(sessions, a.by, a.since),
  recent_work: (a) => demoRecentWork(sessions, a.days),
  git_states: (a) => demoGitStates(a.folders),
  reopen: () => {
    throw { kind: 'invalid-input', message: 'the demo reopens through demoReopenStream' };
  },
};

/** The demo's streamed reopen. */
export async function demoReopenStream(
  choices: ReopenChoice[],
  onProgress: (o: ReopenOutcome) => void,
): Promise<ReopenReport> {
  return await demoReopen(sessions, choices, onProgress);
}

let quarantineState: DemoQuarantine | null = null;
/** The demo's quarantine (made on first use: the sessions and runs exist by then). */
function quarantined(): DemoQuarantine {
  quarantineState ??= new DemoQuarantine(sessions, runs, run, settings.claudeHome, settings.dataDir);
  return quarantineState;
}

/** The demo's streamed delete. */
export async function demoDelete(
  request: DeleteRequest,
  onProgress: (p: DeleteProgress) => void,
): Promise<DeleteReport> {
  return await quarantined().delete(request, onProgress);
}

export async function demoInvoke<K extends Command>(cmd: K, a: Args<K>): Promise<Result<K>> {
  await delay(mode === 'scale' ? 30 : 120);
  if (mode === 'cli') {
    const answer = await cliInvoke(cmd, a as Record<string, unknown>);
    if (answer !== undefined) return answer as Result<K>;
  }
  const handler = handlers[cmd] as ((args: Args<K>) => Result<K> | Promise<Result<K>>) | undefined;
  if (!handler) throw { kind: 'invalid-input', message: `Demo backend does not know ${String(cmd)}` };
  return await handler(a);
}

// ?demo=scale&probe=1 — a timing probe for the All Chats search at scale: types queries into the
// search box and logs how long each takes to filter and paint (read with chromium --enable-logging).
if (typeof location !== 'undefined' && new URLSearchParams(location.search).get('probe')) {
  setTimeout(async () => {
    const input = document.querySelector<HTMLInputElement>('[data-testid="search"]');
    if (!input) return console.log('probe: no search box');
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
    for (const q of ['p', 'pr', 'pro', 'project-09', 'project-0999', 'fix', 'fix flaky', '']) {
      const t0 = performance.now();
      input.value = q;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await frame();
      const rows = document.querySelectorAll('[data-testid="session-row"]').length;
      console.log(
        `probe: "${q}" ${(performance.now() - t0).toFixed(1)} ms, ${rows} rows in DOM, ${document.querySelector('[data-testid="result-count"]')?.textContent?.trim()}`,
      );
    }
    const list = document.querySelector<HTMLElement>('[data-testid="virtual-list"]');
    if (list) {
      const t0 = performance.now();
      for (let i = 0; i < 50; i++) {
        list.scrollTop += 900;
        list.dispatchEvent(new Event('scroll'));
        await frame();
      }
      console.log(
        `probe: 50 scroll steps ${((performance.now() - t0) / 50).toFixed(1)} ms/frame, ${document.querySelectorAll('[data-testid="session-row"]').length} rows in DOM`,
      );
    }
  }, 2500);
}
