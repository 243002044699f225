import { describe, expect, it } from 'vitest';
import {
  addCost,
  costTitle,
  formatCost,
  tokenSum,
  tokensTitle,
  displayName,
  formatBytes,
  formatDuration,
  middleTruncate,
  relativeTime,
  resumeCommand,
  setHomeDir,
  tildePath,
  exportFileName,
  formatTokens,
  dayLabel,
  daySeparators,
  clockTime,
  exactTime,
  folderCounts,
} from '../lib/format';
import { buildFleetTree } from '../lib/fleettree';
import { session } from './fixtures';

describe('formatting', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  it('relative times', () => {
    expect(relativeTime('2026-11-29T11:59:50Z', now)).toBe('just now');
    expect(relativeTime('2026-11-29T11:30:00Z', now)).toBe('30 min ago');
    expect(relativeTime('2026-11-29T07:00:00Z', now)).toBe('5 h ago');
    expect(relativeTime('2026-11-28T11:00:00Z', now)).toBe('yesterday');
    expect(relativeTime('2026-11-25T12:00:00Z', now)).toBe('4 days ago');
    expect(relativeTime(null, now)).toBe('—');
    expect(relativeTime('not a date', now)).toBe('—');
    // Older than a week: the date, with the year only when it is not this year's.
    expect(relativeTime('2026-10-02T12:00:00Z', now)).toMatch(/Oct/);
    expect(relativeTime('2026-10-02T12:00:00Z', now)).not.toMatch(/2026/);
    expect(relativeTime('2025-10-02T12:00:00Z', now)).toMatch(/2025/);
  });
  it('clock and exact times, blank or as given when the timestamp is not one', () => {
    expect(clockTime('2026-11-29T11:59:50Z')).toMatch(/^\d{1,2}:\d{2}/);
    expect(clockTime('not a date')).toBe('');
    expect(clockTime(null)).toBe('');
    expect(exactTime('2026-11-29T11:59:50Z')).toMatch(/2026/);
    expect(exactTime('not a date')).toBe('not a date');
    expect(exactTime(null)).toBe('unknown time');
  });
  it('sizes and durations', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(48 * 1024 * 1024)).toBe('48 MB');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(2900)).toBe('2.9 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
  });
  it('paths: home as ~, middle truncation', () => {
    setHomeDir('/home/ada');
    expect(tildePath('/home/ada/src/x')).toBe('~/src/x');
    expect(tildePath('/home/adam/src')).toBe('/home/adam/src');
    setHomeDir(null);
    expect(middleTruncate('abcdefghij', 20)).toBe('abcdefghij');
    const t = middleTruncate('/very/long/path/to/some/session.jsonl', 20);
    expect(t).toHaveLength(20);
    expect(t).toBe('/very/l…ession.jsonl');
  });
  it('resume command quotes the folder for the shell', () => {
    expect(resumeCommand("/home/ada/it's here", 'abc')).toBe(`cd -- '/home/ada/it'\\''s here' && claude --resume abc`);
  });
  it('display names fall back custom › auto › preview › Untitled', () => {
    expect(displayName({ customName: 'C', autoName: 'A', preview: 'P' })).toBe('C');
    expect(displayName({ customName: '  ', autoName: 'A', preview: 'P' })).toBe('A');
    expect(displayName({ customName: null, autoName: null, preview: 'P' })).toBe('P');
    expect(displayName({ customName: null, autoName: null, preview: null })).toBe('Untitled session');
  });
  it('fleet tree: agents under their fleet path, totals and short names', () => {
    const a = (name: string, fleetPath: string[], sessionCount: number) => ({
      name,
      displayName: name.split('.').pop()!,
      fleetPath,
      workingDirectory: null,
      docker: false,
      sessionCount,
      lastActivityAt: null,
      tokens: {
        inputTokens: sessionCount,
        outputTokens: 10 * sessionCount,
        cacheReadTokens: 1000,
        cacheWriteTokens: 5,
      },
    });
    const tree = buildFleetTree([a('team.gamma', ['team'], 2), a('root', [], 1), a('team.ops.db', ['team', 'ops'], 4)]);
    expect(tree.agents.map((x) => x.name)).toEqual(['root']);
    expect(tree.children.map((c) => c.path)).toEqual(['team']);
    expect(tree.children[0].children.map((c) => c.path)).toEqual(['team.ops']);
    expect(tree.total).toBe(7);
    expect(tree.children[0].total).toBe(6);
    // Tokens add up the same way: team = gamma + ops.db.
    expect(tree.children[0].tokens).toEqual({
      inputTokens: 6,
      outputTokens: 60,
      cacheReadTokens: 2000,
      cacheWriteTokens: 10,
    });
    expect(tokenSum(tree.tokens)).toBe(7 + 70 + 3000 + 15);
    expect(tokensTitle(tree.children[0].tokens)).toMatch(/^Input 6 · output 60 · cache read 2,000 · cache write 10/);
  });
});

