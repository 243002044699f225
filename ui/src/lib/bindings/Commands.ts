// Generated from src-tauri/src/ipc.rs (`make bindings`); do not edit.
import type { Channel } from '@tauri-apps/api/core';
import type { AdoptResult } from './AdoptResult';
import type { AdoptableSession } from './AdoptableSession';
import type { AgentSummary } from './AgentSummary';
import type { AttachmentData } from './AttachmentData';
import type { CostBy } from './CostBy';
import type { CostReport } from './CostReport';
import type { DeletePlan } from './DeletePlan';
import type { DeleteProgress } from './DeleteProgress';
import type { DeleteReport } from './DeleteReport';
import type { DeleteRequest } from './DeleteRequest';
import type { DesktopReport } from './DesktopReport';
import type { DesktopRestorePlan } from './DesktopRestorePlan';
import type { DesktopRestorePreview } from './DesktopRestorePreview';
import type { DesktopRestoreProgress } from './DesktopRestoreProgress';
import type { DesktopRestoreReport } from './DesktopRestoreReport';
import type { DesktopRestoreRequest } from './DesktopRestoreRequest';
import type { EmptyReport } from './EmptyReport';
import type { ExportRequest } from './ExportRequest';
import type { ExportSummary } from './ExportSummary';
import type { GitState } from './GitState';
import type { ImportPlan } from './ImportPlan';
import type { ImportProgress } from './ImportProgress';
import type { ImportReport } from './ImportReport';
import type { ImportTarget } from './ImportTarget';
import type { IndexStatus } from './IndexStatus';
import type { Listing } from './Listing';
import type { ListingSoFar } from './ListingSoFar';
import type { LiveNow } from './LiveNow';
import type { LostQuestion } from './LostQuestion';
import type { MessagePage } from './MessagePage';
import type { ModelUsage } from './ModelUsage';
import type { PageAt } from './PageAt';
import type { PlacementMode } from './PlacementMode';
import type { QuarantineRun } from './QuarantineRun';
import type { RecentWork } from './RecentWork';
import type { ReleaseResult } from './ReleaseResult';
import type { Renamed } from './Renamed';
import type { ReopenChoice } from './ReopenChoice';
import type { ReopenOutcome } from './ReopenOutcome';
import type { ReopenReport } from './ReopenReport';
import type { ResumeOutcome } from './ResumeOutcome';
import type { RunSummary } from './RunSummary';
import type { SearchResults } from './SearchResults';
import type { SessionDetails } from './SessionDetails';
import type { SessionSummary } from './SessionSummary';
import type { Settings } from './Settings';
import type { SettingsPatch } from './SettingsPatch';
import type { StorageReport } from './StorageReport';
import type { TranscriptMatches } from './TranscriptMatches';
import type { UndoPlan } from './UndoPlan';
import type { UndoReport } from './UndoReport';

