// The Ranges view as the page's worker gets it (Session.query('ranges'): typed-array columns and
// the strings as UTF-8, no JSON text), and the Diff's user-range anchors, through the wasm module in Node: the hand-made
// user-ranges-nested.json's numbers (tests/data/README.md) and the GPT trace recorded on an H200.
// usage: node tests/golden/wasm_user_ranges_test.mjs build/wasm/kinetoscope_node.js
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { readBytes, repo, report } from './independent_count.mjs';

const require = createRequire(import.meta.url);
const mod = await require(path.resolve(process.argv[2]))();

function session(file) {
  const s = new mod.Session();
  const bytes = readBytes(file);
  for (let i = 0; i < bytes.length; i += 1 << 20) {
    const part = bytes.subarray(i, Math.min(i + (1 << 20), bytes.length));
    const off = s.prepare(part.length);
    mod.HEAPU8.set(part, off);
    s.commit(part.length);
  }
  s.finish();
  return s;
}

// The answer's columns, its string columns read through its strings (as lib/answer.ts does).
function ranges(s) {
  const a = s.query('ranges', {});
  if (a.error) throw new Error(a.error);
  const strings = new TextDecoder().decode(a.stringBytes).split('\0').slice(0, a.stringCount);
  const str = (ids) => Array.from(ids, (i) => strings[i]);
  return { key: str(a.columns.key), parent: a.columns.parent, columns: a.columns, ...JSON.parse(a.meta) };
}

const COLUMNS = ['calls', 'host_us', 'self_host_us', 'device_us', 'self_device_us', 'tensor_core_pct', 'gpu_ranges', 'gpu_range_us', 'gpu_range_device_us', 'first_start_us', 'first_end_us'];
const results = [];
{
  const diffs = [];
  const s = session(path.join(repo, 'tests/data/user-ranges-nested.json'));
  const r = ranges(s);
  if (!Array.isArray(r.key) || r.key.join() !== 'outer,outer/inner,prefetch') diffs.push(`keys ${r.key}`);
  if (!(r.parent instanceof Int32Array) || [...r.parent].join() !== '-1,0,-1') diffs.push(`parent ${r.parent}`);
  for (const c of COLUMNS) if (!(r.columns[c] instanceof Float64Array) || r.columns[c].length !== 3) diffs.push(`column ${c}: ${r.columns[c]}`);
  const want = {
    calls: [3, 2, 1],
    host_us: [170, 60, 50],
    self_host_us: [110, 60, 50],
    device_us: [64, 50, 6],
    self_device_us: [14, 50, 6],
    tensor_core_pct: [(100 * 50) / 60, 100, NaN],
    gpu_ranges: [1, 2, 0],
    gpu_range_us: [14, 50, NaN],
    gpu_range_device_us: [14, 56, NaN],
  };
  for (const [c, w] of Object.entries(want))
    w.forEach((v, i) => {
      const g = r.columns[c]?.[i];
      if (Number.isNaN(v) ? !Number.isNaN(g) : Math.abs(g - v) > 1e-9) diffs.push(`${r.key[i]} ${c}: ${g}, expected ${v}`);
    });
  if (r.calls !== 6 || r.show_gpu !== true || r.gpu_copies !== true) diffs.push(`calls ${r.calls}, show_gpu ${r.show_gpu}, gpu_copies ${r.gpu_copies}`);
  const k = JSON.parse(s.queryJson('range_kernels', { key: 'outer' }));
  if (k.range !== 'outer' || k.kernels.length !== 2 || k.kernels[0].total_us !== 50 || k.kernels[0].tensor_cores !== true) diffs.push(`kernels ${JSON.stringify(k)}`);
  const kc = s.query('range_kernels', { key: 'outer' });
  if (kc.rowCount !== 2 || !(kc.columns.total_us instanceof Float64Array) || kc.columns.total_us[0] !== 50 || kc.columns.tensor_cores[0] !== 1)
    diffs.push('range_kernels columns');
  if (!s.query('range_kernels', { key: 'nowhere' }).error) diffs.push('an unknown key should answer an error');
  s.delete();
  results.push({ name: 'wasm ranges answer: user-ranges-nested.json (hand-computed)', diffs });
}
{
  const diffs = [];
  const dir = path.join(repo, 'tests/data/h200_pt211/gpt_modulelist');
  const file = path.join(dir, fs.readdirSync(dir).find((f) => f.endsWith('.json.gz')));
  const a = session(file), b = session(file);
  const r = ranges(a);
  const row = (key) => r.key.indexOf(key);
  for (const m of ['fp8_scaled_mm', 'bf16_mm', 'tf32_mm', 'fp32_mm']) {
    const i = row(`mixed_precision_matmuls/${m}`);
    if (i < 0 || r.columns.calls[i] !== 2) diffs.push(`${m}: row ${i}, calls ${r.columns.calls[i]}`);
  }
  if (!(r.columns.tensor_core_pct[row('mixed_precision_matmuls/fp8_scaled_mm')] > 0)) diffs.push('fp8_scaled_mm: no Tensor Core time');
  if (r.columns.tensor_core_pct[row('mixed_precision_matmuls/fp32_mm')] !== 0) diffs.push('fp32_mm: Tensor Core time');
  if (r.key.some((k) => k.startsWith('ProfilerStep#'))) diffs.push('a ProfilerStep row');
  // The Diff of the trace against itself pairs the user's ranges: forward, ..., fp8_scaled_mm.
  const d = a.query('diff', { baseline: 'a', experiment: 'b' }, b);
  if (d.error) diffs.push(`diff: ${d.error}`);
  const strings = new TextDecoder().decode(d.stringBytes).split('\0');
  const names = [...d.columns.name].map((i) => strings[i]);
  for (const want of ['forward', 'backward', 'optimizer', 'mixed_precision_matmuls', 'fp8_scaled_mm', 'fp32_mm'])
    if (!names.includes(want)) diffs.push(`diff has no ${want} node`);
  a.delete();
  b.delete();
  results.push({ name: 'wasm ranges and diff answers: h200_pt211/gpt_modulelist', diffs });
}
report(results, 0);
