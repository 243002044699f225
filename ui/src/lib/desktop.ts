// The Claude desktop app's sidebars, as the Desktop view reads them: the report against a chosen
// sidebar (or the current one), and the questions the app rejected when it quit.
import * as api from './api';
import type { DesktopReport, LostQuestion } from './types';

/** The sidebars and what the current one (or `given`) is missing. */
export const sidebarReport = (given: { account: string; org: string } | null): Promise<DesktopReport> =>
  api.desktopReport(given?.account ?? null, given?.org ?? null);
/** Questions the app rejected when it quit, newest first. */
export const lostQuestions = (): Promise<LostQuestion[]> => api.lostQuestions();
