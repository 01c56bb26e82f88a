// The failure tests' hook (docs/contracts.md, "Failure paths and their test hooks"). A page whose
// localStorage holds KEY, set before the page loads (Playwright's addInitScript), makes the loads of
// the files it names fail the way it says, once each (so that Retry then works), and may shorten
// the watchdog. A link cannot set localStorage, so no one opens a page like this by following one;
// without the key nothing here does anything.
import type { TestFault } from './protocol';
import type { WatchdogOptions } from './watchdog';
import type { LoadWatchOptions } from './load-watch';
import { defaultSplitWorkers, SPLIT_MIN_BYTES, type SplitSettings } from './split-read';

export const KEY = 'kinetoscope-failure-test';

interface Plan {
  faults: Map<string, TestFault>;
  watchdog?: Partial<WatchdogOptions>;
  /** The load watch's limits (worker/load-watch.ts), shortened so that a test sees a stall said soon. */
  loadWatch?: Partial<Pick<LoadWatchOptions, 'readStallMs' | 'waitStallMs' | 'stillMs'>>;
  /** One file read by several workers: a lower threshold, or at most this many workers. */
  split?: Partial<SplitSettings>;
}

const KINDS = new Set(['oom', 'abort', 'hang', 'throw', 'stall']);

/** The plan in `text` (the key's value); null when it is absent or not a valid plan. */
export function parsePlan(text: string | null): Plan | null {
  if (!text) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== 'object') return null;
  const o = raw as { faults?: unknown; watchdog?: unknown };
  const faults = new Map<string, TestFault>();
  if (o.faults && typeof o.faults === 'object') {
    for (const [name, f] of Object.entries(o.faults as Record<string, unknown>)) {
      const kind = (f as { kind?: unknown })?.kind;
      const phase = (f as { phase?: unknown })?.phase;
      if (typeof kind === 'string' && KINDS.has(kind)) {
        const target = (f as { target?: unknown })?.target === 'helper' ? { target: 'helper' as const } : {};
        const pieceBytes = (f as { pieceBytes?: unknown })?.pieceBytes;
        const pieces = typeof pieceBytes === 'number' && pieceBytes >= 1024 ? { pieceBytes: Math.floor(pieceBytes) } : {};
        faults.set(name, { kind: kind as TestFault['kind'], ...(typeof phase === 'string' ? { phase } : {}), ...target, ...pieces });
      }
    }
  }
  const w = o.watchdog as { pingMs?: unknown; stallMs?: unknown } | undefined;
  const watchdog: Partial<WatchdogOptions> = {};
  if (typeof w?.pingMs === 'number' && w.pingMs > 0) watchdog.pingMs = w.pingMs;
  if (typeof w?.stallMs === 'number' && w.stallMs > 0) watchdog.stallMs = w.stallMs;
  const sp = (o as { split?: { minBytes?: unknown; workers?: unknown } }).split;
  const split: Partial<SplitSettings> = {};
  if (typeof sp?.minBytes === 'number' && sp.minBytes >= 0) split.minBytes = sp.minBytes;
  if (typeof sp?.workers === 'number' && sp.workers >= 1) split.workers = Math.floor(sp.workers);
  const lw = (o as { loadWatch?: Record<string, unknown> }).loadWatch;
  const loadWatch: Partial<Pick<LoadWatchOptions, 'readStallMs' | 'waitStallMs' | 'stillMs'>> = {};
  for (const k of ['readStallMs', 'waitStallMs', 'stillMs'] as const) if (typeof lw?.[k] === 'number' && (lw[k] as number) > 0) loadWatch[k] = lw[k] as number;
  return {
    faults,
    ...(Object.keys(watchdog).length ? { watchdog } : {}),
    ...(Object.keys(split).length ? { split } : {}),
    ...(Object.keys(loadWatch).length ? { loadWatch } : {}),
  };
}

let plan: Plan | null | undefined;
function current(): Plan | null {
  if (plan === undefined) {
    try {
      plan = parsePlan(globalThis.localStorage?.getItem(KEY) ?? null);
    } catch {
      plan = null; // storage refused (private mode, sandboxed frame)
    }
  }
  return plan;
}

/**
 * The fault planned for the next load of file `name` (then forgotten), if any. `helper`: the one
 * for the first helper of a file read by several workers (a fault with target "helper"); without
 * it, only a fault without a target is taken.
 */
export function takeFault(name: string, helper = false): TestFault | undefined {
  const p = current();
  const f = p?.faults.get(name);
  if (!f || (f.target === 'helper') !== helper) return undefined;
  p!.faults.delete(name);
  return f;
}

/**
 * How big a file must be to be read by several workers, and by at most how many (all the cores
 * but one: defaultSplitWorkers); a test may set either.
 */
export function splitSettings(): SplitSettings {
  return { minBytes: SPLIT_MIN_BYTES, workers: defaultSplitWorkers(globalThis.navigator?.hardwareConcurrency), ...current()?.split };
}

/** Watchdog settings of a failure test, if it set any. */
export function testWatchdog(): Partial<WatchdogOptions> | undefined {
  return current()?.watchdog;
}

/** The load watch's limits of a failure test, if it set any. */
export function testLoadWatch(): Plan['loadWatch'] {
  return current()?.loadWatch;
}
