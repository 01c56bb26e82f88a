import type { QueryState } from '../components/use-query';

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
