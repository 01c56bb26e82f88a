// Types of the Emscripten ES module built from wasm/ (see docs/contracts.md). The module itself is
// copied into src/generated/ by scripts/build and is not checked in.
declare module '*/generated/kinetoscope_web.mjs' {
  /** A view's answer as Session.query gives it: its shape is the answer contract's (lib/answer.ts). */
  export type KinetoscopeAnswer = import('../lib/answer').WireAnswer;
  export interface KinetoscopeSession {
    prepare(n: number): number;
    commit(n: number): void;
    failed(): boolean;
    finish(): void;
    /** The stream around the JSON failed part-way (gzip corrupt or cut off, or a read error). */
    inputError(gzip: boolean): void;
    /**
     * A view's answer (core/session/views.h; lib/answer.ts WireAnswer): typed column copies, the
     * strings as UTF-8 bytes, the metadata as a small JSON text; `error` the core's sentence.
     */
    query(view: string, params: Record<string, string>): KinetoscopeAnswer;
    /** A view of two traces (the Diff view): this Session the baseline, `other` (of this module) the experiment. */
    query(view: string, params: Record<string, string>, other: KinetoscopeSession): KinetoscopeAnswer;
    /** The same answer in its binary form (core/session/answer.h answer_bytes), for an answer that goes back into the core. */
    queryBytes(view: string, params: Record<string, string>): Uint8Array;
    /** The same answer as the CLI's --json text. */
    queryJson(view: string, params: Record<string, string>): string;
    /** Bytes the memory index holds (benchmark). */
    memoryIndexBytes(): number;
    error(): string;
    /** One model table as columns (see docs/contracts.md): typed arrays, string ids index strings(). */
    columns(kind: string): Record<string, Float64Array | Int32Array | Uint32Array>;
    /** The string table from id `from` on. */
    strings(from: number): string[];
    /** Trace start in ns = startNsHigh() * 1e9 + startNsLow(); column times are relative to it. */
    startNsHigh(): number;
    startNsLow(): number;
    bytesRead(): number;
    eventCount(): number;
    bufferCapacity(): number;
    /**
     * Progress of what is computed after reading: fn(phase, index, count) before each part is
     * built (the Overview's as 1..count, other views' parts as 0, 0). Absent from older cores.
     */
    setProgress?(fn: ((phase: string, index: number, count: number) => void) | undefined): void;
    /** Failure tests only (docs/contracts.md): "abort" aborts, "oom" exhausts the heap. */
    debugFault(kind: 'abort' | 'oom'): void;
    // One file, several workers (docs/contracts.md): a later range starts at a split, every range
    // stops at the first later split it confirms; a finished later range crosses as pieces.
    startAt(offset: number, rootIsArray: boolean): void;
    stopAt(offsets: number[]): void;
    stopped(): boolean;
    coveredEnd(): number;
    readOn(): void;
    /** A finished partial Session's next piece (a copy), null when all were given. */
    nextPiece(maxBytes: number): Uint8Array | null;
    mergePrepare(n: number): number;
    mergeCommit(n: number): 'merging' | 'done' | 'refused' | 'broken';
    delete(): void;
  }
  /** Writes the events of a trace overlapping [startUs, endUs] (absolute µs) as a trace of its own. */
  export interface KinetoscopeTrimmer {
    prepare(n: number): number;
    commit(n: number): void;
    /** True once the input is certainly not a trace: reading on is wasted work. */
    failed(): boolean;
    /** The stream around the JSON failed part-way (gzip corrupt or cut off). */
    inputError(gzip: boolean): void;
    finish(): void;
    /** "" or what went wrong. */
    error(): string;
    /** What it kept and dropped (after finish()): the trim view's answer. */
    report(): KinetoscopeAnswer;
    /** A copy of the trimmed trace JSON. */
    output(): Uint8Array;
    delete(): void;
  }
  /** A CUDA allocator snapshot (a pickle), fed as a Session is; its views are the snapshot-* answers. */
  export interface KinetoscopeSnapshotSession {
    setFile(name: string): void;
    setTotalSize(bytes: number): void;
    prepare(n: number): number;
    commit(n: number): void;
    /** True once nothing more can be loaded (refused, not a pickle): reading on is wasted work. */
    failed(): boolean;
    /** The stream around the pickle failed part-way (gzip corrupt or cut off, or a read error). */
    inputError(gzip: boolean): void;
    finish(): void;
    /** "" or the reader's sentence. */
    error(): string;
    bytesRead(): number;
    /** Pairs the same run's export_memory_timeline JSON (`name` its file): "" or the core's sentence. */
    setMemoryTimeline(name: string, json: string): string;
    query(view: string, params: Record<string, string>): KinetoscopeAnswer;
    queryJson(view: string, params: Record<string, string>): string;
    delete(): void;
  }
  export interface KinetoscopeModule {
    HEAPU8: Uint8Array;
    /** tbPlugin: link and count as tb_plugin does, for the Session's life (the page never asks). */
    Session: new (tbPlugin?: boolean) => KinetoscopeSession;
    /** A memory snapshot's session (core/session/snapshot_session.h). */
    SnapshotSession: new () => KinetoscopeSnapshotSession;
    /** Absent from cores built before the Timeline view. */
    Trimmer?: new (startUs: number, endUs: number) => KinetoscopeTrimmer;
    /**
     * Rank summaries (queryBytes('distributed_rank', ...)) to the Distributed view: per span of the
     * run its four answers and the run's GPU time per rank; `error` the core's sentence (a summary
     * that is not one).
     */
    reduceDistributed(
      summaries: Uint8Array[],
      tbPlugin: boolean,
    ): { error: string; spans: { workers: KinetoscopeAnswer; commops: KinetoscopeAnswer; stragglers: KinetoscopeAnswer; collectives: KinetoscopeAnswer; gpu_time: KinetoscopeAnswer }[] };
    /** Index in `window` of the event boundary to split at, or -1 (docs/contracts.md). */
    proposeSplit(window: Uint8Array): number;
    /** 1: the root is an array, 0: an object, -1: neither (read in one range). */
    rootIsArray(firstBytes: Uint8Array): number;
    /** The split plan (docs/contracts.md "One file, several workers"): where range i (1..k-1) nominally starts. */
    nominalSplits(size: number, k: number): number[];
    /** The splits from the boundary found in each nominal window (its index in the window, -1: none). */
    chooseSplits(nominal: number[], found: number[], size: number): number[];
    /** The split read's merge order over these splits (core/trace/model_merge.h RangeMerge; split-read.ts mergeRanges drives it). */
    RangeMerge: new (splits: readonly number[]) => import('./split-read').RangeMergeCore;
    /** The core calls fn from inside its long loops (a sign of life); absent from older cores. */
    setHeartbeat?(fn: (() => void) | undefined): void;
  }
  const createKinetoscope: (overrides?: {
    locateFile?: (path: string, prefix: string) => string;
  }) => Promise<KinetoscopeModule>;
  export default createKinetoscope;
}
declare module '*/generated/kinetoscope_web.wasm?url' {
  const url: string;
  export default url;
}
