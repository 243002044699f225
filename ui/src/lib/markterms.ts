// Marking the matched words of a search hit in rendered text.

/** Wraps each occurrence of the words in `el`'s text in `<mark class="term">` (text already
 * marked is left as it is, so marking twice marks once). */
export function markTerms(el: HTMLElement, terms: string[]) {
  // Longest first, so a word is marked whole rather than by a shorter word it starts with.
  const words = [...new Set(terms.map((t) => t.trim()).filter((t) => t.length > 0))].sort(
    (a, b) => b.length - a.length,
  );
  if (!words.length) return;
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const re = new RegExp(escaped.join('|'), 'gi');
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
  for (const node of nodes) {
    if (node.parentElement?.closest('mark.term')) continue;
    const text = node.data;
    re.lastIndex = 0;
    if (!re.test(text)) continue;
    re.lastIndex = 0;
    const frag = document.createDocumentFragment();
    let at = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m.index > at) frag.append(text.slice(at, m.index));
      const mark = document.createElement('mark');
      mark.className = 'term';
      mark.textContent = m[0];
      frag.append(mark);
      at = m.index + m[0].length;
      if (!m[0].length) re.lastIndex++;
    }
    if (at < text.length) frag.append(text.slice(at));
    node.replaceWith(frag);
  }
}

/** Marks the words in every message of `list` not marked for them yet (a find shows every match
 * on screen, not only the current one). */
export function markAll(list: HTMLElement, terms: string[]) {
  const key = terms.join('\u0000');
  for (const m of list.querySelectorAll<HTMLElement>('[data-testid="message"]')) {
    if (m.dataset.marked === key) continue;
    markTerms(m, terms);
    m.dataset.marked = key;
  }
}

/** Whether any of the words occurs in one of `texts` (case-insensitive). */
export function mentions(texts: (string | null | undefined)[], terms: string[] | null | undefined): boolean {
  const words = (terms ?? []).map((t) => t.trim().toLowerCase()).filter(Boolean);
  return words.length > 0 && texts.some((t) => !!t && words.some((w) => t.toLowerCase().includes(w)));
}
