import { describe, expect, it } from 'vitest';
import { shortcutFor } from '../../web/src/lib/shortcuts';

const press = (key: string, extra: Partial<Parameters<typeof shortcutFor>[0]> = {}) =>
  shortcutFor({ key, ctrlKey: false, metaKey: false, altKey: false, inText: false, ...extra });

describe('shortcutFor', () => {
  it('maps 1-9 to view positions, / to search, ? to help, Esc to escape', () => {
    expect(press('1')).toEqual({ kind: 'view', index: 0 });
    expect(press('9')).toEqual({ kind: 'view', index: 8 });
    expect(press('0')).toBeNull();
    expect(press('/')).toEqual({ kind: 'search' });
    expect(press('?')).toEqual({ kind: 'help' });
    expect(press('Escape')).toEqual({ kind: 'escape' });
    expect(press('a')).toBeNull();
  });
  it('leaves typing alone: in a text field only Esc acts', () => {
    expect(press('1', { inText: true })).toBeNull();
    expect(press('/', { inText: true })).toBeNull();
    expect(press('?', { inText: true })).toBeNull();
    expect(press('Escape', { inText: true })).toEqual({ kind: 'escape' });
  });
  it('leaves browser and OS shortcuts alone', () => {
    expect(press('1', { ctrlKey: true })).toBeNull();
    expect(press('/', { metaKey: true })).toBeNull();
    expect(press('Escape', { altKey: true })).toBeNull();
  });
});
