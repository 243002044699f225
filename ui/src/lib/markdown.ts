// A small, safe Markdown renderer. Every character of the source is HTML-escaped FIRST; only then
// are a limited set of constructs (code blocks, inline code, headings, lists, quotes, emphasis,
// links, rules, tables) turned into tags that this module writes itself. No attribute value
// ever comes from the source except link URLs, which must be http(s) and are escaped. The result
// can therefore never contain a <script>, an event handler or any tag the source supplied.

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const MAX_RENDER = 200_000;

/** Inline markup on an already-escaped line. Code spans are protected from further rules. */
function inline(escaped: string): string {
  const codes: string[] = [];
  let s = escaped.replace(/`([^`]+)`/g, (_m, c: string) => {
    codes.push(`<code>${c}</code>`);
    return `\u0000${codes.length - 1}\u0000`;
  });
  // Links [text](http...) — the URL is already escaped; only http(s) is accepted.
  s = s.replace(
    /\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g,
    (_m, text: string, url: string) =>
      `<a href="${url}" target="_blank" rel="noopener noreferrer" title="${url}">${text}</a>`,
  );
  // Other targets (relative file paths, anything else) are shown as text, the target on hover.
  s = s.replace(
    /\[([^\]]+)\]\(([^\s)]+)\)/g,
    (_m, text: string, target: string) => `<span class="md-ref" title="${target}">${text}</span>`,
  );
  s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  s = s.replace(/__([^_]+)__/g, '<strong>$1</strong>');
  s = s.replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>');
  s = s.replace(/(^|[\s(])_([^_\s][^_]*)_(?=[\s).,;:!?]|$)/g, '$1<em>$2</em>');
  s = s.replace(/~~([^~]+)~~/g, '<del>$1</del>');
  s = s.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => codes[Number(i)] ?? '');
  return s;
}

type ListItem = { text: string; depth: number; ordered: boolean; start: number };

/** Renders list items with depths as properly nested <ul>/<ol> elements. */
function renderList(items: ListItem[]): string {
  let html = '';
  const stack: { tag: string; depth: number }[] = [];
  for (const it of items) {
    while (stack.length && stack[stack.length - 1].depth > it.depth) html += `</li></${stack.pop()!.tag}>`;
    const top = stack[stack.length - 1];
    if (!top || it.depth > top.depth) {
      const tag = it.ordered ? 'ol' : 'ul';
      // `start` is digits parsed from the source, never source text.
      html += it.ordered && it.start !== 1 ? `<ol start="${it.start}">` : `<${tag}>`;
      stack.push({ tag, depth: it.depth });
    } else {
      html += '</li>';
    }
    html += `<li>${inline(escapeHtml(it.text))}`;
  }
  while (stack.length) html += `</li></${stack.pop()!.tag}>`;
  return html;
}

export function renderMarkdown(src: string): string {
  let text = src ?? '';
  let clipped = false;
  if (text.length > MAX_RENDER) {
    text = text.slice(0, MAX_RENDER);
    clipped = true;
  }
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let para: string[] = [];
  let list: ListItem[] | null = null;
  let quote: string[] = [];

  const flushPara = () => {
    if (para.length) out.push(`<p>${para.map((l) => inline(escapeHtml(l))).join('<br>')}</p>`);
    para = [];
  };
  const flushList = () => {
    if (list) out.push(renderList(list));
    list = null;
  };
  const flushQuote = () => {
    if (quote.length) out.push(`<blockquote>${quote.map((l) => inline(escapeHtml(l))).join('<br>')}</blockquote>`);
    quote = [];
  };
  const flushAll = () => {
    flushPara();
    flushList();
    flushQuote();
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)\s*([\w+.#-]*)\s*$/.exec(line);
    if (fence) {
      flushAll();
      const code: string[] = [];
      i++;
      while (i < lines.length && !new RegExp('^\\s*' + fence[1]).test(lines[i])) {
        code.push(lines[i]);
        i++;
      }
      const lang = fence[2] ? escapeHtml(fence[2]) : '';
      out.push(
        `<div class="code-block">${lang ? `<span class="code-lang">${lang}</span>` : ''}` +
          `<button type="button" class="code-copy" data-copy-code>Copy</button>` +
          `<pre><code>${escapeHtml(code.join('\n'))}</code></pre></div>`,
      );
      continue;
    }
    if (/^\s*$/.test(line)) {
      flushAll();
      continue;
    }
    // GFM table: a header row, a |---| separator, then rows.
    if (
      /^\s*\|.*\|\s*$/.test(line) &&
      i + 1 < lines.length &&
      /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(lines[i + 1])
    ) {
      flushAll();
      const cells = (l: string) =>
        l
          .trim()
          .replace(/^\|/, '')
          .replace(/\|$/, '')
          .split('|')
          .map((c) => inline(escapeHtml(c.trim())));
      const head = cells(line);
      const rows: string[][] = [];
      i += 2;
      while (i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i])) {
        rows.push(cells(lines[i]));
        i++;
      }
      i--;
      out.push(
        `<div class="md-table"><table><thead><tr>${head.map((c) => `<th>${c}</th>`).join('')}</tr></thead>` +
          `<tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`,
      );
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      flushAll();
      const level = Math.min(h[1].length + 2, 6); // keep headings modest inside a chat bubble
      out.push(`<h${level}>${inline(escapeHtml(h[2]))}</h${level}>`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flushAll();
      out.push('<hr>');
      continue;
    }
    const q = /^\s*>\s?(.*)$/.exec(line);
    if (q) {
      flushPara();
      flushList();
      quote.push(q[1]);
      continue;
    }
    const ul = /^(\s*)[-*+]\s+(.*)$/.exec(line);
    const ol = /^(\s*)(\d{1,9})[.)]\s+(.*)$/.exec(line);
    if (ul || ol) {
      flushPara();
      flushQuote();
      const indent = ((ul ?? ol)![1] ?? '').replace(/\t/g, '    ').length;
      const item: ListItem = ul
        ? { text: ul[2], depth: Math.min(3, Math.floor(indent / 2)), ordered: false, start: 1 }
        : { text: ol![3], depth: Math.min(3, Math.floor(indent / 2)), ordered: true, start: Number(ol![2]) };
      if (list && item.depth === 0 && list[0].ordered !== item.ordered) flushList();
      (list ??= []).push(item);
      continue;
    }
    if (list && /^\s{2,}\S/.test(line)) {
      list[list.length - 1].text += ' ' + line.trim();
      continue;
    }
    flushList();
    flushQuote();
    para.push(line);
  }
  flushAll();
  if (clipped) out.push('<p class="md-clipped">… (message clipped for display)</p>');
  return out.join('');
}
