// What the user dropped or picked, as files with their paths: loose files as they are, folders
// walked recursively (the drop's FileSystemEntry tree, or a folder picker's webkitRelativePath).
// Which of a folder's files are traces, and their runs/workers/spans, is lib/trace-names.ts.
import type { FoundFile } from './trace-names';

export interface Dropped {
  /** Files dropped or picked on their own: all of them are opened, whatever their names. */
  loose: File[];
  /** Files found inside dropped or picked folders, with their paths from the folder on. */
  inFolders: FoundFile<File>[];
  /** Folder entries that could not be read (permissions, vanished), by path. */
  unreadable: string[];
  /** The walk stopped at MAX_FOLDER_FILES files: the rest of the folder was not looked at. */
  truncated: boolean;
}

/** A folder walk stops after this many files (a dropped home directory must not hang the page). */
export const MAX_FOLDER_FILES = 20_000;

function readBatch(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/**
 * The files of a drop. The entries must be taken from the DataTransfer during the drop event
 * (its items are emptied once the handler returns), so call this synchronously from onDrop; the
 * walk itself is asynchronous.
 */
export function droppedFiles(dt: DataTransfer): Promise<Dropped> {
  const entries: FileSystemEntry[] = [];
  const plain: File[] = [];
  const items = dt.items ? Array.from(dt.items) : [];
  for (const item of items) {
    if (item.kind !== 'file') continue;
    const entry = typeof item.webkitGetAsEntry === 'function' ? item.webkitGetAsEntry() : null;
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) plain.push(f);
    }
  }
  // No entries API (or no items): the plain file list, which never holds folders' contents.
  if (!items.length) plain.push(...Array.from(dt.files ?? []));
  return walkEntries(entries, plain);
}

async function walkEntries(roots: FileSystemEntry[], plain: File[]): Promise<Dropped> {
  const out: Dropped = { loose: plain, inFolders: [], unreadable: [], truncated: false };
  const pending: FileSystemDirectoryEntry[] = [];
  for (const e of roots) {
    if (e.isFile) {
      try {
        out.loose.push(await fileOf(e as FileSystemFileEntry));
      } catch {
        out.unreadable.push(e.name);
      }
    } else if (e.isDirectory) pending.push(e as FileSystemDirectoryEntry);
  }
  // Breadth first, folder by folder; readEntries answers in batches until an empty one.
  while (pending.length && !out.truncated) {
    const dir = pending.shift()!;
    const reader = dir.createReader();
    try {
      for (;;) {
        const batch = await readBatch(reader);
        if (!batch.length) break;
        for (const e of batch) {
          if (e.isDirectory) pending.push(e as FileSystemDirectoryEntry);
          else if (e.isFile) {
            if (out.inFolders.length >= MAX_FOLDER_FILES) {
              out.truncated = true;
              break;
            }
            try {
              out.inFolders.push({ path: stripSlash(e.fullPath), file: await fileOf(e as FileSystemFileEntry) });
            } catch {
              out.unreadable.push(stripSlash(e.fullPath));
            }
          }
        }
        if (out.truncated) break;
      }
    } catch {
      out.unreadable.push(stripSlash(dir.fullPath));
    }
  }
  return out;
}

function stripSlash(p: string): string {
  return p.startsWith('/') ? p.slice(1) : p;
}

/**
 * The files of a file input: with `webkitdirectory` each carries its path inside the picked
 * folder (webkitRelativePath, "logs/run1/w0.pt.trace.json"); without, they are loose files.
 */
export function pickedFiles(list: FileList | File[]): Dropped {
  const out: Dropped = { loose: [], inFolders: [], unreadable: [], truncated: false };
  for (const f of Array.from(list)) {
    if (f.webkitRelativePath) {
      if (out.inFolders.length >= MAX_FOLDER_FILES) {
        out.truncated = true;
        break;
      }
      out.inFolders.push({ path: f.webkitRelativePath, file: f });
    } else out.loose.push(f);
  }
  return out;
}
