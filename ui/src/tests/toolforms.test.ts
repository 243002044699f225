import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { ansiHtml } from '../lib/components/AnsiText.svelte';
import ToolCallRow from '../lib/components/ToolCallRow.svelte';
import { formText, lineRange } from '../lib/components/ToolInput.svelte';
import { toolCall } from './fixtures';

async function open() {
  await fireEvent.click(screen.getByRole('button', { expanded: false }));
}

describe('tool calls in their own form', () => {
  it('an Edit is a coloured diff with its file path, not JSON', async () => {
    render(ToolCallRow, {
      call: toolCall({
        toolName: 'Edit',
        input: '{"file_path": "/p/a.rs", "old_string": "x"}',
        form: {
          kind: 'edit',
          path: '/p/a.rs',
          edits: [
            {
              replaceAll: false,
              lines: [
                { change: 'same', text: 'fn a() {' },
                { change: 'removed', text: '    1' },
                { change: 'added', text: '    2' },
              ],
            },
          ],
        },
      }),
    });
    await open();
    const diff = screen.getByTestId('edit-diff');
    const lines = [...diff.querySelectorAll('[data-change]')].map((l) => l.getAttribute('data-change'));
    expect(lines).toEqual(['same', 'removed', 'added']);
    expect(diff.textContent).toContain('    2');
    expect(screen.getByTestId('tool-form').textContent).toContain('/p/a.rs');
    expect(screen.getByTestId('tool-call').textContent).not.toContain('old_string');
  });

  it('Bash is "$ command", its output with colours drawn, never escape bytes', async () => {
    render(ToolCallRow, {
      call: toolCall({ output: '\u001b[31mFAILED\u001b[0m 1 test\n<script>alert(1)</script>' }),
    });
    await open();
    expect(screen.getByTestId('bash-command').textContent).toBe('$ cargo test');
    const out = screen.getByTestId('tool-output');
    expect(out.textContent).not.toContain('\u001b');
    expect(out.querySelector('.ansi-red-fg')!.textContent).toBe('FAILED');
    expect(out.querySelector('script')).toBeNull();
    expect(out.textContent).toContain('<script>alert(1)</script>');
  });

  it('a terminal hyperlink stays text', () => {
    const html = ansiHtml('\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007');
    expect(html).not.toContain('<a');
    expect(html).toBe('link');
  });

  it('TodoWrite is a checklist; Read says which lines; Grep its pattern and where', async () => {
    render(ToolCallRow, {
      call: toolCall({
        toolName: 'TodoWrite',
        form: {
          kind: 'todos',
          items: [
            { content: 'Write tests', status: 'completed' },
            { content: 'Ship', status: 'in_progress' },
          ],
        },
      }),
    });
    await open();
    const items = screen.getByTestId('todo-list').querySelectorAll('li');
    expect([...items].map((i) => i.classList.contains('completed'))).toEqual([true, false]);
    expect(items[1].classList.contains('in_progress')).toBe(true);
    expect(items[0].querySelector('[data-icon="check"]')).not.toBeNull();
    expect(lineRange(10, 5)).toBe('lines 10–14');
    expect(lineRange(null, 5)).toBe('the first 5 lines');
    expect(lineRange(null, null)).toBe('');
    expect(formText({ kind: 'search', pattern: 'fn main', path: 'src', glob: null })).toBe('fn main');
  });

  it('a call you rejected says so, not "error"; tool_use_error text is shown plain', async () => {
    render(ToolCallRow, {
      call: toolCall({
        isError: true,
        rejected: true,
        output: "The user doesn't want to proceed with this tool use.",
      }),
    });
    expect(screen.getByTestId('tool-call').dataset.state).toBe('rejected');
    expect(screen.getByTestId('tool-status').textContent).toContain('rejected by you');
    expect(screen.getByTestId('tool-status').textContent).not.toContain('error');
    await open();
    expect(screen.getByTestId('tool-output').classList.contains('err')).toBe(false);
  });

  it('tools without a form keep their JSON, and every block can be copied', async () => {
    render(ToolCallRow, {
      call: toolCall({ toolName: 'WebFetch', form: null, input: '{\n  "url": "https://x"\n}' }),
    });
    await open();
    expect(screen.queryByTestId('tool-form')).toBeNull();
    expect(screen.getByTestId('tool-call').textContent).toContain('"url": "https://x"');
    expect(screen.getAllByTestId('copy-block')).toHaveLength(2);
  });
});

