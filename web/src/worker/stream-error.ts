import { formatCount } from '../lib/format';
import type { HealthRow, Summary } from '../lib/summary';
import { toWireError } from './protocol';

/**
 * A read or gzip error mid-file (corrupt or cut-off .gz) must not lose what was read: the core's
 * summary of the bytes before the error stands, and a worker-side health row says what happened.
 * If nothing at all could be read, the file gets one error sentence instead.
 */
export function addStreamError(summary: Summary, e: unknown, gzipped: boolean, fed: number): Summary {
  const detail = toWireError(e).message.replace(/[.\s]+$/, '');
  const row: HealthRow = {
    reason: gzipped ? 'gzip-error' : 'read-error',
    severity: 'error',
    count: 1,
    sample_offset: fed,
    message: gzipped
      ? `The gzip stream is corrupt or cut off after ${formatCount(fed)} decompressed bytes (${detail}); what came before was loaded.`
      : `Reading the file failed after ${formatCount(fed)} bytes (${detail}); what came before was loaded.`,
  };
  summary.health = [...(summary.health ?? []), row];
  if (fed === 0) {
    summary.ok = false;
    summary.error = gzipped
      ? 'The file starts like a gzip file but could not be decompressed.'
      : 'The file could not be read.';
  }
  return summary;
}
