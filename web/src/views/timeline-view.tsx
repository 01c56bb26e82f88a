import { useEffect, useRef, useState } from 'preact/hooks';
import { formatBytes } from '../lib/format';
import {
  checkPerfettoOrigin,
  choosePerfettoOrigin,
  embeddedUrl,
  newTabUrl,
  PERFETTO_ORIGIN_KEY,
  scrollMessage,
  traceMessage,
  trimmedFileName,
  windowUs,
  type OriginChoice,
  type StepSpan,
  type TimelineWindow,
} from '../lib/perfetto';
import { handshake, NO_ANSWER, type Handshake, type MessageTarget } from '../lib/perfetto-link';
import { openAnswer } from '../lib/answer';
import { counterTracks, fileWithCounters, spliceInto, type CounterKind, type CounterTracks } from '../lib/counter-tracks';
import type { Ask } from '../components/use-query';
import type { LoadProgress, Trimmed } from '../worker/protocol';

/** Cuts [startUs, endUs] out of the file in the worker. */
export type TrimFn = (file: File, startUs: number, endUs: number, onProgress: (p: LoadProgress) => void) => { promise: Promise<Trimmed>; cancel(): void };

/**
 * A "Show in timeline" click: open on this window (null: the one chosen there); seq tells two
 * clicks on the same step apart. `counters`: add these counter tracks (the GPU time tab's queue
 * length or memory bandwidth) to what is sent from now on.
 */
export interface TimelineRequest {
  window: TimelineWindow | null;
  seq: number;
  counters?: CounterKind[];
}

const COUNTER_LABELS: Record<CounterKind, string> = { queue: 'queue length', bandwidth: 'memory bandwidth' };

/** The counter events of `kinds` over [startUs, endUs] (absolute µs; null: the whole trace). */
async function askCounterTracks(ask: Ask, kinds: CounterKind[], span: { startUs: number; endUs: number } | null, traceStartUs: number | null): Promise<CounterTracks> {
  const window: Record<string, string> =
    span && traceStartUs != null ? { from_us: String(Math.max(0, span.startUs - traceStartUs)), to_us: String(Math.max(0, span.endUs - traceStartUs)) } : {};
  const answers = await Promise.all(
    kinds.map(async (kind) => {
      const r = await ask({ what: 'view', view: 'gpu-counter-track', params: { counter: kind, ...window } });
      return { kind, answer: openAnswer('gpu-counter-track', r.answer) };
    }),
  );
  return counterTracks(answers);
}

/** Perfetto struggles with JSON traces over ~1 GB: above this, the first send is one step. */
const BIG_FILE = 512 * 1024 * 1024;

function readStoredOrigin(): string | null {
  try {
    return localStorage.getItem(PERFETTO_ORIGIN_KEY);
  } catch {
    return null; // storage disabled
  }
}

type Link =
  | { state: 'connecting' }
  | { state: 'ready' }
  | { state: 'no-answer'; message: string };

type Send =
  | { state: 'idle' }
  | { state: 'preparing'; label: string; progress: LoadProgress | null }
  | { state: 'sent'; label: string; bytes: number; kept?: number; total?: number; jumped: boolean; where: 'frame' | 'tab'; counters?: { events: number; what: string; reduced: number } }
  | { state: 'error'; message: string };

