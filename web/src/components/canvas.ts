// What a canvas drawn by hand needs (the Snapshot page's timeline and segments): its 2D context
// sized to the device's pixels and cleared, the page's colours read from the CSS variables of the
// current scheme, and a counter that changes when the light/dark scheme does, so a drawing effect
// that depends on it draws again.
import { useEffect, useState } from 'preact/hooks';

export interface CanvasColors {
  fg: string;
  muted: string;
  border: string;
  dark: boolean;
}

export function readCanvasColors(el: Element): CanvasColors {
  const s = getComputedStyle(el);
  const v = (n: string, f: string) => s.getPropertyValue(n).trim() || f;
  const dark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
  return { fg: v('--fg', '#1b1c1f'), muted: v('--muted', '#5f6470'), border: v('--border', '#d0d4dc'), dark };
}

/** A number that changes each time the light/dark scheme does. */
export function useSchemeChanges(): number {
  const [scheme, setScheme] = useState(0);
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const m = matchMedia('(prefers-color-scheme: dark)');
    const on = () => setScheme((x) => x + 1);
    m.addEventListener?.('change', on);
    return () => m.removeEventListener?.('change', on);
  }, []);
  return scheme;
}

/** The canvas sized `width` x `height` CSS pixels at the device's pixel ratio, cleared, its context drawing in CSS pixels (null: none). */
export function canvasContext(cv: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D | null {
  const dpr = window.devicePixelRatio || 1;
  cv.width = Math.round(width * dpr);
  cv.height = Math.round(height * dpr);
  const ctx = cv.getContext('2d');
  if (!ctx) return null;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return ctx;
}
