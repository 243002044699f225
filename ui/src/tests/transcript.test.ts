import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { group, message, session, toolCall } from './fixtures';
import type { MessagePage, TranscriptMessage } from '../lib/types';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { listing } = await import('../lib/listing.svelte');
const { nav } = await import('../lib/navigation.svelte');
const { app } = await import('../lib/state.svelte');
const { toasts } = await import('../lib/toasts.svelte');
const { default: TranscriptView } = await import('../lib/components/TranscriptView.svelte');
const { default: MessageList } = await import('../lib/components/MessageList.svelte');

const msg = message;
/** A fake transcript of `total` messages served in pages like the engine does. */
function pager(all: () => TranscriptMessage[]) {
  return async (_id: string, before: number | null, limit: number): Promise<MessagePage> => {
    const list = all();
    const end = before == null ? list.length : list.findIndex((m) => m.offset >= before);
    const stop = end < 0 ? list.length : end;
    const start = Math.max(0, stop - limit);
    return {
      messages: list.slice(start, stop),
      earlierCursor: start > 0 ? list[start].offset : null,
      laterCursor: null,
      sizeBytes: list.length * 100,
      rewinds: [],
      openBranch: null,
      inherited: 0,
    };
  };
}

/** A whole transcript in one page. */
const onePage = (messages: TranscriptMessage[]): MessagePage => ({
  messages,
  earlierCursor: null,
  laterCursor: null,
  sizeBytes: 10,
  rewinds: [],
  openBranch: null,
  inherited: 0,
});

const s = session({
  workingDirectory: "/home/ada/it's here",
  autoName: 'Long one',
  messageCount: 250,
  gitBranch: 'feat/x',
  claudeCodeVersion: '2.1.7',
  entrypoint: null,
});

describe('a fork subagent run', () => {
  it('says at its start that it began with the main conversation, not repeated', async () => {
    const fetchPage = vi.fn(async () => ({ ...onePage([msg(1), msg(2)]), inherited: 3 }));
    render(MessageList, { fetchPage });
    const note = await screen.findByTestId('fork-start');
    expect(note.textContent).toMatch(/began with the main conversation so far \(3 messages\), shown there/);
    expect(screen.queryByText('Start of the conversation')).toBeNull();
  });

  it('starts like any conversation when nothing was inherited', async () => {
    render(MessageList, { fetchPage: vi.fn(async () => onePage([msg(1)])) });
    expect(await screen.findByText('Start of the conversation')).toBeTruthy();
    expect(screen.queryByTestId('fork-start')).toBeNull();
  });
});

