import { describe, expect, it } from 'vitest';
import { formatPlace, parsePlace } from '../../web/src/lib/deep-link';
import { openDistributed, stackedColumns, OVERLAP_PARTS, workerLabel, type DistributedAnswers } from '../../web/src/lib/distributed';
import { CoreError } from '../../web/src/lib/json-check';
import { answerOf, wireOf } from './answer-fixture';

// What \`kinetoscope distributed --json tests/data/distributed-diverging-ranks\` prints (default mode).
const LINE = "{\"span\":\"default\",\"mode\":\"default\",\"available\":true,\"reason\":null,\"workers\":[{\"worker\":\"rank-0\",\"rank\":0,\"span\":\"default\",\"world_size\":2,\"backend\":\"nccl\",\"node\":\"rank-0\",\"process\":\"0\",\"devices\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"memory_bytes\":85031714816,\"compute_capability\":\"8.0\"}]},{\"worker\":\"rank-1\",\"rank\":1,\"span\":\"default\",\"world_size\":2,\"backend\":\"nccl\",\"node\":\"rank-1\",\"process\":\"1\",\"devices\":[{\"id\":0,\"name\":\"NVIDIA A100-SXM4-80GB\",\"memory_bytes\":85031714816,\"compute_capability\":\"8.0\"}]}],\"steps\":[\"1\",\"2\"],\"overlap\":{\"all\":{\"rank-0\":{\"computation_us\":525,\"overlapping_us\":25,\"communication_us\":150,\"other_us\":300},\"rank-1\":{\"computation_us\":600,\"overlapping_us\":0,\"communication_us\":90,\"other_us\":410}},\"1\":{\"rank-0\":{\"computation_us\":550,\"overlapping_us\":50,\"communication_us\":200,\"other_us\":200},\"rank-1\":{\"computation_us\":700,\"overlapping_us\":0,\"communication_us\":80,\"other_us\":420}},\"2\":{\"rank-0\":{\"computation_us\":500,\"overlapping_us\":0,\"communication_us\":100,\"other_us\":400},\"rank-1\":{\"computation_us\":500,\"overlapping_us\":0,\"communication_us\":100,\"other_us\":400}}},\"waittime\":{\"all\":{\"rank-0\":{\"transfer_us\":80,\"synchronizing_us\":95,\"unmatched_us\":0},\"rank-1\":{\"transfer_us\":80,\"synchronizing_us\":0,\"unmatched_us\":10}},\"1\":{\"rank-0\":{\"transfer_us\":80,\"synchronizing_us\":170,\"unmatched_us\":0},\"rank-1\":{\"transfer_us\":80,\"synchronizing_us\":0,\"unmatched_us\":0}},\"2\":{\"rank-0\":{\"transfer_us\":80,\"synchronizing_us\":20,\"unmatched_us\":0},\"rank-1\":{\"transfer_us\":80,\"synchronizing_us\":0,\"unmatched_us\":20}}},\"commops\":{\"rank-0\":[{\"name\":\"nccl:all_reduce\",\"calls\":2,\"total_bytes\":8000,\"avg_bytes\":4000,\"total_latency_us\":350,\"avg_latency_us\":175,\"transfer_us\":160,\"avg_transfer_us\":80}],\"rank-1\":[{\"name\":\"nccl:all_reduce\",\"calls\":3,\"total_bytes\":12000,\"avg_bytes\":4000,\"total_latency_us\":180,\"avg_latency_us\":60,\"transfer_us\":160,\"avg_transfer_us\":53.333333333333336}]},\"stragglers\":[{\"step\":\"all\",\"median_us\":1050,\"slowest_worker\":\"rank-1\",\"slowest_rank\":1,\"slowest_us\":1100,\"behind_median_us\":50,\"behind_median_pct\":4.761904761904762,\"times_us\":{\"rank-0\":1000,\"rank-1\":1100}},{\"step\":\"1\",\"median_us\":1100,\"slowest_worker\":\"rank-1\",\"slowest_rank\":1,\"slowest_us\":1200,\"behind_median_us\":100,\"behind_median_pct\":9.090909090909092,\"times_us\":{\"rank-0\":1000,\"rank-1\":1200}},{\"step\":\"2\",\"median_us\":1000,\"slowest_worker\":\"rank-0\",\"slowest_rank\":0,\"slowest_us\":1000,\"behind_median_us\":0,\"behind_median_pct\":0,\"times_us\":{\"rank-0\":1000,\"rank-1\":1000}}],\"collectives\":[{\"process_group\":\"[0, 1]\",\"group_size\":2,\"name\":\"nccl:all_reduce\",\"bytes\":4000,\"calls\":5,\"workers\":2,\"total_us\":530,\"avg_us\":106,\"transfer_us\":320}],\"matching\":{\"calls\":5,\"matched\":4,\"notes\":[\"process group [0, 1]: matched 2 calls; then rank 0 has 0, rank 1 has 1 more (different numbers of calls: a trace cut short, or different schedules)\"]}}";

