// The demo's "Reopen recent work": its sessions' folders as recent work (one held by a claude
// already, one untrusted), made-up git states, and starts that succeed but for a folder named
// "scratch".
import type { GitState, RecentWork, ReopenChoice, ReopenOutcome, ReopenReport, SessionSummary } from '../lib/types';

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each folder's newest session of the last `days` days, as the engine would offer it. */
export function demoRecentWork(sessions: SessionSummary[], days: number, now = Date.now()): RecentWork {
  const since = now - days * 86_400_000;
  const newest = new Map<string, { s: SessionSummary; count: number }>();
  const dated = sessions
    .filter((s) => s.lastMessageAt && Date.parse(s.lastMessageAt) >= since && s.origin === 'native')
    .sort((a, b) => Date.parse(b.lastMessageAt ?? '') - Date.parse(a.lastMessageAt ?? ''));
  for (const s of dated) {
    const seen = newest.get(s.workingDirectory);
    if (seen) seen.count++;
    else newest.set(s.workingDirectory, { s, count: 1 });
  }
  const rows = [...newest.values()].map(({ s, count }, i) => ({
    folder: s.workingDirectory,
    sessionId: s.sessionId,
    name: s.customName ?? s.autoName ?? s.preview ?? 'Untitled session',
    lastActive: s.lastMessageAt ?? '',
    conversations: count,
    state: i === 1 ? ('occupied' as const) : ('free' as const),
    why:
      i === 1
        ? `claude process ${4100 + i} runs in ${s.workingDirectory} (--continue), so it may be on this session`
        : null,
    remoteName: (s.workingDirectory.split('/').pop() ?? 'session').toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    trusted: i === 2 ? false : true,
    git: null,
  }));
  const leftOut = dated
    .filter((s) => s.entrypoint === 'sdk-cli')
    .slice(0, 1)
    .map((s) => ({
      folder: s.workingDirectory,
      sessionId: s.sessionId,
      name: s.preview ?? 'Untitled session',
      lastActive: s.lastMessageAt ?? '',
      reason: 'not-interactive' as const,
      why: 'started by claude -p, not in a terminal',
    }));
  return { days, since: new Date(since).toISOString(), rows, leftOut };
}

/** Made-up git states: a branch with changes, one ahead, one not a repository. */
export function demoGitStates(folders: string[]): GitState[] {
  return folders.map((f, i) =>
    i % 4 === 3
      ? { kind: 'notARepository' }
      : {
          kind: 'repository',
          branch: i % 3 === 0 ? 'main' : `feature/${f.split('/').pop()}`,
          upstream: i % 2 === 0 ? 'origin/main' : null,
          ahead: i % 2,
          behind: i % 5 === 0 ? 2 : 0,
          changed: (i * 3) % 7,
          untracked: i % 3,
        },
  );
}

/** Starts each after a moment; a folder whose name holds "scratch" fails to start. */
export async function demoReopen(
  sessions: SessionSummary[],
  choices: ReopenChoice[],
  onProgress: (o: ReopenOutcome) => void,
): Promise<ReopenReport> {
  const report: ReopenReport = { started: 0, failed: 0, skipped: 0, cancelled: false, rows: [] };
  for (const [i, c] of choices.entries()) {
    await delay(400);
    const folder = sessions.find((s) => s.sessionId === c.sessionId)?.workingDirectory ?? null;
    const failed = folder?.includes('scratch') ?? false;
    const o: ReopenOutcome = {
      sessionId: c.sessionId,
      folder,
      result: failed ? 'failed-to-start' : 'started',
      why: failed ? 'did not start: no claude process resumed it within 10 s' : null,
      terminal: 'gnome-terminal',
      pid: failed ? null : 5200 + i,
      command: `claude --resume ${c.sessionId}`,
    };
    if (failed) report.failed++;
    else report.started++;
    report.rows.push(o);
    onProgress(o);
  }
  return report;
}
