import { describe, expect, it } from 'vitest';
import { isRunFileHead, parseRunFile, rankTraceLink, RunFileError } from '../../web/src/lib/run-file';

// What `kinetoscope distributed --json` and `distributed --gpu-time --json` print for
// tests/data/distributed-diverging-ranks: a run file's "distributed" and "gpu_time".
const DISTRIBUTED = {"span":"default","mode":"default","available":true,"reason":null,"workers":[{"worker":"rank-0","rank":0,"span":"default","world_size":2,"backend":"nccl","node":"rank-0","process":"0","devices":[{"id":0,"name":"NVIDIA A100-SXM4-80GB","memory_bytes":85031714816,"compute_capability":"8.0"}]},{"worker":"rank-1","rank":1,"span":"default","world_size":2,"backend":"nccl","node":"rank-1","process":"1","devices":[{"id":0,"name":"NVIDIA A100-SXM4-80GB","memory_bytes":85031714816,"compute_capability":"8.0"}]}],"steps":["1","2"],"overlap":{"all":{"rank-0":{"computation_us":525,"overlapping_us":25,"communication_us":150,"other_us":300},"rank-1":{"computation_us":600,"overlapping_us":0,"communication_us":90,"other_us":410}},"1":{"rank-0":{"computation_us":550,"overlapping_us":50,"communication_us":200,"other_us":200},"rank-1":{"computation_us":700,"overlapping_us":0,"communication_us":80,"other_us":420}},"2":{"rank-0":{"computation_us":500,"overlapping_us":0,"communication_us":100,"other_us":400},"rank-1":{"computation_us":500,"overlapping_us":0,"communication_us":100,"other_us":400}}},"waittime":{"all":{"rank-0":{"transfer_us":80,"synchronizing_us":95,"unmatched_us":0},"rank-1":{"transfer_us":80,"synchronizing_us":0,"unmatched_us":10}},"1":{"rank-0":{"transfer_us":80,"synchronizing_us":170,"unmatched_us":0},"rank-1":{"transfer_us":80,"synchronizing_us":0,"unmatched_us":0}},"2":{"rank-0":{"transfer_us":80,"synchronizing_us":20,"unmatched_us":0},"rank-1":{"transfer_us":80,"synchronizing_us":0,"unmatched_us":20}}},"commops":{"rank-0":[{"name":"nccl:all_reduce","calls":2,"total_bytes":8000,"avg_bytes":4000,"total_latency_us":350,"avg_latency_us":175,"transfer_us":160,"avg_transfer_us":80}],"rank-1":[{"name":"nccl:all_reduce","calls":3,"total_bytes":12000,"avg_bytes":4000,"total_latency_us":180,"avg_latency_us":60,"transfer_us":160,"avg_transfer_us":53.333333333333336}]},"stragglers":[{"step":"all","median_us":1050,"slowest_worker":"rank-1","slowest_rank":1,"slowest_us":1100,"behind_median_us":50,"behind_median_pct":4.761904761904762,"times_us":{"rank-0":1000,"rank-1":1100}},{"step":"1","median_us":1100,"slowest_worker":"rank-1","slowest_rank":1,"slowest_us":1200,"behind_median_us":100,"behind_median_pct":9.090909090909092,"times_us":{"rank-0":1000,"rank-1":1200}},{"step":"2","median_us":1000,"slowest_worker":"rank-0","slowest_rank":0,"slowest_us":1000,"behind_median_us":0,"behind_median_pct":0,"times_us":{"rank-0":1000,"rank-1":1000}}],"collectives":[{"process_group":"[0, 1]","group_size":2,"name":"nccl:all_reduce","bytes":4000,"calls":5,"workers":2,"total_us":530,"avg_us":106,"transfer_us":320}],"matching":{"calls":5,"matched":4,"notes":["process group [0, 1]: matched 2 calls; then rank 1 has 1 more; rank 0 has none (different numbers of calls: a trace cut short, or different schedules)"]}};
const GPU_TIME = {"span":"default","ranks":2,"without_gpu_time":0,"rows":[{"worker":"rank-0","rank":0,"scope":"trace","step":null,"status":"ok","step_us":null,"span_us":800,"idle_us":0,"compute_us":600,"non_compute_us":200,"idle_pct":0,"compute_pct":75,"non_compute_pct":25,"events":2,"span_start_us":100,"span_end_us":900,"comm_comp_overlap_pct":20},{"worker":"rank-0","rank":0,"scope":"step","step":"1","status":"ok","step_us":1000,"span_us":800,"idle_us":0,"compute_us":600,"non_compute_us":200,"idle_pct":0,"compute_pct":75,"non_compute_pct":25,"events":2,"span_start_us":100,"span_end_us":900,"comm_comp_overlap_pct":null},{"worker":"rank-0","rank":0,"scope":"step","step":"2","status":"ok","step_us":1000,"span_us":750,"idle_us":150,"compute_us":500,"non_compute_us":100,"idle_pct":20,"compute_pct":66.66666666666667,"non_compute_pct":13.333333333333334,"events":2,"span_start_us":1100,"span_end_us":1850,"comm_comp_overlap_pct":null},{"worker":"rank-1","rank":1,"scope":"trace","step":null,"status":"ok","step_us":null,"span_us":800,"idle_us":20,"compute_us":700,"non_compute_us":80,"idle_pct":2.5,"compute_pct":87.5,"non_compute_pct":10,"events":2,"span_start_us":100,"span_end_us":900,"comm_comp_overlap_pct":0},{"worker":"rank-1","rank":1,"scope":"step","step":"1","status":"ok","step_us":1200,"span_us":800,"idle_us":20,"compute_us":700,"non_compute_us":80,"idle_pct":2.5,"compute_pct":87.5,"non_compute_pct":10,"events":2,"span_start_us":100,"span_end_us":900,"comm_comp_overlap_pct":null},{"worker":"rank-1","rank":1,"scope":"step","step":"2","status":"ok","step_us":1000,"span_us":780,"idle_us":180,"compute_us":500,"non_compute_us":100,"idle_pct":23.076923076923077,"compute_pct":64.1025641025641,"non_compute_pct":12.820512820512821,"events":3,"span_start_us":1300,"span_end_us":2080,"comm_comp_overlap_pct":null}]};

