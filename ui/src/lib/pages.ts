// How the pages of a transcript join into the list the viewer shows: keys that stay stable while
// messages update, earlier pages put in front, newer ones merged at the end, and the rewound
// branches each page reports. Pure functions; MessageList holds the state.
import { daySeparators } from './format';
import type { MessagePage, RewindMark, TranscriptMessage } from './types';

/** A message's key: its line, and the tool call it carries (one line can hold several). */
export function messageKey(m: TranscriptMessage): string {
  return `${m.uuid ?? 'o' + m.offset}:${m.toolCall?.toolUseId ?? ''}`;
}

/** Each message with a key unique in the list (repeats get `#n`) and the day it starts, if it
 *  is the first of its day. */
export function keyedMessages(messages: TranscriptMessage[]) {
  const seen = new Map<string, number>();
  const days = daySeparators(messages.map((m) => m.timestamp));
  return messages.map((m, i) => {
    let k = messageKey(m);
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    if (n) k += '#' + n;
    return { k, m, day: days[i] };
  });
}

/** The rewound branches by the offset of the prompt that replaced them, with `page`'s added
 *  (`reset`: only `page`'s). The same map when the page reports none. */
export function withRewinds(
  known: Map<number, RewindMark[]>,
  page: MessagePage,
  reset = false,
): Map<number, RewindMark[]> {
  const marks = page.rewinds ?? [];
  if (!marks.length && !reset) return known;
  const next = new Map(reset ? [] : known);
  for (const r of marks) {
    const list = (next.get(r.at) ?? []).filter((x) => x.branch !== r.branch);
    next.set(r.at, [...list, r]);
  }
  return next;
}

/** An earlier page put in front of what is shown, keeping at most `maxKept` (the newest are
 *  dropped past it: `dropped`). */
export function prependPage(
  shown: TranscriptMessage[],
  page: TranscriptMessage[],
  maxKept: number,
): { messages: TranscriptMessage[]; dropped: boolean } {
  const have = new Set(shown.map((m) => m.offset));
  const next = [...page.filter((m) => !have.has(m.offset)), ...shown];
  return next.length > maxKept
    ? { messages: next.slice(0, maxKept), dropped: true }
    : { messages: next, dropped: false };
}

/** What is shown, with each message the fresh pages hold again replaced by its new state (a tool
 *  call that finished) and the messages after `lastOffset` appended. */
export function mergeNewer(
  shown: TranscriptMessage[],
  fresh: TranscriptMessage[],
  lastOffset: number,
): TranscriptMessage[] {
  const byKey = new Map(fresh.map((m) => [messageKey(m), m]));
  const updated = shown.map((m) => byKey.get(messageKey(m)) ?? m);
  const keys = new Set(shown.map(messageKey));
  const appended = fresh.filter((m) => m.offset > lastOffset && !keys.has(messageKey(m)));
  return [...updated, ...appended];
}

/** `run` one at a time: a call while it runs makes exactly one more run after it. */
export function coalesced(run: () => Promise<void>): () => Promise<void> {
  let running = false;
  let again = false;
  return async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        await run();
      } while (again);
    } finally {
      running = false;
    }
  };
}
