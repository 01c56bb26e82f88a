// Keyboard shortcuts: 1-9 switch the focused file's views, "/" focuses its table search, Esc
// closes one thing at a time (the shortcut list, else the search box it is in, else the selected
// table row of the file in use with the detail panel it shows), "?" lists the shortcuts.
// Pure: which action a key press asks for; app/app.tsx carries it out.

export type Shortcut =
  | { kind: 'view'; index: number } // 0-based position in the file's tabs
  | { kind: 'search' }
  | { kind: 'escape' }
  | { kind: 'help' };

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The event's target takes text (input, textarea, select, contenteditable). */
  inText: boolean;
}

export const SHORTCUTS: { keys: string; what: string }[] = [
  { keys: '1 – 9', what: 'Switch the view of the file you are in (its tabs, in order)' },
  { keys: '← →', what: 'In the tabs: the previous or next view (Home, End: the first, the last)' },
  { keys: '↑ ↓', what: 'In a table: select the previous or next row (its details open beside it); in a tree, → ← open and close' },
  { keys: '/', what: 'Search the table of the view shown' },
  { keys: 'Esc', what: 'Close this list, leave a search box, or deselect the table row (closing its details)' },
  { keys: '?', what: 'Show or hide this list' },
];

export function shortcutFor(k: KeyPress): Shortcut | null {
  if (k.ctrlKey || k.metaKey || k.altKey) return null;
  if (k.key === 'Escape') return { kind: 'escape' };
  if (k.inText) return null; // typing, not commanding
  if (k.key === '?') return { kind: 'help' };
  if (k.key === '/') return { kind: 'search' };
  if (/^[1-9]$/.test(k.key)) return { kind: 'view', index: Number(k.key) - 1 };
  return null;
}

/** True for elements that take typed text. */
export function takesText(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable) return true;
  const tag = el.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag !== 'INPUT') return false;
  const type = (el as HTMLInputElement).type;
  return !['button', 'checkbox', 'radio', 'submit', 'reset', 'file', 'range', 'color'].includes(type);
}

/**
 * The digit keys of the file in view: each of its tabs with its number ("1 Overview"), the tabs
 * read from the page (a trace has as many views as it has data for: Modules, Diff, … come and go).
 */
export function viewKeys(labels: readonly string[]): { keys: string; what: string }[] {
  return labels.slice(0, 9).map((label, i) => ({ keys: String(i + 1), what: label }));
}