const runFile = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    kinetoscope_run: 1,
    version: 'kinetoscope 0.1.0 (test)',
    mode: 'default',
    sources: ['tests/data/distributed-diverging-ranks'],
    distributed: [DISTRIBUTED],
    gpu_time: [GPU_TIME],
    reduce_error: null,
    ranks: [
      { file: 'tests/data/distributed-diverging-ranks/rank-0.json', rank: 0, world_size: 2, status: 'ok', error: null, steps: 2, calls: 2 },
      { file: 'https://bucket.example/run/rank-1.json', rank: 1, world_size: 2, status: 'ok', error: null, steps: 2, calls: 3 },
      { file: '/lustre/run/rank-2.json', rank: null, world_size: null, status: 'failed', error: 'not a trace' },
    ],
    failed: 1,
    ...extra,
  });

const bytes = (s: string) => new TextEncoder().encode(s);

describe('run files: recognised by their first bytes', () => {
  it('a run file, with or without a BOM and spaces; a trace is not one', () => {
    expect(isRunFileHead(bytes(runFile()))).toBe(true);
    expect(isRunFileHead(bytes('\uFEFF \n{ "kinetoscope_run" : 1}'))).toBe(true);
    expect(isRunFileHead(bytes('{"schemaVersion":1,"kinetoscope_run":1}'))).toBe(false);
    expect(isRunFileHead(bytes('{"traceEvents":[]}'))).toBe(false);
    expect(isRunFileHead(new Uint8Array([0x1f, 0x8b, 8, 0]))).toBe(false);
  });
});

