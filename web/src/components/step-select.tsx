// The Step select of a trace's card: "All steps", then one option per step.
//
// A trace of thousands of steps (a 10 GiB trace has ~3,400) would put thousands of <option>s in
// the page in the task that draws the card: building and styling them took ~80 ms at 3,400 steps
// and ~175 ms at 10,000 in Chromium, however they are made. So the options come in slices
// (lib/step-options.ts), one slice per idle moment once the card is drawn; the chosen step's
// option is there from the start, and the select's first focus or press adds the rest at once,
// so the list it opens, its arrow keys and its type-to-find see every step.
import { Component } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Step } from '../lib/overview';
import { OPTION_SLICE, optionSlices } from '../lib/step-options';

/** The options of steps [start, end): rendered once, whatever the select around them does. */
class OptionSlice extends Component<{ steps: readonly Step[]; start: number; end: number }> {
  shouldComponentUpdate(next: { steps: readonly Step[]; start: number; end: number }) {
    return next.steps !== this.props.steps || next.start !== this.props.start || next.end !== this.props.end;
  }
  render() {
    const { steps, start, end } = this.props;
    const out = [];
    for (let i = start; i < end; i++) {
      out.push(
        <option value={String(i)} key={i}>
          {steps[i].name}
        </option>,
      );
    }
    return out;
  }
}

/** Runs `fn` when the page is idle (soon, at the latest); returns its cancel. */
function whenIdle(fn: () => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const h = requestIdleCallback(fn, { timeout: 200 });
    return () => cancelIdleCallback(h);
  }
  const h = setTimeout(fn, 16);
  return () => clearTimeout(h);
}

export function StepSelect({ steps, value, onChange }: { steps: readonly Step[]; value: string; onChange: (value: string) => void }) {
  const n = steps.length;
  // How many steps have their option so far (the first ones, in order).
  const [count, setCount] = useState(() => Math.min(n, OPTION_SLICE));
  const upTo = Math.min(count, n);
  useEffect(() => {
    if (upTo >= n) return;
    return whenIdle(() => setCount((c) => Math.min(n, c + OPTION_SLICE)));
  }, [upTo, n]);
  const all = () => {
    if (upTo < n) setCount(n);
  };
  const chosen = value === 'all' ? -1 : Number(value);
  return (
    <select data-testid="step-select" data-options={upTo} value={value} onFocus={all} onPointerDown={all} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
      <option value="all">All steps</option>
      {optionSlices(upTo).map(([start, end]) => (
        <OptionSlice key={start} steps={steps} start={start} end={end} />
      ))}
      {/* The chosen step before its slice has come (a link to a late step): its option, for now. */}
      {chosen >= upTo && chosen < n && (
        <option value={String(chosen)} key={`chosen-${chosen}`}>
          {steps[chosen].name}
        </option>
      )}
    </select>
  );
}
