// One trace's analysis, the one shown right of the run navigator: a compact header (file, place,
// events, duration, GPUs, rank, health), the view tabs with the step they show, and the views
// (Overview, Operators, Kernels, Trace, Timeline) once the overview has come. It keeps the view,
// the step and the tables' state while another trace is shown (it stays mounted, hidden), and
// writes them into the page's hash as a deep link while it is the one shown.
// The app's loader (app/loader.ts) owns the entries, the loading queue and the workers; a trace page
// asks the workers through the Runner it is given.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ErrorBoundary } from '../components/error-boundary';
import { StepSelect } from '../components/step-select';
import { TraceHeader } from '../components/trace-header';
import { useQuery, type Ask } from '../components/use-query';
import { openAnswer } from '../lib/answer';
import { formatPlace, nextLinkNumber, stepIndexOf, stepNameOf, type Link, type Place, type TablePlace } from '../lib/deep-link';
import type { Entry } from '../worker/entry';
import { failureParts } from '../worker/failure';
import type { Overview } from '../lib/overview';
import type { Shortcut } from '../lib/shortcuts';
import type { NavPlace } from '../lib/run-tree';
import type { Summary } from '../lib/summary';
import { RemoteError, SESSION_GONE, type LoadProgress, type Phase, type Query, type QueryResult } from '../worker/protocol';
import { goneError } from '../worker/worker-pool';
import { progressStats } from '../lib/progress';
import { KernelsView } from './kernels-view';
import { DiffView, type DiffTrace } from './diff-view';
import { ModuleView } from './module-view';
import { RangesView } from './ranges-view';
import { MemoryView } from './memory-view';
import { memoryDevices, type MemoryDevices } from '../lib/memory';
import { OperatorsView } from './operators-view';
import { OverviewView, VIEW_LABELS } from './overview-view';
import { TimelineView, type TimelineRequest, type TrimFn } from './timeline-view';
import type { CounterKind } from '../lib/counter-tracks';
import { GpuTimeView } from './gpu-time-view';
import { RooflineView } from './roofline-view';
import { SnapshotView, type SnapshotFocus } from './snapshot-view';
import { SnapshotCompare } from './snapshot-compare';
import { MemoryBelow, MemorySnapshotLink } from './memory-snapshot-link';
import { PeakContext } from '../components/peak-choice';
import { TraceError, TraceView } from './trace-view';

/** Asks the Session of load `session`, made in worker generation `gen`. */
export type RunQuery = (session: number, gen: number, q: Query) => Promise<QueryResult>;

/** Everything a card needs of the app's worker. */
export interface Runner {
  query: RunQuery;
  trim: TrimFn;
}

/** The overview's first part (steps, GPU metrics) before the rest has come, or when it failed. */
function EarlyOverview({ overview, summary, step, onStep }: { overview: Overview; summary: Summary; step: string; onStep: (s: string) => void }) {
  return (
    <ErrorBoundary>
      <OverviewView overview={overview} summary={summary} step={step} onStep={onStep} testId="overview-early" />
    </ErrorBoundary>
  );
}

/**
 * What the card says while the overview is computed: the part the core is building and how many
 * of the Overview's parts are done (the core reports them: wasm Session.setProgress).
 */
function OverviewPending({ phase }: { phase?: Phase }) {
  const counted = phase != null && phase.count > 0;
  const text = !phase
    ? 'Computing the overview, operators and recommendations…'
    : counted
      ? `Computing the overview: ${phase.name} (${phase.index} of ${phase.count})…`
      : `Computing the overview: ${phase.name}…`;
  return (
    <div class="overview-pending" data-testid="overview-pending" data-phase={phase?.name ?? ''} role="status">
      <p class="muted pending">{text}</p>
      {counted && <progress class="phase-bar" max={phase.count} value={phase.index - 1} aria-label="Overview parts computed" />}
    </div>
  );
}

const USE_EVENTS = ['pointerdown', 'keydown', 'focusin', 'input', 'change'];

/**
 * The views read from their answer alone (components/use-answer.ts), one line each: the tab, its
 * label and the view, which gets the card's `ask` and file name. Each is a tab of every analysed
 * trace, after Ranges, with its panel and deep link (lib/deep-link.ts LINK_VIEWS names it).
 */
