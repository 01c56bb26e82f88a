import { describe, expect, it } from 'vitest';
import { parseOverviewInfo } from '../../web/src/lib/overview';

const json = JSON.stringify({
  steps: [],
  average: null,
  gpus: [
    { device: 0, name: 'NVIDIA A100', memory_bytes: 42297786368, compute_capability: '8.0', utilization_pct: 23.26, sm_efficiency_pct: 16.87, achieved_occupancy_pct: null, tensor_core_pct: 16.38 },
    { device: 1, name: 'NVIDIA A100', memory_bytes: null, compute_capability: '8.0', utilization_pct: 1, sm_efficiency_pct: null, achieved_occupancy_pct: null, tensor_core_pct: null },
  ],
  recommendations: [
    { id: 'dataloader', text: 'DataLoader takes 40 % of the step: <b>use num_workers</b>.', view: 'overview' },
    { id: 'mixed_precision', text: 'Kernels barely use Tensor Cores.', view: 'kernels' },
  ],
});

describe('parseOverviewInfo', () => {
  it('reads the Tensor Core share per GPU and the recommendations, texts as given', () => {
    const info = parseOverviewInfo(json);
    expect(info.gpus.map((g) => [g.device, g.tensor_core_pct])).toEqual([
      [0, 16.38],
      [1, null],
    ]);
    expect(info.gpus[0].achieved_occupancy_pct).toBeNull();
    expect(info.gpus[0].memory_bytes).toBe(42297786368);
    expect(info.recommendations.map((r) => r.id)).toEqual(['dataloader', 'mixed_precision']);
    expect(info.recommendations[0].text).toBe('DataLoader takes 40 % of the step: <b>use num_workers</b>.');
    expect(info.recommendations[1].view).toBe('kernels');
  });

  it('accepts no GPUs and no recommendations', () => {
    const info = parseOverviewInfo('{"steps":[],"average":null,"gpus":[],"recommendations":[]}');
    expect(info.gpus).toEqual([]);
    expect(info.recommendations).toEqual([]);
    expect(info.tensorCores.term).toBe('Tensor Cores');
  });

  it('reads the three-state Tensor Core figures, the AMD term and each figure\'s scope, and the evidence of a recommendation', () => {
    const info = parseOverviewInfo(
      JSON.stringify({
        accelerator: 'amd',
        gpus: [{ device: 0, name: 'AMD Instinct MI250X', memory_bytes: 68702699520, compute_capability: null, vendor: 'amd', arch: 'gfx90a', utilization_pct: 50, sm_efficiency_pct: null, achieved_occupancy_pct: null, tensor_core_pct: 40.5, tensor_core_unknown_pct: 12.25 }],
        tensor_cores: { term: 'Matrix Cores', kernel_pct: 38, kernel_unknown_pct: 10, eligible_op_kernel_pct: 70, scope: { gpu: 'G.', kernel: 'K.', eligible_op_kernel: 'E.' } },
        recommendations: [
          { id: 'amp', text: 't', view: 'operators', evidence: { view: 'operators', sort: 'device_self_us.desc', row: 'aten::mm' } },
          { id: 'memory', text: 't', view: 'memory', evidence: { view: 'memory' } },
          { id: 'later', text: 't', view: 'nosuchview', evidence: { view: 'nosuchview' } },
          { id: 'bad', text: 't', view: 'overview', evidence: { view: 'overview', sort: 'no dot', step: 5 } },
          { id: 'communication', text: 't', view: 'distributed', evidence: { view: 'distributed', step: '552' } },
        ],
      }),
    );
    expect(info.gpus[0]).toMatchObject({ vendor: 'amd', arch: 'gfx90a', compute_capability: '', tensor_core_pct: 40.5, tensor_core_unknown_pct: 12.25 });
    // Without `gpu_of` (an older core), the GPU figure is taken to be tb_plugin's operator kernels.
    expect(info.tensorCores).toEqual({ term: 'Matrix Cores', kernel_pct: 38, kernel_unknown_pct: 10, eligible_op_kernel_pct: 70, gpu_of: 'operator_kernels', scope: { gpu: 'G.', kernel: 'K.', eligible_op_kernel: 'E.' } });
    expect(info.recommendations[0].evidence).toEqual({ view: 'operators', sort: { column: 'device_self_us', dir: 'desc' }, row: 'aten::mm' });
    expect(info.recommendations[1].evidence).toEqual({ view: 'memory' });
    // A view the page does not have is dropped as a link would drop it: no evidence.
    expect(info.recommendations[2].evidence).toBeUndefined();
    // Invalid fields are left out (a sort without a direction, a step that is not text).
    expect(info.recommendations[3].evidence).toEqual({ view: 'overview' });
    // The Distributed view is the run page's: the evidence names it (runView) with its step.
    expect(info.recommendations[4].evidence).toEqual({ runView: 'distributed', step: '552' });
  });

  it('rejects a recommendation without text, or a percentage that is not a number', () => {
    expect(() => parseOverviewInfo('{"gpus":[],"recommendations":[{"id":"x","view":"overview"}]}')).toThrow(
      /overviewJson: recommendations\[0\]\.text should be a string, got undefined/,
    );
    expect(() => parseOverviewInfo('{"gpus":[{"device":0,"tensor_core_pct":"16"}],"recommendations":[]}')).toThrow(
      /gpus\[0\]\.tensor_core_pct should be a number or null/,
    );
  });
});
