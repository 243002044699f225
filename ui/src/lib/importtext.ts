// Plain-words wording for the import wizard and History.
import { listing } from './listing.svelte';
import type { ImportSkip, ImportTarget, PlacementMode, UndoAction, UndoState } from './types';

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
export function runCounts(placed: number, skipped: number, records: number): string {
  if (placed === 0 && records > 0) return `${records} adopted · ${skipped} skipped`;
  return `${placed} placed · ${skipped} skipped${records ? ` · ${records} adopted` : ''}`;
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
};

export const UNDO_STATE_TEXT: Record<UndoState, string> = {
  'not-undone': 'Active',
  undone: 'Undone',
  'partly-undone': 'Partly undone',
};
