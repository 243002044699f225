// Plain-words wording for the import wizard and History.
import { listing } from './listing.svelte';
import type { ImportSkip, ImportTarget, PlacementMode, RunSummary, UndoAction, UndoState } from './types';

export function skipReasonText(
  s: Pick<ImportSkip, 'reason'> & { ownedBy?: string | null },
  agentLabel: (agent: string) => string = (a) => a,
): string {
  const owner = s.ownedBy ? agentLabel(s.ownedBy) : null;
  switch (s.reason) {
    case 'sidechain':
      return 'A subagent (sidechain) transcript — it is part of another session, not a chat of its own';
    case 'already-adopted':
      return owner ? `Already adopted by ${owner}` : 'Already adopted by this agent';
    case 'destination-exists':
      return 'A transcript with this id is already at the destination — Corral never overwrites';
    case 'attributed-to-run':
      return owner ? `Owned by agent ${owner} through a herdctl run` : 'Owned by an agent through a herdctl run';
    case 'occupied':
      return 'Open in a running claude process — it cannot be moved while in use';
    case 'unreadable':
      return 'Could not be read';
    case 'not-a-transcript':
      return 'Not a Claude Code transcript';
    case 'placement-failed':
      return 'Could not be placed';
    case 'record-failed':
      return 'Placed, but the adoption record could not be written';
    default:
      return String(s.reason);
  }
}

/** "2 subagent runs and 1 other file" for a session folder's companion files. */
export function companionText(files: string[]): string {
  const runs = files.filter((f) => /^subagents\/agent-[^/]+\.jsonl$/.test(f)).length;
  const others = files.length - runs;
  const parts = [];
  if (runs) parts.push(runs === 1 ? '1 subagent run' : `${runs} subagent runs`);
  if (others) parts.push(others === 1 ? `1${runs ? ' other' : ''} file` : `${others}${runs ? ' other' : ''} files`);
  return parts.join(' and ');
}

export const MODE_TEXT: Record<PlacementMode, { label: string; doing: string; sentence: string }> = {
  copy: {
    label: 'Copy',
    doing: 'Copying',
    sentence: 'Makes a new copy at the destination; your original stays untouched.',
  },
  move: {
    label: 'Move',
    doing: 'Moving',
    sentence: 'The transcript disappears from its original folder (a backup is kept); refused for sessions in use.',
  },
  link: {
    label: 'Link',
    doing: 'Linking',
    sentence: 'One file shared by both places — whatever is added in one shows in the other.',
  },
};

/** What a run did, in counts: "2 placed · 1 skipped · 2 adopted", or "1 adopted · 0 skipped"
 * for a run that only wrote adoption records (the transcripts were already in place). */
export function runCounts(placed: number, skipped: number, records: number, released = 0): string {
  const later = released ? ` · ${released} released since` : '';
  if (placed === 0 && records > 0) return `${records} adopted · ${skipped} skipped${later}`;
  return `${placed} placed · ${skipped} skipped${records ? ` · ${records} adopted` : ''}${later}`;
}

/** Where an import goes, as a person reads it: the agent by the name shown everywhere. */
export function targetText(t: ImportTarget | null | undefined): string {
  if (!t) return 'unknown target';
  return t.kind === 'agent' ? listing.agentLabel(t.name) : 'this Claude home';
}

export const UNDO_ACTION_TEXT: Record<UndoAction, string> = {
  removed: 'Remove the imported file',
  'restored-source': 'Put the moved transcript back where it was',
  'restored-from-backup': 'Restore the moved transcript from the backup',
  'record-removed': 'Remove the adoption record',
  'record-restored': 'Restore the adoption record it replaced',
  'temp-removed': 'Remove a temporary file left by an interrupted copy',
  'entry-restored': 'Put back the desktop-app sidebar entry it replaced',
  'folder-removed': 'Remove the folder it created (empty again)',
  'folder-kept': 'Keep the folder it created (other files are in it now)',
  'already-gone': 'Nothing to do — already gone',
  'title-appended': 'Give Claude Code back the earlier title (one line appended; nothing is cut)',
  'sidecar-restored': 'Restore Claude Code’s title file it replaced',
  'sidecar-removed': 'Remove the Claude Code title file it created',
  'name-restored': 'Set the name herdctl shows back to the earlier one',
  unquarantined: 'Put it back from the quarantine (nothing there now is replaced)',
  'record-put-back': 'Adopt it again: put back the adoption record the release removed',
};

export const UNDO_STATE_TEXT: Record<UndoState, string> = {
  'not-undone': 'Active',
  undone: 'Undone',
  'partly-undone': 'Partly undone',
};

/** What a run was, for the words of its undo. */
export type RunKind = 'import' | 'adoption' | 'release' | 'rename' | 'restore' | 'delete';

export function runKind(r: RunSummary): RunKind {
  if (r.release) return 'release';
  if (r.rename) return 'rename';
  if (r.delete) return 'delete';
  if (r.sidebar) return 'restore';
  return r.placed === 0 && r.records > 0 ? 'adoption' : 'import';
}

/** What undoing each kind of run touches, and what it never does. */
export const UNDO_NOTE: Record<RunKind, string> = {
  import:
    'Only files this import created are removed, and only if they are unchanged. Your original transcripts are not touched.',
  adoption:
    'Only the adoption records this run wrote are removed, and only if they are unchanged. No transcript is touched.',
  release:
    'The adoption record comes back exactly as it was — unless the chat was adopted again since, which then stays. No transcript is touched.',
  rename:
    'The earlier name comes back wherever it is still this rename’s name; a transcript is only appended to, never cut.',
  restore: 'Only sidebar entries this restore added are removed, and replaced entries come back from the backup.',
  delete: 'Everything goes back where it was; nothing there now is replaced.',
};

/** A run's state as History shows it: a run that only adopted reads "Released" once a later
 *  release removed every record it wrote (and "Partly released" when some). */
export function runStateText(r: RunSummary): string {
  if (!r.finished) return 'Unfinished';
  if (r.undoState === 'not-undone' && runKind(r) === 'adoption' && r.released > 0) {
    return r.released >= r.records ? 'Released' : 'Partly released';
  }
  return UNDO_STATE_TEXT[r.undoState];
}
