import { describe, expect, it } from 'vitest';
import { BLOCK, MAX_LEAD_VIEWPORTS, indexAt, windowRange } from '../lib/listwindow';

/** Offsets of `n` rows of height `h`. */
function rows(n: number, h = 46): Float64Array {
  const o = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) o[i + 1] = o[i] + h;
  return o;
}

describe('the drawn window of a virtual list', () => {
  it('finds the row under a point, rows of any height', () => {
    const o = new Float64Array([0, 58, 104, 150, 208]);
    expect(indexAt(o, 0)).toBe(0);
    expect(indexAt(o, 57.9)).toBe(0);
    expect(indexAt(o, 58)).toBe(1);
    expect(indexAt(o, 207)).toBe(3);
    expect(indexAt(o, 10_000)).toBe(4);
  });

  it('covers a viewport beyond each edge, in whole blocks', () => {
    const o = rows(10_000);
    const view = 800;
    const top = 46 * 5000;
    const { first, last } = windowRange(o, top, view);
    expect(first % BLOCK).toBe(0);
    expect(last % BLOCK).toBe(0);
    expect(o[first]).toBeLessThanOrEqual(top - view);
    expect(o[last]).toBeGreaterThanOrEqual(top + 2 * view);
    // Not much more than three viewports.
    expect(last - first).toBeLessThan((3 * view) / 46 + 2 * BLOCK);
  });

  it('stays put while a small scroll stays inside a block', () => {
    const o = rows(10_000);
    const changes = new Set<string>();
    for (let dy = 0; dy <= 46 * BLOCK; dy++) {
      const r = windowRange(o, 46 * 4000 + dy, 800);
      changes.add(`${r.first}:${r.last}`);
    }
    // Over one block's worth of pixels the window moves at most once at each end.
    expect(changes.size).toBeLessThanOrEqual(3);
  });

  it('reaches further ahead of a fast scroll, in its direction, bounded', () => {
    const o = rows(10_000);
    const still = windowRange(o, 46 * 5000, 800);
    const down = windowRange(o, 46 * 5000, 800, 1600);
    const up = windowRange(o, 46 * 5000, 800, -1600);
    expect(down.last).toBeGreaterThan(still.last);
    expect(down.first).toBe(still.first);
    expect(up.first).toBeLessThan(still.first);
    expect(up.last).toBe(still.last);
    const wild = windowRange(o, 46 * 5000, 800, 1e9);
    expect(o[wild.last] - 46 * 5000).toBeLessThanOrEqual((2 + MAX_LEAD_VIEWPORTS) * 800 + BLOCK * 46);
  });

  it('is clamped at both ends and empty for an empty list', () => {
    const o = rows(20);
    expect(windowRange(o, 0, 800)).toEqual({ first: 0, last: 20 });
    expect(windowRange(rows(0), 0, 800)).toEqual({ first: 0, last: 0 });
  });

  it('given the shortest row, holds as many rows wherever the list stands, and covers the viewports', () => {
    // Rows of 46 px with a taller header (58 px) every 10 rows, as in All Chats.
    const heights = Array.from({ length: 5000 }, (_, i) => (i % 10 === 0 ? 58 : 46));
    const o = new Float64Array(heights.length + 1);
    heights.forEach((h, i) => (o[i + 1] = o[i] + h));
    const sizes = new Set<number>();
    for (let top = 2000; top < 40_000; top += 17) {
      const { first, last } = windowRange(o, top, 800, 0, 46);
      sizes.add(last - first);
      expect(first % BLOCK).toBe(0);
      expect(o[first]).toBeLessThanOrEqual(top - 800);
      expect(o[last]).toBeGreaterThanOrEqual(top + 1600);
    }
    expect([...sizes]).toHaveLength(1);
    // Not much more than the window without it.
    expect([...sizes][0]).toBeLessThanOrEqual((3 * 800) / 46 + 2 * BLOCK);
    // At the end of the list it stops at the last row.
    expect(windowRange(o, o[5000] - 800, 800, 0, 46).last).toBe(5000);
  });
});
