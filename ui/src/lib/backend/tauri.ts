// The backend inside the app: Tauri's IPC, events, webview drag events, and its dialog and
// notification plugins (loaded when first used).
import { invoke, Channel } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import type { Result } from '../commands';
import type { ExportFormat } from '../types';
import type { Backend, PickKind, StreamArgs, Streamed } from './backend';

const DIALOGS: Record<PickKind, Record<string, unknown>> = {
  'claude-home': { directory: true, multiple: false, title: 'Choose a Claude home (the folder that holds projects/)' },
  'desktop-store': {
    directory: true,
    multiple: false,
    title: "Choose the Claude desktop app's claude-code-sessions folder",
  },
  fleet: {
    directory: false,
    multiple: false,
    title: 'Open a herdctl fleet file',
    filters: [{ name: 'herdctl fleet', extensions: ['yaml', 'yml'] }],
  },
  'import-folders': { directory: true, multiple: true, title: 'Choose folders with transcripts' },
  'import-files': {
    directory: false,
    multiple: true,
    title: 'Choose transcripts',
    filters: [{ name: 'Claude Code transcripts', extensions: ['jsonl'] }],
  },
};

const EXPORT_NAMES: Record<ExportFormat, string> = { md: 'Markdown', html: 'HTML page', json: 'JSON' };

export const tauriBackend: Backend = {
  call: (cmd, args) => invoke(cmd, args),

  async stream<K extends keyof Streamed>(
    cmd: K,
    args: StreamArgs<K>,
    onProgress: (p: Streamed[K]) => void,
  ): Promise<Result<K>> {
    const channel = new Channel<Streamed[K]>();
    channel.onmessage = onProgress;
    return await invoke<Result<K>>(cmd, { ...args, onProgress: channel });
  },

  listen: <T>(event: string, cb: (payload: T) => void) => listen<T>(event, (e) => cb(e.payload)),

  async windowDrag(cb) {
    const { getCurrentWebview } = await import('@tauri-apps/api/webview');
    return await getCurrentWebview().onDragDropEvent((e) => {
      const p = e.payload;
      const scale = window.devicePixelRatio || 1;
      if (p.type === 'enter' || p.type === 'over')
        cb({ type: 'over', x: p.position.x / scale, y: p.position.y / scale });
      else if (p.type === 'drop') cb({ type: 'drop', x: p.position.x / scale, y: p.position.y / scale });
      else cb({ type: 'leave' });
    });
  },

  async pickPaths(kind) {
    const { open } = await import('@tauri-apps/plugin-dialog');
    const r = await open(DIALOGS[kind]);
    if (r == null) return [];
    return Array.isArray(r) ? r : [r];
  },

  async pickSavePath(defaultName, format) {
    const { save } = await import('@tauri-apps/plugin-dialog');
    return await save({
      title: 'Export the conversation',
      defaultPath: defaultName,
      filters: [{ name: EXPORT_NAMES[format], extensions: [format] }],
    });
  },

  async notify(title, body) {
    try {
      const n = await import('@tauri-apps/plugin-notification');
      let granted = await n.isPermissionGranted();
      if (!granted) granted = (await n.requestPermission()) === 'granted';
      if (granted) n.sendNotification({ title, body });
      return granted;
    } catch {
      return false;
    }
  },
};
