// The quarantine, as its view shows it: what each delete run holds, putting sessions back, and
// sending runs to the system's trash.
import * as api from './api';
import type { EmptyReport, QuarantineRun, UndoReport } from './types';

/** Every delete run, newest first. */
export const quarantineRuns = (): Promise<QuarantineRun[]> => api.quarantine();
/** Puts a run's sessions back (only `sessionId`'s when given). */
export const restoreDeleted = (runId: string, sessionId: string | null = null): Promise<UndoReport> =>
  api.restoreDeleted(runId, sessionId);
/** Sends runs' quarantine folders to the system's trash. */
export const emptyQuarantine = (runIds: string[]): Promise<EmptyReport> => api.emptyQuarantine(runIds);
