// A view's answer on the answer path (docs/contracts.md "Session and answers"), asked by the
// view's name and opened: its columns typed by the view's schema (generated/views.ts). A view
// asks through this; it needs no query kind, worker case or parser of its own.
import { useMemo } from 'preact/hooks';
import { openAnswer } from '../lib/answer';
import type { Answer, ViewName, Views } from '../generated/views';
import { useQuery, type Ask, type QueryState } from './use-query';

/** View `view`'s answer to `params` (null: ask nothing), asked again when they change. */
export function useAnswer<V extends ViewName>(ask: Ask, view: V, params: Views[V]['params'] | null): QueryState<Answer<V>> {
  const state = useQuery(ask, params ? { what: 'view', view, params: params as Record<string, string> } : null);
  const wire = state.status === 'ready' ? state.data.answer : null;
  // Opened once per answer: its strings decoded, its metadata read (a CoreError: the core's sentence).
  const opened = useMemo((): { answer: Answer<V> } | { error: string } | null => {
    if (!wire) return null;
    try {
      return { answer: openAnswer(view, wire) };
    } catch (e) {
      return { error: (e as Error)?.message || String(e) };
    }
  }, [wire, view]);
  if (state.status !== 'ready') return state;
  if (!opened) return { status: 'loading' };
  if ('error' in opened) return { status: 'error', message: opened.error, gone: false };
  return { status: 'ready', data: opened.answer, asked: state.asked };
}
