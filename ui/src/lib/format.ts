import type { IconName } from './icons';
import type { Cost, DirectoryGroup, Origin, SessionSummary, NotResumableReason, TokenTotals } from './types';

/** The name a person sees: custom name › auto name › preview › "Untitled session". */
export function displayName(s: Pick<SessionSummary, 'customName' | 'autoName' | 'preview' | 'pending'>): string {
  const named = nonEmpty(s.customName) ?? nonEmpty(s.autoName) ?? nonEmpty(s.preview);
  return named ?? (s.pending ? 'Not read yet…' : 'Untitled session');
}

function nonEmpty(v: string | null | undefined): string | null {
  return v && v.trim() !== '' ? v : null;
}

let homeDir: string | null = null;
/** Paths under this folder are shown with `~`. Derived from the Claude home (its parent). */
export function setHomeDir(h: string | null): void {
  homeDir = h && h.length > 1 ? h.replace(/[\\/]+$/, '') : null;
}

export function tildePath(p: string | null | undefined): string {
  if (!p) return '';
  if (homeDir && (p === homeDir || p.startsWith(homeDir + '/') || p.startsWith(homeDir + '\\'))) {
    return '~' + p.slice(homeDir.length);
  }
  return p;
}

/** Shortens a path in the middle, keeping the start and the last segments. */
export function middleTruncate(s: string, max: number): string {
  if (s.length <= max) return s;
  const keep = max - 1;
  const tail = Math.ceil(keep * 0.6);
  return s.slice(0, keep - tail) + '…' + s.slice(s.length - tail);
}

// One formatter per shape, made once. WebKit's \`Date.prototype.toLocale*String(…, options)\` builds a
// new ICU formatter on every call: 0.12–0.19 ms each, and tens of KB of native memory the garbage
// collector does not see, so a list that formats two dates per row grew the web process by hundreds
// of MB while scrolling 10,000 sessions (measured: 6,000 calls, +227 MB). A kept formatter costs
// 7 µs a call and nothing after.
const SHORT_DAY = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const SHORT_DATE = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const FULL_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'medium' });
const LONG_DAY = new Intl.DateTimeFormat(undefined, {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
});
const CLOCK = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

export function relativeTime(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '—';
  const d = Math.max(0, now - t) / 1000;
  if (d < 45) return 'just now';
  if (d < 3600) return `${Math.round(d / 60)} min ago`;
  if (d < 86400) return `${Math.round(d / 3600)} h ago`;
  if (d < 86400 * 7) {
    const days = Math.round(d / 86400);
    return days === 1 ? 'yesterday' : `${days} days ago`;
  }
  const date = new Date(t);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return (sameYear ? SHORT_DAY : SHORT_DATE).format(date);
}

export function exactTime(iso: string | null | undefined): string {
  if (!iso) return 'unknown time';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return FULL_TIME.format(new Date(t));
}

/** Hours and minutes of a timestamp, in the person's locale; '' without a valid one. */
export function clockTime(iso: string | null | undefined): string {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? '' : CLOCK.format(new Date(t));
}

/** The local calendar day of a timestamp, as a key (`2026-11-20`); null without a valid one. */
export function dayKey(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** A day as a person reads it: "Today", "Yesterday", else "Thursday, 20 November 2026". */
export function dayLabel(iso: string, now: number = Date.now()): string {
  const key = dayKey(iso);
  if (key === dayKey(new Date(now).toISOString())) return 'Today';
  if (key === dayKey(new Date(now - 86_400_000).toISOString())) return 'Yesterday';
  return LONG_DAY.format(new Date(iso));
}

/** For each message, the day to announce before it: where the day changes from the previous
 *  dated message, and before the first one when the messages span more than one day. */
export function daySeparators(timestamps: (string | null | undefined)[]): (string | null)[] {
  const days = timestamps.map(dayKey);
  const distinct = new Set(days.filter((d) => d != null));
  let last: string | null = null;
  return days.map((d, i) => {
    if (d == null) return null;
    const show = last == null ? distinct.size > 1 : d !== last;
    last = d;
    return show ? (timestamps[i] as string) : null;
  });
}

export function formatBytes(n: number | null | undefined): string {
  if (n == null) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function formatCount(n: number, one: string, many: string = one + 's'): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

/** A count that may be a lower bound: "10,000+ matches" when it is not exact. */
export function formatAtLeast(n: number, exact: boolean, one: string, many: string = one + 's'): string {
  return exact ? formatCount(n, one, many) : `${n.toLocaleString()}+ ${many}`;
}

/** What a folder's numbers count: its sessions, and how many of them each agent owns — the folder's
 * own agent first, with 0 when it owns none ("2 sessions in this folder · 0 owned by gamma"), so
 * the figure agrees with the Fleet view's. `shown` is how many the filters left. */
export function folderCounts(
  g: Pick<DirectoryGroup, 'agentName' | 'sessionCount' | 'owners'>,
  shown: number,
  label: (agent: string) => string,
): string {
  const total = formatCount(g.sessionCount, 'session');
  const head =
    (shown !== g.sessionCount ? `${shown.toLocaleString()} of ${total}` : total) +
    (g.agentName ? ' in this folder' : '');
  const owners = [...(g.owners ?? [])];
  if (g.agentName && !owners.some((o) => o.agentName === g.agentName))
    owners.unshift({ agentName: g.agentName, sessionCount: 0 });
  const named = owners.slice(0, 3).map((o) => `${o.sessionCount.toLocaleString()} owned by ${label(o.agentName)}`);
  if (owners.length > 3) named.push(`${formatCount(owners.length - 3, 'more agent')}`);
  return [head, ...named].join(' · ');
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms == null) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m} min ${s} s`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 999_500) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0)}M`;
}

