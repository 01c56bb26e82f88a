// The Overview's FLOPs card (issue 25): per step the FLOPs counted from the operators' recorded
// shapes, the achieved TFLOP/s and the MFU against the device's dense peak, their average, and
// how much of the kernel time the counted operators cover. Read from the flops view's metadata
// (docs/contracts.md "flops"; the formulas and the peak table in docs/flops.md), as `kinetoscope
// flops --json` prints it; a chosen step narrows it to that step. The peak row is the trace's
// choice (components/peak-choice.tsx): the card says which row it is and offers the picker; its
// table is styled as the Steps table below it (capitalised headers, grouped whole µs, "0.22 %").
import { useMemo } from 'preact/hooks';
import { peakParam, PeakPicker, usePeak } from '../components/peak-choice';
import { useQuery, type Ask } from '../components/use-query';
import { openAnswer } from '../lib/answer';
import { formatPct, formatStepUs } from '../lib/overview';
import './flops.css';

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

const us1 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
/** A duration with one decimal, grouped as the tables' numbers: "2,115.9". */
function grouped1(v: number | null): string {
  return v == null || !Number.isFinite(v) ? '—' : us1.format(v);
}

const tflopsFmt = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });

/** Achieved TFLOP/s, three decimals, grouped as the page's other numbers: "1,234.567". */
export function formatTflops(v: number | null): string {
  return v == null || !Number.isFinite(v) ? '—' : tflopsFmt.format(v);
}

export function FlopsCard({ ask, step, onRoofline }: { ask: Ask; step: string | null; onRoofline?: () => void }) {
  const { peak } = usePeak();
  const answer = useQuery(ask, { what: 'flops' as const, ...(step ? { step } : {}), ...peakParam(peak) });
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
          <div class="ov-flops-peak">
            {meta.device?.peak_name ? (
              <p class="muted ov-footnote" data-testid="flops-device" data-row={meta.device.peak_row ?? ''}>
                Against the dense peaks of {meta.device.peak_name} ({meta.device.matched_by}).
              </p>
            ) : (
              <span />
            )}
            {meta.device && <PeakPicker ask={ask} testid="flops-peak-picker" />}
          </div>
          {meta.steps.length > 0 && (
            <table class="table ov-tables ov-flops-table" data-testid="flops-steps">
              <thead>
                <tr>
                  <th>Step</th>
                  <th class="num">Duration (us)</th>
                  <th class="num">FLOPs</th>
                  <th class="num">TFLOP/s</th>
                  <th class="num" title="Model FLOPs utilization: the step's counted FLOPs over its duration × the dense peak of the dtype carrying most of them">
                    MFU
                  </th>
                  <th>Peak of</th>
                </tr>
              </thead>
              <tbody>
                {[...meta.steps, ...(meta.average && meta.steps.length > 1 ? [{ ...meta.average, step: 'average' }] : [])].map((s, i) => (
                  <tr
                    key={s.step}
                    class={s.step === 'average' ? 'ov-total' : i % 2 ? 'odd' : undefined}
                    data-step={s.step}
                    data-flops={s.flops ?? ''}
                    data-mfu={s.mfu_pct ?? ''}
                  >
                    <td>{s.step === 'average' ? 'Average' : s.step}</td>
                    <td class="num">{formatStepUs(s.duration_us)}</td>
                    <td class="num">{formatFlops(s.flops)}</td>
                    <td class="num">{formatTflops(s.tflops_per_s)}</td>
                    <td class="num">{formatPct(s.mfu_pct)}</td>
                    <td>{s.mfu_dtype ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {meta.coverage && (
            <p class="ov-footnote" data-testid="flops-coverage" data-pct={meta.coverage.pct ?? ''}>
              counted ops: {fixed(meta.coverage.pct, 1)} % of kernel time ({grouped1(meta.coverage.counted_device_us)} of{' '}
              {grouped1(meta.coverage.kernel_us)} us)
            </p>
          )}
          {meta.note && (
            <p class="muted ov-footnote" data-testid="flops-note">
              {meta.note}.
            </p>
          )}
          {onRoofline && meta.coverage && (
            <p class="ov-footnote">
              <button type="button" class="link-button" data-testid="flops-roofline-link" onClick={onRoofline}>
                Roofline of the counted operators →
              </button>
            </p>
          )}
        </>
      )}
    </div>
  );
}
