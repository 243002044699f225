import '@testing-library/jest-dom/vitest';

// jsdom lacks these; components use them for layout and scrolling.
if (!('ResizeObserver' in globalThis)) {
  class RO {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
  (globalThis as unknown as { ResizeObserver: unknown }).ResizeObserver = RO;
}
if (!Element.prototype.scrollIntoView) Element.prototype.scrollIntoView = function () {};
if (!window.matchMedia) {
  window.matchMedia = ((q: string) => ({
    matches: false,
    media: q,
    onchange: null,
    addListener() {},
    removeListener() {},
    addEventListener() {},
    removeEventListener() {},
    dispatchEvent: () => false,
  })) as unknown as typeof window.matchMedia;
}

import { cleanup } from '@testing-library/svelte';
import { afterEach } from 'vitest';
afterEach(() => cleanup());

// A busy machine (CI builds Rust alongside) can be slow to render: wait up to 5 s by default
// instead of vitest's 1 s, so tests fail on behaviour, not on load.
import { vi } from 'vitest';
const waitFor = vi.waitFor.bind(vi);
(vi as { waitFor: typeof vi.waitFor }).waitFor = ((
  cb: Parameters<typeof vi.waitFor>[0],
  opts?: Parameters<typeof vi.waitFor>[1],
) => waitFor(cb, typeof opts === 'number' ? opts : { timeout: 5000, ...(opts ?? {}) })) as typeof vi.waitFor;

// jsdom has no PointerEvent: a MouseEvent with a pointer id stands in, so a drag carries its
// coordinates and button as in a browser.
if (typeof window !== 'undefined' && !('PointerEvent' in window)) {
  class PointerEventShim extends MouseEvent {
    pointerId: number;
    constructor(type: string, init: PointerEventInit = {}) {
      super(type, init);
      this.pointerId = init.pointerId ?? 1;
    }
  }
  Object.defineProperty(window, 'PointerEvent', { value: PointerEventShim, configurable: true });
}
