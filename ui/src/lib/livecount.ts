// "2 running · 1 waiting": the live sessions among some sessions, in words (empty when none).
import type { LiveStatus } from './types';

export function liveSummary(live: ReadonlyMap<string, LiveStatus>, sessionIds: Iterable<string>): string {
  if (!live.size) return '';
  const n = { running: 0, waiting: 0, idle: 0 };
  for (const id of sessionIds) {
    const st = live.get(id)?.state;
    if (st === 'running' || st === 'waiting' || st === 'idle') n[st]++;
  }
  return [n.running && `${n.running} running`, n.waiting && `${n.waiting} waiting`, n.idle && `${n.idle} idle`]
    .filter(Boolean)
    .join(' · ');
}
