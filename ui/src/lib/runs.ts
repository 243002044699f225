// Runs, as History shows them: the list, what undoing one would do, undoing it, and opening a
// run's folder.
import * as api from './api';
import type { RunSummary, UndoPlan, UndoReport } from './types';

/** Every run, newest first. */
export const listRuns = (): Promise<RunSummary[]> => api.listRuns();
/** What undoing `runId` would do, changing nothing. */
export const planUndo = (runId: string): Promise<UndoPlan> => api.planUndo(runId);
/** Undoes `runId` as far as its guards allow. */
export const undoRun = (runId: string): Promise<UndoReport> => api.undoRun(runId);
/** Opens a folder of a run in the file manager. */
export const revealRun = (path: string): Promise<null> => api.revealPath(path);
