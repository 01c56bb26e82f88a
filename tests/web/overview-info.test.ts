// The Overview's models read from the core's answers (lib/overview.ts, lib/summary.ts): the
// answers built by hand in the shape of their --json (answer-fixture.ts), as the core builds them.
import { describe, expect, it } from 'vitest';
import { openAnswer } from '../../web/src/lib/answer';
import { gpuMetricsOf, gpuSummaryOf, overviewInfoOf, stepBreakdownOf } from '../../web/src/lib/overview';
import { summaryOf } from '../../web/src/lib/summary';
import { answerOf, summaryWire, wireOf } from './answer-fixture';

const scope = { gpu: 'G.', kernel: 'K.', eligible_op_kernel: 'E.' };

function overview(meta: Record<string, unknown>) {
  return openAnswer('overview', wireOf(answerOf('overview', { file: '', rows: [], average: { total_us: 0 }, accelerator: 'nvidia', tensor_cores: { term: 'Tensor Cores', kernel_pct: null, kernel_unknown_pct: null, eligible_op_kernel_pct: 0, gpu_of: 'all_kernels', scope }, ...meta })));
}

describe('overviewInfoOf', () => {
  it('reads the Tensor Core share per GPU and the recommendations, texts as given', () => {
    const info = overviewInfoOf(
      overview({
        gpus: [
          { device: 0, name: 'NVIDIA A100', memory_bytes: 42297786368, compute_capability: '8.0', vendor: 'nvidia', arch: 'sm_80', utilization_pct: 23.26, sm_efficiency_pct: 16.87, achieved_occupancy_pct: null, tensor_core_pct: 16.38, tensor_core_unknown_pct: 0 },
          { device: 1, name: null, memory_bytes: null, compute_capability: null, vendor: '', arch: '', utilization_pct: 1, sm_efficiency_pct: null, achieved_occupancy_pct: null, tensor_core_pct: null, tensor_core_unknown_pct: null },
        ],
        recommendations: [
          { id: 'dataloader', text: 'DataLoader takes 40 % of the step: <b>use num_workers</b>.', view: 'overview', evidence: { view: 'overview', step: '5' } },
          { id: 'amp', text: 'Kernels barely use Tensor Cores.', view: 'kernels', evidence: { view: 'kernels' } },
        ],
      }),
    );
    expect(info.gpus.map((g) => [g.device, g.tensor_core_pct])).toEqual([
      [0, 16.38],
      [1, null],
    ]);
    expect(info.gpus[0].achieved_occupancy_pct).toBeNull();
    expect(info.gpus[0].memory_bytes).toBe(42297786368);
    expect(info.gpus[1]).toMatchObject({ name: '', compute_capability: '' });
    expect(info.recommendations.map((r) => r.id)).toEqual(['dataloader', 'amp']);
    expect(info.recommendations[0].text).toBe('DataLoader takes 40 % of the step: <b>use num_workers</b>.');
    expect(info.recommendations[0].evidence).toEqual({ view: 'overview', step: '5' });
    expect(info.recommendations[1].view).toBe('kernels');
  });

  it('reads the AMD term, each figure\'s scope and the evidence of a recommendation as a deep link reads it', () => {
    const info = overviewInfoOf(
      overview({
        accelerator: 'amd',
        gpus: [{ device: 0, name: 'AMD Instinct MI250X', memory_bytes: 68702699520, compute_capability: null, vendor: 'amd', arch: 'gfx90a', utilization_pct: 50, sm_efficiency_pct: null, achieved_occupancy_pct: null, tensor_core_pct: 40.5, tensor_core_unknown_pct: 12.25 }],
        tensor_cores: { term: 'Matrix Cores', kernel_pct: 38, kernel_unknown_pct: 10, eligible_op_kernel_pct: 70, gpu_of: 'operator_kernels', scope },
        recommendations: [
          { id: 'amp', text: 't', view: 'operators', evidence: { view: 'operators', sort: 'device_self_us.desc', row: 'aten::mm' } },
          { id: 'memory', text: 't', view: 'memory', evidence: { view: 'memory' } },
          { id: 'later', text: 't', view: 'nosuchview', evidence: { view: 'nosuchview' } },
          { id: 'bad', text: 't', view: 'overview', evidence: { view: 'overview', sort: 'no dot' } },
          { id: 'communication', text: 't', view: 'distributed', evidence: { view: 'distributed', step: '552' } },
        ],
      }),
    );
    expect(info.gpus[0]).toMatchObject({ vendor: 'amd', arch: 'gfx90a', compute_capability: '', tensor_core_pct: 40.5, tensor_core_unknown_pct: 12.25 });
    expect(info.tensorCores).toEqual({ term: 'Matrix Cores', kernel_pct: 38, kernel_unknown_pct: 10, eligible_op_kernel_pct: 70, gpu_of: 'operator_kernels', scope });
    expect(info.recommendations[0].evidence).toEqual({ view: 'operators', sort: { column: 'device_self_us', dir: 'desc' }, row: 'aten::mm' });
    expect(info.recommendations[1].evidence).toEqual({ view: 'memory' });
    // A view the page does not have is dropped as a link would drop it: no evidence.
    expect(info.recommendations[2].evidence).toBeUndefined();
    // An invalid field is left out (a sort without a direction).
    expect(info.recommendations[3].evidence).toEqual({ view: 'overview' });
    // The Distributed view is the run page's: the evidence names it (runView) with its step.
    expect(info.recommendations[4].evidence).toEqual({ runView: 'distributed', step: '552' });
  });

  it('accepts no GPUs and no recommendations', () => {
    const info = overviewInfoOf(overview({ gpus: [], recommendations: [] }));
    expect(info.gpus).toEqual([]);
    expect(info.recommendations).toEqual([]);
    expect(info.tensorCores.term).toBe('Tensor Cores');
  });
});

