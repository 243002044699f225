import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Settings } from '../lib/types';

import * as fx from './fixtures';
vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { config } = await import('../lib/config.svelte');
const { default: SettingsView } = await import('../lib/components/SettingsView.svelte');

const settings = (o: Partial<Settings> = {}) =>
  fx.settings({ claudeHome: '/home/ada/.claude', terminals: ['gnome-terminal', 'xterm'], ...o });

describe('settings', () => {
  beforeEach(() => {
    vi.clearAllMocks();
    config.settings = settings();
  });

  it('offers the terminals found, saves a choice at once, and shows the paths in force', async () => {
    vi.mocked(api.setSettings).mockResolvedValue(settings({ terminal: 'xterm' }));
    render(SettingsView);
    expect(screen.getByTestId('settings-claude-home').textContent).toContain('.claude');
    const select = screen.getByTestId('settings-terminal') as HTMLSelectElement;
    const options = [...select.options].map((o) => o.value);
    expect(options).toEqual(['', 'gnome-terminal', 'xterm', 'custom']);
    await fireEvent.change(select, { target: { value: 'xterm' } });
    await vi.waitFor(() => expect(api.setSettings).toHaveBeenCalledWith({ terminal: 'xterm' }));
    await vi.waitFor(() => expect(config.settings?.terminal).toBe('xterm'));
  });

  it('a custom command the backend refuses says why, in place, and changes nothing', async () => {
    vi.mocked(api.setSettings).mockRejectedValue({ kind: 'invalid-input', message: 'put {command} where it goes' });
    render(SettingsView);
    await fireEvent.change(screen.getByTestId('settings-terminal'), { target: { value: 'custom' } });
    expect(api.setSettings).not.toHaveBeenCalled();
    await fireEvent.input(screen.getByTestId('settings-terminal-template'), { target: { value: 'alacritty -e' } });
    await fireEvent.click(screen.getByTestId('settings-terminal-save'));
    const err = await screen.findByTestId('settings-terminal-error');
    expect(err.textContent).toContain('put {command} where it goes');
    expect(api.setSettings).toHaveBeenCalledWith({ terminal: 'alacritty -e' });
    expect(config.settings?.terminal).toBeNull();
  });

  it('a saved template shows as the custom command; notifications are off until asked for', async () => {
    config.settings = settings({ terminal: 'foot -D {cwd} {command}' });
    vi.mocked(api.setSettings).mockResolvedValue(settings({ notifyWaiting: true }));
    render(SettingsView);
    expect((screen.getByTestId('settings-terminal') as HTMLSelectElement).value).toBe('custom');
    expect((screen.getByTestId('settings-terminal-template') as HTMLInputElement).value).toBe(
      'foot -D {cwd} {command}',
    );
    const box = screen.getByTestId('settings-notify-waiting') as HTMLInputElement;
    expect(box.checked).toBe(false);
    await fireEvent.click(box);
    await vi.waitFor(() => expect(api.setSettings).toHaveBeenCalledWith({ notifyWaiting: true }));
    expect(screen.queryByTestId('notifications-note')).toBeNull();
  });

  it('says so where notifications cannot be raised (no session bus)', () => {
    config.settings = settings({ notificationsNote: 'There is no desktop session bus (D-Bus) here' });
    render(SettingsView);
    expect(screen.getByTestId('notifications-note').textContent).toContain('no desktop session bus');
  });

  it('automatic emptying of the quarantine is off until chosen, and can be turned off again', async () => {
    config.settings = settings();
    vi.mocked(api.setSettings).mockResolvedValue(settings({ emptyQuarantineAfterDays: 30 }));
    render(SettingsView);
    const select = screen.getByTestId('settings-empty-after') as HTMLSelectElement;
    expect(select.value).toBe('');
    await fireEvent.change(select, { target: { value: '30' } });
    await vi.waitFor(() => expect(api.setSettings).toHaveBeenCalledWith({ emptyQuarantineAfterDays: 30 }));
    await vi.waitFor(() => expect(select.value).toBe('30'));
    await fireEvent.change(select, { target: { value: '' } });
    await vi.waitFor(() => expect(api.setSettings).toHaveBeenLastCalledWith({ emptyQuarantineAfterDays: null }));
  });
});
