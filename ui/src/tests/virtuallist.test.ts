import { render, screen } from '@testing-library/svelte';
import { createRawSnippet, tick } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import VirtualList from '../lib/components/VirtualList.svelte';

const row = createRawSnippet((item: () => number) => ({
  render: () => `<div class="r" data-testid="vrow">${item()}</div>`,
}));

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
    const items = Array.from({ length: 5000 }, (_, i) => i);
    render(VirtualList<number>, { items, heightOf: () => 40, keyOf: (i: number) => String(i), row });
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
    const shown = screen.getAllByTestId('vrow').map((r) => Number(r.textContent));
    expect(Math.min(...shown) * 40).toBeLessThanOrEqual(top);
    expect(Math.max(...shown) * 40).toBeGreaterThanOrEqual(top);
  });
});
