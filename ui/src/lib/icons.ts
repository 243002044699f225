// Every icon the app draws comes from one bundled SVG set (Lucide), so none depends on an emoji
// font being installed. Icons are decoration: whatever shows one also says it in text or a tooltip.
import Ban from '@lucide/svelte/icons/ban';
import Bot from '@lucide/svelte/icons/bot';
import Check from '@lucide/svelte/icons/check';
import ChevronDown from '@lucide/svelte/icons/chevron-down';
import ChevronsDown from '@lucide/svelte/icons/chevrons-down';
import ChevronsUp from '@lucide/svelte/icons/chevrons-up';
import ChevronRight from '@lucide/svelte/icons/chevron-right';
import Circle from '@lucide/svelte/icons/circle';
import CircleDashed from '@lucide/svelte/icons/circle-dashed';
import ClipboardList from '@lucide/svelte/icons/clipboard-list';
import Diamond from '@lucide/svelte/icons/diamond';
import Fence from '@lucide/svelte/icons/fence';
import File from '@lucide/svelte/icons/file';
import FilePenLine from '@lucide/svelte/icons/file-pen-line';
import FileText from '@lucide/svelte/icons/file-text';
import Folder from '@lucide/svelte/icons/folder';
import FolderInput from '@lucide/svelte/icons/folder-input';
import Folders from '@lucide/svelte/icons/folders';
import GitBranch from '@lucide/svelte/icons/git-branch';
import Globe from '@lucide/svelte/icons/globe';
import Hash from '@lucide/svelte/icons/hash';
import Hexagon from '@lucide/svelte/icons/hexagon';
import Hourglass from '@lucide/svelte/icons/hourglass';
import House from '@lucide/svelte/icons/house';
import Image from '@lucide/svelte/icons/image';
import Info from '@lucide/svelte/icons/info';
import Keyboard from '@lucide/svelte/icons/keyboard';
import List from '@lucide/svelte/icons/list';
import ListTodo from '@lucide/svelte/icons/list-todo';
import Mail from '@lucide/svelte/icons/mail';
import MessageCircle from '@lucide/svelte/icons/message-circle';
import MessageSquare from '@lucide/svelte/icons/message-square';
import MessagesSquare from '@lucide/svelte/icons/messages-square';
import Monitor from '@lucide/svelte/icons/monitor';
import Moon from '@lucide/svelte/icons/moon';
import Pencil from '@lucide/svelte/icons/pencil';
import Plug from '@lucide/svelte/icons/plug';
import RefreshCw from '@lucide/svelte/icons/refresh-cw';
import RotateCcw from '@lucide/svelte/icons/rotate-ccw';
import Search from '@lucide/svelte/icons/search';
import Settings from '@lucide/svelte/icons/settings';
import Square from '@lucide/svelte/icons/square';
import Sun from '@lucide/svelte/icons/sun';
import SunMoon from '@lucide/svelte/icons/sun-moon';
import Terminal from '@lucide/svelte/icons/terminal';
import Timer from '@lucide/svelte/icons/timer';
import Triangle from '@lucide/svelte/icons/triangle';
import TriangleAlert from '@lucide/svelte/icons/triangle-alert';
import UserPlus from '@lucide/svelte/icons/user-plus';
import Wrench from '@lucide/svelte/icons/wrench';
import X from '@lucide/svelte/icons/x';

export const ICONS = {
  ban: Ban,
  bot: Bot,
  check: Check,
  'chevron-down': ChevronDown,
  'chevron-right': ChevronRight,
  'chevrons-down': ChevronsDown,
  'chevrons-up': ChevronsUp,
  circle: Circle,
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
  moon: Moon,
  pencil: Pencil,
  plug: Plug,
  refresh: RefreshCw,
  'rotate-ccw': RotateCcw,
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
} as const;

export type IconName = keyof typeof ICONS;
