// The peak row the FLOPs numbers of one trace are measured against (issue 25): null, the row
// matched from the trace's deviceProperties, or the one the user picked in a peak picker. The
// trace's page keeps it (its card stays mounted while another trace is shown, so the choice is
// remembered per trace) and every FLOPs number of that trace follows it: the Overview's MFU, the
// Operators and Kernels tables' % of peak, the roofline's roofs.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { useAnswer } from './use-answer';
import type { Ask } from './use-query';

export interface PeakChoice {
  /** The picked row's id (docs/flops.md: h100-sxm, ...), or null for the matched one. */
  peak: string | null;
  setPeak: (id: string | null) => void;
}

export const PeakContext = createContext<PeakChoice>({ peak: null, setPeak: () => {} });

export function usePeak(): PeakChoice {
  return useContext(PeakContext);
}

/** The `peak` parameter of a view's question: absent for the matched row. */
export function peakParam(peak: string | null): { peak?: string } {
  return peak ? { peak } : {};
}

/**
 * A select of the peak table's rows (the device_peaks answer): "matched" first (the row the
 * trace's GPU matched, named, or none), then every row; picking one sets the trace's choice.
 */
export function PeakPicker({ ask, testid = 'peak-picker' }: { ask: Ask; testid?: string }) {
  const { peak, setPeak } = usePeak();
  const table = useAnswer(ask, 'device_peaks', {});
  if (table.status !== 'ready') return null;
  const a = table.data;
  const ids = [...a.columns.id].map((i) => a.strings[i]);
  const names = [...a.columns.name].map((i) => a.strings[i]);
  const matched = a.meta.matched_row;
  const matchedName = matched ? names[ids.indexOf(matched)] : null;
  return (
    <label class="ov-select peak-picker" title="The device row whose dense peaks MFU, % of peak and the roofs are measured against (the CLI's --peak)">
      Peaks of{' '}
      <select data-testid={testid} data-matched={matched ?? ''} value={peak ?? ''} onChange={(e) => setPeak((e.currentTarget as HTMLSelectElement).value || null)}>
        <option value="">{matchedName ? `${matchedName} (matched)` : 'none matched'}</option>
        {ids.map((id, i) => (
          <option key={id} value={id}>
            {names[i]}
          </option>
        ))}
      </select>
    </label>
  );
}
