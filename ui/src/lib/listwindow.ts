// Which rows of a virtual list are drawn: the arithmetic of VirtualList.svelte, kept pure so it can
// be tested without a browser.

/** Rows per block: the drawn window's ends move in whole blocks, so most scroll events leave it
 *  where it was. */
export const BLOCK = 8;
/** Most extra pixels drawn ahead of a fast scroll, in viewports. */
export const MAX_LEAD_VIEWPORTS = 3;

/** Index of the item covering `y` (`offsets[i]` is item i's top; `offsets[n]` the total height). */
export function indexAt(offsets: ArrayLike<number>, y: number): number {
  const n = offsets.length - 1;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1] <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The rows to draw for a viewport of height `viewH` scrolled to `top`: a viewport beyond each edge,
 *  plus `lead` pixels ahead (> 0: below, < 0: above, at most {@link MAX_LEAD_VIEWPORTS} viewports),
 *  widened to whole {@link BLOCK}s. `last` is exclusive.
 *
 *  Given `minHeight` (the shortest row's), the window holds a number of rows that depends only on
 *  the pixels to cover, not on where the ends fall: as the list scrolls, a block leaves at one end
 *  when one enters at the other, so the rows entering can take the elements of those leaving
 *  (without it, the two ends cross block boundaries at different moments and the window grows
 *  and shrinks by a block, dropping elements to make them again). */
export function windowRange(
  offsets: ArrayLike<number>,
  top: number,
  viewH: number,
  lead = 0,
  minHeight = 0,
): { first: number; last: number } {
  const n = offsets.length - 1;
  if (n <= 0) return { first: 0, last: 0 };
  const maxLead = MAX_LEAD_VIEWPORTS * viewH;
  const ahead = Math.max(-maxLead, Math.min(maxLead, lead));
  const from = top - viewH + Math.min(0, ahead);
  const to = top + 2 * viewH + Math.max(0, ahead);
  const first = Math.floor(indexAt(offsets, Math.max(0, from)) / BLOCK) * BLOCK;
  if (minHeight > 0) {
    // Enough rows to reach `to` from a block start up to BLOCK - 1 rows above `from`.
    const rows = Math.ceil((to - from) / minHeight) + BLOCK + 1;
    return { first, last: Math.min(n, first + Math.ceil(rows / BLOCK) * BLOCK) };
  }
  const last = Math.min(n, (Math.floor(indexAt(offsets, to) / BLOCK) + 1) * BLOCK);
  return { first, last };
}
