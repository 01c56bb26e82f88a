import { describe, expect, it } from 'vitest';
import { buildFlame, colorIndex, fitLabel, focus, hit, layout, MIN_SPAN_US, pan, step, zoom, type FlameSource } from '../../web/src/lib/flame';

// A thread as lib/modules.ts gives it (pre-order, parents by index):
//  0 step [0,300)                       (not drawn)
//  1   Net [10,110)                     level 0
//  2     Block [12,62)                  level 1
//  3       aten::linear [15,33)         (not drawn)
//  4         Linear [16,32)             level 2 (its drawn ancestor is Block, through an operator)
//  5     ReLU [64,74)                   level 1
//  6   Net.backward [150,250)           level 0
//  7     ReLU.backward [190,200)        level 1
const src: FlameSource = {
  rowCount: 8,
  kind: ['step', 'module', 'module', 'operator', 'module', 'module', 'backward', 'backward'],
  startUs: [0, 10, 12, 15, 16, 64, 150, 190],
  endUs: [300, 110, 62, 33, 32, 74, 250, 200],
  parent: [-1, 0, 1, 2, 3, 1, 0, 6],
};

describe('flame graph layout', () => {
  const f = buildFlame(src);
  it('draws module and backward nodes, a level per drawn ancestor', () => {
    expect([...f.nodes]).toEqual([1, 2, 4, 5, 6, 7]);
    expect([...f.level]).toEqual([0, 1, 2, 1, 0, 1]);
    expect([...f.up]).toEqual([-1, 0, 1, 0, -1, 4]);
    expect(f.levels).toBe(3);
    expect([f.startUs, f.endUs]).toEqual([10, 250]);
    expect(f.at[3]).toBe(-1);
    expect(f.at[4]).toBe(2);
  });

  it('lays boxes out in the window: 240 us over 480 px is 2 px per us', () => {
    const boxes = layout(f, src, { from: 10, to: 250 }, 480, 20);
    const net = boxes.find((b) => b.k === 0)!;
    expect(net).toEqual({ k: 0, x: 0, y: 0, w: 200, h: 20 });
    const linear = boxes.find((b) => b.k === 2)!;
    expect(linear).toEqual({ k: 2, x: 12, y: 40, w: 32, h: 20 });
    // Zoomed on [100, 200]: Net's end is cut at the left edge, Block and Linear are out.
    const z = layout(f, src, { from: 100, to: 200 }, 100, 20);
    expect(z.map((b) => b.k)).toEqual([0, 4, 5]);
    expect(z[0]).toMatchObject({ x: 0, w: 10 });
    // Boxes under half a pixel are left out.
    expect(layout(f, src, { from: 10, to: 250 }, 4, 20).some((b) => b.k === 2)).toBe(false);
    expect(layout(f, src, { from: 10, to: 10 }, 480, 20)).toEqual([]);
  });

  it('hits the box under the pointer, none between rows of boxes', () => {
    const boxes = layout(f, src, { from: 10, to: 250 }, 480, 20);
    expect(hit(boxes, 20, 45)).toBe(2); // Linear at x 12..44, row 2
    expect(hit(boxes, 20, 5)).toBe(0);
    expect(hit(boxes, 250, 5)).toBe(-1); // the gap between Net and Net.backward
    expect(hit(boxes, 20, 70)).toBe(-1);
  });

  it('zooms around a point and stays inside the thread', () => {
    const whole = { from: 10, to: 250 };
    expect(zoom(whole, 0.5, 0.5, whole)).toEqual({ from: 70, to: 190 });
    // Around the left edge: the left edge stays put.
    expect(zoom(whole, 0, 0.5, whole)).toEqual({ from: 10, to: 130 });
    // Out beyond the whole: the whole.
    expect(zoom({ from: 70, to: 190 }, 0.5, 4, whole)).toEqual(whole);
    expect(zoom(whole, 0.5, 1e-9, whole).to - zoom(whole, 0.5, 1e-9, whole).from).toBeCloseTo(MIN_SPAN_US);
    expect(pan({ from: 70, to: 190 }, 1, whole)).toEqual({ from: 130, to: 250 });
    expect(pan({ from: 70, to: 190 }, -0.25, whole)).toEqual({ from: 40, to: 160 });
    // Focus on Block [12,62): a tenth of its width each side = [7,67), moved right to start at 10.
    expect(focus(f, src, 1, whole)).toEqual({ from: 10, to: 70 });
  });

  it('moves with the arrow keys', () => {
    expect(step(f, -1, 'right')).toBe(0);
    expect(step(f, 0, 'right')).toBe(4); // Net -> Net.backward, same row
    expect(step(f, 4, 'left')).toBe(0);
    expect(step(f, 0, 'down')).toBe(1);
    expect(step(f, 1, 'down')).toBe(2);
    expect(step(f, 2, 'down')).toBe(2); // no inner module
    expect(step(f, 2, 'up')).toBe(1);
    expect(step(f, 0, 'up')).toBe(0);
    expect(step(f, 1, 'right')).toBe(3); // Block -> ReLU
    expect(step(f, 3, 'right')).toBe(5); // ReLU -> ReLU.backward (next on row 1)
    expect(step(buildFlame({ ...src, kind: src.kind.map(() => 'operator') }), -1, 'down')).toBe(-1);
  });

  it('labels fit their box or are left out, colours are stable per name', () => {
    expect(fitLabel('Linear', 100, 6)).toBe('Linear');
    expect(fitLabel('TransformerEncoderLayer', 60, 6)).toBe('Transfor…');
    expect(fitLabel('Linear', 20, 6)).toBe('');
    expect(colorIndex('Linear', 12)).toBe(colorIndex('Linear', 12));
    expect(colorIndex('Linear', 12)).toBeGreaterThanOrEqual(0);
    expect(colorIndex('Linear', 12)).toBeLessThan(12);
  });
});