/** Every command the shell registers: its arguments and its result. */
export interface Commands {
  get_settings: { args: Record<string, never>; result: Settings };
  /**
   * For each field of the patch: absent = unchanged; `claudeHome: null` = back to the default,
   * `fleetFile: null` = close the fleet.
   */
  set_settings: { args: { patch: SettingsPatch }; result: Settings };
  list_agents: { args: Record<string, never>; result: Array<AgentSummary> };
  list_sessions: { args: { includeTemp: boolean }; result: Listing };
  /**
   * While the listing's full pass reads many transcripts (a first start): the listing as far
   * as it knows it, rows not read yet marked `pending`, and how far it has read (`null` when
   * no such pass is under way: ask `list_sessions`). Never waits for the pass.
   */
  listing_so_far: { args: { includeTemp: boolean }; result: ListingSoFar | null };
  agent_sessions: { args: { agent: string }; result: Array<SessionSummary> };
  session_info: { args: { sessionId: string }; result: SessionDetails };
  session_messages: { args: { sessionId: string; before: number | null; limit: number }; result: MessagePage };
  subagent_messages: { args: { sessionId: string; agentId: string; before: number | null; limit: number }; result: MessagePage };
  /**
   * A page of a session's transcript, or of one of its subagents', where `at` says (`around` a
   * search hit's offset, `after` a page's `laterCursor`, `before` an `earlierCursor`).
   */
  transcript_page: { args: { sessionId: string; agentId: string | null; at: PageAt; limit: number }; result: MessagePage };
  /**
   * The bytes of an image attached to a prompt (`attachments[].offset` and `.index` of a
   * page's message), checked to be the image type it claims, for a thumbnail.
   */
  transcript_attachment: { args: { sessionId: string; agentId: string | null; offset: number; index: number }; result: AttachmentData };
  /**
   * The messages of one rewound branch of a session (a page's `rewinds[].branch`).
   */
  rewound_branch: { args: { sessionId: string; branch: number; limit: number }; result: MessagePage };
  /**
   * Token usage by model over the branch `claude --resume` continues (read when asked: it
   * reads the whole transcript).
   */
  session_usage: { args: { sessionId: string }; result: Array<ModelUsage> };
  /**
   * Exports a session's transcript to `path` (chosen in a save dialog, which asked before
   * replacing a file: `replace`). Written beside it and renamed into place when complete.
   */
  export_session: { args: { sessionId: string; request: ExportRequest; path: string; replace: boolean }; result: ExportSummary };
  /**
   * Searches every conversation the index covers. `limit` counts sessions.
   */
  search: { args: { query: string; limit: number }; result: SearchResults };
  search_status: { args: Record<string, never>; result: IndexStatus };
  /**
   * Every match of `query` in one transcript (a session's, or one of its subagents' runs), in
   * file order: find in the viewer.
   */
  find_in_transcript: { args: { sessionId: string; agentId: string | null; query: string }; result: TranscriptMatches };
  /**
   * `name` null or empty (after trimming) clears the custom name. The reply names the run
   * that undoes the rename (`undo_run`).
   */
  rename_session: { args: { sessionId: string; name: string | null }; result: Renamed };
  /**
   * Opens a folder of an import run in the file manager. Only paths inside
   * `<data dir>/runs/`.
   */
  reveal_path: { args: { path: string }; result: null };
  adoptable: { args: { agent: string; from: string | null; allFolders: boolean }; result: Array<AdoptableSession> };
  adopt: { args: { agent: string; sessionId: string }; result: AdoptResult };
  release: { args: { agent: string; sessionId: string }; result: ReleaseResult };
  plan_import: { args: { target: ImportTarget; sources: Array<string>; mode: PlacementMode }; result: ImportPlan };
  /**
   * Applies a plan (re-validated by the engine: a plan may come from anywhere), sending an
   * `ImportProgress` before each file. `cancel_run` stops it between files.
   */
  apply_import: { args: { plan: ImportPlan; onProgress: Channel<ImportProgress> }; result: ImportReport };
  /**
   * Stops the import or desktop restore under way, between two files or entries.
   */
  cancel_run: { args: Record<string, never>; result: null };
  /**
   * The desktop app's sidebars and what the current one is missing: against `account` and
   * `org` when given, else the sidebar the rules name.
   */
  desktop_report: { args: { account: string | null; org: string | null }; result: DesktopReport };
  /**
   * Plans restoring `request` into the sidebar `account`/`org` (writes nothing), with whether
   * the desktop app runs now.
   */
  desktop_plan_restore: { args: { account: string; org: string; request: DesktopRestoreRequest }; result: DesktopRestorePreview };
  /**
   * Carries out a restore plan as an undoable run (the engine plans it again and refuses what
   * changed), sending a `RestoreProgress` before each entry; `cancel_run` stops it between
   * entries.
   */
  desktop_restore: { args: { plan: DesktopRestorePlan; onProgress: Channel<DesktopRestoreProgress> }; result: DesktopRestoreReport };
  /**
   * Questions the desktop app rejected when it quit, from the search index (as far as it is
   * built), newest first.
   */
  lost_questions: { args: Record<string, never>; result: Array<LostQuestion> };
  /**
   * Which sessions a `claude` process is on now and what each is doing (one look at the
   * process table; the UI asks every few seconds while its window is visible).
   */
  live_states: { args: Record<string, never>; result: LiveNow };
  /**
   * Opens a terminal resuming the session and waits up to 5 s for `claude` to be on it;
   * `fromHome` resumes from the home folder when the session's own folder is gone.
   */
  resume_session: { args: { sessionId: string; fromHome: boolean }; result: ResumeOutcome };
  /**
   * What deleting `request` would move into the quarantine (writes nothing).
   */
  plan_delete: { args: { request: DeleteRequest }; result: DeletePlan };
  /**
   * Deletes `request` into the quarantine as an undoable run (planned again against the
   * process table as it is now), sending a `DeleteProgress` after each session; `cancel_run`
   * stops it between sessions.
   */
  delete_sessions: { args: { request: DeleteRequest; onProgress: Channel<DeleteProgress> }; result: DeleteReport };
  /**
   * Every delete run and what its quarantine folder holds, newest first.
   */
  quarantine: { args: Record<string, never>; result: Array<QuarantineRun> };
  /**
   * Puts a delete run's sessions back (only `sessionId`'s when given).
   */
  restore_deleted: { args: { runId: string; sessionId: string | null }; result: UndoReport };
  /**
   * Sends delete runs' quarantine folders to the system's trash.
   */
  empty_quarantine: { args: { runIds: Array<string> }; result: EmptyReport };
  /**
   * Where the Claude home's space goes: its folders, sessions by working directory and by
   * agent, the largest sessions, gone sessions' leftovers and debug logs.
   */
  storage: { args: Record<string, never>; result: StorageReport };
  /**
   * What sessions cost at list price, rolled up `by` session, agent, folder, model, day or
   * herdctl job (beside the job's own figure), from UTC day `since` (`YYYY-MM-DD`).
   */
  cost_report: { args: { by: CostBy; since: string | null }; result: CostReport };
  /**
   * Recent work: each folder's newest conversation of the last `days` days and the folder's
   * state now (`everySurface`: `-p`, SDK and desktop-app conversations too).
   */
  recent_work: { args: { days: number; everySurface: boolean }; result: RecentWork };
  /**
   * Each folder's git state, in order (nothing a repository plants runs; bounded in time).
   */
  git_states: { args: { folders: Array<string> }; result: Array<GitState> };
  /**
   * Starts the chosen conversations, each in a terminal of its own, guarded again and
   * verified, sending a `ReopenOutcome` after each; `cancel_run` stops before the next start.
   */
  reopen: { args: { choices: Array<ReopenChoice>; onProgress: Channel<ReopenOutcome> }; result: ReopenReport };
  list_runs: { args: Record<string, never>; result: Array<RunSummary> };
  plan_undo: { args: { runId: string }; result: UndoPlan };
  undo_run: { args: { runId: string }; result: UndoReport };
}
