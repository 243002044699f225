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

// ---- shell-only types: the shell crate generates Settings/SessionInfo/SessionsChanged/FilesDropped;
// until those files are in bindings/, these declarations mirror src-tauri/src/{settings,commands,events}.rs ----

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

// ---- issue-3 types (adoption, placement, import runs, undo) ----
export type { AdoptableSession } from './bindings/AdoptableSession';
export type { AdoptResult } from './bindings/AdoptResult';
export type { ImportPlan } from './bindings/ImportPlan';
export type { ImportProgress } from './bindings/ImportProgress';
export type { ImportReport } from './bindings/ImportReport';
export type { ImportSkip } from './bindings/ImportSkip';
export type { ImportTarget } from './bindings/ImportTarget';
export type { NotUndone } from './bindings/NotUndone';
export type { PlacedAs } from './bindings/PlacedAs';
export type { PlacedItem } from './bindings/PlacedItem';
export type { PlacementMode } from './bindings/PlacementMode';
export type { PlannedPlacement } from './bindings/PlannedPlacement';
export type { RunSummary } from './bindings/RunSummary';
export type { SkipReason } from './bindings/SkipReason';
export type { UndoAction } from './bindings/UndoAction';
export type { UndoItem } from './bindings/UndoItem';
export type { UndoPlan } from './bindings/UndoPlan';
export type { UndoReport } from './bindings/UndoReport';
export type { UndoState } from './bindings/UndoState';

/** Every failure the UI shows: the engine's `{kind, message}`, or `ui` for failures of the UI itself. */
export type AppError = { kind: string; message: string };
