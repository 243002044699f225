// What a person does to a session from any view: rename it (and undo that), release it from an
// agent, export it, resume it in a terminal. Each says what happened in a toast.
import * as api from './api';
import { exportFileName, formatCount } from './format';
import { listing, own } from './listing.svelte';
import { live } from './live.svelte';
import { toasts } from './toasts.svelte';
import type { ExportFormat, SessionSummary } from './types';

/** Most terminals "Resume selected" opens at once. */
export const RESUME_AT_ONCE = 8;

/** Optimistic rename: shows the new name everywhere at once, rolls back if the engine refuses. */
async function rename(s: SessionSummary, raw: string): Promise<boolean> {
  const names = listing.names;
  const name = raw.trim() === '' ? null : raw.trim();
  const had = s.sessionId in names;
  const before = names[s.sessionId];
  names[s.sessionId] = name;
  try {
    const { session: updated, runId } = await api.renameSession(s.sessionId, name);
    names[s.sessionId] = updated.customName;
    const previous = had ? (before ?? null) : s.customName;
    const undo = runId ? { label: 'Undo', run: () => void undoRename(updated, runId, previous) } : undefined;
    toasts.show(name ? `Renamed to “${name}”` : 'Custom name cleared — showing the automatic name again', {
      action: undo,
    });
    return true;
  } catch (e) {
    if (had) names[s.sessionId] = before ?? null;
    else delete names[s.sessionId];
    toasts.error('Could not rename the session', e);
    return false;
  }
}

/** Undoes a rename run (as History does) and shows the name it brought back. */
async function undoRename(s: SessionSummary, runId: string, before: string | null): Promise<void> {
  try {
    const report = await api.undoRun(runId);
    if (report.notUndone.length) {
      toasts.show(`Not everything could be undone: ${report.notUndone[0].reason}`, { kind: 'error' });
    } else {
      listing.names[s.sessionId] = before;
      toasts.show(before ? `Name is “${before}” again` : 'Custom name removed again');
    }
  } catch (e) {
    toasts.error('Could not undo the rename', e);
  }
}

/** Releases a session from an agent; the toast offers the release's undo (as History does). */
async function release(agent: string, s: SessionSummary): Promise<void> {
  try {
    const done = await api.release(agent, s.sessionId);
    const label = listing.agentLabel(agent);
    if (done.released) {
      const runId = done.runId;
      const undo = runId ? { label: 'Undo', run: () => void undoRelease(label, runId) } : undefined;
      toasts.show(`Released from ${label}. The transcript is still on disk and now shows in All Chats.`, {
        action: undo,
      });
      const list = own(listing.agentSessions, agent);
      if (list)
        listing.agentSessions = {
          ...listing.agentSessions,
          [agent]: list.filter((x) => x.sessionId !== s.sessionId),
        };
    } else {
      toasts.show(`${label} did not hold an adoption record for this session; nothing changed.`);
    }
    await listing.refresh();
  } catch (e) {
    toasts.error('Could not release the session', e);
  }
}

/** Undoes a release run: the adoption record comes back, unless the session was adopted since. */
async function undoRelease(label: string, runId: string): Promise<void> {
  try {
    const report = await api.undoRun(runId);
    if (report.notUndone.length) {
      toasts.show(`Not adopted again: ${report.notUndone[0].reason}`, { kind: 'error' });
    } else {
      toasts.show(`Adopted by ${label} again`);
    }
    await listing.refresh();
  } catch (e) {
    toasts.error('Could not undo the release', e);
  }
}

/** Exports a session's conversation: the save dialog picks the file, then Corral writes it. */
async function exportSession(s: SessionSummary, format: ExportFormat, subagents = false): Promise<void> {
  const name = exportFileName(listing.withName(s), format);
  try {
    const path = await api.pickSavePath(name, format);
    if (!path) return;
    // The system dialog asked before the person chose an existing file.
    const done = await api.exportSession(s.sessionId, { format, subagents }, path, true);
    const runs = done.subagents ? ` and ${done.subagents} subagent run${done.subagents === 1 ? '' : 's'}` : '';
    toasts.show(`Exported ${formatCount(done.messages, 'message')}${runs} to ${done.path ?? path}`);
  } catch (e) {
    toasts.error('Could not export the conversation', e);
  }
}

/** Resumes a session in a terminal, and says whether claude started on it. */
async function resume(s: SessionSummary, fromHome = false): Promise<void> {
  try {
    const done = await api.resumeSession(s.sessionId, fromHome);
    if (done.started) {
      toasts.show(`Resumed in ${done.terminal}${done.command.fromFallback ? ' (from your home folder)' : ''}`);
      void live.load();
    } else {
      toasts.show(`${done.terminal} opened, but the session ${done.reason ?? 'did not start'}`, { kind: 'error' });
    }
  } catch (e) {
    const err = api.toAppError(e);
    if (err.kind === 'invalid-input' && err.message.includes('home folder') && !fromHome) {
      toasts.show(`Its folder is gone: ${s.workingDirectory}`, {
        kind: 'error',
        action: { label: 'Resume from home', run: () => void resume(s, true) },
      });
    } else {
      toasts.error('Could not resume the session', e);
    }
  }
}

/** Resumes several sessions, one terminal each, one after the other (each start is verified
 *  before the next opens). At most {@link RESUME_AT_ONCE}: a slip of the shift key must not open
 *  a hundred terminals. */
async function resumeMany(list: SessionSummary[]): Promise<void> {
  if (list.length > RESUME_AT_ONCE) {
    toasts.show(`Choose at most ${RESUME_AT_ONCE} sessions to resume at once (${list.length} chosen)`, {
      kind: 'error',
    });
    return;
  }
  for (const s of list) await resume(s);
}

export const actions = { rename, undoRename, release, exportSession, resume, resumeMany };
