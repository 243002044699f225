// Words for what a session leaves behind.
import type { Leftover } from '../../types';

export const LEFTOVER_TEXT: Record<Leftover, string> = {
  transcript: 'Transcript',
  'session-folder': 'Subagent runs and tool results',
  'session-env': 'Hook environment',
  'file-history': 'Copies of edited files (rewind)',
  tasks: 'Task list',
  todos: 'To-do lists',
  'debug-log': 'Debug log',
  uploads: 'Attached files',
  'agent-view-job': 'Background job record',
  'adoption-record': 'Adoption record',
  'desktop-entry': "The desktop app's sidebar entry",
};
