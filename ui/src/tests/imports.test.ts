import { describe, expect, it } from 'vitest';

// Every module of the app (not the tests or the generated bindings), as text, to read its imports.
const sources = import.meta.glob<string>(['../**/*.{ts,svelte}', '!../tests/**', '!../lib/bindings/**'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

/** The relative modules `file` imports (type-only imports too: a circle of types is still a
 *  circle a reader has to untangle). */
function importsOf(file: string, text: string): string[] {
  const dir = file.split('/').slice(0, -1);
  const out: string[] = [];
  for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)) {
    const spec = m[1] ?? m[2];
    const parts = [...dir];
    for (const p of spec.split('/')) {
      if (p === '..') parts.pop();
      else if (p !== '.') parts.push(p);
    }
    const base = parts.join('/');
    const found = [base, `${base}.ts`, `${base}.svelte`, `${base}/index.ts`].find((c) => c in sources);
    if (found) out.push(found);
  }
  return out;
}

describe('the UI modules', () => {
  it('import one another without a circle', () => {
    const graph = new Map(Object.entries(sources).map(([f, t]) => [f, importsOf(f, t)]));
    expect(graph.size).toBeGreaterThan(60);
    const edges = [...graph.values()].reduce((n, e) => n + e.length, 0);
    expect(edges).toBeGreaterThan(100);
    const state = new Map<string, 'open' | 'done'>();
    const circles: string[] = [];
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') {
        circles.push([...path.slice(path.indexOf(f)), f].join(' → '));
        return;
      }
      state.set(f, 'open');
      for (const g of graph.get(f) ?? []) visit(g, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of graph.keys()) visit(f, []);
    expect(circles).toEqual([]);
  });

  it('keep each component under 400 lines', () => {
    const long = Object.entries(sources)
      .filter(([f]) => f.endsWith('.svelte'))
      .map(([f, text]) => [f, text.split('\n').length] as const)
      .filter(([, n]) => n > 400);
    expect(long).toEqual([]);
  });

  it('give components their data through the modules by concern, not from api.ts', () => {
    // What a component may take from api.ts: platform helpers, not the backend's data.
    const helpers = new Set(['toAppError', 'copyText', 'pickPaths', 'revealPath']);
    const misuse: string[] = [];
    for (const [file, text] of Object.entries(sources)) {
      if (!file.includes('/components/')) continue;
      for (const m of text.matchAll(/import\s+(\*\s+as\s+\w+|\{[^}]*\})\s+from\s+'[./]*\/api'/g)) {
        const names = m[1].startsWith('*')
          ? ['*']
          : m[1]
              .slice(1, -1)
              .split(',')
              .map((n) => n.trim());
        for (const n of names) if (n && !helpers.has(n)) misuse.push(`${file}: ${n}`);
      }
    }
    expect(misuse).toEqual([]);
  });
});
