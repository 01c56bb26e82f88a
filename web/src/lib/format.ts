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
  if (us >= EPOCH_US_2001) {
    return `${new Date(Math.floor(us / 1000)).toISOString().replace('T', ' ').replace('Z', '')} UTC`;
  }
  return `${new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 }).format(us / 1000)} ms`;
}
// 1e15 µs is 2001-09-09: anything later is an epoch timestamp, anything earlier a relative one.
const EPOCH_US_2001 = 1e15;

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