// The reduce's four answers for that line, as the core builds them (columns by the generated
// schemas, the per-step parts as metadata): what the worker hands the page.
function answersOf(line: string, error = ''): DistributedAnswers {
  const v = JSON.parse(line);
  const workers = answerOf('distributed', {
    rows: v.workers.map(({ devices: _devices, ...w }: Record<string, unknown>) => w),
    span: v.span,
    mode: v.mode,
    available: v.available,
    reason: v.reason,
    devices: v.workers.map((w: { devices: unknown }) => w.devices),
    steps: v.steps,
    overlap: v.overlap,
    waittime: v.waittime,
    matching: v.matching,
  });
  const commops = answerOf('distributed_commops', {
    rows: Object.entries(v.commops as Record<string, Record<string, unknown>[]>).flatMap(([worker, rows]) => rows.map((r) => ({ worker, ...r }))),
  });
  const stragglers = answerOf('distributed_stragglers', {
    rows: v.stragglers.map(({ times_us: _t, ...s }: Record<string, unknown>) => s),
    times_us: v.stragglers.map((s: { times_us: unknown }) => s.times_us),
  });
  const collectives = answerOf('distributed_collectives', { rows: v.collectives });
  return { workers: wireOf(workers, error), commops: wireOf(commops), stragglers: wireOf(stragglers), collectives: wireOf(collectives) };
}

describe('distributed: the reduce\'s answers, read from their columns', () => {
  it('reads every part of a view', () => {
    const v = openDistributed(answersOf(LINE));
    expect(v.mode).toBe('default');
    expect(v.available).toBe(true);
    expect(v.workers.map(workerLabel)).toEqual(['rank 0', 'rank 1']);
    expect(v.workers[0]).toMatchObject({ worker: 'rank-0', rank: 0, span: 'default', worldSize: 2, backend: 'nccl', node: 'rank-0', process: '0' });
    expect(v.workers[0].devices[0]).toEqual({ id: 0, name: 'NVIDIA A100-SXM4-80GB', memoryBytes: 85031714816, computeCapability: '8.0' });
    expect(v.steps).toEqual(['1', '2']);
    expect(v.overlap['1']['rank-0']).toEqual({ computation: 550, overlapping: 50, communication: 200, other: 200 });
    expect(v.waittime['2']['rank-1']).toEqual({ transfer: 80, synchronizing: 0, unmatched: 20 });
    expect(v.commops['rank-1']).toEqual([
      { name: 'nccl:all_reduce', calls: 3, totalBytes: 12000, avgBytes: 4000, totalLatencyUs: 180, avgLatencyUs: 60, transferUs: 160, avgTransferUs: 53.333333333333336 },
    ]);
    expect(v.stragglers[0]).toEqual({
      step: 'all',
      medianUs: 1050,
      slowestWorker: 'rank-1',
      slowestRank: 1,
      slowestUs: 1100,
      behindMedianUs: 50,
      behindMedianPct: 4.761904761904762,
      timesUs: { 'rank-0': 1000, 'rank-1': 1100 },
    });
    expect(v.collectives[0]).toEqual({ processGroup: '[0, 1]', groupSize: 2, name: 'nccl:all_reduce', bytes: 4000, calls: 5, workers: 2, totalUs: 530, avgUs: 106, transferUs: 320 });
    expect(v.matching.notes).toHaveLength(1);
  });

  it('nulls come back as nulls; a worker without calls has an empty list; the core\'s error is its sentence', () => {
    const line = LINE.replace('"rank":1,', '"rank":null,').replace('"slowest_rank":1,', '"slowest_rank":null,').replace('"group_size":2,', '"group_size":null,')
      .replace('"bytes":4000,', '"bytes":null,').replace('"behind_median_pct":0,', '"behind_median_pct":null,')
      .replace(/"rank-1":\[\{"name":"nccl:all_reduce"[^\]]*\]/, '"rank-1":[]');
    const v = openDistributed(answersOf(line));
    expect(v.workers[1].rank).toBeNull();
    expect(v.stragglers[0].slowestRank).toBeNull();
    expect(v.stragglers[2].behindMedianPct).toBeNull();
    expect(v.collectives[0]).toMatchObject({ groupSize: null, bytes: null });
    expect(v.commops['rank-1']).toEqual([]);
    expect(() => openDistributed(answersOf(LINE, 'rank summary 2: not a Kinetoscope answer'))).toThrow(CoreError);
  });

  it('stacked columns: cumulative ms per worker, last part first', () => {
    const v = openDistributed(answersOf(LINE));
    const cols = stackedColumns(v.workers, v.overlap['1'], OVERLAP_PARTS);
    expect(cols[0]).toEqual([0, 1]);
    // rank 0, step 1: 550 + 50 + 200 + 200 us; the first series is the whole column (1 ms).
    expect(cols[1][0]).toBeCloseTo(1.0);
    expect(cols[4][0]).toBeCloseTo(0.55);
    // A worker missing from a step stands at 0.
    expect(stackedColumns(v.workers, {}, OVERLAP_PARTS)[1]).toEqual([0, 0]);
  });
});

describe('deep link to a run page', () => {
  it('view=distributed without a worker names the run page, and is written back the same', () => {
    const p = parsePlace('#run=logs%2Frun1&view=distributed&step=552');
    expect(p).toEqual({ run: 'logs/run1', runView: 'distributed', step: '552' });
    expect(formatPlace(p)).toBe('run=logs%2Frun1&view=distributed&step=552');
    // With a worker it is a trace's place, and a trace has no such tab: dropped.
    expect(parsePlace('#run=r&worker=w0&view=distributed')).toEqual({ run: 'r', worker: 'w0' });
  });
});
