import { describe, expect, it } from 'vitest';
import { keyFromText, rowsModel } from '../../web/src/lib/table-model';
import {
  formatPlace,
  knownGroup,
  knownSort,
  parsePlace,
  pendingTablePlace,
  stepIndexOf,
  stepNameOf,
  tablePlace,
  type Place,
} from '../../web/src/lib/deep-link';

describe('formatPlace', () => {
  it('writes the fields in a fixed order, whatever order the place has them in', () => {
    const p: Place = { row: 'aten::mm', q: 'mm', sort: { column: 'host_total_us', dir: 'asc' }, group: 'op+shape', step: '5', view: 'operators', file: 'rank-0.json.gz' };
    expect(formatPlace(p)).toBe('file=rank-0.json.gz&view=operators&step=5&group=op%2Bshape&sort=host_total_us.asc&q=mm&row=aten%3A%3Amm');
  });
  it('leaves out what is the default: the Overview, empty fields, absent ones', () => {
    expect(formatPlace({ file: 'a.json', view: 'overview' })).toBe('file=a.json');
    expect(formatPlace({ file: 'a.json', view: 'kernels', q: '', row: '', step: undefined })).toBe('file=a.json&view=kernels');
    expect(formatPlace({})).toBe('');
  });
  it('never writes a sort it could not read back', () => {
    expect(formatPlace({ sort: { column: 'a b', dir: 'asc' } })).toBe('');
    expect(formatPlace({ sort: { column: 'calls', dir: 'sideways' as 'asc' } })).toBe('');
  });
  it('escapes what would end a field or the hash', () => {
    const h = formatPlace({ q: 'a&b=c#d e', row: '<img src=x>' });
    expect(h).not.toMatch(/[#<> ]/);
    expect(h.split('&')).toHaveLength(2);
  });
});

describe('parsePlace', () => {
  it('reads a hash with or without its #', () => {
    const want: Place = { file: 'x.json', view: 'kernels', group: 'props', sort: { column: 'total_us', dir: 'desc' } };
    expect(parsePlace('#file=x.json&view=kernels&group=props&sort=total_us.desc')).toEqual(want);
    expect(parsePlace('file=x.json&view=kernels&group=props&sort=total_us.desc')).toEqual(want);
  });
  it('reads nothing from an empty hash', () => {
    expect(parsePlace('')).toEqual({});
    expect(parsePlace('#')).toEqual({});
  });
  it('drops unknown keys and invalid values, keeping the rest', () => {
    expect(parsePlace('#view=nosuchview&sort=total_us&foo=bar&file=a.json')).toEqual({ file: 'a.json' });
    expect(parsePlace('#sort=total_us.up&q=&row=')).toEqual({});
    expect(parsePlace('#sort=.asc')).toEqual({});
  });
  it('takes the first of a repeated key', () => {
    expect(parsePlace('#view=kernels&view=operators')).toEqual({ view: 'kernels' });
  });
  it('never throws on malformed text', () => {
    for (const h of ['#%', '#%E0%A4%A', '#&&&==&', '#=x', '#file', '#\u0000\uffff', '#' + '%'.repeat(1000), '#q=%ZZ']) {
      expect(() => parsePlace(h)).not.toThrow();
    }
    expect(parsePlace('#file')).toEqual({});
  });
  it('reads + as a space, as the writer writes spaces', () => {
    expect(parsePlace('#q=add+mm')).toEqual({ q: 'add mm' });
  });
});

describe('round trip', () => {
  const odd = [
    'aten::add_ [[1, 2], [3]]',
    'a&b=c',
    '#hash?query',
    'percent %20 and %',
    'plus + plus',
    '<img src=x onerror=alert(1)>',
    'ünïcödé 名前 🚀',
    "quotes \" ' and `ticks`",
    'trailing space ',
    ' leading space',
    'sgemm_<b>"quoted"</b> #2',
    'tab\tand\nnewline',
  ];
  it('brings back every field, odd characters included', () => {
    for (const s of odd) {
      const p: Place = { file: s, view: 'operators', step: s, group: 'op+shape', sort: { column: 'tc_self_pct', dir: 'desc' }, q: s, row: s };
      expect(parsePlace('#' + formatPlace(p))).toEqual(p);
    }
  });
  it('is stable: formatting what was read gives the same hash', () => {
    const h = formatPlace({ file: 'r.json.gz', view: 'kernels', row: 'k <1> & 2', q: 'a b' });
    expect(formatPlace(parsePlace(h))).toBe(h);
  });
  it('survives the browser: the hash as location.hash keeps it (no #, & or space left raw)', () => {
    const h = formatPlace({ q: 'a #b&c', row: 'x y' });
    // A URL keeps an already-encoded hash as it is.
    expect(new URL('https://k.example/app/?url=t.json#' + h).hash).toBe('#' + h);
    expect(parsePlace(new URL('https://k.example/#' + h).hash)).toEqual({ q: 'a #b&c', row: 'x y' });
  });
});

describe('tablePlace', () => {
  const def = { column: 'device_self_us', dir: 'desc' } as const;
  it('says only what differs from the view as it opens', () => {
    expect(tablePlace('op', 'op', { sort: def, search: '', selected: null }, def)).toEqual({});
    expect(tablePlace('op', 'op', null, def)).toEqual({});
  });
  it('names the grouping, a sorting other than the first, the search and the row', () => {
    expect(tablePlace('op+shape', 'op', { sort: { column: 'device_self_us', dir: 'asc' }, search: 'conv', selected: 'aten::conv2d [[1]]' }, def)).toEqual({
      group: 'op+shape',
      sort: { column: 'device_self_us', dir: 'asc' },
      q: 'conv',
      row: 'aten::conv2d [[1]]',
    });
  });
  it('writes a number key as text', () => {
    expect(tablePlace('name', 'name', { sort: null, search: '', selected: 0 }, null)).toEqual({ row: '0' });
  });
  it('keeps a link\'s table state while its table is being computed', () => {
    const start = { group: 'props', sort: { column: 'calls', dir: 'asc' as const }, q: 'gemm', row: 'k' };
    expect(pendingTablePlace('props', 'name', start)).toEqual(start);
    expect(pendingTablePlace('name', 'name', undefined)).toEqual({});
    expect(pendingTablePlace('props', 'name', undefined)).toEqual({ group: 'props' });
  });
});

describe('applying a place', () => {
  const model = rowsModel(
    [{ k: 'a&b' }, { k: '<img src=x>' }, { k: 'ü 名' }],
    (r) => r.k,
    [{ id: 'name', label: 'Name', type: 'text', get: (r) => r.k }],
  );
  const byIndex = rowsModel([1, 2, 3], (_r, i) => i, [{ id: 'n', label: 'N', type: 'number', get: (r) => r }]);
  it('finds a row by its key as text, numbers included, and nothing for a key no row has', () => {
    expect(keyFromText(model, '<img src=x>')).toBe('<img src=x>');
    expect(keyFromText(model, 'ü 名')).toBe('ü 名');
    expect(keyFromText(model, 'missing')).toBeNull();
    expect(keyFromText(model, null)).toBeNull();
    expect(keyFromText(byIndex, '2')).toBe(2);
    expect(keyFromText(byIndex, '02')).toBeNull();
  });
  it('takes a sorting only on a column the table has', () => {
    const fallback = { column: 'name', dir: 'asc' } as const;
    expect(knownSort(model, { column: 'name', dir: 'desc' }, fallback)).toEqual({ column: 'name', dir: 'desc' });
    expect(knownSort(model, { column: 'gone', dir: 'desc' }, fallback)).toBe(fallback);
    expect(knownSort(model, undefined, null)).toBeNull();
  });
  it('takes a grouping only when the view has it', () => {
    expect(knownGroup('op+shape', ['op', 'op+shape'] as const)).toBe('op+shape');
    expect(knownGroup('props', ['op', 'op+shape'] as const)).toBe('op');
    expect(knownGroup(undefined, ['name', 'props'] as const)).toBe('name');
  });
  it('maps a step name to its index and back; an unknown name is all steps', () => {
    const steps = [{ name: '3' }, { name: '4' }, { name: 'ProfilerStep#5' }];
    expect(stepIndexOf(steps, '4')).toBe('1');
    expect(stepIndexOf(steps, 'ProfilerStep#5')).toBe('2');
    expect(stepIndexOf(steps, '9')).toBe('all');
    expect(stepIndexOf(steps, undefined)).toBe('all');
    expect(stepNameOf(steps, '1')).toBe('4');
    expect(stepNameOf(steps, 'all')).toBeUndefined();
    expect(stepNameOf(steps, '7')).toBeUndefined();
    expect(stepNameOf(steps, '1.5')).toBeUndefined();
  });
});
