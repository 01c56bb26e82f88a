// Deep links (lib/deep-link.ts): the trace the hash names (by run, worker and span; by file name
// for links that have only that; else the first trace) is shown as soon as it is open, and its
// place opened once it has loaded; a new hash (a link pasted into this tab) is opened again. A
// link to a run page opens it once that run is open. The trace page shown writes the hash itself;
// the run page shown writes it here once used.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { formatPlace, readLink, type Link } from '../lib/deep-link';
import { findByPlace, type RunNode } from '../lib/run-tree';
import type { Entry } from '../worker/entry';
import type { RunPageState } from './run-page';

export function useDeepLinks(entries: Entry[], runs: RunNode[], runPage: RunPageState, showTrace: (key: number) => void) {
  const [link, setLink] = useState<Link | null>(readLink);
  useEffect(() => {
    const onHash = () => setLink(readLink());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const linkTarget = useMemo(() => {
    if (!link || link.taken) return undefined;
    const p = link.place;
    if (p.runView) return undefined; // a run page: opened below, no card takes this link
    if (p.worker != null) {
      const t = findByPlace(runs, p.run ?? '', p.worker, p.span ?? 0);
      if (t) return entries.find((e) => e.key === t.key);
    }
    if (p.file != null) return entries.find((e) => e.name === p.file);
    return entries.find((e) => e.status === 'done');
  }, [link, runs, entries]);
  useEffect(() => {
    if (!linkTarget) return;
    showTrace(linkTarget.key);
    runPage.close(); // a link to a trace (the run page's "Compare…" makes one) shows its card
  }, [linkTarget?.key, link?.seq]);
  const linkCard = linkTarget?.status === 'done' ? linkTarget : undefined;
  const linkTaken = useCallback((seq: number) => setLink((l) => (l && l.seq === seq ? { ...l, taken: true } : l)), []);
  // A link to a run page (view=distributed without a worker) opens it once that run is open.
  useEffect(() => {
    if (!link || link.taken || !link.place.runView) return;
    const run = link.place.run ?? '';
    if (!runs.some((r) => r.name === run)) return;
    runPage.openFromLink(run, link.place.step ?? null);
    linkTaken(link.seq);
  }, [link, runs, linkTaken]);
  // The run page shown writes the hash once used (picked in the navigator or opened by a link).
  useEffect(() => {
    if (runPage.run == null || !runPage.used.current) return;
    const hash = '#' + formatPlace({ run: runPage.run || undefined, runView: 'distributed', step: runPage.step ?? undefined });
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }, [runPage.run, runPage.step]);
  /** The link the card of `e` is to open (once it has loaded), or null. */
  const linkFor = (e: Entry) => (e === linkCard ? link! : null);
  return { linkFor, linkTaken };
}
