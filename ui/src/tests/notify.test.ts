import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { LiveStatus } from '../lib/types';
import { newlyWaiting, plainNotificationText, waitingNotification } from '../lib/notify';

vi.mock('../lib/api', async () => (await import('./fixtures')).apiMock());
const api = await import('../lib/api');
const { config } = await import('../lib/config.svelte');
const { listing } = await import('../lib/listing.svelte');
const { live } = await import('../lib/live.svelte');
const fx = await import('./fixtures');
const { group, session } = fx;

const st = (
  id: string,
  state: LiveStatus['state'],
  why = 'claude process 1 resumes it; a question waits for your answer',
) => ({
  sessionId: id,
  state,
  why,
  pid: 1,
  job: null,
});
const map = (...xs: LiveStatus[]) => new Map(xs.map((x) => [x.sessionId, x]));

describe('waiting notifications', () => {
  it('a session notifies when it starts waiting, once, however long it waits', () => {
    expect(newlyWaiting(map(st('a', 'running')), map(st('a', 'waiting'))).map((s) => s.sessionId)).toEqual(['a']);
    expect(newlyWaiting(map(st('a', 'waiting')), map(st('a', 'waiting')))).toEqual([]);
    expect(newlyWaiting(map(), map(st('b', 'waiting'), st('c', 'idle'))).map((s) => s.sessionId)).toEqual(['b']);
    expect(newlyWaiting(map(st('a', 'waiting')), map(st('a', 'idle')))).toEqual([]);
  });

  it('transcript text never reaches the notification server as markup', () => {
    expect(plainNotificationText('<b>fix</b> & ship\u0007\n now')).toBe('‹b›fix‹/b› ＆ ship now');
    expect(plainNotificationText('x'.repeat(300)).length).toBe(120);
    const n = waitingNotification(st('a', 'waiting'), 'Deploy <script>');
    expect(n.title).toBe('Waiting on you: Deploy ‹script›');
    expect(n.body).toBe('a question waits for your answer');
  });

  describe('in the app', () => {
    const deploy = session({ sessionId: 'd1', customName: 'Deploy the API' });
    beforeEach(() => {
      vi.clearAllMocks();
      listing.groups = [group('/w/api', [deploy])];
      live.sessions = new Map();
    });

    it('notifies only when turned on, and never for what already waited at the first look', async () => {
      for (const notifyWaiting of [false, true]) {
        vi.clearAllMocks();
        config.settings = fx.settings({ notifyWaiting });
        (live as unknown as { looked: boolean }).looked = false;
        live.sessions = new Map();
        vi.mocked(api.liveStates).mockResolvedValueOnce({ sessions: [st('d1', 'waiting')], unknown: null });
        await live.load();
        expect(api.notify).not.toHaveBeenCalled();
        vi.mocked(api.liveStates).mockResolvedValueOnce({ sessions: [st('d1', 'running')], unknown: null });
        await live.load();
        vi.mocked(api.liveStates).mockResolvedValueOnce({ sessions: [st('d1', 'waiting')], unknown: null });
        await live.load();
        if (notifyWaiting) {
          expect(api.notify).toHaveBeenCalledTimes(1);
          expect(api.notify).toHaveBeenCalledWith('Waiting on you: Deploy the API', 'a question waits for your answer');
        } else {
          expect(api.notify).not.toHaveBeenCalled();
        }
      }
    });
  });
});
