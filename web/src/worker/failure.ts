// What a card says when its trace's worker failed (issue 12, "never a silent hang"): in one
// sentence, what happened (and while doing what), what is still shown, and what to do.
import type { Failure } from './protocol';
import { formatBytes } from '../lib/format';
import type { LoadStall } from './load-watch';

export interface LoadFailure {
  failure: Failure;
  /** What the load was doing: "reading", "overview", an Overview phase name ("operator trees"). */
  phase?: string;
  /** The worker's own words (e.g. "Aborted(OOM)"), for the title and a bug report. */
  detail: string;
  /** A "read-stall": where the load stopped and how long nothing moved (worker/load-watch.ts). */
  stall?: LoadStall;
  /** Workers that read the file (more than one: the card offers to open it with one). */
  workers?: number;
}

/** The failure of a load error, or null when it is an ordinary error (not a trace, cancelled…). */
export function loadFailure(e: unknown): LoadFailure | null {
  const o = e as { failure?: unknown; phase?: unknown; message?: unknown } | null;
  const failure = o?.failure;
  if (failure !== 'oom' && failure !== 'abort' && failure !== 'trap' && failure !== 'died' && failure !== 'stalled' && failure !== 'read-stall') return null;
  const stall = (o as { stall?: LoadStall }).stall;
  const workers = (o as { workers?: unknown }).workers;
  return {
    failure,
    ...(typeof o?.phase === 'string' ? { phase: o.phase } : {}),
    detail: typeof o?.message === 'string' ? o.message : '',
    ...(stall ? { stall } : {}),
    ...(typeof workers === 'number' ? { workers } : {}),
  };
}

/**
 * The error a load the page's watch found stalled fails with (app/loader.ts): its message is the
 * sentence's first part, for the title and a bug report.
 */
export function stallError(stall: LoadStall, workers: number): Error & { failure: Failure; phase: string; stall: LoadStall; workers: number } {
  const e = new Error(stallWhat(stall)) as Error & { failure: Failure; phase: string; stall: LoadStall; workers: number };
  e.name = 'LoadStalled';
  return Object.assign(e, { failure: 'read-stall' as const, phase: 'reading', stall, workers });
}

/** "Reading the file stopped at 5.10 GiB of 9.31 GiB: no bytes came for 10 s". */
function stallWhat(s: LoadStall): string {
  const at = `${formatBytes(s.bytesRead)}${s.totalBytes != null ? ` of ${formatBytes(s.totalBytes)}` : ''}`;
  const secs = `${Math.round(s.stillMs / 1000)} s`;
  return s.kind === 'read'
    ? `Reading the file stopped at ${at}: no bytes came for ${secs}`
    : s.bytesRead > 0
      ? `Reading the file stopped after ${at}: nothing more came from the workers reading it for ${secs}`
      : `Reading the file did not start: nothing came for ${secs}`;
}

/** "while reading the file", "while computing the overview (operator trees)". */
export function whileDoing(phase: string | undefined): string {
  if (!phase || phase === 'reading') return 'while reading the file';
  if (phase === 'linking events') return 'while linking the events it read';
  if (phase === 'overview') return 'while computing the overview';
  if (phase === 'query') return 'while answering a view';
  return `while computing the overview (${phase})`;
}

const HAPPENED: Record<Failure, string> = {
  oom: 'The analysis ran out of memory (a browser gives each analysis worker at most 4 GB)',
  abort: 'The analysis core stopped on an internal error',
  trap: 'The analysis core crashed',
  died: 'The analysis worker was ended (the browser stopped it, which it does when memory runs out)',
  stalled: 'The analysis worker stopped answering and was stopped',
  'read-stall': 'Reading the file stopped',
};

/** A piece of the sentence: text, or a command to show as code. */
export interface Part {
  text: string;
  command?: boolean;
}

/**
 * One sentence: what happened, what is still shown (`summary`: the file's summary, which arrives
 * before the overview; `steps`: the overview's steps and GPU metrics too, which arrive before its
 * operator trees), and what to do (trim to a few steps, or the command line), in parts.
 */
export function failureParts(f: LoadFailure, name: string, summary: boolean, steps = false): Part[] {
  const shown = !summary
    ? 'nothing of the file could be shown'
    : steps
      ? 'the steps, their time breakdown and the GPU metrics are shown below, with the summary of what was read'
      : 'the summary of what was read is shown below';
  const cli = { text: `kinetoscope overview ${quoteName(name)}`, command: true };
  const trim = { text: `kinetoscope trim --step N -o part.json ${quoteName(name)}`, command: true };
  if (f.failure === 'read-stall') {
    // Not memory: the bytes stopped coming (a stuck read, a lost message, a part never sent).
    // The command line reads the same file without the browser.
    const what = f.stall ? stallWhat(f.stall) : HAPPENED['read-stall'];
    const oneWorker = (f.workers ?? 1) > 1 ? 'open it with one worker, ' : '';
    return [{ text: `${what}, so the load was stopped; ${shown}; retry, ${oneWorker}or use the command line (` }, cli, { text: '), which reads the file without the browser.' }];
  }
  const head = { text: `${HAPPENED[f.failure]} ${whileDoing(f.phase)}; ${shown}; ` };
  return f.failure === 'abort' || f.failure === 'trap'
    ? [head, { text: 'retry, or use the command line (' }, cli, { text: "), which runs the same core without the browser's limits." }]
    : [head, { text: 'open a part of it cut to a few steps (' }, trim, { text: '), or use the command line (' }, cli, { text: '), which has no 4 GB limit.' }];
}

/** The sentence as text (the navigator's row, tests). */
export function failureSentence(f: LoadFailure, name: string, summary: boolean, steps = false): string {
  return failureParts(f, name, summary, steps)
    .map((p) => p.text)
    .join('');
}

function quoteName(name: string): string {
  return /^[\w.,+@%/-]+$/.test(name) ? name : `'${name.replace(/'/g, `'\\''`)}'`;
}
