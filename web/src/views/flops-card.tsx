// The Overview's FLOPs card (issue 25): per step the FLOPs counted from the operators' recorded
// shapes, the achieved TFLOP/s and the MFU against the device's dense peak, their average, and
// how much of the kernel time the counted operators cover. Read from the flops view's metadata
// (docs/contracts.md "flops"; the formulas and the peak table in docs/flops.md), as `kinetoscope
// flops --json` prints it; a chosen step narrows it to that step.
import { useMemo } from 'preact/hooks';
import { useQuery, type Ask } from '../components/use-query';
import { openAnswer } from '../lib/answer';

/** FLOPs with an SI prefix: 2.15 GFLOP, 27.6 TFLOP. */
export function formatFlops(v: number | null): string {
  if (v == null || !Number.isFinite(v)) return '—';
  const units = ['', 'K', 'M', 'G', 'T', 'P', 'E'];
  let u = 0;
  while (Math.abs(v) >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toPrecision(3)} ${units[u]}FLOP`;
}

function fixed(v: number | null, digits: number): string {
  return v == null || !Number.isFinite(v) ? '—' : v.toFixed(digits);
}

export function FlopsCard({ ask, step }: { ask: Ask; step: string | null }) {
  const answer = useQuery(ask, step ? { what: 'flops' as const, step } : { what: 'flops' as const });
  const meta = useMemo(() => (answer.status === 'ready' ? openAnswer('flops', answer.data.answer).meta : null), [answer]);
  return (
    <div class="ov-panel ov-flops" data-testid="flops-card" data-state={answer.status} data-step={step ?? ''}>
      <h4>
        FLOPs and MFU{' '}
        <span class="muted ov-scope">{step ? `— step ${step}` : '— all steps'}</span>
      </h4>
      {answer.status === 'loading' && (
        <p class="muted" role="status">
          Counting FLOPs…
        </p>
      )}
      {answer.status === 'error' && (
        <p class="file-error" role="alert">
          The FLOPs could not be counted ({answer.message}).
        </p>
      )}
      {meta && (
        <>
          {meta.device?.peak_name && (
            <p class="muted ov-footnote" data-testid="flops-device">
              Against the dense peaks of {meta.device.peak_name} ({meta.device.matched_by}).
            </p>
          )}
          {meta.steps.length > 0 && (
            <table class="table ov-detail" data-testid="flops-steps">
              <thead>
                <tr>
                  <th>step</th>
                  <th class="num">duration (µs)</th>
                  <th class="num">FLOPs</th>
                  <th class="num">TFLOP/s</th>
                  <th class="num">MFU %</th>
                  <th>peak of</th>
                </tr>
              </thead>
              <tbody>
                {[...meta.steps, ...(meta.average && meta.steps.length > 1 ? [{ ...meta.average, step: 'average' }] : [])].map((s) => (
                  <tr key={s.step} data-step={s.step} data-flops={s.flops ?? ''} data-mfu={s.mfu_pct ?? ''}>
                    <td>{s.step}</td>
                    <td class="num">{fixed(s.duration_us, 1)}</td>
                    <td class="num">{formatFlops(s.flops)}</td>
                    <td class="num">{fixed(s.tflops_per_s, 3)}</td>
                    <td class="num">{fixed(s.mfu_pct, 2)}</td>
                    <td>{s.mfu_dtype ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {meta.coverage && (
            <p class="ov-footnote" data-testid="flops-coverage" data-pct={meta.coverage.pct ?? ''}>
              counted ops: {fixed(meta.coverage.pct, 1)} % of kernel time ({fixed(meta.coverage.counted_device_us, 1)} of{' '}
              {fixed(meta.coverage.kernel_us, 1)} µs)
            </p>
          )}
          {meta.note && (
            <p class="muted ov-footnote" data-testid="flops-note">
              {meta.note}.
            </p>
          )}
        </>
      )}
    </div>
  );
}