describe('transcript viewer', () => {
  let messages: TranscriptMessage[];
  beforeEach(() => {
    listing.names = {};
    messages = Array.from({ length: 250 }, (_, i) => msg(i));
    vi.mocked(api.sessionMessages)
      .mockReset()
      .mockImplementation(pager(() => messages));
    vi.mocked(api.sessionInfo)
      .mockReset()
      .mockResolvedValue({
        summary: s,
        usage: { inputTokens: 50_000, outputTokens: 1000, turnCount: 4, model: 'claude-x' },
        subagents: [],
        resumeCommand: `cd '/home/ada/it'\\''s here' && claude --resume ${s.sessionId}`,
        nameOutOfSight: null,
      });
  });

  it('shows the header facts, token usage and the resume command', async () => {
    render(TranscriptView, { session: s });
    expect(screen.getByTestId('transcript').textContent).toContain('Long one');
    expect(screen.getByTestId('transcript').textContent).toContain('feat/x');
    expect(screen.getByTestId('transcript').textContent).toContain('v2.1.7');
    await vi.waitFor(() => expect(screen.getByTestId('token-usage').textContent).toContain('50k / 200k context (25%)'));
    expect(screen.getByTestId('resume-command').textContent).toBe(
      `cd '/home/ada/it'\\''s here' && claude --resume ${s.sessionId}`,
    );
    await fireEvent.click(screen.getByTestId('copy-resume'));
    expect(api.copyText).toHaveBeenCalledWith(`cd '/home/ada/it'\\''s here' && claude --resume ${s.sessionId}`);
  });

  it('says when Claude Code’s resume list does not show the name, and puts it there on request', async () => {
    const info = await api.sessionInfo(s.sessionId);
    vi.mocked(api.sessionInfo).mockResolvedValue({ ...info, nameOutOfSight: { name: 'Long one', pickerTitle: null } });
    vi.mocked(api.renameSession).mockResolvedValue({ session: s, runId: 'r9' });
    render(TranscriptView, { session: s });
    const note = await screen.findByTestId('name-out-of-sight');
    expect(note.textContent).toContain('shows this chat as its automatic title, not “Long one”');
    vi.mocked(api.sessionInfo).mockResolvedValue({ ...info, nameOutOfSight: null });
    await fireEvent.click(screen.getByTestId('show-name-in-claude'));
    expect(api.renameSession).toHaveBeenCalledWith(s.sessionId, 'Long one');
    await vi.waitFor(() => expect(screen.queryByTestId('name-out-of-sight')).toBeNull());
  });

  it('opens with a short newest page, then the header, and loads earlier pages on demand', async () => {
    render(TranscriptView, { session: s });
    await vi.waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(40));
    expect(api.sessionMessages).toHaveBeenCalledWith(s.sessionId, null, 40);
    // The header's details (a whole-file read) are asked for after the messages, not beside them.
    await vi.waitFor(() => expect(api.sessionInfo).toHaveBeenCalledTimes(1));
    expect(vi.mocked(api.sessionInfo).mock.invocationCallOrder[0]).toBeGreaterThan(
      vi.mocked(api.sessionMessages).mock.invocationCallOrder[0],
    );
    const shown = screen.getAllByTestId('message').map((m) => m.dataset.uuid);
    expect(shown[0]).toBe('u210');
    expect(shown.at(-1)).toBe('u249');
    await fireEvent.click(screen.getByText('Load earlier messages'));
    await vi.waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(140));
    expect(api.sessionMessages).toHaveBeenLastCalledWith(s.sessionId, 21000, 100);
    expect(screen.getAllByTestId('message')[0].dataset.uuid).toBe('u110');
  });

  it('live: appended messages appear and a pending tool call updates when its folder changes', async () => {
    messages.push(
      msg(250, { role: 'tool', content: '', uuid: 'tool1', toolCall: toolCall({ pending: true, durationMs: null }) }),
    );
    render(TranscriptView, { session: s });
    await vi.waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(40));
    expect(screen.getByTestId('tool-call').dataset.state).toBe('pending');
    messages[250] = msg(250, {
      role: 'tool',
      content: '',
      uuid: 'tool1',
      toolCall: toolCall({ pending: false, durationMs: 900 }),
    });
    messages.push(msg(251, { role: 'assistant', content: 'fresh reply' }));
    app.onSessionsChanged(['/other/folder']);
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.queryByText('fresh reply')).toBeNull();
    app.onSessionsChanged([`/home/ada/.claude/projects/${s.encodedPath}`]);
    await vi.waitFor(() => expect(screen.getByText('fresh reply')).toBeTruthy());
    expect(screen.getByTestId('tool-call').dataset.state).toBe('ok');
    expect(screen.getAllByTestId('message')[0].dataset.uuid).toBe('u211');
    expect(screen.getAllByTestId('message')).toHaveLength(41); // nothing shown before was dropped
  });

  it('shows why a session cannot be resumed instead of a resume command', async () => {
    const docker = { ...s, resumable: false, notResumableReason: 'docker' as const };
    vi.mocked(api.sessionInfo).mockRejectedValue({ kind: 'not-found', message: 'gone' });
    render(TranscriptView, { session: docker });
    expect(screen.queryByTestId('resume-command')).toBeNull();
    expect(screen.getByTestId('not-resumable').textContent).toContain('Docker');
  });

  it('reports an unreadable transcript in plain words with the detail', async () => {
    vi.mocked(api.sessionMessages).mockRejectedValue({ kind: 'corrupt', message: 'line 3: invalid UTF-8' });
    render(TranscriptView, { session: s });
    await vi.waitFor(() => expect(screen.getByRole('alert').textContent).toContain('could not read this transcript'));
    expect(screen.getByRole('alert').textContent).toContain('invalid UTF-8');
  });

  it('never holds the whole transcript: far back, the newest messages are dropped and can be reloaded', async () => {
    const big = Array.from({ length: 5000 }, (_, i) => msg(i));
    const fetchPage = vi.fn((before: number | null, limit: number) => pager(() => big)('x', before, limit));
    const onfirstpage = vi.fn();
    render(MessageList, { fetchPage, maxKept: 250, onfirstpage });
    await vi.waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(40), { timeout: 8000 });
    for (let i = 0; i < 3; i++) {
      await fireEvent.click(screen.getByText('Load earlier messages'));
      await vi.waitFor(() => expect(fetchPage).toHaveBeenCalledTimes(i + 2), { timeout: 8000 });
    }
    await vi.waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(250), { timeout: 8000 });
    const ids = screen.getAllByTestId('message').map((m) => m.dataset.uuid);
    expect(ids[0]).toBe('u4660');
    expect(ids.at(-1)).toBe('u4909');
    await fireEvent.click(screen.getByTestId('jump-latest'));
    await vi.waitFor(() => expect(screen.getAllByTestId('message').at(-1)?.dataset.uuid).toBe('u4999'), {
      timeout: 8000,
    });
    expect(screen.getAllByTestId('message')).toHaveLength(40);
    // Reading the newest page again is not a first page: the header's details are not re-read.
    expect(onfirstpage).toHaveBeenCalledTimes(1);
  });

  it('opens a subagent run from its tool call and comes back to the same place', async () => {
    messages = [
      msg(0),
      msg(1, {
        role: 'tool',
        content: '',
        uuid: 'task',
        toolCall: toolCall({ toolName: 'Task', subagentId: 'agent-7' }),
      }),
    ];
    vi.mocked(api.subagentMessages).mockResolvedValue(
      onePage([msg(0, { uuid: 'sub-0', content: 'inside the subagent' })]),
    );
    render(TranscriptView, { session: s });
    await vi.waitFor(() => expect(screen.getByTestId('open-subagent')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('open-subagent'));
    await vi.waitFor(() => expect(screen.getByText('inside the subagent')).toBeTruthy());
    expect(api.subagentMessages).toHaveBeenCalledWith(s.sessionId, 'agent-7', null, 40);
    const calls = vi.mocked(api.sessionMessages).mock.calls.length;
    await fireEvent.click(screen.getByTestId('subagent-back'));
    expect(screen.queryByText('inside the subagent')).toBeNull();
    expect(vi.mocked(api.sessionMessages).mock.calls.length).toBe(calls); // not reloaded
  });

  it('a subagent run opened from a search hit is titled with its type and job, its prompt not "You" (#43)', async () => {
    vi.mocked(api.sessionInfo).mockResolvedValue({
      ...(await api.sessionInfo(s.sessionId)),
      subagents: [
        { agentId: 'agent-7', transcriptPath: '/x', agentType: 'Explore', description: 'Look around', sizeBytes: 10 },
      ],
    });
    const inside = msg(0, { uuid: 'sub-0', content: 'look for the wombatword', offset: 0 });
    vi.mocked(api.transcriptPage).mockResolvedValue({ ...onePage([inside]), laterCursor: null, earlierCursor: null });
    vi.mocked(api.subagentMessages).mockResolvedValue(onePage([inside]));
    nav.open(s, {
      sessionId: s.sessionId,
      agentId: 'agent-7',
      offset: 0,
      uuid: 'sub-0',
      toolUseId: null,
      terms: ['wombatword'],
    });
    try {
      render(TranscriptView, { session: s });
      await vi.waitFor(() => expect(document.body.textContent).toContain('look for the wombatword'));
      await vi.waitFor(() => expect(screen.getByTestId('subagent-title').textContent).toContain('Explore'));
      expect(screen.getByTestId('subagent-title').textContent).toContain('Look around');
      expect(screen.getByText(/Main conversation ·/)).toBeTruthy();
    } finally {
      nav.open(null);
    }
  });

  it('Esc in the find bar gives the keyboard back to the transcript, not the page (#43)', async () => {
    const { emit } = await import('../lib/events.svelte');
    render(TranscriptView, { session: s });
    await vi.waitFor(() => expect(screen.getAllByTestId('message').length).toBeGreaterThan(0));
    emit('find-in-transcript', null);
    const input = await vi.waitFor(() => screen.getByTestId('find-input'));
    await vi.waitFor(() => expect(document.activeElement).toBe(input));
    await fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.queryByTestId('find-input')).toBeNull();
    expect(document.activeElement).toBe(screen.getByTestId('transcript'));
  });

  it('a growing session refreshes its header at most every few seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      render(TranscriptView, { session: s });
      await vi.waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(40));
      await vi.waitFor(() => expect(api.sessionInfo).toHaveBeenCalledTimes(1));
      for (let i = 0; i < 10; i++) {
        app.onSessionsChanged([`/home/ada/.claude/projects/${s.encodedPath}`]);
        await vi.advanceTimersByTimeAsync(300);
      }
      await vi.advanceTimersByTimeAsync(5000);
      expect(vi.mocked(api.sessionInfo).mock.calls.length).toBeLessThanOrEqual(3);
      expect(vi.mocked(api.sessionInfo).mock.calls.length).toBeGreaterThanOrEqual(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('marks a rewind before the prompt that replaced it and shows the abandoned branch on request', async () => {
    const short = Array.from({ length: 6 }, (_, i) => msg(i));
    vi.mocked(api.sessionMessages).mockImplementation(async () => ({
      messages: short,
      earlierCursor: null,
      laterCursor: null,
      sizeBytes: 600,
      rewinds: [{ at: short[4].offset, branch: 350, prompts: 2, messages: 4, firstPrompt: 'Try a global lock' }],
      openBranch: null,
      inherited: 0,
    }));
    vi.mocked(api.rewoundBranch).mockResolvedValue({
      messages: [msg(0, { uuid: 'gone-1', content: 'Try a global lock', offset: 350 })],
      earlierCursor: null,
      laterCursor: null,
      sizeBytes: 600,
      rewinds: [],
      openBranch: null,
      inherited: 0,
    });
    render(TranscriptView, { session: s });
    const mark = await vi.waitFor(() => screen.getByTestId('rewind-mark'));
    expect(mark.textContent).toContain('2 prompts rewound here');
    expect(mark.textContent).toContain('Try a global lock');
    // It sits right before the replacing prompt's message.
    const next = mark.nextElementSibling as HTMLElement;
    expect(next.dataset.uuid).toBe(short[4].uuid);
    expect(screen.queryByTestId('rewound-branch')).toBeNull();
    const toggle = screen.getByTestId('rewind-toggle');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    await fireEvent.click(toggle);
    const branch = await vi.waitFor(() => screen.getByTestId('rewound-branch'));
    await vi.waitFor(() => expect(branch.textContent).toContain('Try a global lock'));
    expect(branch.textContent).toContain('does not see these 4 messages');
    expect(api.rewoundBranch).toHaveBeenCalledWith(s.sessionId, 350, 2000);
    await fireEvent.click(toggle);
    expect(screen.queryByTestId('rewound-branch')).toBeNull();
  });

  it('exports through the save dialog, and a cancelled dialog writes nothing', async () => {
    vi.mocked(api.pickSavePath).mockReset().mockResolvedValueOnce('/home/ada/Documents/Long one.html');
    vi.mocked(api.exportSession).mockReset().mockResolvedValue({
      messages: 250,
      subagents: 0,
      bytes: 1000,
      path: '/home/ada/Documents/Long one.html',
    });
    toasts.list = [];
    render(TranscriptView, { session: s });
    await fireEvent.click(screen.getByTestId('export-open'));
    await fireEvent.click(screen.getByRole('menuitem', { name: /HTML page/ }));
    await vi.waitFor(() => expect(api.exportSession).toHaveBeenCalledTimes(1));
    expect(api.pickSavePath).toHaveBeenCalledWith('Long one.html', 'html');
    expect(api.exportSession).toHaveBeenCalledWith(
      s.sessionId,
      { format: 'html', subagents: false },
      '/home/ada/Documents/Long one.html',
      true,
    );
    await vi.waitFor(() => expect(toasts.list.some((t) => t.text.includes('Exported 250 messages'))).toBe(true));
    vi.mocked(api.pickSavePath).mockResolvedValueOnce(null);
    await fireEvent.click(screen.getByTestId('export-open'));
    await fireEvent.click(screen.getByRole('menuitem', { name: /^Markdown/ }));
    await vi.waitFor(() => expect(api.pickSavePath).toHaveBeenCalledTimes(2));
    expect(api.exportSession).toHaveBeenCalledTimes(1);
  });

  it('every counted subagent run opens from the header; a call whose run is gone says so', async () => {
    messages = [
      msg(0),
      msg(1, {
        role: 'tool',
        content: '',
        uuid: 'gone',
        toolCall: toolCall({ toolName: 'Agent', subagentId: 'a0ff', subagentMissing: true }),
      }),
    ];
    vi.mocked(api.sessionInfo).mockResolvedValue({
      summary: s,
      usage: { inputTokens: 1, outputTokens: 1, turnCount: 1, model: null },
      subagents: [
        {
          agentId: 'acompact-fffbd0',
          transcriptPath: '/t/a.jsonl',
          agentType: null,
          description: null,
          sizeBytes: 2048,
        },
      ],
      resumeCommand: 'claude --resume x',
      nameOutOfSight: null,
    });
    vi.mocked(api.subagentMessages).mockResolvedValue(
      onePage([msg(0, { uuid: 'c-0', content: 'the compaction summary' })]),
    );
    render(TranscriptView, { session: s });
    await vi.waitFor(() => expect(screen.getByTestId('subagent-missing')).toBeTruthy());
    expect(screen.queryByTestId('open-subagent')).toBeNull();
    const runs = await vi.waitFor(() => screen.getByTestId('subagent-runs'));
    expect(runs.textContent).toContain('1 subagent run');
    await fireEvent.click(runs);
    await fireEvent.click(screen.getByRole('menuitem', { name: /Compaction/ }));
    await vi.waitFor(() => expect(screen.getByText('the compaction summary')).toBeTruthy());
    expect(api.subagentMessages).toHaveBeenCalledWith(s.sessionId, 'acompact-fffbd0', null, 40);
  });

  it('shows tokens by model when asked, read once per opening', async () => {
    vi.mocked(api.sessionUsage)
      .mockReset()
      .mockResolvedValue([
        {
          model: 'claude-opus-4-6',
          responses: 3,
          inputTokens: 37,
          outputTokens: 1300,
          cacheReadTokens: 7100,
          cacheWriteTokens: 900,
        },
        {
          model: 'claude-haiku-4-5',
          responses: 1,
          inputTokens: 5,
          outputTokens: 70,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        },
      ]);
    render(TranscriptView, { session: s });
    expect(api.sessionUsage).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId('usage-by-model'));
    const rows = await vi.waitFor(() => {
      const r = screen.getAllByTestId('usage-row');
      expect(r).toHaveLength(2);
      return r;
    });
    expect(rows[0].textContent).toContain('claude-opus-4-6');
    expect(rows[0].textContent).toContain('1.3k');
    expect(screen.getByTestId('usage-panel').textContent).toContain('All');
    expect(api.sessionUsage).toHaveBeenCalledWith(s.sessionId);
    await fireEvent.click(screen.getByTestId('usage-by-model'));
    expect(screen.queryByTestId('usage-panel')).toBeNull();
  });

  it('links a conversation continued across files, both ways', async () => {
    const older = session({ customName: 'Plan the tag index', workingDirectory: s.workingDirectory });
    const me = { ...s, continuedFrom: older.sessionId, continuedIn: 'ffffffff-0000-4000-8000-00000000ffff' };
    listing.groups = [group(s.workingDirectory, [me, older])];
    vi.mocked(api.sessionInfo).mockResolvedValue({
      summary: me,
      usage: { inputTokens: 1, outputTokens: 1, turnCount: 1, model: null },
      subagents: [],
      resumeCommand: 'claude --resume x',
      nameOutOfSight: null,
    });
    render(TranscriptView, { session: me });
    const from = await vi.waitFor(() => screen.getByTestId('continued-from'));
    expect(from.textContent).toContain('Continued from “Plan the tag index”');
    expect(screen.getByTestId('continued-in').textContent).toContain('“ffffffff”');
    await fireEvent.click(from);
    expect(nav.openId).toBe(older.sessionId);
    listing.groups = [];
  });
});

