// Types of the Emscripten ES module built from wasm/ (see docs/contracts.md). The module itself is
// copied into src/generated/ by scripts/build and is not checked in.
declare module '*/generated/kinetoscope_web.mjs' {
  /** A view's answer as Session.query gives it (docs/contracts.md "Session and answers"). */
  export interface KinetoscopeAnswer {
    view: string;
    /** "" or the core's sentence (an unknown step, a bad parameter). */
    error: string;
    rowCount: number;
    columns: Record<string, Float64Array | Int32Array | Uint32Array | Uint8Array>;
    /** The columns without a value in this answer (their cells are null). */
    absent: string[];
    /** The answer's strings in UTF-8, each followed by a 0 byte. */
    stringBytes: Uint8Array;
    /** Where each string's 0 byte is. */
    stringEnds: Uint32Array;
    stringCount: number;
    /** The metadata object as JSON (a few fields; never rows). */
    meta: string;
  }
  export interface KinetoscopeSession {
    prepare(n: number): number;
    commit(n: number): void;
    failed(): boolean;
    finish(): void;
    /** The stream around the JSON failed part-way (gzip corrupt or cut off, or a read error). */
    inputError(gzip: boolean): void;
    summaryJson(): string;
    /** Steps and their time breakdown, as `kinetoscope steps --json` (true: as tb_plugin counts). */
    stepBreakdownJson(): string;
    /** GPU utilization, est. SM efficiency and occupancy, timeline, as `kinetoscope gpus --json`. */
    gpuMetricsJson(): string;
    /** The GPU summary of one step ("": all steps), as `kinetoscope gpus --step N --json`. */
    gpuSummaryJson(step: string): string;
    /** Steps, average, GPUs (with tensor_core_pct) and recommendations, as `kinetoscope overview --json`. */
    overviewJson(): string;
    /**
     * A view's answer (core/session/views.h; lib/answer.ts WireAnswer): typed column copies, the
     * strings as UTF-8 bytes, the metadata as a small JSON text; `error` the core's sentence.
     */
    query(view: string, params: Record<string, string>): KinetoscopeAnswer;
    /** The same answer as the CLI's --json text. */
    queryJson(view: string, params: Record<string, string>): string;
    /** One operator group split by call stack ("" input shape in "op" grouping). */
    operatorStacksJson(groupBy: string, name: string, inputShape: string, step: string): string;
    /** One operator group's kernels and call stacks, as `kinetoscope operators --detail NAME --json`. */
    operatorDetailJson(groupBy: string, name: string, inputShape: string, step: string): string;
    /**
     * One kernel row's detail, as `kinetoscope kernels --detail NAME --json`: a "props" row is named
     * by its operator and props = [grid x, y, z, block x, y, z, registers, shared memory].
     */
    kernelDetailJson(groupBy: string, name: string, operator: string, props: number[], step: string): string;
    /** {"modules": bool, "lightning": bool}: whether the Module view has anything to show. */
    modulePresenceJson(): string;
    /** The Module view's tables, as `kinetoscope modules --json`. */
    modulesJson(): string;
    /** The kernels launched in one Ranges row, as `kinetoscope ranges --detail KEY --json`. */
    rangeKernelsJson(key: string): string;
    /** One thread's tree for the Module view (tid "": the main thread); see docs/contracts.md. */
    moduleTreeJson(tid: string): string;
    /** This trace's rank summary for a run's Distributed view (JSON; `span`: "default" or 1..n). */
    distributedRankJson(worker: string, span: string): string;
    /** Bytes the memory index holds (benchmark). */
    memoryIndexBytes(): number;
    /** The Diff view, this Session the baseline (as `kinetoscope diff --json`). */
    diffJson(experiment: KinetoscopeSession, baselineName: string, experimentName: string): string;
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
    keptEvents(): number;
    totalEvents(): number;
    /** A copy of the trimmed trace JSON. */
    output(): Uint8Array;
    delete(): void;
  }
  export interface KinetoscopeModule {
    HEAPU8: Uint8Array;
    /** tbPlugin: link and count as tb_plugin does, for the Session's life (the page never asks). */
    Session: new (tbPlugin?: boolean) => KinetoscopeSession;
    /** Absent from cores built before the Timeline view. */
    Trimmer?: new (startUs: number, endUs: number) => KinetoscopeTrimmer;
    /** Rank summaries to the Distributed view, one JSON object per span and line (absent from older cores). */
    reduceDistributedJson?(summaries: string[], tbPlugin: boolean): string;
    /** Index in `window` of the event boundary to split at, or -1 (docs/contracts.md). */
    proposeSplit(window: Uint8Array): number;
    /** 1: the root is an array, 0: an object, -1: neither (read in one range). */
    rootIsArray(firstBytes: Uint8Array): number;
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
