// Display formatting. Fixed en-US grouping so what tests read off the page is stable.
const intFmt = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatCount(n: number): string {
  return intFmt.format(n);
}

/** Bytes with binary units: 1536 -> "1.5 KiB"; "—" when not known (null: a download's total). */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes) || bytes < 0) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  if (i === 0) return `${bytes} B`;
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${units[i]}`;
}

/** Device memory as tb_plugin shows it: bytes / 2^30, two decimals, labelled GB. */
export function formatDeviceMemory(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes) || bytes <= 0) return '—';
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

/** A duration given in microseconds, in the unit that reads best: µs, ms, s, min. */
export function formatDurationUs(us: number): string {
  if (!Number.isFinite(us)) return '—';
  const a = Math.abs(us);
  if (a < 1000) return `${trim(us, 3)} µs`;
  if (a < 1_000_000) return `${trim(us / 1000, 3)} ms`;
  if (a < 60_000_000) return `${trim(us / 1_000_000, 3)} s`;
  const totalS = Math.round(us / 1_000_000);
  return `${Math.floor(totalS / 60)} min ${totalS % 60} s`;
}

/**
 * A timestamp in microseconds. Kineto writes epoch microseconds (PyTorch 2.x): those read best as
 * a UTC clock time with ms; small relative timestamps (old or hand-made traces) as ms.
 */
export function formatTimestampUs(us: number | null | undefined): string {
  if (us == null || !Number.isFinite(us)) return '—';
  if (us >= EPOCH_US_2001) return formatEpochUs(us);
  return `${msFmt.format(us / 1000)} ms`;
}
// 1e15 µs is 2001-09-09: anything later is an epoch timestamp, anything earlier a relative one.
const EPOCH_US_2001 = 1e15;
const msFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });

function formatEpochUs(us: number): string {
  return `${new Date(Math.floor(us / 1000)).toISOString().replace('T', ' ').replace('Z', '')} UTC`;
}

/** How a trace's start and end are shown, and what clock they are read on. */
export interface TraceClock {
  start: string;
  end: string;
  /** 'clock': date and time of day (UTC); 'relative': from the trace's first event. */
  kind: 'clock' | 'relative';
  /** One sentence for a tooltip or a footnote: where the times come from. */
  note: string;
}

/**
 * The trace's start and end (µs as the summary gives them). PyTorch >= 2.4 writes timestamps
 * relative to `baseTimeNanoseconds` (a Unix time in ns), which makes them small numbers that read
 * as nothing ("1,212,075,525.586 ms"): base + ts is the clock time. Older traces write Unix
 * microseconds directly. Anything else has no clock: times are given from the first event.
 */
export function traceClock(startUs: number | null | undefined, endUs: number | null | undefined, baseTimeNs: number | null | undefined): TraceClock {
  if (startUs == null || endUs == null || !Number.isFinite(startUs) || !Number.isFinite(endUs)) {
    return { start: '—', end: '—', kind: 'relative', note: 'The trace has no timed events.' };
  }
  if (baseTimeNs != null && Number.isFinite(baseTimeNs) && baseTimeNs > 0) {
    const base = baseTimeNs / 1000;
    return {
      start: formatEpochUs(base + startUs),
      end: formatEpochUs(base + endUs),
      kind: 'clock',
      note: 'Clock time (UTC): the trace\'s baseTimeNanoseconds plus its timestamps.',
    };
  }
  if (startUs >= EPOCH_US_2001) {
    return { start: formatEpochUs(startUs), end: formatEpochUs(endUs), kind: 'clock', note: 'Clock time (UTC), as the trace\'s timestamps give it.' };
  }
  return {
    start: '0.000 ms',
    end: `${msFmt.format((endUs - startUs) / 1000)} ms`,
    kind: 'relative',
    note: 'The trace gives no clock time: times are from its first event.',
  };
}

/** Seconds left for a progress bar: "3 s", "1 min 05 s", "—" when unknown. */
export function formatEta(seconds: number | null): string {
  if (seconds == null || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.ceil(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(s % 60).padStart(2, '0')} s`;
}

/** Throughput in decimal MB/s, as disk and network speeds are quoted. */
export function formatRate(bytesPerSecond: number | null): string {
  if (bytesPerSecond == null || !Number.isFinite(bytesPerSecond)) return '—';
  return `${(bytesPerSecond / 1e6).toFixed(1)} MB/s`;
}

function trim(v: number, digits: number): string {
  return String(Number(v.toFixed(digits)));
}

/**
 * What a trace opened by URL says when its download broke off part-way: how far it came and what
 * that means. With nothing received there is nothing loaded, and the sentence must not claim so.
 */
export function brokenDownloadNote(receivedBytes: number): string {
  if (receivedBytes <= 0) return 'The download broke off before any byte of the trace arrived, so nothing could be loaded.';
  return `The download broke off after ${formatBytes(receivedBytes)}: the events received before that were loaded.`;
}
