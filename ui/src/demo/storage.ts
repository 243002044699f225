// The demo's Storage view: figures made from the demo's sessions, a few leftovers of sessions
// that are gone, and debug logs of every age.
import type { Orphaned, SessionSummary, StorageGroup, StorageReport } from '../lib/types';

const DAY = 86_400_000;

/** The demo's leftovers of gone sessions (swept up by a sweep, so the view changes). */
export function demoOrphans(home: string): Orphaned[] {
  return [0, 1, 2].map((i) => {
    const id = `dead${i}000-0000-4000-a000-00000000000${i}`;
    const items = [
      { kind: 'file-history' as const, path: `${home}/file-history/${id}`, bytes: 4_200_000 >> i },
      { kind: 'session-env' as const, path: `${home}/session-env/${id}`, bytes: 1_024 },
      { kind: 'debug-log' as const, path: `${home}/debug/${id}.txt`, bytes: 880_000 >> i },
    ];
    return { sessionId: id, items, bytes: items.reduce((n, it) => n + it.bytes, 0) };
  });
}

/** A session's demo debug log: larger for longer sessions. */
export const debugLogBytes = (s: SessionSummary): number => 20_000 + s.messageCount * 1_500;

function groups(sessions: SessionSummary[], key: (s: SessionSummary) => string | null): StorageGroup[] {
  const by = new Map<string | null, StorageGroup>();
  for (const s of sessions) {
    const k = key(s);
    const g = by.get(k) ?? { key: k, sessions: 0, bytes: 0, gone: !!k && k.includes('old') };
    g.sessions += 1;
    g.bytes += s.sizeBytes + debugLogBytes(s);
    by.set(k, g);
  }
  return [...by.values()].sort((a, b) => b.bytes - a.bytes);
}

export function demoStorage(
  sessions: SessionSummary[],
  orphans: Orphaned[],
  debugSwept: Set<string>,
  home: string,
  quarantineBytes: number,
): StorageReport {
  const now = Date.now();
  const logs = sessions.filter((s) => !debugSwept.has(s.sessionId));
  const logBytes = logs.reduce((n, s) => n + debugLogBytes(s), 0);
  const transcripts = sessions.reduce((n, s) => n + s.sizeBytes, 0);
  const orphanBytes = orphans.reduce((n, o) => n + o.bytes, 0);
  const areas = [
    { name: 'projects', what: 'Transcripts, subagent runs and tool results', bytes: transcripts, entries: 0 },
    { name: 'debug', what: "Claude Code's debug logs", bytes: logBytes + orphans.length * 500_000, entries: 0 },
    {
      name: 'file-history',
      what: 'Copies of edited files, for rewinding',
      bytes: 38_000_000 + orphanBytes,
      entries: 0,
    },
    { name: 'shell-snapshots', what: "Snapshots of the shell's environment", bytes: 2_400_000, entries: 0 },
    {
      name: 'history.jsonl',
      what: 'Every prompt typed, for the up arrow (never rewritten)',
      bytes: 910_000,
      entries: 1,
    },
    { name: 'session-env', what: 'Environments set up by hooks, per session', bytes: 48_000, entries: 0 },
  ].sort((a, b) => b.bytes - a.bytes);
  const older = [7, 30, 90].map((days) => {
    const old = logs.filter((s) => now - Date.parse(s.lastMessageAt ?? s.mtime) >= days * DAY);
    return { days, files: old.length, bytes: old.reduce((n, s) => n + debugLogBytes(s), 0) };
  });
  const largest = [...sessions]
    .map((s) => ({
      sessionId: s.sessionId,
      name: s.customName ?? s.autoName ?? s.preview ?? 'Untitled session',
      workingDirectory: s.workingDirectory,
      agentName: s.agentName,
      lastActivityAt: s.lastMessageAt ?? s.mtime,
      transcriptBytes: s.sizeBytes,
      bytes: s.sizeBytes + debugLogBytes(s),
    }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 50);
  return {
    claudeHome: home,
    totalBytes: areas.reduce((n, a) => n + a.bytes, 0),
    areas,
    folders: groups(sessions, (s) => s.workingDirectory).slice(0, 50),
    agents: groups(sessions, (s) => s.agentName),
    largest,
    orphaned: orphans,
    orphanedSessions: orphans.length,
    orphanedBytes: orphanBytes,
    debugLogs: { files: logs.length, bytes: logBytes, older },
    quarantineBytes,
  };
}
