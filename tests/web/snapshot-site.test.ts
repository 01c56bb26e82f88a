import { describe, expect, it } from 'vitest';
import { shortSite } from '../../web/src/lib/snapshot';

describe('shortSite', () => {
  it('keeps the last two path parts, the line and the function', () => {
    expect(shortSite('/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/linear.py:125:forward')).toBe('…/modules/linear.py:125:forward');
    expect(shortSite('/home/user/kt/make_traces.py:429:run_vit_timm')).toBe('…/kt/make_traces.py:429:run_vit_timm');
  });
  it('keeps short labels and <...> labels whole', () => {
    expect(shortSite('model.py:7:forward')).toBe('model.py:7:forward');
    expect(shortSite('kt/make_traces.py:429:run')).toBe('kt/make_traces.py:429:run');
    expect(shortSite('<allocated before the history began>')).toBe('<allocated before the history began>');
    expect(shortSite('<no stack: /a/b/c/d>')).toBe('<no stack: /a/b/c/d>');
  });
});