describe('icons', () => {
  // Colour emoji need a font many Linux systems lack (they render as empty boxes): every icon is
  // a bundled SVG. Transcript text is shown as written; the app's own words carry no emoji.
  it('the UI source draws no emoji', () => {
    // Pictographs, and the symbol glyphs that stood in for icons (⊘ ✓ ⇲ ↺ ⬡ ▭ ⎇ …).
    const emoji = /[\p{Extended_Pictographic}\u2298\u2713\u21F2\u21BA\u2B21\u25AD\u2387\u25C8\u2699]/u;
    const allowed = new Set(['→', '←', '↑', '↓', '↳', '©', '®', '™', '↔', '↕']);
    // Every source file of the app (not the tests, the generated bindings or the demo data).
    const files = import.meta.glob<string>(
      ['../**/*.{ts,svelte}', '!../tests/**', '!../lib/bindings/**', '!../demo/demo.ts'],
      {
        query: '?raw',
        import: 'default',
        eager: true,
      },
    );
    expect(Object.keys(files).length).toBeGreaterThan(40);
    const found: string[] = [];
    for (const [path, text] of Object.entries(files)) {
      text.split('\n').forEach((line, i) => {
        for (const ch of line) if (emoji.test(ch) && !allowed.has(ch)) found.push(`${path}:${i + 1} ${ch}`);
      });
    }
    expect(found).toEqual([]);
  });
});

describe("Claude Code's frames and questions (#43, finding 5)", () => {
  const question = (answer: string | null) =>
    toolCall({
      toolName: 'AskUserQuestion',
      inputSummary: 'Which colour should the badge be?',
      input: '{"questions": []}',
      output: answer ? `Your questions have been answered: "Which colour should the badge be?"="${answer}".` : '',
      pending: answer == null,
      form: {
        kind: 'questions',
        items: [
          {
            header: 'Colour',
            question: 'Which colour should the badge be?',
            options: [
              { label: 'Red', description: 'warm' },
              { label: 'Blue', description: null },
            ],
            multiSelect: false,
            answer,
          },
        ],
      },
    });

  it("a subagent's report is shown as the output and the hand-back frame is folded away", async () => {
    render(ToolCallRow, {
      call: toolCall({
        toolName: 'Agent',
        form: { kind: 'task', description: 'Look around', agentType: 'general-purpose', prompt: 'look' },
        output: 'The subagent looked: **badgerword**.',
        outputDetails: '[Subagent hand-back] The text below is the final report…\nagentId: a01 (use SendMessage …)',
      }),
    });
    await open();
    const out = screen.getByTestId('tool-output');
    expect(out.textContent).toBe('The subagent looked: badgerword.');
    expect(out.querySelector('strong')?.textContent).toBe('badgerword');
    expect(out.textContent).not.toContain('hand-back');
    const frame = screen.getByTestId('output-details') as HTMLDetailsElement;
    expect(frame.open).toBe(false);
    expect(frame.textContent).toContain('agentId: a01');
    expect(screen.getByTestId('tool-call').textContent).toContain('Report');
  });

  it('a question shows its options and the answer picked, without opening the row', () => {
    render(ToolCallRow, { call: question('Red') });
    const options = screen.getAllByTestId('question-option');
    expect(options.map((o) => [o.querySelector('.label')!.textContent, o.getAttribute('data-chosen')])).toEqual([
      ['Red', 'true'],
      ['Blue', 'false'],
    ]);
    expect(screen.getByTestId('questions').textContent).toContain('Colour');
    expect(options[0].textContent).toContain('Red — warm');
    expect(screen.getByTestId('question-answer').textContent).toContain('You answered: Red');
    expect(screen.getByTestId('tool-call').textContent).not.toContain('"questions"');
  });

  it('an answer in the person own words is quoted as theirs', () => {
    render(ToolCallRow, { call: question('Green, with a border') });
    expect(screen.getAllByTestId('question-option').every((o) => o.getAttribute('data-chosen') === 'false')).toBe(true);
    expect(screen.getByTestId('question-answer').textContent).toContain('You answered: Green, with a border');
  });

  it('a question nobody answered reads "unanswered" once no Claude Code holds the session', () => {
    render(ToolCallRow, { call: question(null), held: false });
    expect(screen.getByTestId('tool-status').textContent).toContain('unanswered');
    expect(screen.getByTestId('tool-status').textContent).not.toContain('pending');
    expect(screen.getByTestId('question-answer').textContent).toContain('Unanswered');
  });

  it('while a Claude Code holds the session, the question waits for the person', () => {
    render(ToolCallRow, { call: question(null), held: true });
    expect(screen.getByTestId('tool-status').textContent).toContain('waiting for you');
    expect(screen.getByTestId('question-answer').textContent).toContain('Waiting for your answer');
  });

  it('copying a question copies its words and answer', () => {
    expect(formText(question('Red').form!)).toBe('Which colour should the badge be?\n- Red\n- Blue\n→ Red');
  });
});
