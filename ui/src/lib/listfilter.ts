// Client-side search and filtering over the All Chats listing. Each session gets one lower-cased
// haystack built once per listing, so a keystroke costs one substring test per session.
import type { DirectoryGroup, Origin, SessionSummary } from './types';
import { ORIGIN_INFO, formatCount } from './format';

export type IndexedSession = { session: SessionSummary; group: DirectoryGroup; hay: string };

export function buildIndex(groups: DirectoryGroup[], names: Record<string, string | null>): IndexedSession[] {
  const out: IndexedSession[] = [];
  for (const group of groups) {
    for (const s of group.sessions) {
      const custom = Object.prototype.hasOwnProperty.call(names, s.sessionId) ? names[s.sessionId] : s.customName;
      const origin = ORIGIN_INFO[s.origin];
      out.push({
        session: s,
        group,
        hay: [
          custom,
          s.autoName,
          s.preview,
          s.agentName ?? group.agentName,
          s.origin,
          origin?.label,
          s.workingDirectory,
          s.sessionId,
        ]
          .filter(Boolean)
          .join('\u0001')
          .toLowerCase(),
      });
    }
  }
  return out;
}

export function queryTerms(q: string): string[] {
  return q.trim().toLowerCase().split(/\s+/).filter(Boolean);
}

/** `only`: when set, just these session ids (the "Now" filter: sessions a claude process is on). */
export type Filters = { query: string; origins: Origin[]; agent: string | null; only?: ReadonlySet<string> | null };
/** `agent` may be a name, `__none__` (unattributed) or null (any). */
export const NO_AGENT = '__none__';

export function matches(item: IndexedSession, terms: string[], f: Filters): boolean {
  const s = item.session;
  if (f.only && !f.only.has(s.sessionId)) return false;
  if (f.origins.length && !f.origins.includes(s.origin)) return false;
  if (f.agent) {
    const a = s.agentName ?? null;
    if (f.agent === NO_AGENT ? a !== null : a !== f.agent) return false;
  }
  for (const t of terms) if (!item.hay.includes(t)) return false;
  return true;
}

export type ResultGroup = { group: DirectoryGroup; sessions: SessionSummary[] };

/** Filters and regroups, keeping group order (newest first) and session order. */
export function filterIndex(index: IndexedSession[], f: Filters): { groups: ResultGroup[]; count: number } {
  const terms = queryTerms(f.query);
  const groups: ResultGroup[] = [];
  let current: ResultGroup | null = null;
  let count = 0;
  for (const item of index) {
    if (!matches(item, terms, f)) continue;
    if (!current || current.group !== item.group) {
      current = { group: item.group, sessions: [] };
      groups.push(current);
    }
    current.sessions.push(item.session);
    count++;
  }
  return { groups, count };
}

/** Splits `text` into plain and matched parts for highlighting (case-insensitive, all terms). */
export function highlightParts(text: string, terms: string[]): { t: string; m: boolean }[] {
  if (!terms.length || !text) return [{ t: text, m: false }];
  const lower = text.toLowerCase();
  const marks = new Array<boolean>(text.length).fill(false);
  let any = false;
  for (const term of terms) {
    let i = lower.indexOf(term);
    while (i !== -1) {
      for (let k = i; k < i + term.length; k++) marks[k] = true;
      any = true;
      i = lower.indexOf(term, i + term.length);
    }
  }
  if (!any) return [{ t: text, m: false }];
  const parts: { t: string; m: boolean }[] = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i === text.length || marks[i] !== marks[start]) {
      parts.push({ t: text.slice(start, i), m: marks[start] });
      start = i;
    }
  }
  return parts;
}

/** Sorts groups newest first by their newest session (stable: equal groups keep the engine's order). */
export function newestFirst(groups: DirectoryGroup[]): DirectoryGroup[] {
  const newest = new Map<DirectoryGroup, string>();
  for (const g of groups) {
    let m = '';
    for (const s of g.sessions) {
      const t = s.lastMessageAt ?? s.mtime;
      if (t > m) m = t;
    }
    newest.set(g, m);
  }
  return [...groups].sort((a, b) => {
    const x = newest.get(a) ?? '';
    const y = newest.get(b) ?? '';
    return x < y ? 1 : x > y ? -1 : 0;
  });
}

/** How All Chats orders sessions (within each folder) and folders (by their first session). */
export type SortKey = 'recent' | 'oldest' | 'size' | 'messages' | 'name';

