import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { group, message, session } from './fixtures';
import type { MessagePage, PageAt, SearchResults } from '../lib/types';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { listing } = await import('../lib/listing.svelte');
const { nav } = await import('../lib/navigation.svelte');
const { default: ContentResults } = await import('../lib/components/ContentResults.svelte');
const { default: MessageList } = await import('../lib/components/MessageList.svelte');
const { default: FindBar } = await import('../lib/components/FindBar.svelte');

const target = session({ autoName: 'Fix the login redirect', workingDirectory: '/home/ada/src/app' });

function results(o: Partial<SearchResults> = {}): SearchResults {
  return {
    query: 'zeppelin',
    totalSessions: 1,
    totalMatches: 3,
    totalsExact: true,
    indexedSessions: 10,
    listedSessions: 10,
    complete: true,
    tookMs: 2,
    sessions: [
      {
        sessionId: target.sessionId,
        workingDirectory: target.workingDirectory,
        agentName: null,
        customName: null,
        autoName: target.autoName,
        nameMatch: false,
        matches: 3,
        hits: [
          {
            uuid: 'u40',
            role: 'user',
            timestamp: '2026-11-30T09:00:00.000Z',
            toolName: null,
            toolUseId: null,
            agentId: null,
            offset: 4000,
            rewound: false,
            snippet: 'fix the zeppelin cache',
            snippetParts: [
              { text: 'fix the ', hit: false },
              { text: 'zeppelin', hit: true },
              { text: ' cache', hit: false },
            ],
          },
        ],
      },
    ],
    ...o,
  };
}

const msg = (i: number) => message(i, i === 40 ? { content: 'please fix the Zeppelin cache' } : {});

