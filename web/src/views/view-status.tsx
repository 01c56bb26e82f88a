import { useQueryKeeping, type Ask, type QueryState } from '../components/use-query';
import type { QueryOf } from '../worker/protocol';

/** What a view shows while its query runs or after it failed; null once the answer is in. */
export function QueryStatus({ state, stem, what, loading }: { state: QueryState<unknown>; stem: string; what: string; loading: string }) {
  if (state.status === 'loading') {
    return (
      <p class="muted" data-testid={`${stem}-loading`}>
        {loading}
      </p>
    );
  }
  if (state.status === 'error') {
    return (
      <p class="file-error" role="alert" data-testid={state.gone ? `${stem}-gone` : `${stem}-error`}>
        {state.gone
          ? `This file's analysis is no longer loaded (the analysis worker restarted after an error). Open the file again to see its ${what}.`
          : `The ${what} could not be computed: ${state.message}`}
      </p>
    );
  }
  return null;
}

/**
 * Which step the table below covers: "All steps", or "Step 5 only" (`step` is the step of the
 * table shown; while another is being computed, `pending` names it). `what` says what a step's
 * table counts, for the hover text.
 */
export function StepScope({ stem, step, pending, what }: { stem: string; step: string | null; pending?: string | null; what: string }) {
  const one = step != null;
  return (
    <span
      class={one ? 'table-step one' : 'table-step'}
      data-testid={`${stem}-step-scope`}
      data-step={step ?? ''}
      title={one ? `This table counts only ${what} in step ${step}.` : `This table counts ${what} in the whole trace, in every step and outside them.`}
    >
      {one ? `Step ${step} only` : 'All steps'}
      {pending !== undefined && pending !== step && (
        <span class="muted" data-testid={`${stem}-step-pending`}>
          {' '}
          → {pending == null ? 'all steps' : `step ${pending}`}…
        </span>
      )}
    </span>
  );
}

/**
 * A view's table of one grouping, for the whole trace (step null) or one step: the answer shown
 * (the last one of this grouping while a new step's is computed), whether it is the step asked
 * for, and the step it counts. With the status line to show above it (`status`).
 */
export function useStepTable<W extends 'operators' | 'kernels'>(ask: Ask, what: W, groupBy: QueryOf<W>['groupBy'], step: string | null, peak: string | null = null) {
  const q = { what, groupBy, ...(step == null ? {} : { step }), ...(peak ? { peak } : {}) } as QueryOf<W>;
  // (Both questions have a grouping and a step; TypeScript cannot see it through the generic.)
  const { state, shown, fresh } = useQueryKeeping(ask, q, (asked) => (asked as { groupBy: string }).groupBy === groupBy);
  const shownStep = shown ? (shown.asked as { step?: string }).step ?? null : step;
  const noun = what === 'operators' ? 'operator' : 'kernel';
  const status =
    !shown || state.status === 'loading' ? (
      <QueryStatus
        state={state}
        stem={what === 'operators' ? 'op' : 'kernel'}
        what={what}
        loading={step == null ? `Computing the ${noun} table…` : `Computing the ${noun} table of step ${step}…`}
      />
    ) : null;
  return { shown, fresh, shownStep, status, pending: fresh || !shown ? undefined : step };
}
