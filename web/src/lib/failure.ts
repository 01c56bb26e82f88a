// What a card says when its trace's worker failed (issue 12, "never a silent hang"): in one
// sentence, what happened (and while doing what), what is still shown, and what to do.
import type { Failure } from '../worker/protocol';

export interface LoadFailure {
  failure: Failure;
  /** What the load was doing: "reading", "overview", an Overview phase name ("operator trees"). */
  phase?: string;
  /** The worker's own words (e.g. "Aborted(OOM)"), for the title and a bug report. */
  detail: string;
}

/** The failure of a load error, or null when it is an ordinary error (not a trace, cancelled…). */
export function loadFailure(e: unknown): LoadFailure | null {
  const o = e as { failure?: unknown; phase?: unknown; message?: unknown } | null;
  const failure = o?.failure;
  if (failure !== 'oom' && failure !== 'abort' && failure !== 'trap' && failure !== 'died' && failure !== 'stalled') return null;
  return {
    failure,
    ...(typeof o?.phase === 'string' ? { phase: o.phase } : {}),
    detail: typeof o?.message === 'string' ? o.message : '',
  };
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
};

/**
 * One sentence: what happened, what is still shown (`summary`: the file's summary, which arrives
 * before the overview), and what to do (trim to a few steps, or the command line).
 */
export function failureSentence(f: LoadFailure, name: string, summary: boolean): string {
  const shown = summary ? 'the summary of what was read is shown below' : 'nothing of the file could be shown';
  const cli = `kinetoscope overview ${quoteName(name)}`;
  const trim = `kinetoscope trim --step N -o part.json ${quoteName(name)}`;
  const todo =
    f.failure === 'abort' || f.failure === 'trap'
      ? `retry, or use the command line (${cli}), which runs the same core without the browser's limits`
      : `open a part of it cut to a few steps (${trim}), or use the command line (${cli}), which has no 4 GB limit`;
  return `${HAPPENED[f.failure]} ${whileDoing(f.phase)}; ${shown}; ${todo}.`;
}

function quoteName(name: string): string {
  return /^[\w.,+@%/-]+$/.test(name) ? name : `'${name.replace(/'/g, `'\\''`)}'`;
}