describe('content search', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    listing.groups = [group('/home/ada/src/app', [target])];
    listing.indexStatus = null;
    nav.open(null);
  });

  it('searches after a pause, counts matches and opens the transcript at the hit', async () => {
    vi.mocked(api.search).mockResolvedValue(results());
    render(ContentResults, { query: 'zeppelin' });
    await vi.waitFor(() => expect(screen.getByTestId('content-count').textContent).toContain('3 matches in 1 session'));
    expect(api.search).toHaveBeenCalledTimes(1);
    expect(vi.mocked(api.search).mock.calls[0]).toEqual(['zeppelin', 50]);
    const hit = screen.getByTestId('content-hit');
    expect(hit.querySelector('mark')?.textContent).toBe('zeppelin');
    await fireEvent.click(hit);
    expect(nav.openId).toBe(target.sessionId);
    expect(nav.openAnchor).toMatchObject({ offset: 4000, uuid: 'u40', terms: ['zeppelin'], query: 'zeppelin' });
  });

  it('past 10,000 matches the counts read as lower bounds (#44)', async () => {
    const r = results({ totalMatches: 10_000, totalSessions: 2_400, totalsExact: false });
    r.sessions[0].matches = 12;
    vi.mocked(api.search).mockResolvedValue(r);
    render(ContentResults, { query: 'zeppelin' });
    await vi.waitFor(() =>
      expect(screen.getByTestId('content-count').textContent).toContain('10,000+ matches in 2,400+ sessions'),
    );
    expect(screen.getByTestId('content-hit').textContent).toContain('12+ matches');
  });

  it('marks a hit on a rewound branch, and only that one', async () => {
    const r = results();
    const first = r.sessions[0].hits[0];
    r.sessions[0].hits = [first, { ...first, uuid: 'u7', offset: 700, rewound: true }];
    vi.mocked(api.search).mockResolvedValue(r);
    render(ContentResults, { query: 'zeppelin' });
    await vi.waitFor(() => expect(screen.getAllByTestId('content-hit')).toHaveLength(2));
    const [plain, rewound] = screen.getAllByTestId('content-hit');
    expect(plain.querySelector('[data-testid="hit-rewound"]')).toBeNull();
    expect(rewound.querySelector('[data-testid="hit-rewound"]')?.textContent).toBe('rewound');
    // The session's name heads its first hit; the second, under it, says it only to a screen reader.
    expect(plain.querySelector('.sname')?.textContent).toBe(
      rewound.querySelector('[data-testid="hit-session"]')?.textContent,
    );
    expect(rewound.querySelector('.sname')).toBeNull();
    expect(rewound.querySelector('[data-testid="hit-session"]')?.className).toContain('sr-only');
  });

  it('the same words twice in a session are listed once (#43)', async () => {
    const r = results();
    const first = r.sessions[0].hits[0];
    const other = {
      ...first,
      uuid: 'u9',
      offset: 900,
      snippet: 'another zeppelin',
      snippetParts: [
        { text: 'another ', hit: false },
        { text: 'zeppelin', hit: true },
      ],
    };
    r.sessions[0].hits = [first, { ...first, uuid: 'u8', offset: 800 }, other];
    vi.mocked(api.search).mockResolvedValue(r);
    render(ContentResults, { query: 'zeppelin' });
    await vi.waitFor(() => expect(screen.getAllByTestId('content-hit')).toHaveLength(2));
    const texts = screen.getAllByTestId('content-hit').map((h) => h.querySelector('.snip')!.textContent);
    expect(texts[0]).not.toBe(texts[1]);
    expect(texts[1]).toBe('another zeppelin');
  });

  it('says what is wrong with a malformed query, and what the index covers so far', async () => {
    vi.mocked(api.search).mockRejectedValue({ kind: 'invalid-input', message: 'a quote is not closed' });
    listing.indexStatus = { building: true, done: 1234, total: 5000, indexed: 1200, busy: false, error: null };
    render(ContentResults, { query: '"zeppelin' });
    await vi.waitFor(() => expect(screen.getByTestId('query-error').textContent).toContain('not closed'));
    expect(screen.getByTestId('content-count').textContent).toContain('indexing 1,234 of 5,000 sessions');
  });

  it('says when an answer comes from an index still being built elsewhere', async () => {
    vi.mocked(api.search).mockResolvedValue(results({ complete: false, indexedSessions: 1200, listedSessions: 5000 }));
    render(ContentResults, { query: 'zeppelin' });
    await vi.waitFor(() => expect(screen.getAllByTestId('content-hit').length).toBe(1));
    expect(screen.getByTestId('content-count').textContent).toContain(
      'partial: 1,200 of 5,000 sessions indexed so far',
    );
  });

  it('says nothing of coverage when the index is complete', async () => {
    vi.mocked(api.search).mockResolvedValue(results());
    render(ContentResults, { query: 'zeppelin' });
    await vi.waitFor(() => expect(screen.getAllByTestId('content-hit').length).toBe(1));
    expect(screen.getByTestId('content-count').textContent).not.toContain('partial');
  });

  it('one letter searches nothing', async () => {
    render(ContentResults, { query: 'z' });
    await new Promise((r) => setTimeout(r, 300));
    expect(api.search).not.toHaveBeenCalled();
    expect(screen.queryByTestId('content-results')).toBeNull();
  });
});

