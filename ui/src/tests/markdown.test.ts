import { render } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import Markdown from '../lib/components/Markdown.svelte';
import MessageView from '../lib/components/MessageView.svelte';
import { renderMarkdown } from '../lib/markdown';
import { message } from './fixtures';

const hostile =
  'Look: <img src=x onerror=alert(1)> and <script>alert("xss")</script> and <a href="javascript:alert(1)">x</a> [y](javascript:alert(2))';

describe('Markdown rendering is safe', () => {
  it('renders raw HTML from a transcript as text, creating no img, script or link elements', () => {
    const { container } = render(Markdown, { text: hostile });
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('a')).toBeNull();
    expect(container.querySelector('[onerror]')).toBeNull();
    expect(container.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(container.textContent).toContain('<script>alert("xss")</script>');
  });

  it('keeps HTML inside code blocks and inline code as text too', () => {
    const { container } = render(Markdown, {
      text: '```html\n<img src=x onerror=alert(1)>\n```\nand `<script>1</script>`',
    });
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('pre')?.textContent).toBe('<img src=x onerror=alert(1)>');
    expect(container.querySelector('p code')?.textContent).toBe('<script>1</script>');
  });

  it('a user message with hostile HTML renders as text in the transcript', () => {
    const { container } = render(MessageView, {
      message: message(0, { content: hostile }),
    });
    expect(container.querySelector('img, script')).toBeNull();
    expect(container.textContent).toContain('onerror=alert(1)');
  });

  it('quotes in link URLs cannot break out of the attribute', () => {
    const html = renderMarkdown('[x](https://e.com/"onmouseover="alert(1))');
    const div = document.createElement('div');
    div.innerHTML = html;
    const a = div.querySelector('a');
    expect(a?.getAttribute('onmouseover')).toBeNull();
    expect([...(a?.attributes ?? [])].map((x) => x.name).sort()).toEqual(['href', 'rel', 'target', 'title']);
  });

  it('renders the supported Markdown subset', () => {
    const { container } = render(Markdown, {
      text: '# Title\n\n**bold** and *it* and `code`\n\n- one\n- two\n\n1. first\n\n> quoted\n\n[docs](https://example.com)',
    });
    expect(container.querySelector('h3')?.textContent).toBe('Title');
    expect(container.querySelector('strong')?.textContent).toBe('bold');
    expect(container.querySelector('em')?.textContent).toBe('it');
    expect(container.querySelectorAll('ul li')).toHaveLength(2);
    expect(container.querySelectorAll('ol li')).toHaveLength(1);
    expect(container.querySelector('blockquote')?.textContent).toBe('quoted');
    expect(container.querySelector('a')?.getAttribute('href')).toBe('https://example.com');
  });

  it('renders GFM tables, escaping cell content', () => {
    const { container } = render(Markdown, {
      text: '| Tool | Result |\n|---|:---:|\n| `Bash` | <img src=x onerror=alert(1)> |\n| Read | **ok** |\n\nafter',
    });
    expect(container.querySelectorAll('th')).toHaveLength(2);
    expect(container.querySelectorAll('tbody tr')).toHaveLength(2);
    expect(container.querySelector('td code')?.textContent).toBe('Bash');
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelectorAll('td')[1].textContent).toBe('<img src=x onerror=alert(1)>');
    expect(container.querySelector('p')?.textContent).toBe('after');
  });

  it('nests lists, keeps ordered numbering across nested bullets, and shows relative links as text', () => {
    const { container } = render(Markdown, {
      text: '1. **[recorder.js](js/lib/recorder.js)** - first\n   - detail a\n   - detail b\n2. second\n   - deeper\n     - deepest\n3. third',
    });
    const ol = container.querySelector('ol')!;
    expect(ol.children).toHaveLength(3);
    expect([...ol.children].every((li) => li.tagName === 'LI')).toBe(true);
    expect(ol.children[0].querySelectorAll(':scope > ul > li')).toHaveLength(2);
    expect(ol.children[1].querySelector('ul ul li')?.textContent).toBe('deepest');
    expect(container.querySelector('a')).toBeNull();
    const ref = container.querySelector('.md-ref')!;
    expect(ref.textContent).toBe('recorder.js');
    expect(ref.getAttribute('title')).toBe('js/lib/recorder.js');
  });

  it('continues numbering from the source', () => {
    const { container } = render(Markdown, { text: '3. three\n4. four' });
    expect(container.querySelector('ol')?.getAttribute('start')).toBe('3');
  });

  it('a hostile relative link target stays inside its attribute', () => {
    const { container } = render(Markdown, { text: '[x](a"onmouseover="alert(1))' });
    const ref = container.querySelector('.md-ref');
    expect(container.querySelector('[onmouseover]')).toBeNull();
    expect(ref === null || ref.getAttribute('onmouseover') === null).toBe(true);
  });
});

describe('what the person typed', () => {
  it('keeps its indentation and line breaks, and is never read as Markdown', () => {
    const pasted = 'Fix this:\n    def f():\n        return 1\n\n* not a list\u2028second line';
    const { getByTestId, container } = render(MessageView, {
      message: message(0, { content: pasted }),
    });
    expect(getByTestId('typed').textContent).toBe(pasted.replace('\u2028', '\n'));
    expect(container.querySelector('ul, li, pre code')).toBeNull();
  });
});
