import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { CostBy, CostReport, CostRow } from '../lib/types';
import { jobBeside, rowMoney, sinceDay } from '../lib/costs';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { nav } = await import('../lib/navigation.svelte');
const { default: CostView } = await import('../lib/components/CostView.svelte');

const NOTE = 'List-price equivalents: what the API would charge for these requests. A subscription pays otherwise.';

function row(key: string | null, usd: number, o: Partial<CostRow> = {}): CostRow {
  return { key, usd, unpriced: 0, sessions: 1, source: 'table', ...o };
}

function report(by: CostBy, rows: CostRow[], since: string | null = null): CostReport {
  return { by, since, rows, totalUsd: rows.reduce((t, r) => t + r.usd, 0), note: NOTE, prices: 'genai-prices 0.2.5' };
}

beforeEach(() => {
  vi.clearAllMocks();
  nav.view = 'cost';
});

describe('Cost figures', () => {
  it('are written as the CLI writes them, never $0 for what has no price', () => {
    expect(rowMoney(row('a', 1.234))).toBe('$1.23');
    expect(rowMoney(row('a', 0.004))).toBe('<$0.01');
    expect(rowMoney(row('a', 2, { unpriced: 3 }))).toBe('$2.00+');
    expect(rowMoney(row('a', 0, { unpriced: 3 }))).toBe('price unknown');
    expect(rowMoney(row('a', 2, { unpriced: 1, source: 'claudeCode' }))).toBe('~$2.00');
  });

  it('put a job’s own figure beside Corral’s with the difference', () => {
    expect(jobBeside(row('j', 1.2))).toBeNull();
    expect(jobBeside(row('j', 1.2, { jobUsd: 1.2 }))).toBe('herdctl says $1.20 · agrees');
    expect(jobBeside(row('j', 1.5, { jobUsd: 1.2 }))).toBe('herdctl says $1.20 · Corral +$0.30');
    expect(jobBeside(row('j', 1.0, { jobUsd: 1.2 }))).toBe('herdctl says $1.20 · Corral −$0.20');
  });

  it('count a range from its first UTC day, today included', () => {
    const now = Date.parse('2026-12-07T21:00:00Z');
    expect(sinceDay(1, now)).toBe('2026-12-07');
    expect(sinceDay(7, now)).toBe('2026-12-01');
    expect(sinceDay(null, now)).toBeNull();
  });
});

describe('The Cost view', () => {
  it('rolls up by what is chosen over the chosen range', async () => {
    vi.mocked(api.costReport).mockImplementation(async (by, since) =>
      by === 'agent'
        ? report(by, [row('alpha', 12.5, { sessions: 3 }), row(null, 0.5)], since)
        : by === 'job'
          ? report(by, [
              row('job-1', 2.5, { name: 'alpha', jobUsd: 2.0 }),
              row('job-2', 1, { name: 'beta', jobUsd: 1 }),
            ])
          : report(by, [row('c0ffee00-0000-4000-8000-000000000001', 3, { name: 'Fix the login' })]),
    );
    render(CostView);
    expect((await screen.findByTestId('cost-total')).textContent).toBe('$13.00 at list price, 30 days');
    expect(api.costReport).toHaveBeenLastCalledWith('agent', sinceDay(30));
    const rows = screen.getAllByTestId('cost-rows-row');
    expect(rows.map((r) => r.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
      'alpha 3 sessions $12.50',
      'Not owned by an agent 1 session $0.50',
    ]);
    expect(screen.getByTestId('cost-note').textContent).toContain('subscription pays otherwise');

    await fireEvent.click(screen.getByTestId('cost-by-job'));
    await waitFor(() => expect(screen.getAllByTestId('cost-job-own')).toHaveLength(2));
    const own = screen.getAllByTestId('cost-job-own').map((e) => e.textContent);
    expect(own).toEqual(['herdctl says $2.00 · Corral +$0.50', 'herdctl says $1.00 · agrees']);

    await fireEvent.change(screen.getByTestId('cost-range'), { target: { value: 'null' } });
    await fireEvent.click(screen.getByTestId('cost-by-session'));
    await waitFor(() => expect(api.costReport).toHaveBeenLastCalledWith('session', null));
    expect((await screen.findByTestId('cost-total')).textContent).toBe('$3.00 at list price');
    await fireEvent.click(screen.getByTestId('cost-open-session'));
    expect(nav.view).toBe('chats');
  });

  it('says so when nothing was spent, and when it cannot count', async () => {
    vi.mocked(api.costReport).mockResolvedValue(report('agent', []));
    const { unmount } = render(CostView);
    expect((await screen.findByTestId('cost-empty')).textContent).toContain('Nothing was spent in 30 days');
    unmount();
    vi.mocked(api.costReport).mockRejectedValue({ kind: 'io', message: 'cannot read /h/.claude' });
    render(CostView);
    expect((await screen.findByRole('alert')).textContent).toContain('cannot read /h/.claude');
  });
});
