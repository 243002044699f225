import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import LiveBadge from '../lib/components/LiveBadge.svelte';
import OriginBadge from '../lib/components/OriginBadge.svelte';
import ToolCallRow from '../lib/components/ToolCallRow.svelte';
import { ORIGINS } from '../lib/format';
import { toolCall } from './fixtures';

describe('origin badges', () => {
  it('every one of the six origins has its own icon and text label', () => {
    const seen = new Set<string>();
    const icons = new Set<string>();
    for (const o of ORIGINS) {
      const { container, unmount } = render(OriginBadge, { origin: o });
      const badge = container.querySelector('[data-testid="origin-badge"]')!;
      const svg = badge.querySelector('svg')!;
      const icon = svg.getAttribute('data-icon')!;
      // Its shapes are SVG elements (drawn), not HTML elements with SVG names (invisible).
      expect(svg.children.length).toBeGreaterThan(0);
      for (const shape of svg.children) expect(shape.namespaceURI).toBe('http://www.w3.org/2000/svg');
      expect(svg.textContent).toBe('');
      const label = badge.textContent!.trim();
      expect(icon).toBeTruthy();
      expect(label.length).toBeGreaterThan(1);
      expect(badge.getAttribute('title')).toBeTruthy();
      seen.add(label);
      icons.add(icon);
      unmount();
    }
    expect(ORIGINS).toEqual(expect.arrayContaining(['web', 'discord', 'slack', 'schedule', 'native', 'adopted']));
    expect(seen.size).toBe(6);
    expect(icons.size).toBe(6);
  });
});

describe('tool-call rows', () => {
  it('shows an icon, tool name, summary, duration and success', () => {
    render(ToolCallRow, { call: toolCall({ durationMs: 1500 }) });
    const row = screen.getByTestId('tool-call');
    expect(row.dataset.state).toBe('ok');
    expect(row.querySelector('svg')!.getAttribute('data-icon')).toBe('terminal');
    expect(row.textContent).toContain('Bash');
    expect(row.textContent).toContain('cargo test');
    expect(row.textContent).toContain('1.5 s');
    expect(screen.getByTestId('tool-status').querySelector('[data-icon="check"]')).not.toBeNull();
  });

  it('marks errors', () => {
    render(ToolCallRow, { call: toolCall({ isError: true, output: 'boom' }) });
    expect(screen.getByTestId('tool-call').dataset.state).toBe('error');
    expect(screen.getByTestId('tool-status').textContent).toContain('error');
  });

  it('marks pending calls and shows no duration', () => {
    render(ToolCallRow, { call: toolCall({ pending: true, durationMs: null, output: '' }) });
    expect(screen.getByTestId('tool-call').dataset.state).toBe('pending');
    expect(screen.getByTestId('tool-status').textContent).toContain('pending');
    expect(screen.getByTestId('tool-call').textContent).not.toMatch(/\d s\b/);
  });

  it('expands to the output, clipping long output behind "Show all"', async () => {
    const long = 'x'.repeat(5000);
    render(ToolCallRow, { call: toolCall({ output: long }) });
    expect(screen.queryByTestId('tool-output')).toBeNull();
    await fireEvent.click(screen.getByRole('button', { expanded: false }));
    expect(screen.getByTestId('tool-output').textContent!.length).toBe(2000);
    await fireEvent.click(screen.getByText(/Show all/));
    expect(screen.getByTestId('tool-output').textContent!.length).toBe(5000);
  });

  it('offers to open the subagent run of a Task call', async () => {
    let opened = '';
    render(ToolCallRow, {
      call: toolCall({ toolName: 'Task', subagentId: 'agent-1' }),
      onsubagent: (id: string) => (opened = id),
    });
    await fireEvent.click(screen.getByTestId('open-subagent'));
    expect(opened).toBe('agent-1');
  });

  it('shows paths inside the session folder relative to it, the full summary on hover', () => {
    render(ToolCallRow, {
      call: toolCall({ toolName: 'Read', inputSummary: '/home/ada/app/src/main.rs' }),
      cwd: '/home/ada/app',
    });
    const summary = screen.getByTestId('tool-call').querySelector('.summary')!;
    expect(summary.textContent).toBe('src/main.rs');
    expect(summary.getAttribute('title')).toBe('/home/ada/app/src/main.rs');
  });
});

describe('live badges', () => {
  const job = {
    source: 'herdctl' as const,
    id: 'job-2026-11-30-aaaaaa',
    state: 'running',
    active: true,
    blocked: false,
  };
  it('a measured state says what the process does; a job alone shows its own word, marked as such', () => {
    const running = render(LiveBadge, {
      status: { sessionId: 's', state: 'running', why: 'resumes it', pid: 3, job: null },
    });
    expect(screen.getByTestId('live-badge').textContent).toContain('Running');
    expect(screen.getByTestId('live-badge').className).toContain('running');
    running.unmount();
    const why = 'herdctl job job-2026-11-30-aaaaaa says running, but no claude process on it is seen here';
    const going = render(LiveBadge, { status: { sessionId: 's', state: 'not-running', why, pid: null, job } });
    const badge = screen.getByTestId('live-badge');
    expect(badge.textContent).toContain('Job: running');
    expect(badge.className).toContain('job');
    expect(badge.getAttribute('title')).toBe(why);
    going.unmount();
    render(LiveBadge, {
      status: { sessionId: 's', state: 'not-running', why: '', pid: null, job: { ...job, active: false } },
    });
    expect(screen.queryByTestId('live-badge')).toBeNull();
  });

  it("each source of a job's word is named: herdctl, a background agent, a claude process's own record", () => {
    for (const [source, text] of [
      ['herdctl', 'Job: idle'],
      ['agent-view', 'Agent: idle'],
      ['claude-code', 'Claude Code: idle'],
    ] as const) {
      const r = render(LiveBadge, {
        status: { sessionId: 's', state: 'not-running', why: '', pid: null, job: { ...job, source, state: 'idle' } },
      });
      expect(screen.getByTestId('live-badge').textContent).toContain(text);
      r.unmount();
    }
  });
});
