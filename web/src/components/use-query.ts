import { useEffect, useState } from 'preact/hooks';
import { SESSION_GONE, TRAP, type QueryOf, type QueryWhat, type ResultOf } from '../worker/protocol';

/** Asks a loaded file's Session (through the app, which knows the worker and the file). */
export type Ask = <W extends QueryWhat>(q: QueryOf<W>) => Promise<ResultOf<W>>;

export type QueryState<T> =
  | { status: 'loading' }
  | { status: 'ready'; data: T }
  /** gone: the Session is no more (worker restarted, e.g. after a trap), not a failed computation. */
  | { status: 'error'; message: string; gone: boolean };

/**
 * The answer to `q` (null: ask nothing), asked again whenever the question or `ask` changes. An
 * answer to a question that is no longer the current one is dropped, so a slow answer never
 * overwrites a newer one.
 */
export function useQuery<W extends QueryWhat>(ask: Ask, q: QueryOf<W> | null): QueryState<ResultOf<W>> {
  const [state, setState] = useState<QueryState<ResultOf<W>>>({ status: 'loading' });
  const key = q ? JSON.stringify(q) : '';
  useEffect(() => {
    if (!q) return;
    let live = true;
    setState({ status: 'loading' });
    ask(q).then(
      (data) => live && setState({ status: 'ready', data }),
      (e: Error) => live && setState({ status: 'error', message: e?.message || String(e), gone: e?.name === SESSION_GONE || e?.name === TRAP }),
    );
    return () => {
      live = false;
    };
    // The question is compared by value (key), not by object identity.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, ask]);
  return state;
}
