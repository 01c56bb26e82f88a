import { useEffect, useRef, useState } from 'preact/hooks';
import { SESSION_GONE, TRAP, type QueryOf, type QueryWhat, type ResultOf } from '../worker/protocol';

/** Asks a loaded file's Session (through the app, which knows the worker and the file). */
export type Ask = <W extends QueryWhat>(q: QueryOf<W>) => Promise<ResultOf<W>>;

export type QueryState<T, Q = unknown> =
  | { status: 'loading' }
  /** `asked`: the question this answers. */
  | { status: 'ready'; data: T; asked: Q }
  /** gone: the Session is no more (worker restarted, e.g. after a trap), not a failed computation. */
  | { status: 'error'; message: string; gone: boolean };

/**
 * The answer to `q` (null: ask nothing), asked again whenever the question or `ask` changes. An
 * answer to a question that is no longer the current one is dropped, so a slow answer never
 * overwrites a newer one.
 */
export function useQuery<W extends QueryWhat>(ask: Ask, q: QueryOf<W> | null): QueryState<ResultOf<W>, QueryOf<W>> {
  const [state, setState] = useState<QueryState<ResultOf<W>, QueryOf<W>>>({ status: 'loading' });
  const key = q ? JSON.stringify(q) : '';
  useEffect(() => {
    if (!q) return;
    let live = true;
    setState({ status: 'loading' });
    ask(q).then(
      (data) => live && setState({ status: 'ready', data, asked: q }),
      (e: Error) => live && setState({ status: 'error', message: e?.message || String(e), gone: e?.name === SESSION_GONE || e?.name === TRAP }),
    );
    return () => {
      live = false;
    };
    // The question is compared by value (key), not by object identity.
  }, [key, ask]);
  return state;
}

/** The same question, compared by value. */
export function sameQuery(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * useQuery, plus the last answer while a newer question is being answered (`shown`, with the
 * question it answers, for as long as `keep(asked)` holds), so a view can keep showing it —
 * saying it is being replaced — instead of going blank and losing its scroll and selection.
 * `fresh`: `shown` answers `q` itself.
 */
export function useQueryKeeping<W extends QueryWhat>(ask: Ask, q: QueryOf<W>, keep: (asked: QueryOf<W>) => boolean) {
  const state = useQuery(ask, q);
  const last = useRef<{ data: ResultOf<W>; asked: QueryOf<W> } | null>(null);
  if (state.status === 'ready') last.current = { data: state.data, asked: state.asked };
  const shown = last.current && (state.status !== 'error' || sameQuery(last.current.asked, q)) && keep(last.current.asked) ? last.current : null;
  return { state, shown, fresh: !!shown && sameQuery(shown.asked, q) };
}
