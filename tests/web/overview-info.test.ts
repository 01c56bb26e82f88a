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
    expect(parseOverviewInfo('{"steps":[],"average":null,"gpus":[],"recommendations":[]}')).toEqual({ gpus: [], recommendations: [] });
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
