import { useLayoutEffect } from 'preact/hooks';

/**
 * Calls `measure(el)` once `ref`'s element is laid out, and again whenever its size changes
 * (a ResizeObserver, where the browser has one). `measure` is the one of the first render: it
 * should read the element and set state, nothing that changes between renders.
 */
export function useResize<T extends Element>(ref: { current: T | null }, measure: (el: T) => void): void {
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const run = () => measure(el);
    run();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(run);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
}
