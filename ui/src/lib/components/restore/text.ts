// Words the restore's steps share.
import type { DesktopRestoreAction } from '../../types';

export const ACTION_TEXT: Record<DesktopRestoreAction, string> = {
  create: 'New entry in this sidebar',
  'replace-archived': 'Replaces its archived entry here (kept in the backup)',
  'replace-older': 'Replaces an older entry of the same name (kept in the backup)',
};

/** A uuid shortened for a line of text (the whole one goes in a tooltip). */
export function shortId(id: string): string {
  return id.length > 13 ? `${id.slice(0, 8)}…` : id;
}
