// Every icon the app draws comes from one bundled SVG set (Lucide), so none depends on an emoji
// font being installed. Icons are decoration: whatever shows one also says it in text or a tooltip.
import {
  Archive,
  ArchiveRestore,
  Ban,
  ChartPie,
  Broom,
  Bot,
  Check,
  ChevronDown,
  ChevronRight,
  ChevronsDown,
  ChevronsUp,
  Circle,
  Coins,
  CircleDashed,
  ClipboardList,
  Diamond,
  Fence,
  File,
  FilePenLine,
  FileText,
  Folder,
  FolderInput,
  Folders,
  GitBranch,
  Globe,
  HardDrive,
  Hash,
  Hexagon,
  Hourglass,
  House,
  Image,
  Info,
  Keyboard,
  List,
  ListTodo,
  Mail,
  MessageCircle,
  MessageSquare,
  MessagesSquare,
  Monitor,
  PanelLeft,
  Moon,
  Pencil,
  Plug,
  RefreshCw,
  RotateCcw,
  Search,
  Settings,
  Square,
  Sun,
  SunMoon,
  Terminal,
  Timer,
  Trash,
  Triangle,
  TriangleAlert,
  UserPlus,
  Wrench,
  X,
  type IconNode,
} from 'lucide';

export const ICONS = {
  archive: Archive,
  'archive-restore': ArchiveRestore,
  ban: Ban,
  broom: Broom,
  'chart-pie': ChartPie,
  'hard-drive': HardDrive,
  bot: Bot,
  check: Check,
  'chevron-down': ChevronDown,
  'chevron-right': ChevronRight,
  'chevrons-down': ChevronsDown,
  'chevrons-up': ChevronsUp,
  circle: Circle,
  coins: Coins,
  'circle-dashed': CircleDashed,
  'clipboard-list': ClipboardList,
  diamond: Diamond,
  fence: Fence,
  file: File,
  'file-pen': FilePenLine,
  'file-text': FileText,
  folder: Folder,
  'folder-input': FolderInput,
  folders: Folders,
  'git-branch': GitBranch,
  globe: Globe,
  hash: Hash,
  hexagon: Hexagon,
  hourglass: Hourglass,
  house: House,
  image: Image,
  info: Info,
  keyboard: Keyboard,
  list: List,
  'list-todo': ListTodo,
  mail: Mail,
  'message-circle': MessageCircle,
  'message-square': MessageSquare,
  'messages-square': MessagesSquare,
  monitor: Monitor,
  'panel-left': PanelLeft,
  moon: Moon,
  pencil: Pencil,
  plug: Plug,
  refresh: RefreshCw,
  'rotate-ccw': RotateCcw,
  trash: Trash,
  search: Search,
  settings: Settings,
  square: Square,
  sun: Sun,
  'sun-moon': SunMoon,
  terminal: Terminal,
  timer: Timer,
  triangle: Triangle,
  'triangle-alert': TriangleAlert,
  'user-plus': UserPlus,
  wrench: Wrench,
  x: X,
} as const satisfies Record<string, IconNode>;

export type IconName = keyof typeof ICONS;

const markup = new Map<IconName, string>();

/** The inside of an icon's `<svg>` as markup, made once per icon: a row full of icons then costs
 *  one parse each, not a component and an attribute spread per shape (with the Svelte components
 *  of `@lucide/svelte`, icons were a third of the list's DOM work and ~100 MB of the web process's
 *  memory while scrolling 10,000 sessions). */
export function iconMarkup(name: IconName): string {
  let m = markup.get(name);
  if (m === undefined) {
    m = (ICONS[name] ?? []).map(([tag, attrs]) => `<${tag}${attributes(attrs)}/>`).join('');
    markup.set(name, m);
  }
  return m;
}

function attributes(attrs: Record<string, string | number | undefined>): string {
  return Object.entries(attrs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')}"`)
    .join('');
}