const ANSWER_TABS = [
  { tab: 'gpu-time', label: 'GPU time', View: GpuTimeView },
] as const;
type AnswerTab = (typeof ANSWER_TABS)[number]['tab'];

type Tab = 'overview' | 'operators' | 'kernels' | 'modules' | 'ranges' | 'roofline' | 'trace' | 'memory' | 'timeline' | 'diff' | AnswerTab;
const tabLabel = (t: Tab) => ANSWER_TABS.find((v) => v.tab === t)?.label ?? VIEW_LABELS[t];

export function TracePage({
  entry,
  runner,
  onRemove,
  onRetry,
  link,
  onLinkTaken,
  active,
  picked = false,
  place,
  waiting = 0,
  onOpenRun,
  traces = [],
  onDiffPair,
  rereadProgress = null,
  onReread,
  onShowSnapshot,
  snapshotFocus = null,
}: {
  /** Shows snapshot `key`'s page at a range (Unix µs) of device `device` (the Memory view's link). */
  onShowSnapshot?: (key: number, device: number, fromUs: number, toUs: number) => void;
  /** This snapshot's page is shown at that moment. */
  snapshotFocus?: SnapshotFocus | null;
  /** The Diff view's experiment (a trace key, or null): the app keeps its model next to this one's. */
  onDiffPair?: (experiment: number | null) => void;
  /** A closed model being read again: its progress; and "Try again" after a failed re-read. */
  rereadProgress?: LoadProgress | null;
  onReread?: () => void;
  /** Shows the run page (its Distributed view) of this trace's run, at a step (name) or all. */
  onOpenRun?: (step: string | null) => void;
  entry: Entry;
  runner: Runner;
  onRemove: () => void;
  /** Loads a failed trace again (`oneWorker`: read by one worker, in one range). */
  onRetry?: (oneWorker?: boolean) => void;
  /** A deep link for this card to open (once per link). */
  link: Link | null;
  onLinkTaken: (seq: number) => void;
  /** The card shown: only it writes the page's hash, once the user has used it. */
  active: boolean;
  /** The user chose it in the navigator (a use, as a click in it is). */
  picked?: boolean;
  /** Its run, worker and span in the navigator, for the link (null: not named as a trace). */
  place: NavPlace | null;
  /** Files loaded before this one (while it is queued). */
  waiting?: number;
  /** Every trace of the page, for the Diff view (shown when there are two or more). */
  traces?: readonly DiffTrace[];
}) {
  const runQuery = runner.query;
  // The Memory view's snapshot panel (views/memory-snapshot-link.tsx), given the open snapshots.
  const snapshotsOpen = traces.filter((t) => t.snapshot);
  const clock = entry.summary && entry.summary.start_us != null && entry.summary.end_us != null
    ? { startUs: entry.summary.start_us, endUs: entry.summary.end_us, baseTimeNs: entry.summary.schema?.base_time_ns ?? null }
    : null;
  const memoryBelow =
    snapshotsOpen.length && clock
      ? (device: string, fromUs: number | null, toUs: number | null) => (
          <MemorySnapshotLink
            snapshots={snapshotsOpen}
            run={runQuery}
            span={clock}
            device={device}
            fromUs={fromUs ?? clock.startUs}
            toUs={toUs ?? clock.endUs}
            onShow={onShowSnapshot}
          />
        )
      : null;
  const [tab, setTab] = useState<Tab>('overview');
  // The step chosen in the Overview ('all' or its index): "Show in timeline" opens on it.
  const [step, setStep] = useState('all');
  const [timelineReq, setTimelineReq] = useState<TimelineRequest | null>(null);
  // The peak row the FLOPs numbers are measured against (null: the matched one), kept per trace.
  const [peak, setPeak] = useState<string | null>(null);
  const peakChoice = useMemo(() => ({ peak, setPeak }), [peak]);
  // Views stay mounted once opened (hidden when not shown), so their sorting and selection last.
  const [opened, setOpened] = useState<Set<Tab>>(() => new Set<Tab>(['overview']));
  const { session, gen } = entry;
  // A loaded trace whose model was closed is read again when shown: its questions wait for that
  // (the answer comes through the new `ask` made once the Session is back), unless it failed.
  const closed = session == null && entry.status === 'done' && !!entry.file;
  const rereadFailed = entry.reread?.error ?? null;
  const ask = useCallback(
    ((q: Query) =>
      session != null && gen != null
        ? runQuery(session, gen, q)
        : closed && rereadFailed == null
          ? new Promise(() => {})
          : Promise.reject(rereadFailed != null ? new RemoteError({ name: SESSION_GONE, message: rereadFailed }) : goneError())) as Ask,
    [session, gen, runQuery, closed, rereadFailed],
  );
  // Done: the whole overview is in (a load still computing, or one that failed, may hold its
  // first part only: steps and GPU metrics, shown without the tabs).
  const analysed = !!(entry.summary?.ok && entry.overview && entry.status === 'done');
  // The Module tab, as the Kernels tab, shows only when the trace has what it shows (module
  // frames or Lightning modules): asked once the analysis is in (a scan of names, cheap).
  const presence = useQuery(ask, analysed ? { what: 'modulePresence' } : null);
  const found = presence.status === 'ready' ? openAnswer('module_presence', presence.data.answer).meta : null;
  const hasModules = !!found && (found.modules || found.lightning);
  const tabs: Tab[] = ['overview', 'operators'];
  if ((entry.summary?.kinds?.kernel ?? 0) > 0) tabs.push('kernels');
  if (hasModules) tabs.push('modules');
  // The Ranges tab shows when the trace has record_function ranges of the user's (ProfilerStep
  // is the step, not one): asked once the analysis is in (a small table beside the trees).
  const ranges = useQuery(ask, analysed ? { what: 'ranges' } : null);
  if (ranges.status === 'ready' && ranges.data.answer.rowCount > 0) tabs.push('ranges');
  for (const v of ANSWER_TABS) tabs.push(v.tab);
  // The Roofline tab shows when some operator's FLOPs were counted (issue 25; the flops answer has rows).
  const flops = useQuery(ask, analysed ? { what: 'flops' } : null);
  if (flops.status === 'ready' && flops.data.answer.rowCount > 0) tabs.push('roofline');
  tabs.push('trace');
  // Always there: without [memory] events it says how to record them.
  tabs.push('memory');
  // The Timeline sends the file's bytes: a download has them once its load has ended.
  if (entry.file) tabs.push('timeline');
  if (traces.length > 1) tabs.push('diff');
  const show = (t: string) => {
    if (!tabs.includes(t as Tab)) return;
    setTab(t as Tab);
    setOpened((o) => (o.has(t as Tab) ? o : new Set([...o, t as Tab])));
  };
  // Keyboard shortcuts sent by the App to this card.
  const root = useRef<HTMLElement>(null);
  const tabsRef = useRef(tabs);
  tabsRef.current = tabs;
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    const onShortcut = (ev: Event) => {
      const action = (ev as CustomEvent<Shortcut>).detail;
      if (action.kind === 'view') {
        const t = tabsRef.current[action.index];
        if (t) {
          show(t);
          el.querySelector<HTMLElement>(`[data-testid=tab-${t}]`)?.focus();
        }
      } else if (action.kind === 'search') {
        const panel = el.querySelector('[role=tabpanel]:not([hidden])');
        panel?.querySelector<HTMLInputElement>('input[type=search], input[data-testid$="-search"]')?.focus();
      } else if (action.kind === 'escape') {
        // The table holding the focus, else those of the view shown, drop their selected row.
        const inTable = document.activeElement?.closest('.data-table');
        const tables = inTable && el.contains(inTable) ? [inTable] : el.querySelectorAll('[role=tabpanel]:not([hidden]) .data-table');
        for (const t of tables) t.dispatchEvent(new CustomEvent('ks-deselect'));
      }
    };
    el.addEventListener('ks-shortcut', onShortcut);
    return () => el.removeEventListener('ks-shortcut', onShortcut);
  });
  const steps = entry.overview?.steps?.steps ?? [];
  // The Overview's peak memory per device (Memory view's devices), asked once the trace is analysed.
  const [memoryPeaks, setMemoryPeaks] = useState<MemoryDevices | null>(null);
  const memoryEvents = entry.summary?.kinds?.memory ?? 0;
  useEffect(() => {
    if (!memoryEvents || !entry.overview || session == null) return;
    let live = true;
    ask({ what: 'memoryDevices' }).then(
      (r) => live && setMemoryPeaks(memoryDevices(openAnswer('memory_devices', r.answer))),
      () => live && setMemoryPeaks(null),
    );
    return () => {
      live = false;
    };
  }, [memoryEvents, !!entry.overview, ask]);

  // Deep links (lib/deep-link.ts). The place is the tab, the step (by name) and the shown view's
  // table part, which the Operators and Kernels views report as it changes.
  const tableParts = useRef<Partial<Record<Tab, TablePlace>>>({});
  const latest = useRef({ tab, step, steps });
  latest.current = { tab, step, steps };
  const latestPlace = useRef(place);
  latestPlace.current = place;
  // The hash describes the card shown once the user has used it (picked it, clicked or typed in
  // it, or opened a link to it): a trace shown because it was just dropped writes nothing, so a
  // link still waiting for another trace is not overwritten.
  const activeRef = useRef(active);
  activeRef.current = active;
  const used = useRef(false);
  if (!active) used.current = false;
  if (active && picked) used.current = true;
  /** Writes this card's place into the hash, while it is the card shown and in use. */
  const writeHash = () => {
    if (!activeRef.current || !used.current) return;
    const { tab: t, step: s, steps: ss } = latest.current;
    const np = latestPlace.current;
    const named = entry.label != null && np != null;
    const p: Place = {
      ...(named && np.run ? { run: np.run } : {}),
      ...(named ? { worker: np.worker } : {}),
      ...(named && np.span ? { span: np.span } : {}),
      file: entry.name,
      view: t,
      step: stepNameOf(ss, s),
      ...tableParts.current[t],
    };
    const hash = '#' + formatPlace(p);
    // replaceState: every sort or keystroke would otherwise be a Back step; no hashchange fires.
    if (hash !== location.hash) history.replaceState(history.state, '', hash);
  };
  const own = () => {
    if (used.current || !activeRef.current) return;
    used.current = true;
    writeHash();
  };
  const placeOf = (t: Tab) => (part: TablePlace) => {
    tableParts.current[t] = part;
    writeHash();
  };
  useEffect(writeHash, [tab, step, active, picked, place?.run, place?.worker, place?.span]);
  // Any use of the card (a click, a key, the focus coming in, a value changed by assistive
  // software) makes the hash describe it.
  useEffect(() => {
    const el = root.current;
    if (!el) return;
    for (const type of USE_EVENTS) el.addEventListener(type, own, true);
    return () => {
      for (const type of USE_EVENTS) el.removeEventListener(type, own, true);
    };
  });
  // A closed card's place is nowhere to go back to.
  useEffect(
    () => () => {
      if (!activeRef.current || !used.current) return;
      history.replaceState(history.state, '', location.pathname + location.search);
    },
    [],
  );
  // The views a link set up, numbered so that a new link mounts them afresh with its state.
  const [linked, setLinked] = useState<Partial<Record<Tab, { seq: number; place: TablePlace }>>>({});
  useEffect(() => {
    // Not before the card knows whether it has a Module or Ranges tab (a link may name it).
    if (!link || !analysed || presence.status === 'loading' || ranges.status === 'loading') return;
    const p = link.place;
    setStep(stepIndexOf(steps, p.step));
    // The Timeline hands the trace to the Perfetto UI, which only a click on its tab may do:
    // a link to it opens the Overview, one click away from "Show in timeline".
    const view: Tab = p.view && p.view !== 'timeline' && tabs.includes(p.view) ? p.view : 'overview';
    if (view !== 'overview') setLinked((l) => ({ ...l, [view]: { seq: link.seq, place: p } }));
    show(view);
    used.current = true;
    onLinkTaken(link.seq);
    // Once per link, when the card has its views.
  }, [link?.seq, analysed, presence.status, ranges.status]);

  /**
   * The Diff view of trace `key` as the baseline against `experiment`: a link to it, which the
   * app opens as any pasted link (it selects that trace's card, which opens its Diff tab).
   */
  const showDiffOf = (key: number, experiment: DiffTrace) => {
    const t = traces.find((x) => x.key === key);
    if (!t) return;
    const e = experiment.place;
    const p: Place = {
      ...(t.place ? { ...(t.place.run ? { run: t.place.run } : {}), worker: t.place.worker, ...(t.place.span ? { span: t.place.span } : {}) } : {}),
      file: t.name,
      view: 'diff',
      ...(e ? { ...(e.run ? { vs_run: e.run } : {}), vs_worker: e.worker, ...(e.span ? { vs_span: e.span } : {}) } : { vs_file: experiment.name }),
    };
    location.hash = '#' + formatPlace(p);
  };

  /** Opens a place of this trace (a recommendation's evidence): its step, view and table state. */
  const openPlace = (p: Place) => {
    if (p.runView === 'distributed' && onOpenRun) {
      onOpenRun(p.step ?? null);
      return;
    }
    if (p.step != null) setStep(stepIndexOf(steps, p.step));
    const view = p.view && p.view !== 'timeline' && tabs.includes(p.view) ? p.view : 'overview';
    if (view === 'operators' || view === 'kernels' || view === 'memory') setLinked((l) => ({ ...l, [view]: { seq: nextLinkNumber(), place: p } }));
    show(view);
  };

  const stepIndex = step === 'all' ? -1 : Number(step);
  const stepName = stepIndex >= 0 && stepIndex < steps.length ? steps[stepIndex].name : null;
  /** Opens the Timeline on the chosen step (trimmed to it), or on the whole file. */
  const showTimeline = (index: number | null = stepName != null ? stepIndex : null) => {
    setTimelineReq((r) => ({ window: index == null ? { kind: 'whole' } : { kind: 'step', index }, seq: (r?.seq ?? 0) + 1 }));
    show('timeline');
  };
  /** Opens the Timeline on a window (ms after the trace start): a Ranges row's first call. */
  const showTimelineRange = (fromMs: number, toMs: number) => {
    if (!tabs.includes('timeline')) return;
    setTimelineReq((r) => ({ window: { kind: 'range', fromMs, toMs }, seq: (r?.seq ?? 0) + 1 }));
    show('timeline');
  };
  /** Adds counter tracks (the GPU time tab's queue length or memory bandwidth) to the Timeline and opens it. */
  const showCounterTracks = (counters: CounterKind[]) => {
    setTimelineReq((r) => ({ window: null, counters, seq: (r?.seq ?? 0) + 1 }));
    show('timeline');
  };
  // A function: one vnode must not be rendered in two places.
  const timelineButton = () => (
    <button
      type="button"
      class="link-button"
      data-testid="show-in-timeline"
      title={stepName != null ? `Open the Timeline on step ${stepName} (only that step is sent to Perfetto)` : 'Open the whole trace in the Timeline'}
      onClick={() => showTimeline()}
    >
      {stepName != null ? `Show step ${stepName} in timeline` : 'Show in timeline'}
    </button>
  );

  const overview = entry.overview ?? null;
  const hasMemory = (entry.summary?.kinds?.memory ?? 0) > 0;
  return (
    <PeakContext.Provider value={peakChoice}>
    <article
      ref={root}
      class="trace-panel"
      data-testid="file-card"
      data-file={entry.name}
      data-status={entry.status}
      data-model={session != null ? 'loaded' : entry.reread ? (rereadFailed != null ? 'failed' : 'reading') : closed ? 'closed' : 'none'}
      data-read-workers={entry.readWorkers}
      data-read-merged={entry.readMerged}
      data-read-again={entry.readAgain}
      hidden={!active}
    >
      <TraceHeader
        name={entry.name}
        size={entry.size}
        label={entry.label}
        url={entry.url}
        summary={entry.snapshot ? undefined : entry.summary}
        gpus={overview?.gpus}
        status={entry.status}
        onClose={onRemove}
        onShowTrace={analysed ? () => show('trace') : undefined}
      />
      {entry.note && (
        <p class="warn" data-testid="file-note">
          {entry.note}
        </p>
      )}
      {entry.summary && !entry.summary.ok && <TraceError summary={entry.summary} />}
      {/* A memory snapshot (a pickle) is its Snapshot page, no trace tabs. */}
      {entry.snapshot?.ok && entry.status === 'done' && (
        <ErrorBoundary>
          <SnapshotView ask={ask} snapshot={entry.snapshot} name={entry.name} focus={snapshotFocus} />
          <SnapshotCompare
            ask={ask}
            self={traces.find((t) => t.key === entry.key) ?? { key: entry.key, name: entry.name, status: entry.status, session: session ?? null, gen: gen ?? null, place: null, snapshot: true }}
            snapshots={traces.filter((t) => t.snapshot)}
            run={runQuery}
            devices={entry.snapshot.devices.map((x) => x.device)}
            onPair={onDiffPair}
          />
        </ErrorBoundary>
      )}
      {closed && entry.reread && <Reread name={entry.name} progress={rereadProgress} error={rereadFailed} onRetry={onReread} />}
      {entry.status === 'queued' && (
        <p class="muted pending" data-testid="file-waiting" role="status">
          Waiting to load{waiting > 0 ? `: ${waiting} file${waiting === 1 ? '' : 's'} before it` : ''}.
        </p>
      )}
      {entry.status === 'loading' && !entry.summary && (
        <p class="muted pending" data-testid="file-reading" role="status">
          Reading the trace… (progress at the top of the page)
        </p>
      )}
      {entry.summary?.ok && entry.status === 'loading' && (
        <>
          <OverviewPending phase={entry.phase} />
          {/* What is known already is shown meanwhile: the overview's steps and GPU metrics once
              computed, else what the file holds, as the Trace tab will show it. */}
          {entry.overview ? (
            <EarlyOverview overview={entry.overview} summary={entry.summary} step={step} onStep={setStep} />
          ) : (
            <TraceView summary={entry.summary} fileSize={entry.size ?? 0} />
          )}
        </>
      )}
      {entry.status === 'failed' && entry.error && (
        <div class="load-failure" role="alert" data-testid="load-failure" data-failure={entry.failure?.failure ?? 'error'}>
          <p class="file-error" data-testid={entry.failure ? 'failure-message' : 'file-error'} title={entry.failure?.detail}>
            {entry.failure
              ? failureParts(entry.failure, entry.name, !!entry.summary?.ok, !!entry.overview?.steps).map((p, i) => (p.command ? <code key={i}>{p.text}</code> : p.text))
              : entry.error}
          </p>
          {onRetry && (
            <button type="button" data-testid="retry" onClick={() => onRetry()}>
              Retry
            </button>
          )}
          {onRetry && (entry.failure?.workers ?? 1) > 1 && (
            <button type="button" data-testid="retry-one-worker" onClick={() => onRetry(true)}>
              Open with one worker
            </button>
          )}
        </div>
      )}
      {/* The summary arrives before the overview, and the overview's steps and GPU metrics before
          its operator trees: what came survives a failure of the rest. */}
      {entry.summary?.ok && entry.status === 'failed' && entry.overview && (
        <EarlyOverview overview={entry.overview} summary={entry.summary} step={step} onStep={setStep} />
      )}
      {entry.summary?.ok && entry.status === 'failed' && <TraceView summary={entry.summary} fileSize={entry.size ?? 0} />}
      {analysed && (
        <>
          <div class="tabbar">
            <div
              class="tabs"
              role="tablist"
              aria-label={`Views of ${entry.name}`}
              data-modules={presence.status === 'ready' ? (hasModules ? 'yes' : 'no') : presence.status}
              data-ranges={ranges.status === 'ready' ? (tabs.includes('ranges') ? 'yes' : 'no') : ranges.status}
            >
              {tabs.map((t, i) => (
                <button
                  key={t}
                  type="button"
                  role="tab"
                  class={t === tab ? 'tab selected' : 'tab'}
                  aria-selected={t === tab ? 'true' : 'false'}
                  aria-controls={`panel-${entry.key}-${t}`}
                  id={`tab-${entry.key}-${t}`}
                  tabIndex={t === tab ? 0 : -1}
                  data-testid={`tab-${t}`}
                  title={`${tabLabel(t)} (key ${i + 1})`}
                  onClick={() => show(t)}
                  onKeyDown={(ev) => {
                    // ARIA tabs: ← → move to the previous / next tab (wrapping), Home / End to the
                    // first / last, each shown as it is reached; Tab leaves the tab list.
                    const to = tabKeyTarget(ev.key, i, tabs.length);
                    if (to == null) return;
                    ev.preventDefault();
                    show(tabs[to]);
                    (ev.currentTarget as HTMLElement).parentElement?.querySelector<HTMLElement>(`[data-testid=tab-${tabs[to]}]`)?.focus();
                  }}
                >
                  {tabLabel(t)}
                </button>
              ))}
            </div>
            {steps.length > 0 && (
              <label class="step-pick">
                <span>Step</span>
                <StepSelect steps={steps} value={step} onChange={setStep} />
                <span class="muted step-scope" data-testid="step-scope">
                  {stepName != null ? `Overview, Operators, Kernels, Memory and Timeline show step ${stepName}` : 'applies to Overview, Operators, Kernels, Memory and Timeline'}
                </span>
              </label>
            )}
          </div>
          <div role="tabpanel" id={`panel-${entry.key}-overview`} aria-labelledby={`tab-${entry.key}-overview`} hidden={tab !== 'overview'} data-testid="panel-overview">
            <ErrorBoundary>
              <OverviewView
                overview={entry.overview!}
                summary={entry.summary!}
                views={onOpenRun ? [...tabs, 'distributed'] : tabs}
                onShowView={(v: string) => (v === 'distributed' && onOpenRun ? onOpenRun(null) : show(v))}
                onEvidence={openPlace}
                step={step}
                onStep={setStep}
                onShowTimeline={(i) => showTimeline(i)}
                memory={memoryPeaks}
                ask={ask}
                onRoofline={tabs.includes('roofline') ? () => show('roofline') : undefined}
              />
            </ErrorBoundary>
          </div>
          {opened.has('operators') && (
            <div role="tabpanel" id={`panel-${entry.key}-operators`} aria-labelledby={`tab-${entry.key}-operators`} hidden={tab !== 'operators'} data-testid="panel-operators">
              <ErrorBoundary>
                <OperatorsView
                  key={linked.operators?.seq ?? 0}
                  ask={ask}
                  fileName={entry.name}
                  toolbar={timelineButton()}
                  link={linked.operators?.place}
                  onPlace={placeOf('operators')}
                  step={stepName}
                />
              </ErrorBoundary>
            </div>
          )}
          {opened.has('kernels') && tabs.includes('kernels') && (
            <div role="tabpanel" id={`panel-${entry.key}-kernels`} aria-labelledby={`tab-${entry.key}-kernels`} hidden={tab !== 'kernels'} data-testid="panel-kernels">
              <ErrorBoundary>
                <KernelsView
                  key={linked.kernels?.seq ?? 0}
                  ask={ask}
                  fileName={entry.name}
                  toolbar={timelineButton()}
                  link={linked.kernels?.place}
                  onPlace={placeOf('kernels')}
                  step={stepName}
                />
              </ErrorBoundary>
            </div>
          )}
          {opened.has('modules') && tabs.includes('modules') && (
            <div role="tabpanel" id={`panel-${entry.key}-modules`} aria-labelledby={`tab-${entry.key}-modules`} hidden={tab !== 'modules'} data-testid="panel-modules">
              <ErrorBoundary>
                <ModuleView key={linked.modules?.seq ?? 0} ask={ask} fileName={entry.name} link={linked.modules?.place} onPlace={placeOf('modules')} />
              </ErrorBoundary>
            </div>
          )}
          {opened.has('ranges') && tabs.includes('ranges') && (
            <div role="tabpanel" hidden={tab !== 'ranges'} data-testid="panel-ranges">
              <ErrorBoundary>
                <RangesView
                  key={linked.ranges?.seq ?? 0}
                  ask={ask}
                  fileName={entry.name}
                  link={linked.ranges?.place}
                  onPlace={placeOf('ranges')}
                  onShowRange={entry.file ? showTimelineRange : undefined}
                />
              </ErrorBoundary>
            </div>
          )}
          {opened.has('roofline') && tabs.includes('roofline') && (
            <div role="tabpanel" id={`panel-${entry.key}-roofline`} aria-labelledby={`tab-${entry.key}-roofline`} hidden={tab !== 'roofline'} data-testid="panel-roofline">
              <ErrorBoundary>
                <RooflineView ask={ask} step={stepName} onOpenOperator={(group, row) => openPlace({ view: 'operators', group, row })} />
              </ErrorBoundary>
            </div>
          )}
          {ANSWER_TABS.map(
            ({ tab: t, View }) =>
              opened.has(t) && (
                <div role="tabpanel" key={t} id={`panel-${entry.key}-${t}`} aria-labelledby={`tab-${entry.key}-${t}`} hidden={tab !== t} data-testid={`panel-${t}`}>
                  <ErrorBoundary>
                    <View ask={ask} fileName={entry.name} onShowRange={entry.file ? showTimelineRange : undefined} onOpenPlace={openPlace} onCounterTracks={entry.file ? showCounterTracks : undefined} />
                  </ErrorBoundary>
                </div>
              ),
          )}
          {opened.has('memory') && (
            <div role="tabpanel" id={`panel-${entry.key}-memory`} aria-labelledby={`tab-${entry.key}-memory`} hidden={tab !== 'memory'} data-testid="panel-memory">
              <ErrorBoundary>
                <MemoryBelow.Provider value={memoryBelow}>
                <MemoryView
                  key={linked.memory?.seq ?? 0}
                  ask={ask}
                  fileName={entry.name}
                  hasMemory={hasMemory}
                  steps={steps}
                  step={stepName}
                  link={linked.memory?.place}
                  onPlace={placeOf('memory')}
                />
                </MemoryBelow.Provider>
              </ErrorBoundary>
            </div>
          )}
          {/* Always mounted: it is only the summary, and the card's counts are read from it. */}
          <div role="tabpanel" id={`panel-${entry.key}-trace`} aria-labelledby={`tab-${entry.key}-trace`} hidden={tab !== 'trace'} data-testid="panel-trace">
            <ErrorBoundary>
              <TraceView summary={entry.summary!} fileSize={entry.size ?? 0} />
            </ErrorBoundary>
          </div>
          {opened.has('timeline') && entry.file && (
            <div role="tabpanel" id={`panel-${entry.key}-timeline`} aria-labelledby={`tab-${entry.key}-timeline`} hidden={tab !== 'timeline'} data-testid="panel-timeline">
              <ErrorBoundary>
                <TimelineView
                  file={entry.file}
                  steps={steps}
                  traceStartUs={entry.summary?.start_us ?? null}
                  request={timelineReq}
                  trim={runner.trim}
                  ask={ask}
                />
              </ErrorBoundary>
            </div>
          )}
          {opened.has('diff') && tabs.includes('diff') && (
            <div role="tabpanel" id={`panel-${entry.key}-diff`} aria-labelledby={`tab-${entry.key}-diff`} hidden={tab !== 'diff'} data-testid="panel-diff">
              <ErrorBoundary>
                <DiffView
                  key={linked.diff?.seq ?? 0}
                  self={{ key: entry.key, name: entry.name, status: entry.status, session: entry.session ?? null, gen: entry.gen ?? null, place: entry.label != null ? place : null }}
                  traces={traces}
                  ask={ask}
                  fileName={entry.name}
                  link={linked.diff?.place}
                  onPlace={placeOf('diff')}
                  onBaseline={showDiffOf}
                  onPair={onDiffPair}
                />
              </ErrorBoundary>
            </div>
          )}
        </>
      )}

      {entry.status === 'cancelled' && (
        <p class="muted" data-testid="file-cancelled">
          Loading was cancelled.
        </p>
      )}
    </article>
    </PeakContext.Provider>
  );
}