describe('the steps, GPU metrics and summary from their answers', () => {
  it('reads each step from the columns and the average from the metadata', () => {
    const b = stepBreakdownOf(
      openAnswer('steps', wireOf(answerOf('steps', {
        file: '',
        rows: [
          { name: '5', start_us: 100, end_us: 300, total_us: 200, kernel_us: 120, memcpy_us: 10, memset_us: 0, communication_us: 0, runtime_us: 5, dataloader_us: 40, cpu_exec_us: 20, other_us: 5 },
          { name: '6', start_us: 300, end_us: 400, total_us: 100, kernel_us: 60, memcpy_us: 0, memset_us: 0, communication_us: 0, runtime_us: 5, dataloader_us: 20, cpu_exec_us: 10, other_us: 5 },
        ],
        average: { total_us: 150, kernel_us: 90 },
        roles: { kernel: { merged: 4, sum_us: 180 } },
      }))),
    );
    expect(b.steps.map((s) => [s.name, s.total_us, s.kernel_us, s.dataloader_us])).toEqual([
      ['5', 200, 120, 40],
      ['6', 100, 60, 20],
    ]);
    expect(b.steps[0]).toMatchObject({ start_us: 100, end_us: 300, memcpy_us: 10, other_us: 5 });
    expect(b.average).toEqual({ total_us: 150, kernel_us: 90 });
    expect(b.roles).toEqual({ kernel: { merged: 4, sum_us: 180 } });
  });

  it("splits the timeline column's pairs by GPU at its ends, and reads NaN as null", () => {
    const g = gpuMetricsOf(
      openAnswer('gpu_metrics', wireOf(answerOf('gpu_metrics', {
        file: '',
        window_start_us: 0,
        window_end_us: 20,
        bucket_us: 10,
        rows: [
          { device: 0, utilization_pct: 50, sm_efficiency_pct: null, achieved_occupancy_pct: 30, blocks_per_sm_count: 0, occupancy_count: 1, timeline: [[0, 1], [10, 0], [20, 0]] },
          { device: 2, utilization_pct: 25, sm_efficiency_pct: 12.5, achieved_occupancy_pct: null, blocks_per_sm_count: 1, occupancy_count: 0, timeline: [[0, 0.5], [20, 0]] },
        ],
      }))),
    );
    expect(g).toEqual({
      window_start_us: 0,
      window_end_us: 20,
      bucket_us: 10,
      gpus: [
        { device: 0, utilization_pct: 50, sm_efficiency_pct: null, achieved_occupancy_pct: 30, timeline: [[0, 1], [10, 0], [20, 0]] },
        { device: 2, utilization_pct: 25, sm_efficiency_pct: 12.5, achieved_occupancy_pct: null, timeline: [[0, 0.5], [20, 0]] },
      ],
    });
  });

  it("reads a step's GPU summary: the step, its window and scope, each GPU's shares", () => {
    const s = gpuSummaryOf(
      openAnswer('gpu_summary', wireOf(answerOf('gpu_summary', {
        file: '',
        step: '551',
        window_start_us: 5,
        window_end_us: 9,
        scope: { metrics: 'M.', tensor_cores: 'T.' },
        rows: [{ device: 0, utilization_pct: 44.49, sm_efficiency_pct: null, achieved_occupancy_pct: 20, tensor_core_pct: 9.03, tensor_core_unknown_pct: null }],
      }))),
    );
    expect(s).toEqual({
      step: '551',
      windowStartUs: 5,
      windowEndUs: 9,
      scope: { metrics: 'M.', tensorCores: 'T.' },
      gpus: [{ device: 0, utilization_pct: 44.49, sm_efficiency_pct: null, achieved_occupancy_pct: 20, tensor_core_pct: 9.03, tensor_core_unknown_pct: null }],
    });
  });

  it('reads the summary: its health rows from the columns, the rest from the metadata', () => {
    const health = [
      { reason: 'truncated', severity: 'error', count: 1, sample_offset: 170, message: 'The file ends early.' },
      { reason: 'bad-ts', severity: 'warning', count: 3, sample_offset: 12, message: 'No time.' },
    ];
    const wire = summaryWire({ events: 42, devices: [{ id: 0, name: 'H200', memory_bytes: 1, compute_capability: '9.0', sms: 132, vendor: 'nvidia', arch: 'sm_90' }] });
    const a = openAnswer('summary', wire);
    const withRows = openAnswer('summary', wireOf(answerOf('summary', { ...a.meta, rows: health })));
    const s = summaryOf(withRows, 'x.json');
    expect(s.file).toBe('x.json');
    expect(s.events).toBe(42);
    expect(s.devices[0]).toMatchObject({ name: 'H200', arch: 'sm_90', sms: 132 });
    expect(s.health).toEqual(health);
  });
});