describe('a transcript opened at a hit', () => {
  const all = Array.from({ length: 300 }, (_, i) => msg(i));
  const fetchAt = vi.fn(async (at: PageAt, limit: number): Promise<MessagePage> => {
    const from = at.kind === 'around' ? Math.floor((at.offset ?? 0) / 100) - 2 : Math.floor((at.offset ?? 0) / 100);
    const end = Math.min(all.length, from + limit);
    return {
      messages: all.slice(from, end),
      earlierCursor: from > 0 ? from * 100 : null,
      laterCursor: end < all.length ? end * 100 : null,
      sizeBytes: all.length * 100,
      rewinds: [],
      openBranch: null,
      inherited: 0,
    };
  });

  it('loads the page around the hit, marks the words and pages on', async () => {
    const fetchPage = vi.fn();
    const anchor = { sessionId: 's', agentId: null, offset: 4000, uuid: 'u40', toolUseId: null, terms: ['zeppelin'] };
    render(MessageList, { props: { fetchPage, fetchAt, anchor, pageSize: 20 } });
    await vi.waitFor(() => expect(document.querySelector('mark.term')?.textContent).toBe('Zeppelin'));
    expect(fetchPage).not.toHaveBeenCalled();
    expect(fetchAt).toHaveBeenCalledWith({ kind: 'around', offset: 4000 }, 20);
    expect(document.querySelector('.anchor')?.getAttribute('data-uuid')).toBe('u40');
    await fireEvent.click(screen.getByTestId('load-later'));
    await vi.waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(40));
    expect(fetchAt).toHaveBeenLastCalledWith({ kind: 'after', offset: 5800 }, 20);
  });

  it('a hit opened in a transcript already shown pages back from the hit, not from the old place', async () => {
    // Earlier pages arrive late once the first is shown: one asked for just as the hit is opened
    // lands after the hit's page.
    let slow = false;
    const late: (() => void)[] = [];
    const fetchPage = vi.fn(async (before: number | null, limit: number): Promise<MessagePage> => {
      if (slow) await new Promise<void>((r) => late.push(r));
      const end = before == null ? all.length : Math.floor(before / 100);
      const from = Math.max(0, end - limit);
      return {
        messages: all.slice(from, end),
        earlierCursor: from > 0 ? from * 100 : null,
        laterCursor: null,
        sizeBytes: all.length * 100,
        rewinds: [],
        openBranch: null,
        inherited: 0,
      };
    });
    const { rerender } = render(MessageList, { props: { fetchPage, fetchAt, anchor: null, pageSize: 20 } });
    await vi.waitFor(() => expect(screen.getAllByTestId('message').length).toBeGreaterThan(0));
    slow = true;
    const anchor = { sessionId: 's', agentId: null, offset: 4000, uuid: 'u40', toolUseId: null, terms: ['zeppelin'] };
    const list = screen.getByTestId('message-list');
    const opened = rerender({ fetchPage, fetchAt, anchor, pageSize: 20 });
    // The view scrolls to its top while the hit's page is read (its old content is taken away).
    list.scrollTop = 0;
    await fireEvent.scroll(list);
    await opened;
    await vi.waitFor(() => expect(document.querySelector('.anchor')?.getAttribute('data-uuid')).toBe('u40'));
    for (const r of late.splice(0)) r();
    await new Promise((r) => setTimeout(r, 20));
    for (const r of late.splice(0)) r();
    await new Promise((r) => setTimeout(r, 20));
    const shown = screen.getAllByTestId('message').map((m) => Number(m.getAttribute('data-uuid')?.slice(1)));
    // Whatever is shown is one stretch of the conversation around the hit.
    expect(
      shown.every((n, i) => i === 0 || n === shown[i - 1] + 1),
      shown.join(' '),
    ).toBe(true);
    expect(shown).toContain(40);
  });

  it('a hit on a rewound branch opens that branch at the hit', async () => {
    const page = all.slice(0, 10);
    const fetchAtBranch = vi.fn(async (): Promise<MessagePage> => ({
      messages: page,
      earlierCursor: null,
      laterCursor: null,
      sizeBytes: 1000,
      rewinds: [{ at: 500, branch: 450, prompts: 1, messages: 2, firstPrompt: 'old idea' }],
      openBranch: 450,
      inherited: 0,
    }));
    const fetchBranch = vi.fn(async (): Promise<MessagePage> => ({
      messages: [
        message(0, { uuid: 'b0', content: 'old idea', offset: 450 }),
        message(1, { uuid: 'b1', content: 'a Zeppelin reply', offset: 460 }),
      ],
      earlierCursor: null,
      laterCursor: null,
      sizeBytes: 1000,
      rewinds: [],
      openBranch: null,
      inherited: 0,
    }));
    const anchor = { sessionId: 's', agentId: null, offset: 460, uuid: 'b1', toolUseId: null, terms: ['zeppelin'] };
    render(MessageList, { props: { fetchPage: vi.fn(), fetchAt: fetchAtBranch, fetchBranch, anchor, pageSize: 20 } });
    await vi.waitFor(() => expect(screen.getByTestId('rewound-branch').textContent).toContain('Zeppelin'));
    expect(fetchBranch).toHaveBeenCalledWith(450);
    await vi.waitFor(() => expect(document.querySelector('.anchor')?.getAttribute('data-uuid')).toBe('b1'));
    expect(document.querySelector('mark.term')?.textContent).toBe('Zeppelin');
  });
});