describe('run files: read as the page shows them', () => {
  it("the Distributed view is the CLI's JSON, the GPU time per rank its rows", () => {
    const r = parseRunFile(runFile(), 'run.kinetoscope-run.json');
    expect(r.views).toHaveLength(1);
    const v = r.views[0];
    expect(v.workers.map((w) => [w.worker, w.rank, w.devices[0].name])).toEqual([
      ['rank-0', 0, 'NVIDIA A100-SXM4-80GB'],
      ['rank-1', 1, 'NVIDIA A100-SXM4-80GB'],
    ]);
    expect(v.overlap['1']['rank-0']).toEqual({ computation: 550, overlapping: 50, communication: 200, other: 200 });
    expect(v.waittime['2']['rank-1']).toEqual({ transfer: 80, synchronizing: 0, unmatched: 20 });
    expect(v.commops['rank-1'][0]).toMatchObject({ calls: 3, totalBytes: 12000, avgTransferUs: 53.333333333333336 });
    expect(v.stragglers[1]).toEqual({
      step: '1', medianUs: 1100, slowestWorker: 'rank-1', slowestRank: 1, slowestUs: 1200, behindMedianUs: 100, behindMedianPct: 9.090909090909092,
      timesUs: { 'rank-0': 1000, 'rank-1': 1200 },
    });
    expect(v.collectives[0]).toEqual({ processGroup: '[0, 1]', groupSize: 2, name: 'nccl:all_reduce', bytes: 4000, calls: 5, workers: 2, totalUs: 530, avgUs: 106, transferUs: 320 });
    expect(v.matching).toMatchObject({ calls: 5, matched: 4 });
    // rank-0: 800 us of GPU span, 600 computing, 200 not, 20 % of its communication overlapped.
    const trace = v.gpuTime!.filter((g) => g.scope === 'trace');
    expect(trace[0]).toMatchObject({ worker: 'rank-0', rank: 0, status: 'ok', spanUs: 800, idleUs: 0, computeUs: 600, nonComputeUs: 200, computePct: 75, overlapPct: 20, stepUs: null });
    expect(v.gpuTime!.filter((g) => g.scope === 'step').map((g) => [g.worker, g.step, g.stepUs])).toEqual(
      GPU_TIME.rows.filter((g: { scope: string }) => g.scope === 'step').map((g: { worker: string; step: string; step_us: number }) => [g.worker, g.step, g.step_us]),
    );
    expect(r.ranks.map((x) => [x.rank, x.status, x.error])).toEqual([
      [0, 'ok', null],
      [1, 'ok', null],
      [null, 'failed', 'not a trace'],
    ]);
  });

  it('a run file without "gpu_time" (an older fleet) has no GPU time table, the rest as it is', () => {
    const v = parseRunFile(runFile({ gpu_time: undefined }), 'old.kinetoscope-run.json').views[0];
    expect(v.gpuTime).toBeNull();
    expect(v.workers).toHaveLength(2);
  });

  it('bad run files: one sentence each', () => {
    const msg = (text: string) => {
      try {
        parseRunFile(text, 'x.kinetoscope-run.json');
      } catch (e) {
        expect(e).toBeInstanceOf(RunFileError);
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(msg('{"kinetoscope_run": 1, "distrib')).toMatch(/^x\.kinetoscope-run\.json is not a readable Kinetoscope run file: its JSON is broken \(.+\); write it again with kinetoscope-fleet\.$/);
    expect(msg('{"traceEvents": []}')).toBe('x.kinetoscope-run.json is not a Kinetoscope run file (kinetoscope-fleet writes those, with "kinetoscope_run" first).');
    expect(msg('{"kinetoscope_run": 2, "distributed": [], "ranks": []}')).toBe('x.kinetoscope-run.json is a run file of format 2; this page reads format 1: open it with the Kinetoscope that wrote it.');
    expect(msg('{"kinetoscope_run": 1, "distributed": [], "ranks": {}}')).toBe('x.kinetoscope-run.json is a damaged run file: its "distributed" or "ranks" list is missing or not a list of objects.');
    expect(msg('{"kinetoscope_run": 1, "distributed": [3], "ranks": []}')).toMatch(/is a damaged run file/);
  });
});

describe("run files: a rank's trace", () => {
  it('an http(s) URL opens; a path or a bucket URL says where it is and how to open it', () => {
    expect(rankTraceLink('https://bucket.example/run/rank-1.json', 'https://ks.example/')).toEqual({ url: 'https://bucket.example/run/rank-1.json' });
    expect(rankTraceLink('/lustre/run/rank-2.json', 'https://ks.example/')).toEqual({
      how: "This rank's trace is at /lustre/run/rank-2.json on the machine that ran kinetoscope-fleet: copy it here and drop it on the page to open it.",
    });
    expect(rankTraceLink('s3://bucket/run/rank-3.json.gz', 'https://ks.example/')).toEqual({
      how: "This rank's trace is at s3://bucket/run/rank-3.json.gz, which the browser cannot read: copy it here and drop it on the page to open it.",
    });
  });
});
