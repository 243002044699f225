// The demo's cost report: its sessions' own figures rolled up as the engine would (a session's
// cost falls on the day it was last active; fleet sessions each belong to one job, most of
// which recorded their own figure).
import type { CostBy, CostReport, CostRow, SessionSummary } from '../lib/types';

const NOTE = 'List-price equivalents: what the API would charge for these requests. A subscription pays otherwise.';

function day(s: SessionSummary): string {
  return (s.lastMessageAt ?? s.mtime).slice(0, 10);
}

function model(s: SessionSummary): string {
  return (s.claudeCodeVersion ?? '').startsWith('2.1') ? 'claude-opus-4-6' : 'claude-sonnet-4-5';
}

function keyOf(s: SessionSummary, by: CostBy): string | null {
  switch (by) {
    case 'session':
      return s.sessionId;
    case 'agent':
      return s.agentName;
    case 'folder':
      return s.workingDirectory;
    case 'model':
      return model(s);
    case 'day':
      return day(s);
    case 'job':
      return s.agentName ? `job-${day(s)}-${s.sessionId.slice(0, 6)}` : null;
  }
}

/** What the demo's sessions cost, rolled up `by`, from day `since`. */
export function demoCostReport(sessions: SessionSummary[], by: CostBy, since: string | null): CostReport {
  const rows = new Map<string | null, CostRow>();
  for (const s of sessions) {
    if (!s.cost || (since && day(s) < since) || (by === 'job' && !s.agentName)) continue;
    const key = keyOf(s, by);
    let row = rows.get(key);
    if (!row) {
      row = { key, usd: 0, unpriced: 0, sessions: 0, source: s.cost.source };
      if (by === 'session') row.name = s.customName ?? s.autoName ?? s.preview ?? 'Untitled session';
      if (by === 'job') {
        row.name = s.agentName ?? undefined;
        // Most jobs recorded their own figure; the odd one differs by what its record missed.
        const n = parseInt(s.sessionId.slice(0, 2), 16);
        if (n % 5 !== 0) row.jobUsd = n % 7 === 0 ? s.cost.usd * 0.93 : s.cost.usd;
      }
      rows.set(key, row);
    }
    row.usd += s.cost.usd;
    row.unpriced += s.cost.unpriced ? 1 : 0;
    row.sessions += 1;
    if (row.source !== s.cost.source) row.source = 'mixed';
  }
  const out = [...rows.values()];
  if (by === 'day') out.sort((a, b) => (a.key ?? '').localeCompare(b.key ?? ''));
  else out.sort((a, b) => b.usd - a.usd || (a.key ?? '').localeCompare(b.key ?? ''));
  return {
    by,
    since,
    rows: out,
    totalUsd: out.reduce((t, r) => t + r.usd, 0),
    note: NOTE,
    prices:
      'genai-prices 0.2.5 (https://github.com/pydantic/genai-prices, MIT), provider `anthropic`, taken 2026-12-07',
  };
}
