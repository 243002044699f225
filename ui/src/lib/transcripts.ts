// Reading one session's transcript: its header details, its pages (or a subagent run's), the
// rewound branches, attached images, tokens by model, and find in it. The viewer and its parts
// get a transcript's data here.
import * as api from './api';
import type { AttachmentData, MessagePage, ModelUsage, PageAt, SessionDetails, TranscriptMatches } from './types';

/** Everything the message list reads of one transcript (the session's, or a subagent run's). */
export type TranscriptSource = {
  /** The page ending before `before` (`null`: the newest page). */
  page: (before: number | null, limit: number) => Promise<MessagePage>;
  /** A page anywhere: around a hit, after a page, before one. */
  at: (at: PageAt, limit: number) => Promise<MessagePage>;
  /** An image attached to a prompt: line `offset`, attachment `index`. */
  attachment: (offset: number, index: number) => Promise<AttachmentData>;
  /** A rewound branch of the conversation (a subagent run has none). */
  branch: ((branch: number) => Promise<MessagePage>) | null;
  /** Every match of `query`, in file order. */
  find: (query: string) => Promise<TranscriptMatches>;
};

/** The transcript of session `sessionId`, or of its subagent run `agentId`. */
export function transcriptSource(sessionId: string, agentId: string | null = null): TranscriptSource {
  return {
    page: (before, limit) =>
      agentId == null
        ? api.sessionMessages(sessionId, before, limit)
        : api.subagentMessages(sessionId, agentId, before, limit),
    at: (at, limit) => api.transcriptPage(sessionId, agentId, at, limit),
    attachment: (offset, index) => api.transcriptAttachment(sessionId, agentId, offset, index),
    branch: agentId == null ? (branch) => api.rewoundBranch(sessionId, branch, 2000) : null,
    find: (query) => api.findInTranscript(sessionId, agentId, query),
  };
}

/** The viewer header's details: summary, usage, subagent runs, the resume command. */
export const sessionDetails = (sessionId: string): Promise<SessionDetails> => api.sessionInfo(sessionId);

/** Tokens by model over the branch `claude --resume` continues (reads the whole transcript). */
export const usageByModel = (sessionId: string): Promise<ModelUsage[]> => api.sessionUsage(sessionId);
