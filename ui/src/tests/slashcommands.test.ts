import { render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import MessageView from '../lib/components/MessageView.svelte';
import { parseCommand, summaryParts, systemLine, taskResult } from '../lib/slashcommands';
import { message } from './fixtures';

describe('slash commands and shell escapes in user lines', () => {
  it('recognises command wrappers', () => {
    expect(
      parseCommand(
        '<command-name>/exit</command-name>\n<command-message>exit</command-message>\n<command-args></command-args>',
      ),
    ).toEqual({ command: '/exit', args: null, stdout: null, stderr: null, shell: null });
    expect(parseCommand('<local-command-stdout>See ya!</local-command-stdout>')?.stdout).toBe('See ya!');
    expect(parseCommand('<bash-input>ls -la</bash-input>')?.shell).toBe('ls -la');
    expect(parseCommand('<bash-stdout>\u001b[32mok\u001b[0m</bash-stdout><bash-stderr></bash-stderr>')).toMatchObject({
      stdout: 'ok',
      stderr: null,
    });
  });

  it('leaves everything else to Markdown', () => {
    expect(parseCommand('Please fix <b>this</b>')).toBeNull();
    expect(parseCommand('<command-name>/x</command-name> and then some text')).toBeNull();
    expect(parseCommand('<img src=x onerror=alert(1)>')).toBeNull();
    expect(parseCommand('<script>alert(1)</script>')).toBeNull();
  });

  it('renders a command as a chip and its output as text, never as HTML', () => {
    const content = '<command-name>/model</command-name><command-args><img src=x onerror=alert(1)></command-args>';
    const { container } = render(MessageView, {
      message: {
        role: 'user',
        content,
        uuid: 'u',
        timestamp: null,
        thinking: null,
        toolCall: null,
        originKind: null,
        offset: 0,
        attachments: [],
      },
    });
    expect(screen.getByTestId('command').textContent).toContain('/model <img src=x onerror=alert(1)>');
    expect(container.querySelector('img')).toBeNull();
  });
});

describe("Claude Code's own lines", () => {
  it('are told apart from what the person typed', () => {
    expect(systemLine('[Request interrupted by user for tool use]')).toBe('You interrupted the tool call');
    expect(systemLine('[Request interrupted by user]')).toBe('You interrupted Claude');
    expect(
      systemLine(
        '<task-notification><task-id>b1</task-id><status>completed</status><summary>Tests passed</summary></task-notification>',
      ),
    ).toBe('Task notification: Tests passed');
    // As Claude Code 2.1 writes it: an instruction after the notification.
    expect(
      systemLine(
        '<task-notification>\n<task-id>bd0afab</task-id>\n<status>completed</status>\n<summary>Background command "Run tests" completed (exit code 0)</summary>\n</task-notification>\nRead the output file to retrieve the result: /tmp/x.output',
      ),
    ).toBe('Task notification: Background command "Run tests" completed (exit code 0)');
    expect(systemLine('  ')).toContain('empty message');
    expect(systemLine('please fix the [Request interrupted by user] text')).toBeNull();
    expect(
      parseCommand('<command-name>/clear</command-name><local-command-stdout>(no content)</local-command-stdout>')
        ?.stdout,
    ).toBeNull();
  });

  it("say a hook's feedback in one line, whatever command said it", () => {
    const feedback =
      'Stop hook feedback:\n- [~/.claude/hooks/tests-pass.sh]: 1 test still fails\n- [lint.sh]: 2 warnings';
    expect(systemLine(feedback, 'hook')).toBe('Stop hook feedback: 1 test still fails · 2 warnings');
    expect(systemLine('PreToolUse:Bash hook blocking error from command: no rm -rf', 'hook')).toBe(
      'PreToolUse:Bash hook blocking error from command: no rm -rf',
    );
    expect(systemLine('Stop hook feedback: ' + 'x'.repeat(500), 'hook')?.length).toBe(240);
    // The same words typed by the person are theirs.
    expect(systemLine(feedback)).toBeNull();
    const { getByTestId, queryByTestId } = render(MessageView, {
      message: message(0, { content: feedback, originKind: 'hook' }),
    });
    expect(getByTestId('system-line').textContent).toContain('Stop hook feedback: 1 test still fails');
    expect(getByTestId('system-line').getAttribute('title')).toBe(feedback);
    expect(queryByTestId('typed')).toBeNull();
  });

  it("say a command's empty output once, not as an empty chip", () => {
    const { getByTestId, queryByTestId } = render(MessageView, {
      message: message(0, { content: '<local-command-stdout>(no content)</local-command-stdout>' }),
    });
    expect(getByTestId('system-line').textContent).toContain('The command printed nothing');
    expect(queryByTestId('command')).toBeNull();
  });

  it('are quiet system lines in the transcript, not bubbles', () => {
    const { getByTestId, container } = render(MessageView, {
      message: message(0, { content: '[Request interrupted by user for tool use]' }),
    });
    expect(getByTestId('system-line').textContent).toContain('You interrupted the tool call');
    expect(container.querySelector('.bubble')).toBeNull();
  });
});

describe('a background task brings back its result', () => {
  it("a background subagent's report is read from its notification", () => {
    const note =
      '<task-notification>\n<task-id>a7f0</task-id>\n<status>completed</status>\n<summary>Agent "Look around" finished</summary>\n<result>The subagent looked: badgerword.</result>\n<usage><subagent_tokens>1350</subagent_tokens></usage>\n</task-notification>';
    expect(systemLine(note, 'task-notification')).toBe('Task notification: Agent "Look around" finished');
    expect(taskResult(note)).toBe('The subagent looked: badgerword.');
    expect(taskResult('<task-notification><summary>done</summary></task-notification>')).toBeNull();
    expect(taskResult('a typed <result>x</result>')).toBeNull();
  });
});

describe('a task notification in the transcript', () => {
  it('is a line of its own with the report under it, never a typed prompt', async () => {
    render(MessageView, {
      message: message(0, {
        role: 'user',
        originKind: 'task-notification',
        content:
          '<task-notification>\n<summary>Agent "Look around" finished</summary>\n<result>The subagent looked: **badgerword**.</result>\n</task-notification>',
      }),
    });
    const line = screen.getByTestId('system-line');
    expect(line.getAttribute('data-kind')).toBe('task-notification');
    expect(line.textContent).toContain('Task notification: Agent "Look around" finished');
    expect(screen.getByTestId('task-result').querySelector('strong')?.textContent).toBe('badgerword');
    expect(screen.queryByTestId('typed')).toBeNull();
  });
});

describe("a compaction's answer and a subagent's prompt (#43, finding 13)", () => {
  const compaction =
    '\n\n<analysis>\nLet me analyse:\n1. **first**\n</analysis>\n\n<summary>\n1. Primary request: tackle the **beads**.\n</summary>';

  it('splits the analysis from the summary', () => {
    expect(summaryParts(compaction)).toEqual({
      analysis: 'Let me analyse:\n1. **first**',
      summary: '1. Primary request: tackle the **beads**.',
    });
    expect(summaryParts('<summary>only</summary>')).toEqual({ analysis: null, summary: 'only' });
    expect(summaryParts('An answer that mentions <summary> tags.')).toBeNull();
  });

  it('shows a compaction without its tags, the analysis folded', () => {
    render(MessageView, { message: message(1, { role: 'assistant', content: compaction }) });
    const shown = screen.getByTestId('compaction-summary');
    expect(shown.textContent).not.toContain('</summary>');
    expect(shown.textContent).not.toContain('<analysis>');
    expect(shown.querySelector('details')!.open).toBe(false);
    expect(shown.querySelector(':scope > .md strong, strong')!.textContent).toBeTruthy();
    expect(shown.textContent).toContain('Primary request');
  });

  it("labels a subagent run's prompt as the main conversation's, not the person's", () => {
    render(MessageView, { message: message(0, { role: 'user', content: 'look for the wombatword' }), run: true });
    expect(screen.getByText(/Main conversation ·/)).toBeTruthy();
    expect(screen.queryByText(/You ·/)).toBeNull();
  });
});