export const SORTS: { key: SortKey; label: string }[] = [
  { key: 'recent', label: 'Most recent' },
  { key: 'oldest', label: 'Oldest first' },
  { key: 'size', label: 'Largest' },
  { key: 'messages', label: 'Most messages' },
  { key: 'name', label: 'Name' },
];

/** How to compare two sessions for `key`; `null` for "most recent", the listing's own order. */
function sessionOrder(
  key: SortKey,
  name: (s: SessionSummary) => string,
): ((a: SessionSummary, b: SessionSummary) => number) | null {
  const time = (s: SessionSummary) => Date.parse(s.lastMessageAt ?? s.mtime) || 0;
  switch (key) {
    case 'recent':
      return null;
    case 'oldest':
      return (a, b) => time(a) - time(b);
    case 'size':
      return (a, b) => b.sizeBytes - a.sizeBytes;
    case 'messages':
      return (a, b) => b.messageCount - a.messageCount;
    case 'name':
      return (a, b) => name(a).localeCompare(name(b), undefined, { sensitivity: 'base', numeric: true });
  }
}

/** `sessions` in `key`'s order (`name` names a session, custom name first). */
export function sortSessions(
  sessions: SessionSummary[],
  key: SortKey,
  name: (s: SessionSummary) => string,
): SessionSummary[] {
  const cmp = sessionOrder(key, name);
  return cmp ? [...sessions].sort(cmp) : sessions;
}

/** `groups` in `key`'s order: sessions within each, folders by their first session (by path for
 *  `name`). The listing's own order is "most recent", so that one is kept as it is. */
export function sortGroups(groups: ResultGroup[], key: SortKey, name: (s: SessionSummary) => string): ResultGroup[] {
  const cmp = sessionOrder(key, name);
  if (!cmp) return groups;
  const sorted = groups.map((g) => ({ ...g, sessions: [...g.sessions].sort(cmp) }));
  if (key === 'name') {
    return sorted.sort((a, b) =>
      a.group.workingDirectory.localeCompare(b.group.workingDirectory, undefined, { numeric: true }),
    );
  }
  return sorted.sort((a, b) => (a.sessions[0] && b.sessions[0] ? cmp(a.sessions[0], b.sessions[0]) : 0));
}

/** The order a list was last shown in (kept across starts under `storageKey`). */
export function rememberedSort(storageKey: string): SortKey {
  const v = globalThis.localStorage?.getItem(storageKey);
  return SORTS.find((o) => o.key === v)?.key ?? 'recent';
}

export function rememberSort(storageKey: string, key: SortKey): void {
  if (key === 'recent') globalThis.localStorage?.removeItem(storageKey);
  else globalThis.localStorage?.setItem(storageKey, key);
}

/** All Chats' count. With words typed, the conversations' matches are counted apart
 * (ContentResults), so this says what it counts: "0 sessions match by name or folder" beside
 * "3 matches in 2 sessions" reads right, where "0 sessions match" read as a contradiction. */
export function matchCountLine(sessions: number, folders: number, byWords: boolean): string {
  return (
    `${formatCount(sessions, 'session')} ${sessions === 1 ? 'matches' : 'match'}` +
    `${byWords ? ' by name or folder' : ''} · ${formatCount(folders, 'folder')}`
  );
}

/** A line of All Chats' list: a folder's header, or one of its sessions (`rowIndex` into `rows`). */
export type ChatLine =
  | { kind: 'header'; group: DirectoryGroup; shown: number; collapsed: boolean }
  | { kind: 'row'; session: SessionSummary; group: DirectoryGroup; rowIndex: number };

/** All Chats' lines for `groups` (a folder in `collapsed` shows its header only), and its session
 * rows in order, each with its line's index (the keyboard's cursor walks the rows). */
export function chatLines(
  groups: ResultGroup[],
  collapsed: Record<string, boolean>,
): { items: ChatLine[]; rows: { session: SessionSummary; item: number }[] } {
  const items: ChatLine[] = [];
  const rows: { session: SessionSummary; item: number }[] = [];
  for (const g of groups) {
    const isCollapsed = !!collapsed[g.group.workingDirectory];
    items.push({ kind: 'header', group: g.group, shown: g.sessions.length, collapsed: isCollapsed });
    if (isCollapsed) continue;
    for (const s of g.sessions) {
      rows.push({ session: s, item: items.length });
      items.push({ kind: 'row', session: s, group: g.group, rowIndex: rows.length - 1 });
    }
  }
  return { items, rows };
}
