// The IPC surface, declared once: every command the shell registers (`tauri::generate_handler!` in
// src-tauri/src/lib.rs), with its arguments and its result, in the generated binding types.
// - api.ts calls the shell only through `Commands` (a wrong name, argument or result type is a
//   compile error);
// - the development demo backend (demo.ts) implements `Commands` as a handler map, so the compiler
//   checks it handles every command with the right types;
// - a shell test (`commands_ts_lists_every_registered_command`) checks that these names are the
//   shell's, no more and no fewer.
import type {
  AdoptableSession,
  AdoptResult,
  AgentSummary,
  AttachmentData,
  DesktopReport,
  DesktopRestorePlan,
  DesktopRestorePreview,
  DesktopRestoreReport,
  DesktopRestoreRequest,
  ExportRequest,
  ExportSummary,
  ImportPlan,
  LiveNow,
  ModelUsage,
  ResumeOutcome,
  LostQuestion,
  ImportReport,
  ImportTarget,
  IndexStatus,
  Listing,
  MessagePage,
  PageAt,
  PlacementMode,
  Renamed,
  RunSummary,
  SearchResults,
  SessionDetails,
  SessionSummary,
  Settings,
  SettingsPatch,
  TranscriptMatches,
  UndoPlan,
  UndoReport,
} from './types';

type NoArgs = Record<string, never>;

export type { SettingsPatch };

export interface Commands {
  get_settings: { args: NoArgs; result: Settings };
  set_settings: { args: SettingsPatch; result: Settings };
  list_agents: { args: NoArgs; result: AgentSummary[] };
  list_sessions: { args: { includeTemp: boolean }; result: Listing };
  agent_sessions: { args: { agent: string }; result: SessionSummary[] };
  session_info: { args: { sessionId: string }; result: SessionDetails };
  session_messages: { args: { sessionId: string; before: number | null; limit: number }; result: MessagePage };
  subagent_messages: {
    args: { sessionId: string; agentId: string; before: number | null; limit: number };
    result: MessagePage;
  };
  transcript_page: {
    args: { sessionId: string; agentId: string | null; at: PageAt; limit: number };
    result: MessagePage;
  };
  transcript_attachment: {
    args: { sessionId: string; agentId: string | null; offset: number; index: number };
    result: AttachmentData;
  };
  rewound_branch: { args: { sessionId: string; branch: number; limit: number }; result: MessagePage };
  session_usage: { args: { sessionId: string }; result: ModelUsage[] };
  export_session: {
    args: { sessionId: string; request: ExportRequest; path: string; replace: boolean };
    result: ExportSummary;
  };
  search: { args: { query: string; limit: number }; result: SearchResults };
  search_status: { args: NoArgs; result: IndexStatus };
  find_in_transcript: {
    args: { sessionId: string; agentId: string | null; query: string };
    result: TranscriptMatches;
  };
  rename_session: { args: { sessionId: string; name: string | null }; result: Renamed };
  reveal_path: { args: { path: string }; result: null };
  adoptable: { args: { agent: string; from: string | null; allFolders: boolean }; result: AdoptableSession[] };
  adopt: { args: { agent: string; sessionId: string }; result: AdoptResult };
  release: { args: { agent: string; sessionId: string }; result: boolean };
  plan_import: { args: { target: ImportTarget; sources: string[]; mode: PlacementMode }; result: ImportPlan };
  /** `onProgress` is a Tauri `Channel<ImportProgress>`. */
  apply_import: { args: { plan: ImportPlan; onProgress: unknown }; result: ImportReport };
  cancel_import: { args: NoArgs; result: null };
  desktop_report: { args: { account: string | null; org: string | null }; result: DesktopReport };
  desktop_plan_restore: {
    args: { account: string; org: string; request: DesktopRestoreRequest };
    result: DesktopRestorePreview;
  };
  /** `onProgress` is a Tauri `Channel<DesktopRestoreProgress>`; `cancel_import` stops it between entries. */
  desktop_restore: { args: { plan: DesktopRestorePlan; onProgress: unknown }; result: DesktopRestoreReport };
  lost_questions: { args: NoArgs; result: LostQuestion[] };
  live_states: { args: NoArgs; result: LiveNow };
  resume_session: { args: { sessionId: string; fromHome: boolean }; result: ResumeOutcome };
  list_runs: { args: NoArgs; result: RunSummary[] };
  plan_undo: { args: { runId: string }; result: UndoPlan };
  undo_run: { args: { runId: string }; result: UndoReport };
}

export type Command = keyof Commands;
export type Args<K extends Command> = Commands[K]['args'];
export type Result<K extends Command> = Commands[K]['result'];

/** A backend that answers every command (the demo): checked by the compiler. */
export type Handlers = { [K in Command]: (args: Args<K>) => Result<K> | Promise<Result<K>> };