describe('folder counts', () => {
  const owners = (...n: number[]) => n.map((c, i) => ({ agentName: `f.a${i}`, sessionCount: c }));
  const up = (a: string) => a.toUpperCase();
  it('name what each number counts, the folder agent first even with none', () => {
    expect(folderCounts({ agentName: null, sessionCount: 1, owners: [] }, 1, up)).toBe('1 session');
    expect(folderCounts({ agentName: 'f.g', sessionCount: 1200, owners: owners(3) }, 40, up)).toBe(
      '40 of 1,200 sessions in this folder · 0 owned by F.G · 3 owned by F.A0',
    );
    expect(folderCounts({ agentName: null, sessionCount: 9, owners: owners(4, 2, 1, 1, 1) }, 9, up)).toBe(
      '9 sessions · 4 owned by F.A0 · 2 owned by F.A1 · 1 owned by F.A2 · 2 more agents',
    );
  });
});

describe('home detection', () => {
  it('only a <home>/.claude Claude home tells where home is', async () => {
    const { homeFromClaudeHome } = await import('../lib/config.svelte');
    expect(homeFromClaudeHome('/home/ada/.claude')).toBe('/home/ada');
    expect(homeFromClaudeHome('/home/ada/.claude/')).toBe('/home/ada');
    expect(homeFromClaudeHome('C:\\Users\\ada\\.claude')).toBe('C:\\Users\\ada');
    expect(homeFromClaudeHome('/tmp/e2e/fx/claude')).toBeNull();
    expect(homeFromClaudeHome('/data/claude-configs/work')).toBeNull();
  });

  it('names an export after the session, safely for every file system', () => {
    expect(exportFileName(session({ customName: 'Fix: the <cache>/index?' }), 'md')).toBe('Fix the cache index.md');
    expect(exportFileName(session({ customName: '..\u0007hidden..' }), 'html')).toBe('hidden.html');
    const untitled = session({ customName: null, autoName: null, preview: null });
    expect(exportFileName(untitled, 'json')).toBe(`session-${untitled.sessionId.slice(0, 8)}.json`);
    expect(exportFileName(session({ customName: 'x'.repeat(200) }), 'md')).toHaveLength(83);
  });

  it('token counts read as k and M', () => {
    expect([999, 1500, 84_000, 999_400, 999_600, 2_410_000, 12_400_000].map(formatTokens)).toEqual([
      '999',
      '1.5k',
      '84k',
      '999k',
      '1.0M',
      '2.4M',
      '12M',
    ]);
  });
});

describe('day separators', () => {
  it('announce each new day, and the first day only when the messages span several', () => {
    const d = (day: number, h: number) => new Date(2026, 10, day, h, 0).toISOString();
    expect(daySeparators([d(20, 9), d(20, 23), null, d(21, 8), d(21, 9), d(23, 1)])).toEqual([
      d(20, 9),
      null,
      null,
      d(21, 8),
      null,
      d(23, 1),
    ]);
    expect(daySeparators([d(20, 9), d(20, 10)])).toEqual([null, null]);
    expect(daySeparators([null, 'not a time'])).toEqual([null, null]);
  });

  it('say Today and Yesterday, else the date', () => {
    const now = new Date(2026, 10, 21, 12).getTime();
    expect(dayLabel(new Date(2026, 10, 21, 8).toISOString(), now)).toBe('Today');
    expect(dayLabel(new Date(2026, 10, 20, 23).toISOString(), now)).toBe('Yesterday');
    expect(dayLabel(new Date(2026, 10, 18, 8).toISOString(), now)).toContain('2026');
  });
});

describe('costs', () => {
  const cost = (usd: number, unpriced = false, source: 'claudeCode' | 'table' | 'mixed' = 'table') => ({
    usd,
    unpriced,
    source,
  });

  it('reads as dollars, never $0 for what could not be priced', () => {
    expect(formatCost(cost(1.234))).toBe('$1.23');
    expect(formatCost(cost(0.004))).toBe('<$0.01');
    expect(formatCost(cost(0))).toBe('$0.00');
    expect(formatCost(cost(1234.5))).toBe('$1,235');
    expect(formatCost(cost(0, true))).toBe('price unknown');
    expect(formatCost(cost(2, true))).toBe('$2.00+');
    expect(formatCost(cost(2, true, 'claudeCode'))).toBe('~$2.00');
  });

  it('says in the tooltip what the figure is and where it came from', () => {
    expect(costTitle(cost(1.5, false, 'claudeCode'))).toContain("Claude Code's own figure");
    expect(costTitle(cost(1.5))).toContain('bundled price table');
    expect(costTitle(cost(1.5, true))).toContain('left out');
    expect(costTitle(cost(1.5, true, 'claudeCode'))).toContain('guess');
    expect(costTitle(cost(1.5))).toContain('subscription');
  });

  it('adds up, with the sources said', () => {
    expect(addCost(undefined, undefined)).toBeUndefined();
    expect(addCost(cost(1), undefined)).toEqual(cost(1));
    expect(addCost(cost(1, false, 'claudeCode'), cost(2, true))).toEqual(cost(3, true, 'mixed'));
    expect(addCost(cost(1), cost(2))).toEqual(cost(3));
  });
});
