import { describe, expect, it } from 'vitest';
import { message, toolCall } from './fixtures';
import { coalesced, keyedMessages, mergeNewer, prependPage, withRewinds } from '../lib/pages';
import type { MessagePage, RewindMark } from '../lib/types';

const page = (rewinds: RewindMark[]): MessagePage =>
  ({ messages: [], earlierCursor: null, laterCursor: null, rewinds }) as unknown as MessagePage;
const mark = (at: number, branch: number): RewindMark => ({ at, branch }) as unknown as RewindMark;

describe('transcript pages', () => {
  it('an earlier page goes in front, without repeats, dropping the newest past the limit', () => {
    const shown = [message(3), message(4)];
    const joined = prependPage(shown, [message(1), message(2), message(3)], 10);
    expect(joined.messages.map((m) => m.offset)).toEqual([
      message(1).offset,
      message(2).offset,
      message(3).offset,
      message(4).offset,
    ]);
    expect(joined.dropped).toBe(false);
    const capped = prependPage(shown, [message(1), message(2)], 3);
    expect(capped.messages).toHaveLength(3);
    expect(capped.dropped).toBe(true);
  });

  it('newer pages update what changed and append only what is new', () => {
    const call = message(2, { toolCall: toolCall({ toolUseId: 't1' }) });
    const shown = [message(1), call];
    const finished = { ...call, content: 'done' };
    const merged = mergeNewer(shown, [finished, message(3)], call.offset);
    expect(merged).toHaveLength(3);
    expect(merged[1].content).toBe('done');
    expect(merged[2].offset).toBe(message(3).offset);
  });

  it('repeated keys stay unique', () => {
    const m = message(1);
    expect(keyedMessages([m, m]).map((x) => x.k)).toEqual([expect.any(String), expect.stringMatching(/#1$/)]);
  });

  it('rewound branches gather by the prompt that replaced them; a page without any changes nothing', () => {
    const first = withRewinds(new Map(), page([mark(10, 1)]));
    const same = withRewinds(first, page([]));
    expect(same).toBe(first);
    const more = withRewinds(first, page([mark(10, 2), mark(10, 1)]));
    expect(more.get(10)?.map((r) => r.branch)).toEqual([2, 1]);
    expect(withRewinds(more, page([]), true).size).toBe(0);
  });

  it('a coalesced run that is asked again while running runs exactly once more', async () => {
    let runs = 0;
    let release: () => void = () => {};
    const run = coalesced(async () => {
      runs++;
      if (runs === 1) await new Promise<void>((r) => (release = r));
    });
    const first = run();
    void run();
    void run();
    release();
    await first;
    expect(runs).toBe(2);
  });
});
