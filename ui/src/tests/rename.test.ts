import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { session } from './fixtures';

import * as fx from './fixtures';
vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { config } = await import('../lib/config.svelte');
const { listing } = await import('../lib/listing.svelte');
const { toasts } = await import('../lib/toasts.svelte');
const { default: SessionRow } = await import('../lib/components/SessionRow.svelte');

function setup(o = {}) {
  const s = session({ autoName: 'Fix the login test', ...o });
  render(SessionRow, { session: s, onopen: () => {} });
  return s;
}

describe('inline rename', () => {
  beforeEach(() => {
    listing.names = {};
    vi.mocked(api.renameSession).mockReset();
  });

  it('Enter saves the new name and shows it at once', async () => {
    const s = setup();
    vi.mocked(api.renameSession).mockResolvedValue({ session: { ...s, customName: 'Login bug' }, runId: 'r1' });
    await fireEvent.click(screen.getByTestId('rename-button'));
    const input = screen.getByTestId('rename-input') as HTMLInputElement;
    await fireEvent.input(input, { target: { value: 'Login bug' } });
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(api.renameSession).toHaveBeenCalledWith(s.sessionId, 'Login bug');
    expect(screen.getByTestId('session-name').textContent).toBe('Login bug');
    expect(screen.queryByTestId('rename-input')).toBeNull();
  });

  it('the toast offers Undo, which undoes the rename run and shows the earlier name', async () => {
    const s = setup({ customName: 'Before' });
    vi.mocked(api.renameSession).mockResolvedValue({ session: { ...s, customName: 'After' }, runId: 'run-7' });
    vi.mocked(api.undoRun).mockResolvedValue({ runId: 'run-7', undone: [], notUndone: [] });
    toasts.list = [];
    await fireEvent.click(screen.getByTestId('rename-button'));
    const input = screen.getByTestId('rename-input');
    await fireEvent.input(input, { target: { value: 'After' } });
    await fireEvent.keyDown(input, { key: 'Enter' });
    await vi.waitFor(() => expect(screen.getByTestId('session-name').textContent).toBe('After'));
    const toast = toasts.list.find((t) => t.text === 'Renamed to “After”');
    expect(toast?.action?.label).toBe('Undo');
    toast!.action!.run();
    await vi.waitFor(() => expect(screen.getByTestId('session-name').textContent).toBe('Before'));
    expect(api.undoRun).toHaveBeenCalledWith('run-7');
  });

  it('Esc cancels without saving', async () => {
    setup();
    await fireEvent.click(screen.getByTestId('rename-button'));
    const input = screen.getByTestId('rename-input');
    await fireEvent.input(input, { target: { value: 'Something else' } });
    await fireEvent.keyDown(input, { key: 'Escape' });
    expect(api.renameSession).not.toHaveBeenCalled();
    expect(screen.getByTestId('session-name').textContent).toBe('Fix the login test');
  });

  it('an empty name clears the custom name and shows the auto name again', async () => {
    const s = setup({ customName: 'Old custom' });
    vi.mocked(api.renameSession).mockResolvedValue({ session: { ...s, customName: null }, runId: 'r2' });
    expect(screen.getByTestId('session-name').textContent).toBe('Old custom');
    await fireEvent.click(screen.getByTestId('rename-button'));
    const input = screen.getByTestId('rename-input') as HTMLInputElement;
    expect(input.value).toBe('Old custom');
    await fireEvent.input(input, { target: { value: '   ' } });
    await fireEvent.keyDown(input, { key: 'Enter' });
    expect(api.renameSession).toHaveBeenCalledWith(s.sessionId, null);
    expect(screen.getByTestId('session-name').textContent).toBe('Fix the login test');
  });

  it('rolls back and reports when the engine refuses', async () => {
    const s = setup();
    vi.mocked(api.renameSession).mockRejectedValue({ kind: 'io', message: 'disk full' });
    await fireEvent.click(screen.getByTestId('rename-button'));
    const input = screen.getByTestId('rename-input');
    await fireEvent.input(input, { target: { value: 'Nope' } });
    await fireEvent.keyDown(input, { key: 'Enter' });
    await vi.waitFor(() =>
      expect(toasts.list.some((t) => t.kind === 'error' && t.detail?.includes('disk full'))).toBe(true),
    );
    expect(screen.getByTestId('session-name').textContent).toBe('Fix the login test');
    expect(s.sessionId in listing.names).toBe(false);
  });

  it('names fall back custom › auto › preview › "Untitled session"', () => {
    setup({ customName: null, autoName: null, preview: null });
    expect(screen.getByTestId('session-name').textContent).toBe('Untitled session');
  });

  const withFleet = (fleetFile: string | null) => {
    config.settings = fx.settings({ fleetFile });
  };

  it('without a fleet the row menu offers no adoption', async () => {
    withFleet(null);
    setup();
    await fireEvent.contextMenu(screen.getByTestId('session-row'));
    const labels = [...screen.getByTestId('context-menu').querySelectorAll('button')].map((b) => b.textContent);
    expect(labels.some((l) => l?.includes('Adopt'))).toBe(false);
    expect(labels.some((l) => l?.includes('Resume in terminal'))).toBe(true);
    expect(labels).toEqual(expect.arrayContaining(['Copy transcript path', 'Reveal in file manager']));
    vi.mocked(api.revealPath).mockResolvedValue(null);
    await fireEvent.click(
      [...screen.getByTestId('context-menu').querySelectorAll('button')].find(
        (b) => b.textContent === 'Reveal in file manager',
      )!,
    );
    expect(api.revealPath).toHaveBeenCalledWith(expect.stringContaining('.jsonl'));
  });

  it('the context menu offers the row actions and Rename starts editing', async () => {
    withFleet('/f/herdctl.yaml');
    setup();
    await fireEvent.contextMenu(screen.getByTestId('session-row'));
    const menu = screen.getByTestId('context-menu');
    const labels = [...menu.querySelectorAll('button')].map((b) => b.textContent);
    expect(labels).toEqual(
      expect.arrayContaining([
        expect.stringContaining('Rename'),
        expect.stringContaining('Copy resume command'),
        expect.stringContaining('Adopt into agent'),
      ]),
    );
    await fireEvent.click([...menu.querySelectorAll('button')].find((b) => b.textContent?.includes('Rename'))!);
    expect(screen.queryByTestId('context-menu')).toBeNull();
    expect(screen.getByTestId('rename-input')).toBeTruthy();
  });

  it('a live refresh while typing does not reset the typed name', async () => {
    const s = session({ autoName: 'Auto' });
    const { rerender } = render(SessionRow, { session: s, onopen: () => {} });
    await fireEvent.click(screen.getByTestId('rename-button'));
    const input = screen.getByTestId('rename-input') as HTMLInputElement;
    await fireEvent.input(input, { target: { value: 'Half-typed' } });
    await rerender({ session: { ...s, messageCount: s.messageCount + 5 }, onopen: () => {} });
    expect((screen.getByTestId('rename-input') as HTMLInputElement).value).toBe('Half-typed');
  });
});