describe('find in the transcript', () => {
  const threeMatches = {
    total: 3,
    matches: [
      { offset: 100, uuid: 'u1', toolUseId: null, displayOffset: 100 },
      { offset: 900, uuid: 'u9', toolUseId: null, displayOffset: 900 },
      { offset: 4000, uuid: 'u40', toolUseId: 'toolu_1', displayOffset: 4000 },
    ],
    terms: ['zeppelin'],
  };

  it('counts every match in the file and steps through them', async () => {
    vi.mocked(api.findInTranscript).mockResolvedValue(threeMatches);
    const shown: (number | null)[] = [];
    const onclose = vi.fn();
    render(FindBar, {
      props: { sessionId: 's1', onanchor: (a) => shown.push(a?.offset ?? null), onclose },
    });
    const input = screen.getByTestId('find-input');
    await fireEvent.input(input, { target: { value: 'zeppelin' } });
    await vi.waitFor(() => expect(screen.getByTestId('find-count').textContent).toContain('1 of 3'));
    expect(api.findInTranscript).toHaveBeenCalledWith('s1', null, 'zeppelin');
    await fireEvent.keyDown(input, { key: 'Enter' });
    await fireEvent.keyDown(input, { key: 'Enter' });
    await fireEvent.keyDown(input, { key: 'Enter' });
    await fireEvent.keyDown(input, { key: 'Enter', shiftKey: true });
    expect(shown).toEqual([100, 900, 4000, 100, 4000]);
    expect(screen.getByTestId('find-count').textContent).toContain('3 of 3');
    await fireEvent.keyDown(input, { key: 'Escape' });
    expect(onclose).toHaveBeenCalled();
  });

  it('opened from a search hit, starts with its words at the hit, and Enter goes on from there', async () => {
    vi.mocked(api.findInTranscript).mockResolvedValue(threeMatches);
    const shown: (number | null)[] = [];
    render(FindBar, {
      props: {
        sessionId: 's1',
        initial: 'zeppelin',
        from: 900,
        onanchor: (a) => shown.push(a?.offset ?? null),
        onclose: vi.fn(),
      },
    });
    expect((screen.getByTestId('find-input') as HTMLInputElement).value).toBe('zeppelin');
    await vi.waitFor(() => expect(screen.getByTestId('find-count').textContent).toContain('2 of 3'));
    expect(shown).toEqual([]);
    await fireEvent.keyDown(screen.getByTestId('find-input'), { key: 'Enter' });
    expect(shown).toEqual([4000]);
  });
});

describe('find follows the eye (#43, finding 3)', () => {
  it('a short conversation opened at a match is whole, and every match on screen is marked', async () => {
    const five = [
      message(0, { content: 'a zeppelin at the start' }),
      message(1),
      message(2),
      message(3, { content: 'the zeppelin the find stopped at' }),
      message(4),
    ];
    const fetchAt = vi.fn(async (): Promise<MessagePage> => ({
      messages: five.slice(3),
      earlierCursor: 300,
      laterCursor: null,
      sizeBytes: 500,
      rewinds: [],
      openBranch: null,
      inherited: 0,
    }));
    const fetchPage = vi.fn(async (): Promise<MessagePage> => ({
      messages: five.slice(0, 3),
      earlierCursor: null,
      laterCursor: null,
      sizeBytes: 500,
      rewinds: [],
      openBranch: null,
      inherited: 0,
    }));
    const anchor = { sessionId: 's', agentId: null, offset: 300, uuid: 'u3', toolUseId: null, terms: ['zeppelin'] };
    render(MessageList, { props: { fetchPage, fetchAt, anchor, pageSize: 100 } });
    await vi.waitFor(() => expect(screen.getAllByTestId('message')).toHaveLength(5));
    expect(screen.getByText('Start of the conversation')).toBeTruthy();
    expect(screen.queryByText('Load earlier messages')).toBeNull();
    await vi.waitFor(() => expect(document.querySelectorAll('mark.term')).toHaveLength(2));
    expect(document.querySelector('.anchor')?.getAttribute('data-uuid')).toBe('u3');
  });

  it('a tool call holding the words opens, so they can be seen and marked', async () => {
    const { default: ToolCallRow } = await import('../lib/components/ToolCallRow.svelte');
    const { toolCall } = await import('./fixtures');
    render(ToolCallRow, { call: toolCall({ output: 'the zeppelin landed' }), reveal: ['Zeppelin'] });
    expect(screen.getByTestId('tool-output').textContent).toContain('the zeppelin landed');
  });
});
