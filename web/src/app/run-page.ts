// The run page: a run's Distributed view, shown instead of a trace when the navigator's run row
// is picked, a recommendation asks for it or a link names it. Its traces are read from the
// loader's entries (each with the rank summary taken when it loaded); "Compare…" opens two of
// them in the Diff view through a link.
import { useMemo, useRef, useState } from 'preact/hooks';
import { formatPlace, type Place } from '../lib/deep-link';
import { placeOf, type RunNode } from '../lib/run-tree';
import type { Entry } from '../worker/entry';
import type { RunTrace } from '../views/distributed-view';
import { rankPlace } from './loader';

export function useRunPage(entries: Entry[], runs: RunNode[]) {
  // The run whose page (its Distributed view) is shown instead of a trace, and its step.
  const [runPage, setRunPage] = useState<string | null>(null);
  const [runStep, setRunStep] = useState<string | null>(null);
  // Picked in the navigator or opened by a link: from then on the page writes it into the hash.
  const runPageUsed = useRef(false);
  // A recommendation's evidence asks for the Distributed view itself: shown even for opened files
  // that are not one run's ranks (a click on the group lists them instead).
  const [runForced, setRunForced] = useState(false);
  const pickRun = (run: string, forced = false) => {
    runPageUsed.current = true;
    setRunPage(run);
    setRunForced(forced);
  };
  /** A link to a run page (view=distributed without a worker), once that run is open. */
  const openFromLink = (run: string, step: string | null) => {
    runPageUsed.current = true;
    setRunPage(run);
    setRunStep(step);
  };
  const runTraces = useMemo<RunTrace[]>(() => {
    const node = runPage == null ? undefined : runs.find((r) => r.name === runPage);
    if (!node) return [];
    const byKey = new Map(entries.map((e) => [e.key, e]));
    return node.workers.flatMap((w) =>
      w.spans.flatMap((sp) => {
        const e = byKey.get(sp.trace.key);
        if (!e) return [];
        return [{
          key: e.key,
          name: e.name,
          ...rankPlace(e),
          status: e.status,
          rank: e.rank ?? null,
          rankError: e.rankError ?? null,
          summary: e.summary?.ok ? e.summary : null,
        }];
      }),
    );
  }, [runPage, runs, entries]);
  /** The run page's "Compare…": a link to the Diff view of the pair, opened as any pasted link. */
  const compare = (baseline: number, experiment: number) => {
    const b = entries.find((e) => e.key === baseline);
    const x = entries.find((e) => e.key === experiment);
    if (!b || !x) return;
    const bp = b.label != null ? placeOf(runs, b.key) : null;
    const xp = x.label != null ? placeOf(runs, x.key) : null;
    const p: Place = {
      ...(bp ? { ...(bp.run ? { run: bp.run } : {}), worker: bp.worker, ...(bp.span ? { span: bp.span } : {}) } : {}),
      file: b.name,
      view: 'diff',
      ...(xp ? { ...(xp.run ? { vs_run: xp.run } : {}), vs_worker: xp.worker, ...(xp.span ? { vs_span: xp.span } : {}) } : { vs_file: x.name }),
    };
    location.hash = '#' + formatPlace(p);
  };
  return {
    /** The run shown, or null (a trace is shown). */
    run: runPage,
    /** Shown only while that run is open. */
    showing: runPage != null && runs.some((r) => r.name === runPage),
    step: runStep,
    forced: runForced,
    used: runPageUsed,
    traces: runTraces,
    close: () => setRunPage(null),
    pick: pickRun,
    openFromLink,
    setStep: (st: string | null) => {
      runPageUsed.current = true;
      setRunStep(st);
    },
    /** A trace's "Show in Distributed": its run's page, forced, on step `st`. */
    openForTrace: (run: string, st: string | null) => {
      pickRun(run, true);
      setRunStep(st);
    },
    compare,
  };
}

export type RunPageState = ReturnType<typeof useRunPage>;
