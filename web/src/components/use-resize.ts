import { useLayoutEffect } from 'preact/hooks';

// Every useResize shares one ResizeObserver. Its callback gets all the elements whose size changed
// in a frame at once, laid out, and each `measure` reads its element before any of the states they
// set is rendered (Preact renders after the callback returns). With an observer each, Preact
// rendered between their callbacks, so each next read laid the page out again, and the first
// measure of each element, made at once on mount, laid it out too: ~70 ms of the main thread's
// forced layouts while a 480 MB trace loaded (docs/benchmarks.md, issue 12's seventh session).
const watchers = new Map<Element, Set<() => void>>();
let shared: ResizeObserver | null = null;

function observer(): ResizeObserver {
  shared ??= new ResizeObserver((entries) => {
    for (const e of entries) watchers.get(e.target)?.forEach((measure) => measure());
  });
  return shared;
}

/**
 * Calls `measure(el)` once `ref`'s element is laid out, and again whenever its size changes. With
 * a ResizeObserver (every browser the app runs in) the first call comes with the observer's first
 * report, after the frame's layout and before its paint; without one, at once on mount, and never
 * again. `measure` is the one of the first render: it should read the element and set state,
 * nothing that changes between renders.
 */
export function useResize<T extends Element>(ref: { current: T | null }, measure: (el: T) => void): void {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const run = () => measure(el);
    if (typeof ResizeObserver === 'undefined') {
      run();
      return;
    }
    let set = watchers.get(el);
    if (set) {
      run(); // already observed: its first report has gone to the others
    } else {
      set = new Set();
      watchers.set(el, set);
      observer().observe(el);
    }
    set.add(run);
    const mine = set;
    return () => {
      mine.delete(run);
      if (mine.size === 0 && watchers.get(el) === mine) {
        watchers.delete(el);
        observer().unobserve(el);
      }
    };
  }, []);
}
