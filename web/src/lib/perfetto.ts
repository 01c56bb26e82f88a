// The Perfetto UI side of the Timeline view, without the DOM: which Perfetto origin to use, the
// URLs to open and the messages of its postMessage protocol (perfetto.dev "Embedding the Perfetto
// UI" / "embedding API reference"):
//   host -> UI   'PING' (repeated until answered)          UI -> host  'PONG'
//   host -> UI   {perfetto: {buffer, title, fileName, keepApiOpen}}   opens a trace
//   host -> UI   {perfetto: {timeStart, timeEnd, viewPercentage}}     zooms to a range (seconds)
// The UI accepts messages only from its parent (iframe) or its opener (window.open).

export const DEFAULT_PERFETTO_ORIGIN = 'https://ui.perfetto.dev';
/** localStorage key of the origin chosen in the Timeline settings. */
export const PERFETTO_ORIGIN_KEY = 'kinetoscope.perfettoOrigin';
/** How often to PING until the UI answers, and how long to wait before saying it does not. */
export const PING_INTERVAL_MS = 50;
export const HANDSHAKE_TIMEOUT_MS = 15_000;

export type OriginCheck = { ok: true; origin: string; base: string } | { ok: false; error: string };

// Path characters a Content-Security-Policy source expression can hold (';' and ',' would end
// the directive or the source list, so a typed address could otherwise widen the policy).
const CSP_SAFE_PATH = /^\/[A-Za-z0-9._~%!$&'()*+=:@\/-]*$/;

/**
 * The Perfetto UI's address from what a person typed: an http(s) URL, at a domain's root
 * ("https://perfetto.example.com") or under a path ("https://org.github.io/perfetto/", a project
 * site on GitHub Pages). `base` is the page to load (its path always ends with "/"), `origin`
 * the target of every postMessage and the only sender whose answers count. Queries, fragments,
 * credentials, other schemes and paths a policy cannot name are refused: the value becomes an
 * iframe src and a Content-Security-Policy source.
 */
export function checkPerfettoOrigin(text: string): OriginCheck {
  const raw = text.trim();
  const example = `${DEFAULT_PERFETTO_ORIGIN} or https://org.github.io/perfetto/`;
  if (!raw) return { ok: false, error: 'The Perfetto UI address is empty.' };
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { ok: false, error: `"${raw}" is not a URL; give an address such as ${example}.` };
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    return { ok: false, error: `"${raw}" is not an http(s) address; give an address such as ${example}.` };
  }
  if (u.username || u.password) return { ok: false, error: `"${raw}" holds credentials; give the address without them.` };
  if (u.search || u.hash || /[?#]/.test(raw)) {
    return { ok: false, error: `"${raw}" has a query or fragment; give the address of the Perfetto UI's page only, such as ${u.origin}${u.pathname}.` };
  }
  const path = u.pathname.endsWith('/') ? u.pathname : `${u.pathname}/`;
  if (!CSP_SAFE_PATH.test(path)) return { ok: false, error: `"${raw}" has characters in its path (such as ; or ,) that the page's security policy cannot name.` };
  return { ok: true, origin: u.origin, base: u.origin + path };
}

export interface OriginChoice {
  /** The Perfetto UI's origin: where messages go and answers come from. */
  origin: string | null;
  /** Its page (origin + path ending in "/"): what the frame loads. */
  base: string | null;
  /** Where it came from, for the settings line. */
  source: 'url' | 'settings' | 'default';
  /** A `perfetto=` URL parameter (or a stored value) that is not an http(s) address. */
  error?: string;
}

/**
 * The URL's `perfetto=` parameter wins over the stored setting, which wins over the default. A
 * bad URL parameter is an error (nothing is loaded, so a typo never silently falls back to
 * ui.perfetto.dev); a bad stored value just falls back to the default.
 */
export function choosePerfettoOrigin(search: string, stored: string | null): OriginChoice {
  const param = new URLSearchParams(search).get('perfetto');
  if (param != null) {
    const c = checkPerfettoOrigin(param);
    return c.ok ? { origin: c.origin, base: c.base, source: 'url' } : { origin: null, base: null, source: 'url', error: `The perfetto= parameter: ${c.error}` };
  }
  if (stored) {
    const c = checkPerfettoOrigin(stored);
    if (c.ok) return { origin: c.origin, base: c.base, source: 'settings' };
  }
  return { origin: DEFAULT_PERFETTO_ORIGIN, base: `${DEFAULT_PERFETTO_ORIGIN}/`, source: 'default' };
}

/** The iframe's src: the UI (at `base`, ending in "/") in embedded mode (no sidebar, no file drop). */
export const embeddedUrl = (base: string) => `${base}#!/?mode=embedded`;
/** The page the "Open in new tab" fallback opens. */
export const newTabUrl = (base: string) => `${base}#!/`;

export interface PostedTrace {
  perfetto: { buffer: ArrayBuffer; title: string; fileName: string; keepApiOpen: true };
}

/** The message that opens `buffer`; keepApiOpen so that another window can be posted later. */
export function traceMessage(buffer: ArrayBuffer, title: string, fileName: string): PostedTrace {
  return { perfetto: { buffer, title, fileName, keepApiOpen: true } };
}

export interface PostedScroll {
  perfetto: { timeStart: number; timeEnd: number; viewPercentage: number };
}

/**
 * The message that zooms the UI to [startUs, endUs]. Perfetto takes seconds of trace time, and a
 * JSON trace's time is its `ts` (µs) as is, so the step's absolute µs divided by 1e6. The UI
 * retries it until the trace is loaded, so it can follow the trace message at once.
 */
export function scrollMessage(startUs: number, endUs: number, viewPercentage = 0.95): PostedScroll {
  return { perfetto: { timeStart: startUs / 1e6, timeEnd: endUs / 1e6, viewPercentage } };
}

/** What part of the file to send. */
export type TimelineWindow =
  | { kind: 'whole' }
  /** A step, by its index in the step breakdown. */
  | { kind: 'step'; index: number }
  /** ms relative to the trace start (the summary's start_us: the earliest event). */
  | { kind: 'range'; fromMs: number; toMs: number };

export interface StepSpan {
  name: string;
  start_us: number;
  end_us: number;
}

/** Absolute µs of a window, or an error a person can act on. */
export function windowUs(
  w: TimelineWindow,
  steps: readonly StepSpan[],
  traceStartUs: number | null,
): { ok: true; startUs: number; endUs: number; label: string } | { ok: false; error: string } {
  if (w.kind === 'whole') return { ok: false, error: 'The whole file has no window.' };
  if (w.kind === 'step') {
    const s = steps[w.index];
    if (!s) return { ok: false, error: 'That step is not in this trace.' };
    return { ok: true, startUs: s.start_us, endUs: s.end_us, label: `step ${s.name}` };
  }
  if (traceStartUs == null) return { ok: false, error: 'The trace start is not known, so a time window cannot be placed.' };
  if (!Number.isFinite(w.fromMs) || !Number.isFinite(w.toMs)) return { ok: false, error: 'Give both ends of the window in ms.' };
  if (w.fromMs < 0) return { ok: false, error: 'The window cannot start before the trace.' };
  if (w.toMs <= w.fromMs) return { ok: false, error: 'The window must end after it starts.' };
  return {
    ok: true,
    startUs: traceStartUs + w.fromMs * 1000,
    endUs: traceStartUs + w.toMs * 1000,
    label: `${w.fromMs}–${w.toMs} ms`,
  };
}

/** The name of a trimmed copy: "rank-0.json.gz" -> "rank-0.step-551.json" (it is not gzipped). */
export function trimmedFileName(fileName: string, label: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? 'trace';
  const stem = base.replace(/(\.pt\.trace)?\.json(\.gz)?$/i, '') || 'trace';
  const tag = label.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '');
  return `${stem}.${tag || 'window'}.json`;
}
