import { render } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { emit, on } from '../lib/events.svelte';
import EventProbe from './EventProbe.svelte';

describe('events', () => {
  it('reach each subscriber with their payload until it unsubscribes', () => {
    const seen: string[][] = [];
    const off = on('sessions-changed', ({ folders }) => seen.push(folders));
    emit('sessions-changed', { folders: ['/a'] });
    emit('focus-search', null);
    off();
    emit('sessions-changed', { folders: ['/b'] });
    expect(seen).toEqual([['/a']]);
  });

  it('reach a component only while it is mounted', () => {
    const seen: string[] = [];
    const { unmount } = render(EventProbe, { seen });
    emit('rename-current', null);
    emit('find-in-transcript', null);
    unmount();
    emit('rename-current', null);
    expect(seen).toEqual(['rename-current']);
  });
});
