// What sessions cost, as the Cost view shows it: a report rolled up by one thing over a range
// of days, each row's figure and where it came from.
import * as api from './api';
import { COST_SOURCE, costCaveat } from './format';
import type { CostBy, CostReport, CostRow } from './types';

/** The ranges a person can pick, in days (`null`: everything on record). */
export const COST_RANGES: { days: number | null; label: string }[] = [
  { days: 1, label: 'Today' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: null, label: 'All time' },
];

/** What a report can be rolled up by, in the order the view offers them. */
export const COST_BYS: { by: CostBy; label: string; what: string }[] = [
  { by: 'agent', label: 'Agent', what: 'herdctl agent' },
  { by: 'job', label: 'Job', what: 'herdctl job' },
  { by: 'folder', label: 'Folder', what: 'working directory' },
  { by: 'session', label: 'Session', what: 'session' },
  { by: 'model', label: 'Model', what: 'model' },
  { by: 'day', label: 'Day', what: 'day' },
];

/** The first UTC day of a range of `days` ending today (`YYYY-MM-DD`; `null`: no limit). */
export function sinceDay(days: number | null, now = Date.now()): string | null {
  if (days === null) return null;
  return new Date(now - (days - 1) * 86_400_000).toISOString().slice(0, 10);
}

/** The report, read now. */
export const costReport = (by: CostBy, days: number | null): Promise<CostReport> => api.costReport(by, sinceDay(days));

/** `$1.23`; `$1.23+` when responses with no known price are left out; `~$1.23` when Claude
 * Code guessed a price; "price unknown" (never `$0.00`) when nothing could be priced. */
export function rowMoney(r: CostRow): string {
  const amount = r.usd > 0 && r.usd < 0.01 ? '<$0.01' : `$${r.usd.toFixed(2)}`;
  if (!r.unpriced) return amount;
  if (r.source === 'claudeCode') return `~${amount}`;
  return r.usd === 0 ? 'price unknown' : `${amount}+`;
}

/** What a row's key names when it has none. */
export function rowKey(r: CostRow, by: CostBy): string {
  if (r.key !== null) return r.key;
  return by === 'agent' ? 'Not owned by an agent' : by === 'day' ? 'Day unknown' : 'Unknown';
}

/** A job's own figure beside Corral's: `herdctl $1.20 · Corral +$0.03` (`null`: none). */
export function jobBeside(r: CostRow): string | null {
  if (r.jobUsd === undefined) return null;
  const d = r.usd - r.jobUsd;
  const diff = Math.abs(d) < 0.005 ? 'agrees' : `Corral ${d > 0 ? '+' : '−'}$${Math.abs(d).toFixed(2)}`;
  return `herdctl says $${r.jobUsd.toFixed(2)} · ${diff}`;
}

/** Where a row's figure came from, for its tooltip. */
export function rowSource(r: CostRow): string {
  const caveat = costCaveat(r.source, r.unpriced, String(r.unpriced));
  return `$${r.usd.toFixed(4)} at list price. ${COST_SOURCE[r.source]}.${caveat ? ` ${caveat}` : ''}`;
}
