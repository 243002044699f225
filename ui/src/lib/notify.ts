// Desktop notifications for sessions that start waiting on their owner (off unless turned on in
// Settings). Which sessions are new to "waiting" is a pure function of two looks at the live
// states, so a session waiting for an hour notifies once, not at every poll.
import type { LiveStatus } from './types';

/** The sessions waiting in `next` that were not waiting in `prev`. */
export function newlyWaiting(
  prev: ReadonlyMap<string, LiveStatus>,
  next: ReadonlyMap<string, LiveStatus>,
): LiveStatus[] {
  return [...next.values()].filter((s) => s.state === 'waiting' && prev.get(s.sessionId)?.state !== 'waiting');
}

/** Text from a transcript, made safe for a notification body: some notification servers read
 *  markup, so `<`, `>` and `&` become look-alikes; control characters go; long text is cut. */
export function plainNotificationText(text: string, max = 120): string {
  const safe = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/</g, '‹')
    .replace(/>/g, '›')
    .replace(/&/g, '＆')
    .trim();
  return safe.length > max ? `${safe.slice(0, max - 1)}…` : safe;
}

/** The notification for a session that started waiting: its name, and why (the evidence). */
export function waitingNotification(status: LiveStatus, name: string): { title: string; body: string } {
  const why = status.why.split('; ').pop() ?? '';
  return {
    title: `Waiting on you: ${plainNotificationText(name, 80)}`,
    body: plainNotificationText(why),
  };
}
