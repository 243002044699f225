import { NO_TOKENS, addCost, addTokens } from './format';
import type { AgentSummary, Cost, TokenTotals } from './types';

export type FleetNode = {
  path: string;
  label: string;
  depth: number;
  agents: AgentSummary[];
  children: FleetNode[];
  total: number;
  last: string | null;
  /** Tokens of every agent below, together. */
  tokens: TokenTotals;
  /** What every agent below cost, together (none when nothing was spent). */
  cost?: Cost;
};

/** Groups agents by their sub-fleet path (`team.gamma` under `team`), sorted by name. */
export function buildFleetTree(agents: AgentSummary[]): FleetNode {
  const root: FleetNode = {
    path: '',
    label: '',
    depth: 0,
    agents: [],
    children: [],
    total: 0,
    last: null,
    tokens: NO_TOKENS,
  };
  for (const a of [...agents].sort((x, y) => x.name.localeCompare(y.name))) {
    let node = root;
    let path = '';
    for (const seg of a.fleetPath) {
      path = path ? `${path}.${seg}` : seg;
      let child = node.children.find((c) => c.path === path);
      if (!child) {
        child = {
          path,
          label: seg,
          depth: node.depth + 1,
          agents: [],
          children: [],
          total: 0,
          last: null,
          tokens: NO_TOKENS,
        };
        node.children.push(child);
      }
      node = child;
    }
    node.agents.push(a);
  }
  const sum = (n: FleetNode): void => {
    n.children.sort((x, y) => x.label.localeCompare(y.label));
    n.children.forEach(sum);
    n.total = n.agents.reduce((t, a) => t + a.sessionCount, 0) + n.children.reduce((t, c) => t + c.total, 0);
    const times = [...n.agents.map((a) => a.lastActivityAt), ...n.children.map((c) => c.last)].filter(
      (x): x is string => !!x,
    );
    n.last = times.length ? times.reduce((m, t) => (t > m ? t : m)) : null;
    n.tokens = [...n.agents.map((a) => a.tokens), ...n.children.map((c) => c.tokens)].reduce(addTokens, NO_TOKENS);
    n.cost = [...n.agents.map((a) => a.cost), ...n.children.map((c) => c.cost)].reduce<Cost | undefined>(
      addCost,
      undefined,
    );
  };
  sum(root);
  return root;
}

const KEY = 'corral:fleet:expanded';
/** Expansion of fleet groups and agents, remembered across restarts. Keys: `fleet:<path>` and `agent:<name>`. */
export function loadExpansion(): Record<string, boolean> {
  try {
    const raw = localStorage.getItem(KEY);
    const v = raw ? (JSON.parse(raw) as unknown) : null;
    return v && typeof v === 'object' ? (v as Record<string, boolean>) : {};
  } catch {
    return {};
  }
}
export function saveExpansion(e: Record<string, boolean>): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(e));
  } catch {
    /* storage full or blocked: expansion simply is not remembered */
  }
}