/**
 * A closed model read again from its File: what is shown meanwhile (the Overview, from the kept
 * summary) and how far the reading is; or why it failed, with a button to try again.
 */
function Reread({ name, progress, error, onRetry }: { name: string; progress: LoadProgress | null; error: string | null; onRetry?: () => void }) {
  if (error != null)
    return (
      <div class="notice notice-error" role="alert" data-testid="file-reread" data-state="failed">
        <span class="notice-icon" aria-hidden="true">⚠</span>
        <p>
          The full analysis of {name} is not loaded ({error}). The Overview is still shown; the other views need the file read again.{' '}
          {onRetry && (
            <button type="button" class="link-button" data-testid="reread-retry" onClick={onRetry}>
              Try again
            </button>
          )}
        </p>
      </div>
    );
  const f = progress ? progressStats(progress).fraction : null;
  return (
    <p class="muted pending reread" data-testid="file-reread" data-state="reading" role="status">
      Reading the trace again from its file (its full analysis was closed to save memory while other traces were shown)
      {f != null ? `: ${Math.floor(f * 100)} %` : '…'}
      <span class="reread-bar" aria-hidden="true">
        <span style={{ width: `${Math.round((f ?? 0) * 100)}%` }} />
      </span>
    </p>
  );
}

/** The tab a key moves to from tab `i` of `n` (ARIA tabs: arrows wrap, Home, End), or null. */
export function tabKeyTarget(key: string, i: number, n: number): number | null {
  if (n <= 0) return null;
  if (key === 'ArrowRight') return (i + 1) % n;
  if (key === 'ArrowLeft') return (i - 1 + n) % n;
  if (key === 'Home') return 0;
  if (key === 'End') return n - 1;
  return null;
}
