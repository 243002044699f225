import { render, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import VirtualRows, { made } from './VirtualRows.svelte';

/** `n` rows, every tenth a header (kind `h`) when `headers`. */
const rowsOf = (n: number, headers = false) =>
  Array.from({ length: n }, (_, id) => ({ id, kind: headers && id % 10 === 0 ? 'h' : 's' }));
const shownIds = () => screen.getAllByTestId('vrow').map((r) => Number(r.textContent));

/** Scrolls the viewport to `top` as the browser would: the position, then a scroll event. */
async function scrollTo(el: HTMLElement, top: number) {
  Object.defineProperty(el, 'scrollTop', { value: top, configurable: true });
  el.dispatchEvent(new Event('scroll'));
  await tick();
}

describe('VirtualList', () => {
  afterEach(() => vi.useRealTimers());

  it('draws ahead of a fast scroll, and only near the viewport once scrolling stops', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    render(VirtualRows, { items: rowsOf(5000) });
    const viewport = screen.getByTestId('virtual-list');
    expect(viewport.dataset.count).toBe('5000');
    const atRest = screen.getAllByTestId('vrow').length;
    expect(atRest).toBeGreaterThan(0);
    expect(atRest).toBeLessThan(100);

    // A fast scroll: 2,000 px every 16 ms.
    let top = 0;
    for (let i = 0; i < 5; i++) {
      vi.advanceTimersByTime(16);
      top += 2000;
      await scrollTo(viewport, top);
    }
    const moving = screen.getAllByTestId('vrow').length;
    expect(moving).toBeGreaterThan(atRest);
    const first = Number(screen.getAllByTestId('vrow')[0].textContent);
    expect(first).toBeGreaterThan(0);

    // At rest again: the lead is dropped and the window is back to its size at rest.
    await vi.advanceTimersByTimeAsync(300);
    await tick();
    // A viewport (800 px in jsdom) on each side of the one shown, rounded out to blocks of 8 rows.
    const settled = screen.getAllByTestId('vrow').length;
    expect(settled).toBeLessThanOrEqual((3 * 800) / 40 + 16);
    expect(settled).toBeLessThan(moving);
    const shown = shownIds();
    expect(Math.min(...shown) * 40).toBeLessThanOrEqual(top);
    expect(Math.max(...shown) * 40).toBeGreaterThanOrEqual(top);
  });

  it('reuses the elements of rows that leave for rows that enter, each for rows of its own kind', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    // A header every 8 rows: the rows leaving a window moved by a block are of the same kinds as
    // those entering it.
    const items = Array.from({ length: 3000 }, (_, id) => ({ id, kind: id % 8 === 0 ? 'h' : 's' }));
    render(VirtualRows, { items, byKind: true });
    const viewport = screen.getByTestId('virtual-list');
    let top = 3200;
    await scrollTo(viewport, top);
    await vi.advanceTimersByTimeAsync(300);
    const madeBefore = (made.h ?? 0) + (made.s ?? 0);
    const staying = screen.getAllByTestId('vrow').find((r) => r.textContent === String(top / 40 + 10));
    // A slow scroll through 400 rows, a block (8 rows of 40 px) at a time.
    for (let i = 0; i < 50; i++) {
      top += 320;
      await scrollTo(viewport, top);
      await vi.advanceTimersByTimeAsync(300);
      if (i === 0)
        expect(screen.getAllByTestId('vrow').find((r) => r.textContent === String(3200 / 40 + 10))).toBe(staying);
    }
    // Every element shows a row of the window, drawn by its kind's branch, each row once.
    const shown = shownIds();
    expect(Math.min(...shown) * 40).toBeLessThanOrEqual(top);
    expect(Math.max(...shown) * 40).toBeGreaterThanOrEqual(top + 800);
    for (const r of screen.getAllByTestId('vrow')) expect(r.dataset.kind).toBe(items[Number(r.textContent)].kind);
    expect(new Set(shown).size).toBe(shown.length);
    // 400 rows went by, and no element was made: each entering row took one a leaving row left.
    expect((made.h ?? 0) + (made.s ?? 0) - madeBefore).toBe(0);
  });
});
