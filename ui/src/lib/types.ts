// Every type the UI exchanges with the shell. Engine types come from the generated ts-rs bindings;
// the ones that do not exist as bindings yet are declared here to match /work/notes/ipc.md and
// issue 3, and must be switched to generated ones when they appear.
export type { AgentSummary } from './bindings/AgentSummary';
export type { DirectoryGroup } from './bindings/DirectoryGroup';
export type { ErrorKind } from './bindings/ErrorKind';
export type { ErrorPayload } from './bindings/ErrorPayload';
export type { Listing } from './bindings/Listing';
export type { MessagePage } from './bindings/MessagePage';
export type { NotResumableReason } from './bindings/NotResumableReason';
export type { Origin } from './bindings/Origin';
export type { Role } from './bindings/Role';
export type { SessionSummary } from './bindings/SessionSummary';
export type { SubagentInfo } from './bindings/SubagentInfo';
export type { ToolCall } from './bindings/ToolCall';
export type { TranscriptMessage } from './bindings/TranscriptMessage';
export type { Usage } from './bindings/Usage';
export type { Warning } from './bindings/Warning';

import type { SessionSummary } from './bindings/SessionSummary';
import type { SubagentInfo } from './bindings/SubagentInfo';
import type { Usage } from './bindings/Usage';

// ---- shell-only types (generated from the shell crate later) ----

export type Settings = {
  claudeHome: string;
  claudeHomeExists: boolean;
  fleetFile: string | null;
  stateDir: string;
  dataDir: string;
};

export type SessionInfo = {
  summary: SessionSummary;
  usage: Usage;
  subagents: SubagentInfo[];
  resumeCommand: string;
};

export type SessionsChanged = { folders: string[] };
export type FilesDropped = { paths: string[]; agent: string | null };

// ---- issue-3 types (placement / import / runs), provisional ----

export type AdoptableSession = {
  sessionId: string;
  sourceCwd: string | null;
  mtime: string;
  autoName: string | null;
  preview: string | null;
  sizeBytes: number;
};

export type AdoptResult = { sessionId: string; agentName: string; alreadyAdopted?: boolean };

export type ImportTarget = { kind: 'agent'; agent: string } | { kind: 'claudeHome' };

export type PlacementMode = 'copy' | 'move' | 'link';

export type SkipReason =
  | 'sidechain'
  | 'already-adopted'
  | 'destination-exists'
  | 'attributed-to-run'
  | 'unreadable'
  | 'not-a-transcript'
  | 'occupied'
  | 'placement-failed'
  | 'record-failed';

export type Placement = { sessionId: string; from: string; to: string };
export type Skip = { sessionId: string | null; reason: SkipReason; detail: string | null; ownedBy?: string | null; path?: string | null };

export type ImportPlan = {
  target: ImportTarget;
  mode: PlacementMode;
  placements: Placement[];
  skips: Skip[];
  backupDir?: string | null;
};

export type ImportProgress = { done: number; total: number; current: string | null };

export type ImportReport = {
  runId: string | null;
  placed: Placement[];
  skipped: Skip[];
  cancelled?: boolean;
  backupDir?: string | null;
};

export type RunSummary = {
  runId: string;
  createdAt: string;
  target: ImportTarget;
  mode: PlacementMode;
  placed: number;
  skipped: number;
  undone: boolean;
  runDir?: string | null;
  backupBytes?: number | null;
};

export type UndoItem = { path: string; action: 'remove' | 'restore'; detail?: string | null };
export type UndoPlan = { runId: string; items: UndoItem[] };
export type NotUndone = { path: string; reason: string };
export type UndoReport = { undone: string[]; notUndone: NotUndone[] };

/** Every failure the UI shows: the engine's `{kind, message}`, or `ui` for failures of the UI itself. */
export type AppError = { kind: string; message: string };
