// One trace opened in the page, and where its load stands in the worker pool: the app's loader
// (app/loader.ts) keeps one per trace, the navigator files it and its trace page shows it. Its
// fields name the pool's Sessions and workers and the protocol's phases and failures, so it sits
// in worker/, below the components and views that read it.
import type { LoadFailure } from './failure';
import type { Phase } from './protocol';
import type { Overview } from '../lib/overview';
import type { Status } from '../lib/run-tree';
import type { SnapshotInfo } from '../lib/snapshot';
import type { Summary } from '../lib/summary';
import type { TraceLabel } from '../lib/trace-names';

export interface Entry {
  key: number;
  /** The trace's bytes: the File dropped or picked, or a download's once its load has ended. */
  file?: File;
  /** Where a trace opened by URL is downloaded from. */
  url?: string;
  /** What the card shows: the File's name, or the URL's last path segment. */
  name: string;
  /** Bytes; null while a download's size is not known (no answer yet, or no Content-Length). */
  size: number | null;
  /** Said on the card beside the summary: a download that broke off part-way. */
  note?: string;
  /** Its run, worker and span when it came in a folder or is named as tb_plugin names traces. */
  label?: TraceLabel | null;
  status: Status;
  summary?: Summary;
  overview?: Overview | null;
  /** The file is a CUDA memory snapshot (a pickle): its numbers; its page is the Snapshot page. */
  snapshot?: SnapshotInfo;
  error?: string;
  /** Its worker failed while loading it (out of memory, an abort, dead, silent): said in a sentence. */
  failure?: LoadFailure;
  /** Loaded again with "Open with one worker": read in one range whatever its size. */
  oneWorker?: boolean;
  /** While loading, after reading: the part of the overview being computed. */
  phase?: Phase;
  /**
   * The id of the load call: the worker keeps the file's Session (its full model) under it. Absent
   * on a loaded trace whose model was closed to save memory (app/loader.ts, worker/worker-pool.ts): it is
   * read again from `file` when shown.
   */
  session?: number;
  /** The id of the pool's worker the Session lives in: once that worker ended, it is gone. */
  gen?: number;
  /** Its rank summary (the map step of its run's Distributed view), taken when it loaded. */
  rank?: Uint8Array | null;
  rankError?: string;
  /** The closed model is being read again (error: null), or that failed. */
  reread?: { error: string | null };
  /**
   * Workers that read its first load: more than 1 for a big plain file read in byte ranges
   * (split-read.ts); `readMerged` of their ranges were merged (the first worker read the rest);
   * `readAgain`: a helper was lost part-way through its pieces, so the file was read again in one range.
   */
  readWorkers?: number;
  readMerged?: number;
  readAgain?: boolean;
}
