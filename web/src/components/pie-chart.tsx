import { useState } from 'preact/hooks';
import { legendLabels, pieArcs, sliceText, type Slice } from '../lib/pie';

interface Props {
  title: string;
  slices: Slice[];
  /** Test ids: `<testid>`, `<testid>-slice` (data-label), `<testid>-legend`, `<testid>-hover`. */
  testid: string;
  /** A slice's value as shown, e.g. "1,234.5 us". */
  format: (v: number) => string;
  emptyText?: string;
  /** A slice's share in the legend (default one decimal: "12.3 %"); the Tensor Core pie gives the Overview's formatPct. */
  pct?: (pct: number) => string;
}

const R = 56;

/**
 * A pie drawn as plain SVG paths, with a legend (label and share of each slice, as text) and a
 * hover line naming the slice under the pointer with its value and share.
 */
export function PieChart({ title, slices, testid, format, emptyText = 'Nothing to show.', pct = (p) => `${p.toFixed(1)} %` }: Props) {
  const [hover, setHover] = useState<number | null>(null);
  const arcs = pieArcs(slices, 60, 60, R);
  // Shortened so that names differing late still differ; the full name is the row's hover text.
  const legend = legendLabels(slices.map((s) => s.label));
  return (
    <figure class="pie" data-testid={testid}>
      <figcaption class="pie-title">{title}</figcaption>
      {!slices.length ? (
        <p class="muted" data-testid={`${testid}-empty`}>
          {emptyText}
        </p>
      ) : (
        <div class="pie-body" onMouseLeave={() => setHover(null)}>
          <svg viewBox="0 0 120 120" role="img" aria-label={title}>
            {arcs.map((a, k) => (
              <path
                key={k}
                d={a.d}
                fill={slices[k].color}
                class={hover === k ? 'pie-slice hover' : 'pie-slice'}
                data-testid={`${testid}-slice`}
                data-label={slices[k].label}
                onMouseEnter={() => setHover(k)}
              >
                <title>{sliceText(slices[k], format)}</title>
              </path>
            ))}
          </svg>
          <ul class="pie-legend" data-testid={`${testid}-legend`}>
            {slices.map((s, k) => (
              <li key={k} class={hover === k ? 'hover' : undefined} title={sliceText(s, format)} onMouseEnter={() => setHover(k)}>
                <span class="ov-swatch" style={{ background: s.color }} />
                <span class="pie-label">{legend[k]}</span>
                <span class="pie-pct">{pct(s.pct)}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      <p class="pie-hover" data-testid={`${testid}-hover`} aria-live="polite">
        {hover != null && slices[hover] ? sliceText(slices[hover], format) : '\u00a0'}
      </p>
    </figure>
  );
}