// The Timeline tab of a file's card: the trace (or a window of it) in an embedded Perfetto UI.
// Mounted only when the tab is first opened, which is the only thing that contacts Perfetto: the
// page never loads Perfetto or sends a byte of a trace without that click. File names, step names
// and messages are rendered as text.
export function TimelineView({
  file,
  steps,
  traceStartUs,
  request,
  trim,
  ask,
}: {
  file: File;
  steps: readonly StepSpan[];
  traceStartUs: number | null;
  request: TimelineRequest | null;
  trim: TrimFn;
  /** The file's Session: the counter tracks' samples come from it. */
  ask?: Ask;
}) {
  const [choice] = useState<OriginChoice>(() => choosePerfettoOrigin(location.search, readStoredOrigin()));
  // Messages go to (and answers must come from) the origin; the page loaded is the base URL,
  // which may have a path (Perfetto self-hosted on a GitHub Pages project site).
  const origin = choice.origin;
  const base = choice.base ?? (origin ? `${origin}/` : null);
  const frame = useRef<HTMLIFrameElement>(null);
  const [link, setLink] = useState<Link>({ state: 'connecting' });
  const [send, setSend] = useState<Send>({ state: 'idle' });
  // Bumped to reload the iframe and shake hands again (Retry, or a new origin).
  const [attempt, setAttempt] = useState(0);

  // The counter tracks added (the GPU time tab's buttons); every send from then on carries them.
  const [counters, setCounters] = useState<CounterKind[]>(() => request?.counters ?? []);
  const countersRef = useRef(counters);
  countersRef.current = counters;

  const initial = (): TimelineWindow => {
    if (request?.window) return request.window;
    if (file.size > BIG_FILE && steps.length) return { kind: 'step', index: 0 };
    return { kind: 'whole' };
  };
  const [win, setWin] = useState<TimelineWindow>(initial);
  const [mode, setMode] = useState<TimelineWindow['kind']>(() => initial().kind);
  const [stepIdx, setStepIdx] = useState(() => {
    const w = initial();
    return w.kind === 'step' ? w.index : 0;
  });
  const [fromMs, setFromMs] = useState(() => '0');
  const [toMs, setToMs] = useState(() => (traceStartUs != null && steps.length ? String(Math.ceil((steps[0].end_us - traceStartUs) / 1000)) : '100'));

  const busy = useRef<{ cancel(): void } | null>(null);
  const winRef = useRef(win);
  winRef.current = win;

  /** The bytes of `w`: the file as dropped, or the window the core cut out of it, with the counter tracks spliced in. */
  const prepare = async (w: TimelineWindow) => {
    busy.current?.cancel();
    busy.current = null;
    const kinds = countersRef.current;
    const tracks = async (span: { startUs: number; endUs: number } | null) => (kinds.length && ask ? askCounterTracks(ask, kinds, span, traceStartUs) : null);
    if (w.kind === 'whole') {
      setSend({ state: 'preparing', label: 'the whole file', progress: null });
      const t = await tracks(null);
      const buffer = t ? await fileWithCounters(file, t.bytes) : await file.arrayBuffer();
      return { buffer, label: 'the whole file', fileName: file.name, span: null, kept: undefined, total: undefined, tracks: t };
    }
    const span = windowUs(w, steps, traceStartUs);
    if (!span.ok) throw new Error(span.error);
    setSend({ state: 'preparing', label: span.label, progress: null });
    const call = trim(file, span.startUs, span.endUs, (progress) => setSend({ state: 'preparing', label: span.label, progress }));
    busy.current = call;
    const t = await call.promise;
    busy.current = null;
    const c = await tracks(span);
    const buffer = c ? spliceInto(t.bytes, c.bytes) : (t.bytes.buffer as ArrayBuffer);
    // The bytes are the trace; what was kept and dropped is the trim view's answer.
    const report = openAnswer('trim', t.report).meta;
    return { buffer, label: span.label, fileName: trimmedFileName(file.name, span.label), span, kept: report.kept_events, total: report.total_events, tracks: c };
  };

  /** Sends window `w` to a Perfetto window that has answered PONG, then zooms it to the window. */
  const deliver = async (target: MessageTarget, w: TimelineWindow, where: 'frame' | 'tab') => {
    if (!origin) return;
    try {
      const p = await prepare(w);
      const title = p.span ? `${file.name} (${p.label})` : file.name;
      const bytes = p.buffer.byteLength;
      // Transferred, not copied: a multi-GB buffer twice would not fit. The next send re-reads.
      target.postMessage(traceMessage(p.buffer, title, p.fileName), origin, [p.buffer]);
      if (p.span) target.postMessage(scrollMessage(p.span.startUs, p.span.endUs), origin);
      const counted = p.tracks ? { events: p.tracks.events, what: p.tracks.kinds.map((k) => COUNTER_LABELS[k]).join(' and '), reduced: p.tracks.reduced } : undefined;
      setSend({ state: 'sent', label: p.label, bytes, kept: p.kept, total: p.total, jumped: !!p.span, where, counters: counted });
    } catch (e) {
      const err = e as Error;
      if (err?.name === 'AbortError') return;
      setSend({ state: 'error', message: err?.message || String(e) });
    }
  };

  // Load the embedded UI and shake hands; send the first window once it answers.
  useEffect(() => {
    if (!origin) return;
    setLink({ state: 'connecting' });
    const hs: Handshake = handshake(() => frame.current?.contentWindow ?? null, origin, window);
    let live = true;
    hs.promise.then(
      () => {
        if (!live) return;
        setLink({ state: 'ready' });
        const w = frame.current?.contentWindow;
        if (w) void deliver(w, winRef.current, 'frame');
      },
      (e: Error) => live && setLink({ state: 'no-answer', message: e.name === NO_ANSWER ? e.message : e.message || String(e) }),
    );
    return () => {
      live = false;
      hs.cancel();
    };
    // deliver reads the current window through winRef; re-run only for a new origin or a retry.
  }, [origin, attempt]);

  // A "Show in timeline" click while the tab is open: send that window (with the counter tracks asked for).
  const lastSeq = useRef(request?.seq ?? 0);
  useEffect(() => {
    if (!request || request.seq === lastSeq.current) return;
    lastSeq.current = request.seq;
    if (request.counters?.length) {
      const more = [...new Set([...countersRef.current, ...request.counters])];
      countersRef.current = more;
      setCounters(more);
    }
    const target = request.window ?? winRef.current;
    pick(target);
    const w = frame.current?.contentWindow;
    if (link.state === 'ready' && w) void deliver(w, target, 'frame');
    // Once per click (its seq), with the frame and link as they are then.
  }, [request?.seq]);

  useEffect(() => () => busy.current?.cancel(), []);

  const pick = (w: TimelineWindow) => {
    setWin(w);
    setMode(w.kind);
    if (w.kind === 'step') setStepIdx(w.index);
  };

  const chosen = (): TimelineWindow =>
    mode === 'step' ? { kind: 'step', index: stepIdx } : mode === 'range' ? { kind: 'range', fromMs: Number(fromMs), toMs: Number(toMs) } : { kind: 'whole' };

  const sendChosen = () => {
    const w = chosen();
    setWin(w);
    const target = frame.current?.contentWindow;
    if (link.state === 'ready' && target) void deliver(target, w, 'frame');
  };

  const openTab = () => {
    if (!origin) return;
    const w = chosen();
    setWin(w);
    const tab = window.open(newTabUrl(base!));
    if (!tab) {
      setSend({ state: 'error', message: 'The browser blocked the new tab; allow pop-ups for this site and try again.' });
      return;
    }
    setSend({ state: 'preparing', label: 'waiting for the Perfetto tab', progress: null });
    handshake(() => tab, origin, window).promise.then(
      () => deliver(tab, w, 'tab'),
      (e: Error) => setSend({ state: 'error', message: e.message }),
    );
  };

  const download = () => {
    const url = URL.createObjectURL(file);
    const a = document.createElement('a');
    a.href = url;
    a.download = file.name.split(/[\\/]/).pop() || 'trace.json';
    a.style.display = 'none';
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  };

  return (
    <section class="view timeline" data-testid="timeline-view" aria-label="Timeline">
      <p class="muted" data-testid="timeline-privacy">
        {origin
          ? `The trace is sent to the Perfetto UI page loaded from ${base === `${origin}/` ? origin : base} inside this tab; it stays in your browser.`
          : 'No Perfetto UI is loaded: its address is not valid.'}
      </p>
      {choice.error && (
        <p class="file-error" role="alert" data-testid="perfetto-origin-error">
          {choice.error}
        </p>
      )}
      <OriginSettings choice={choice} />
      {origin && (
        <>
          <div class="view-toolbar timeline-toolbar">
            <label class="ov-select">
              <input type="radio" name={`tl-mode-${file.name}`} data-testid="timeline-mode-whole" checked={mode === 'whole'} onChange={() => setMode('whole')} /> Whole file (
              {formatBytes(file.size)})
            </label>
            {steps.length > 0 && (
              <label class="ov-select">
                <input type="radio" name={`tl-mode-${file.name}`} data-testid="timeline-mode-step" checked={mode === 'step'} onChange={() => setMode('step')} /> Only step{' '}
                <select
                  data-testid="timeline-step"
                  value={String(stepIdx)}
                  onChange={(e) => {
                    setStepIdx(Number((e.currentTarget as HTMLSelectElement).value));
                    setMode('step');
                  }}
                >
                  {steps.map((s, i) => (
                    <option key={i} value={String(i)}>
                      {s.name}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <label class="ov-select">
              <input type="radio" name={`tl-mode-${file.name}`} data-testid="timeline-mode-range" checked={mode === 'range'} onChange={() => setMode('range')} /> Time window from{' '}
              <input type="number" class="topn" min={0} data-testid="timeline-from" value={fromMs} onInput={(e) => (setFromMs((e.currentTarget as HTMLInputElement).value), setMode('range'))} /> to{' '}
              <input type="number" class="topn" min={0} data-testid="timeline-to" value={toMs} onInput={(e) => (setToMs((e.currentTarget as HTMLInputElement).value), setMode('range'))} /> ms after the trace start
            </label>
            <button type="button" data-testid="timeline-send" disabled={link.state !== 'ready' || send.state === 'preparing'} onClick={sendChosen}>
              Send to Perfetto
            </button>
          </div>
          <SendStatus send={send} />
          {counters.length > 0 && (
            <p class="muted" data-testid="timeline-counters">
              Counter tracks added from the GPU time tab: {counters.map((k) => COUNTER_LABELS[k]).join(' and ')}, sent with the trace.{' '}
              <button
                type="button"
                class="link-button"
                data-testid="timeline-counters-remove"
                onClick={() => {
                  countersRef.current = [];
                  setCounters([]);
                }}
              >
                Leave them out
              </button>{' '}
              (from the next send).
            </p>
          )}
          {link.state === 'connecting' && (
            <p class="muted" data-testid="timeline-connecting">
              Loading the Perfetto UI from {base}…
            </p>
          )}
          {link.state === 'no-answer' && (
            <div class="file-error" role="alert" data-testid="timeline-no-answer">
              <p>
                {link.message} It may be offline or blocked (a network filter, or no access to {origin} from here). You can open it in a tab of its own, or
                download the trace and open it in any Perfetto UI.
              </p>
            </div>
          )}
          <div class="timeline-actions">
            <button type="button" data-testid="timeline-open-tab" onClick={openTab}>
              Open in new tab
            </button>{' '}
            <button type="button" data-testid="timeline-download" onClick={download}>
              Download trace
            </button>{' '}
            {link.state === 'no-answer' && (
              <button type="button" data-testid="timeline-retry" onClick={() => setAttempt((n) => n + 1)}>
                Retry
              </button>
            )}
          </div>
          {/* Until the UI answers, the frame is kept out of sight (it still loads): an unanswered or
              offline frame would show the browser's light error page, a grey box in dark mode. */}
          <iframe
            key={`${origin}#${attempt}`}
            ref={frame}
            class="timeline-frame"
            data-testid="timeline-frame"
            data-state={link.state}
            title={`Perfetto UI: ${file.name}`}
            src={embeddedUrl(base!)}
            hidden={link.state === 'no-answer'}
          />
        </>
      )}
    </section>
  );
}

function SendStatus({ send }: { send: Send }) {
  if (send.state === 'idle') return null;
  if (send.state === 'preparing') {
    const p = send.progress;
    return (
      <p class="muted" data-testid="timeline-preparing">
        Preparing {send.label}
        {p ? ` (${formatBytes(p.bytesRead)} of ${formatBytes(p.totalBytes)} read)` : ''}…
      </p>
    );
  }
  if (send.state === 'error') {
    return (
      <p class="file-error" role="alert" data-testid="timeline-error">
        {send.message}
      </p>
    );
  }
  return (
    <p class="muted" data-testid="timeline-sent">
      Sent {send.label} ({formatBytes(send.bytes)}
      {send.kept != null ? `, ${send.kept.toLocaleString('en-US')} of ${send.total?.toLocaleString('en-US')} events` : ''}) to Perfetto
      {send.where === 'tab' ? ' in its own tab' : ''}
      {send.jumped ? ', zoomed to it' : ''}
      {send.counters
        ? `, with ${send.counters.events.toLocaleString('en-US')} counter events (${send.counters.what}${send.counters.reduced ? `; ${send.counters.reduced} busy series as each column's greatest value` : ''})`
        : ''}
      .
    </p>
  );
}

function OriginSettings({ choice }: { choice: OriginChoice }) {
  const [text, setText] = useState(() => readStoredOrigin() ?? choice.base ?? '');
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const save = () => {
    const c = checkPerfettoOrigin(text);
    if (!c.ok) return setError(c.error);
    setError(null);
    try {
      localStorage.setItem(PERFETTO_ORIGIN_KEY, c.base);
    } catch {
      // storage disabled: the choice lasts for this page only
    }
    // The page's Content-Security-Policy names the Perfetto address when the page loads, so a new
    // one applies from the next load on.
    setSaved(`Saved. Reload the page to load the Perfetto UI from ${c.base}.`);
  };
  const reset = () => {
    try {
      localStorage.removeItem(PERFETTO_ORIGIN_KEY);
    } catch {
      // nothing stored
    }
    setError(null);
    const c = choosePerfettoOrigin('', null);
    setText(c.base ?? '');
    setSaved(`Saved. Reload the page to load the Perfetto UI from ${c.base}.`);
  };
  return (
    <details class="timeline-settings" data-testid="perfetto-settings">
      <summary>Perfetto UI address</summary>
      <label class="ov-select">
        Origin{' '}
        <input type="url" data-testid="perfetto-origin-input" value={text} size={36} onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)} />
      </label>{' '}
      <button type="button" data-testid="perfetto-origin-save" onClick={save}>
        Save
      </button>{' '}
      <button type="button" data-testid="perfetto-origin-reset" onClick={reset}>
        Use ui.perfetto.dev
      </button>
      {choice.source === 'url' && <p class="muted">The page's perfetto= parameter overrides this setting.</p>}
      {saved && !error && (
        <p class="muted" data-testid="perfetto-origin-saved">
          {saved}
        </p>
      )}
      {error && (
        <p class="file-error" role="alert" data-testid="perfetto-origin-setting-error">
          {error}
        </p>
      )}
      <p class="muted">A self-hosted Perfetto UI build keeps the timeline working offline (see the README).</p>
    </details>
  );
}
