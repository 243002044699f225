// What the session lists (All Chats, Fleet) share of their keyboard model: the list keeps the
// focus and a cursor row; a row's check and its menu are reached from the cursor, never by Tab.

/** The selection after the check of row `i` of `ids` was clicked (Shift: the range from
 * `anchor`, all ticked), and the anchor the next Shift-click ranges from. */
export function toggleRange(
  selected: readonly string[],
  ids: readonly string[],
  i: number,
  anchor: number | null,
  shift: boolean,
): { selected: string[]; anchor: number | null } {
  const set = new Set(selected);
  const id = ids[i];
  if (id === undefined) return { selected: [...set], anchor };
  if (shift && anchor !== null) {
    const [a, b] = anchor < i ? [anchor, i] : [i, anchor];
    for (let k = a; k <= b; k++) if (ids[k] !== undefined) set.add(ids[k]);
    return { selected: [...set], anchor };
  }
  if (set.has(id)) set.delete(id);
  else set.add(id);
  return { selected: [...set], anchor: i };
}

/** The keyboard asks for a context menu (the Menu key, Shift+F10). */
export function isMenuKey(e: KeyboardEvent): boolean {
  return e.key === 'ContextMenu' || (e.shiftKey && e.key === 'F10');
}

/** Opens the menu of the row showing `sessionId` inside `container`, under the row. */
export function openRowMenu(container: HTMLElement | null, sessionId: string): void {
  const el = container?.querySelector<HTMLElement>(`[data-session-id="${CSS.escape(sessionId)}"]`);
  const r = el?.getBoundingClientRect();
  el?.dispatchEvent(
    new MouseEvent('contextmenu', { bubbles: true, clientX: (r?.left ?? 0) + 24, clientY: r?.bottom ?? 0 }),
  );
}
