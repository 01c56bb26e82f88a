// torch.profiler's export_memory_timeline(path.json[.gz]) output, told by content as a pickle
// (lib/pickle.ts) and gzip (lib/gzip.ts) are: its JSON is [times_us, sizes], so it begins with two
// opening brackets and a number (or an empty list), where a trace's JSON begins with an object
// ({...} or [{...}]). The Snapshot page pairs such a file with the snapshot it is dropped on
// (views/snapshot-categories.tsx); the core reads it (core/snapshot/snapshot_categories.h).
import { isGzip } from './gzip';

export function isMemoryTimeline(head: Uint8Array): boolean {
  let i = 0;
  const ws = () => {
    while (i < head.length && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  };
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) i = 3; // a BOM
  for (const open of [0x5b, 0x5b]) {
    ws();
    if (head[i] !== open) return false;
    i++;
  }
  ws();
  const c = head[i];
  return c === 0x5d || c === 0x2d || (c >= 0x30 && c <= 0x39);
}

/** The file's text, gunzipped when it is gzip (by its first bytes, whatever its name). */
export async function memoryTimelineText(file: Blob): Promise<string> {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  if (!isGzip(head)) return file.text();
  return new Response(file.stream().pipeThrough(new DecompressionStream('gzip'))).text();
}

/** Whether a file (gzipped or not) is an export_memory_timeline, by its first bytes. */
export async function isMemoryTimelineFile(file: Blob): Promise<boolean> {
  const head = new Uint8Array(await file.slice(0, 64).arrayBuffer());
  if (!isGzip(head)) return isMemoryTimeline(head);
  const reader = file.stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  try {
    const { value } = await reader.read();
    return !!value && isMemoryTimeline(value.subarray(0, 64));
  } catch {
    return false;
  } finally {
    void reader.cancel().catch(() => {});
  }
}

/**
 * A memory timeline dropped anywhere on the page is paired with the one snapshot open: the app
 * sends this event, the snapshot's Memory by kind panel (views/snapshot-categories.tsx) takes it.
 */
export const PAIR_TIMELINE_EVENT = 'kinetoscope-pair-memory-timeline';
export interface PairTimelineDetail {
  /** The snapshot's file name (its card's). */
  snapshot: string;
  file: File;
}