describe('finding your way in a long transcript', () => {
  it('a day separator stands where the day changes', async () => {
    const at = (day: number) => new Date(2026, 10, day, 10).toISOString();
    const list = [msg(0, { timestamp: at(20) }), msg(1, { timestamp: at(20) }), msg(2, { timestamp: at(22) })];
    render(MessageList, { fetchPage: vi.fn(async () => onePage(list)) });
    await screen.findAllByTestId('message');
    const seps = screen.getAllByTestId('date-separator');
    expect(seps).toHaveLength(2);
    const order = [...document.querySelectorAll('[data-testid="date-separator"], [data-testid="message"]')].map((e) =>
      e.getAttribute('data-testid'),
    );
    expect(order).toEqual(['date-separator', 'message', 'message', 'date-separator', 'message']);
  });

  it('"Start" reads the first page of a transcript whose start is not loaded', async () => {
    const all = Array.from({ length: 300 }, (_, i) => msg(i));
    const fetchPage = vi.fn((before: number | null, limit: number) => pager(() => all)('s', before, limit));
    const fetchAt = vi.fn(async () => ({ ...onePage(all.slice(0, 100)), laterCursor: all[100].offset }));
    render(MessageList, { fetchPage, fetchAt, pageSize: 100 });
    await screen.findAllByTestId('message');
    await fireEvent.scroll(screen.getByTestId('message-list'));
    await fireEvent.click(await screen.findByTestId('jump-start'));
    expect(fetchAt).toHaveBeenCalledWith({ kind: 'around', offset: 0 }, 100);
    await vi.waitFor(() => expect(screen.getAllByTestId('message')[0].textContent).toContain('message 0'));
    // Now the newest messages are not loaded: "Latest" reads them again.
    await fireEvent.scroll(screen.getByTestId('message-list'));
    await fireEvent.click(await screen.findByTestId('jump-end'));
    await vi.waitFor(() => expect(screen.getAllByTestId('message').at(-1)!.textContent).toContain('message 299'));
  });
});
