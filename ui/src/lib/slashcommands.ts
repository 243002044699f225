// Claude Code writes slash commands, their output and `!` shell escapes into user lines as small
// XML-like wrappers (<command-name>/exit</command-name>, <local-command-stdout>…). The viewer shows
// them as what they are instead of as raw tags. Only messages made of nothing but these wrappers are
// recognised; everything else is ordinary (safely rendered) Markdown.

export type CommandView = {
  command: string | null;
  args: string | null;
  stdout: string | null;
  stderr: string | null;
  shell: string | null;
};

const TAGS = [
  'command-name',
  'command-message',
  'command-args',
  'local-command-stdout',
  'local-command-stderr',
  'bash-input',
  'bash-stdout',
  'bash-stderr',
] as const;

export function parseCommand(content: string): CommandView | null {
  const text = content.trim();
  if (!text.startsWith('<')) return null;
  const found: Partial<Record<(typeof TAGS)[number], string>> = {};
  let rest = text;
  const re = /^<([a-z-]+)>([\s\S]*?)<\/\1>\s*/;
  for (let guard = 0; rest && guard < 16; guard++) {
    const m = re.exec(rest);
    if (!m || !(TAGS as readonly string[]).includes(m[1])) return null;
    found[m[1] as (typeof TAGS)[number]] = m[2];
    rest = rest.slice(m[0].length);
  }
  if (rest) return null;
  const clean = (s: string | undefined) => (s === undefined ? null : s.replace(/\u001b\[[0-9;]*m/g, '').trim() || null);
  return {
    command: clean(found['command-name']),
    args: clean(found['command-args']),
    // "(no content)" is what Claude Code writes for a command that printed nothing.
    stdout: clean(found['local-command-stdout'] ?? found['bash-stdout'])?.replace(/^\(no content\)$/, '') || null,
    stderr: clean(found['local-command-stderr'] ?? found['bash-stderr']),
    shell: clean(found['bash-input']),
  };
}

/** A line Claude Code wrote into the conversation rather than the person: shown quietly, so a
 * reply that follows it has its cause on screen. `null` for what the person typed. `originKind`
 * is the engine's tag (`hook` for a hook's feedback, which Claude Code marks as not typed). */
export function systemLine(content: string, originKind: string | null = null): string | null {
  const text = content.trim();
  if (originKind === 'hook') return hookLine(text);
  if (!text) return 'An empty message (after /clear, or a command with no text)';
  const interrupted = /^\[Request interrupted by user( for tool use)?\]$/.exec(text);
  if (interrupted) return interrupted[1] ? 'You interrupted the tool call' : 'You interrupted Claude';
  // Claude Code may follow the notification with its own instruction ("Read the output file…").
  const task = /^<task-notification>([\s\S]*?)<\/task-notification>/.exec(text);
  if (task) {
    const field = (tag: string) => new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(task[1])?.[1]?.trim();
    const summary = field('summary') ?? field('status') ?? 'a background task reported back';
    return `Task notification: ${summary}`;
  }
  return null;
}

/** What a background task's notification brought back (a background subagent's report), when it
 * carries one (`<result>`); shown under the notification's line. */
export function taskResult(content: string): string | null {
  const task = /^\s*<task-notification>([\s\S]*?)<\/task-notification>/.exec(content);
  const result = task && /<result>([\s\S]*?)<\/result>/.exec(task[1]);
  return result?.[1]?.trim() || null;
}

/** A compaction's answer (`<analysis>…</analysis>` then `<summary>…</summary>`, as Claude Code asks
 * for it) in its two parts; `null` for any other text. */
export function summaryParts(content: string): { analysis: string | null; summary: string } | null {
  const m = /^\s*(?:<analysis>([\s\S]*?)<\/analysis>\s*)?<summary>([\s\S]*?)(?:<\/summary>\s*)?$/.exec(content);
  if (!m) return null;
  return { analysis: m[1]?.trim() || null, summary: m[2].trim() };
}

const HOOK_LINE_CHARS = 240;

/** "Stop hook feedback:\n- [~/hooks/x.sh]: 1 test fails" → "Stop hook feedback: 1 test fails".
 * Each hook's message keeps its words; the command that said it stays in the line's tooltip. */
function hookLine(text: string): string {
  const [first, ...rest] = text.split('\n');
  const colon = first.search(/:(\s|$)/);
  const label = colon > 0 ? first.slice(0, colon) : 'Hook feedback';
  const said = [colon > 0 ? first.slice(colon + 1) : first, ...rest]
    .map((l) =>
      l
        .trim()
        .replace(/^- /, '')
        .replace(/^\[[^\]\n]*\]:\s*/, ''),
    )
    .filter(Boolean)
    .join(' · ');
  const line = said ? `${label}: ${said}` : label;
  return line.length > HOOK_LINE_CHARS ? line.slice(0, HOOK_LINE_CHARS - 1) + '…' : line;
}
