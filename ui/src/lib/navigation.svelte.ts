// Where the person is: the view, the session open in the transcript pane (and where it opens),
// the import wizard, and the hand-offs between views (an agent to reveal, a search to show, the
// agent row under a drag).
import { listing } from './listing.svelte';
import { toasts } from './toasts.svelte';
import type { DeleteRules, LeftoverSweep, SessionSummary } from './types';

export type View =
  'fleet' | 'chats' | 'reopen' | 'import' | 'history' | 'quarantine' | 'storage' | 'cost' | 'desktop' | 'settings';

/** A place in a transcript to open at: a search hit's line, and the words to mark there. */
export type TranscriptAnchor = {
  sessionId: string;
  /** Set for a hit in a subagent's transcript. */
  agentId: string | null;
  offset: number;
  uuid: string;
  toolUseId: string | null;
  /** The matched words, as the snippet marked them. */
  terms: string[];
  /** The search that found it: the viewer's find bar opens with it, at this hit. */
  query?: string;
};

/**
 * How a delete starts: these sessions; or (none given) a clean-up by rules, some set already
 * (`rules`: a folder's or an agent's sessions); or a sweep of leftovers with no rule to choose.
 */
export type DeleteStart = {
  sessionIds?: string[];
  rules?: Partial<DeleteRules>;
  sweep?: LeftoverSweep;
  /** What the rules are scoped to, said in the dialog ("in ~/work/api"). */
  scope?: string;
};

export type WizardStart = {
  step?: 1 | 2;
  agent?: string | null;
  claudeHome?: boolean;
  paths?: string[];
  sessionIds?: string[];
  /** Deep links (screenshots, e2e): advance automatically up to this step. */
  advanceTo?: number;
};

class Navigation {
  view = $state<View>('fleet');
  /** The session open in the transcript pane. */
  openId = $state<string | null>(null);
  openSummary = $state.raw<SessionSummary | null>(null);
  /** Where the open transcript opens: a search hit (its page loads, not the newest). */
  openAnchor = $state.raw<TranscriptAnchor | null>(null);
  /** Viewer panels a deep link opens (`#…&panels=usage,rewound`; screenshots and e2e). */
  openPanels = $state.raw<Set<string>>(new Set());

  wizard = $state<WizardStart | null>(null);
  /** The delete dialog, when open: chosen sessions, or a clean-up by rules. */
  deleting = $state<DeleteStart | null>(null);
  /** The agent row under a drag in progress (drop target highlight). */
  dropAgent = $state<string | null>(null);
  /** Agent to reveal in the Fleet view (set by "agent" links elsewhere). */
  focusAgent = $state<string | null>(null);
  /** A search for All Chats to show (deep links); taken by the view. */
  pendingQuery = $state<string | null>(null);

  open(s: SessionSummary | null, anchor: TranscriptAnchor | null = null): void {
    this.openId = s?.sessionId ?? null;
    this.openSummary = s;
    this.openAnchor = s ? anchor : null;
  }

  /** Opens the listed session `id` (at `anchor`), or says it is not listed; whether it opened. */
  openListed(id: string, anchor: TranscriptAnchor | null = null): boolean {
    const s = (listing.groups ?? []).flatMap((g) => g.sessions).find((x) => x.sessionId === id);
    if (!s) {
      toasts.show('This session is not in the list (is it in a temp folder that is hidden?)');
      return false;
    }
    this.open(s, anchor);
    return true;
  }

  /** Shows the Fleet view with agent `name` revealed (the "agent" links elsewhere). */
  showAgent(name: string): void {
    this.focusAgent = name;
    this.view = 'fleet';
  }

  openWizard(start: WizardStart = {}): void {
    this.wizard = { step: 1, ...start };
  }

  /** Opens the delete dialog: these sessions, or (none) a clean-up by rules. */
  openDelete(start: DeleteStart = {}): void {
    this.deleting = start;
  }
}

export const nav = new Navigation();

/** Is keyboard focus inside the transcript pane? (F2 then renames the open session, not a list row.) */
export function inTranscript(): boolean {
  return typeof document !== 'undefined' && !!document.activeElement?.closest('[data-testid="transcript"]');
}

/** Does a sessions-changed folder list concern this session? Folders may be absolute or encoded names. */
export function folderConcerns(
  folders: string[],
  s: Pick<SessionSummary, 'encodedPath' | 'transcriptPath' | 'workingDirectory'>,
): boolean {
  if (!folders.length) return true;
  return folders.some((f) => {
    const clean = f.replace(/[\\/]+$/, '');
    return (
      clean === s.encodedPath ||
      clean.endsWith('/' + s.encodedPath) ||
      clean.endsWith('\\' + s.encodedPath) ||
      s.transcriptPath.startsWith(clean + '/') ||
      s.transcriptPath.startsWith(clean + '\\') ||
      clean === s.workingDirectory
    );
  });
}