/** Every token of `t` together (input, output, cache reads and writes). */
export function tokenSum(t: TokenTotals | null | undefined): number {
  return t ? t.inputTokens + t.outputTokens + t.cacheReadTokens + t.cacheWriteTokens : 0;
}

/** The kinds behind a token total, for a tooltip. */
export function tokensTitle(t: TokenTotals): string {
  const n = (x: number) => x.toLocaleString();
  return (
    `Input ${n(t.inputTokens)} · output ${n(t.outputTokens)} · cache read ${n(t.cacheReadTokens)} · ` +
    `cache write ${n(t.cacheWriteTokens)} (each response once; rewound branches left out)`
  );
}

/**
 * A cost as a person reads it: `$1.23`; `$1.23+` when requests of a model with no known price
 * are left out; `~$1.23` when Claude Code guessed a price for a model it did not know; "price
 * unknown" (never `$0.00`) when nothing could be priced; `<$0.01` for a fraction of a cent.
 */
export function formatCost(c: Cost): string {
  if (c.unpriced && c.usd === 0 && c.source !== 'claudeCode') return 'price unknown';
  const amount =
    c.usd > 0 && c.usd < 0.01
      ? '<$0.01'
      : c.usd < 100
        ? `$${c.usd.toFixed(2)}`
        : `$${Math.round(c.usd).toLocaleString('en-US')}`;
  if (!c.unpriced) return amount;
  return c.source === 'claudeCode' ? `~${amount}` : `${amount}+`;
}

/** Where a cost came from, in words. */
export const COST_SOURCE: Record<Cost['source'], string> = {
  claudeCode: "Claude Code's own figure",
  table: 'Priced by Corral from the tokens (bundled price table)',
  mixed: "Claude Code's own figures and Corral's prices together",
};

/** What a cost leaves out or guesses, in words ('' when nothing). */
export function costCaveat(source: Cost['source'], unpriced: number | boolean, count = ''): string {
  if (!unpriced) return '';
  return source === 'claudeCode'
    ? "Includes Claude Code's guess for a model it has no price for."
    : `${count ? `${count} requests` : 'Requests'} of a model with no known price are left out.`;
}

/** Where a cost came from and what it is, for a tooltip. */
export function costTitle(c: Cost): string {
  const caveat = costCaveat(c.source, c.unpriced);
  return `$${c.usd.toFixed(4)} at list price: what the API would charge (a subscription pays otherwise).\n${COST_SOURCE[c.source]}.${caveat ? `\n${caveat}` : ''}`;
}

/** `a` and `b` together (a roll-up), either of which may be missing. */
export function addCost(a: Cost | null | undefined, b: Cost | null | undefined): Cost | undefined {
  if (!a || !b) return a ?? b ?? undefined;
  return {
    usd: a.usd + b.usd,
    unpriced: a.unpriced || b.unpriced,
    source: a.source === b.source ? a.source : 'mixed',
  };
}

/** Adds token totals. */
export function addTokens(a: TokenTotals, b: TokenTotals | null | undefined): TokenTotals {
  if (!b) return a;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

export const NO_TOKENS: TokenTotals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export const ORIGINS: Origin[] = ['native', 'adopted', 'schedule', 'web', 'discord', 'slack'];

/** Icon + label per origin; the icon shapes differ so the badge never depends on colour alone. */
export const ORIGIN_INFO: Record<Origin, { icon: IconName; label: string; title: string }> = {
  native: { icon: 'keyboard', label: 'CLI', title: 'Started with claude in a terminal' },
  adopted: { icon: 'folder-input', label: 'Adopted', title: 'Adopted into this agent by an adoption record' },
  schedule: { icon: 'timer', label: 'Schedule', title: 'Started by a herdctl schedule' },
  web: { icon: 'globe', label: 'Web', title: 'Started from the herdctl web dashboard' },
  discord: { icon: 'message-circle', label: 'Discord', title: 'Started from Discord' },
  slack: { icon: 'hash', label: 'Slack', title: 'Started from Slack' },
};

export function notResumableText(r: NotResumableReason | null | undefined): string {
  switch (r) {
    case 'docker':
      return 'Ran inside Docker — claude --resume on this machine cannot continue it';
    case 'outside-agent-folder':
      return "Lives outside the agent's folder — the agent cannot resume it there";
    default:
      return 'Cannot be resumed';
  }
}

/** The shell-quoted resume command for a session. */
export function resumeCommand(dir: string, id: string): string {
  return `cd -- '${dir.replace(/'/g, `'\\''`)}' && claude --resume ${id}`;
}

/** A file name for a session's export: its name made safe for every file system, and the format's extension. */
export function exportFileName(s: SessionSummary, ext: string): string {
  const safe = displayName(s)
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+|[.\s]+$/g, '')
    .slice(0, 80)
    .trim();
  const stem = safe && safe !== 'Untitled session' ? safe : `session-${s.sessionId.slice(0, 8)}`;
  return `${stem}.${ext}`;
}

/** The listing's first pass as it reads: "Reading 3,120 of 9,717 sessions…". */
export function readingLine(p: { read: number; toRead: number }): string {
  return `Reading ${p.read.toLocaleString()} of ${formatCount(p.toRead, 'session')}…`;
}
