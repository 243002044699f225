// The Claude desktop app's sidebars, as the Desktop view reads them: the report against a chosen
// sidebar (or the current one), and the questions the app rejected when it quit.
import * as api from './api';
import type { IconName } from './icons';
import { short } from './printable';
import type {
  DesktopCurrentRule,
  DesktopMissing,
  DesktopMissingStatus,
  DesktopReport,
  DesktopSidebar,
  LostQuestion,
} from './types';

/** The sidebars and what the current one (or `given`) is missing. */
export const sidebarReport = (given: { account: string; org: string } | null): Promise<DesktopReport> =>
  api.desktopReport(given?.account ?? null, given?.org ?? null);
/** Questions the app rejected when it quit, newest first. */
export const lostQuestions = (): Promise<LostQuestion[]> => api.lostQuestions();

/** A sidebar's account and organisation as a person knows them: the email and the organisation's
 * name when Claude Code is signed in with them (the report says so), else the start of the ids. */
export function sidebarNames(
  sidebars: DesktopSidebar[],
  account: string,
  org: string | null,
): { account: string; org: string | null } {
  const row = sidebars.find((s) => s.account === account && (org === null || s.org === org));
  const anyOfAccount = sidebars.find((s) => s.account === account && s.accountLabel);
  return {
    account: row?.accountLabel ?? anyOfAccount?.accountLabel ?? short(account),
    org: org === null ? null : (row?.orgLabel ?? short(org)),
  };
}

/** Why the current sidebar is the current one, in a clause ("Current sidebar: … — <why>"). */
export const CURRENT_WHY: Record<DesktopCurrentRule, string> = {
  given: 'you chose it',
  'host-session': "it holds this session's own entry",
  'scratch-working-directory': 'the app runs this session in its scratch workspace',
  'scratch-transcript-folder': 'its scratch workspace has the newest transcripts',
  'newest-activity': 'its account was active last (which organisation is not known)',
};

/** The rows a restore will take with these choices: "Select all that can come back" ticks only
 * these, so the preview refuses none of them. */
export function restorable(
  missing: DesktopMissing[],
  o: { allowSharedFolder: boolean; replaceOlder: boolean },
): DesktopMissing[] {
  return missing.filter(
    (m) =>
      m.status === 'restorable' ||
      (m.status === 'shared-folder' && o.allowSharedFolder) ||
      (m.status === 'replace-older' && m.canReplace && o.replaceOlder),
  );
}

/** Each missing row's status: its words, the shape that marks it, and what it means. */
export const MISSING_STATUS: Record<DesktopMissingStatus, { text: string; shape: IconName; help: string }> = {
  restorable: { text: 'Restorable', shape: 'circle', help: 'Its newest live copy can come back as it is.' },
  ambiguous: { text: 'Ambiguous', shape: 'diamond', help: 'Copies tie for newest and differ: choose one.' },
  'shared-folder': {
    text: 'Folder in use here',
    shape: 'triangle',
    help: 'A session in this sidebar already uses its folder; bringing it back adds a second entry.',
  },
  'replace-older': {
    text: 'Name taken here',
    shape: 'square',
    help: 'This sidebar has an entry of the same file name for another conversation.',
  },
};
