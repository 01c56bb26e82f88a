// The Snapshot page's allocator state and categories through the wasm module in Node (the code the
// browser worker runs): snapshot-state and snapshot-state-segments at a moment equal the native
// CLI's `kinetoscope snapshot --segments --json` (read from it, not recomputed here) before the
// history, at the peak, at the middle entry and at the dump; snapshot-categories equal
// `--categories --json`; the series' moment of most memory is the peak, its bytes the peak's; a
// paired export_memory_timeline answers as `--memory-timeline` does; bad asks answer a sentence.
// On the hand-made snapshots of tests/data/snapshots and the GPT sample (and the ViT sample with
// its export_memory_timeline when ../shared/traces is there).
// usage: node tests/golden/wasm_snapshot_state_test.mjs build/wasm/kinetoscope_node.js build/native/kinetoscope
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const require = createRequire(import.meta.url);
const createKinetoscope = require(path.resolve(process.argv[2]));
const cli = path.resolve(process.argv[3]);
assert.ok(fs.existsSync(cli), `the native CLI (${cli}) is built beside the wasm module`);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const mod = await createKinetoscope();

function load(file) {
  const bytes = fs.readFileSync(file);
  const s = new mod.SnapshotSession();
  s.setFile(path.basename(file));
  s.setTotalSize(bytes.length);
  for (let i = 0; i < bytes.length; i += 1 << 16) {
    const part = bytes.subarray(i, Math.min(i + (1 << 16), bytes.length));
    mod.HEAPU8.set(part, s.prepare(part.length));
    s.commit(part.length);
  }
  s.finish();
  return s;
}
const run = (args) => JSON.parse(execFileSync(cli, ['snapshot', '--json', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 }));
const ask = (s, view, params) => JSON.parse(s.queryJson(view, params));
const hex = (n) => `0x${BigInt(n).toString(16)}`;

function checkState(s, file, device, entry) {
  const want = run(['--segments', '--device', String(device), '--entry', String(entry), file]).devices[0];
  const params = { device: String(device), entry: String(entry) };
  const blocks = ask(s, 'snapshot-state', params);
  const segs = ask(s, 'snapshot-state-segments', params);
  const what = `${path.basename(file)} cuda:${device} entry ${entry}`;
  for (const k of ['entry', 'at_us', 'reserved_bytes', 'allocated_bytes', 'awaiting_free_bytes', 'requested_bytes', 'inactive_bytes',
    'largest_inactive_bytes', 'allocated_blocks', 'awaiting_free_blocks', 'inactive_blocks', 'inconsistencies'])
    assert.deepEqual(blocks[k], want[k], `${what}: ${k}`);
  assert.equal(blocks.segments, want.segments.length, `${what}: segments`);
  assert.equal(segs.rows.length, want.segments.length, `${what}: segment rows`);
  want.segments.forEach((g, i) => {
    const r = segs.rows[i];
    assert.deepEqual(
      { address: r.address, size: r.size, stream: r.stream, active_bytes: r.active_bytes, inactive_bytes: r.inactive_bytes, largest_inactive_bytes: r.largest_inactive_bytes, blocks: r.blocks },
      { address: hex(g.address), size: g.size, stream: g.stream, active_bytes: g.active_bytes, inactive_bytes: g.inactive_bytes, largest_inactive_bytes: g.largest_inactive_bytes, blocks: g.blocks.length },
      `${what}: segment ${i}`,
    );
    g.blocks.forEach((b, j) => {
      const x = blocks.rows[r.first_block + j];
      assert.equal(x.segment, i);
      assert.equal(x.address, hex(b.address), `${what}: block address`);
      assert.equal(x.offset_bytes, b.address - g.address);
      assert.equal(x.size, b.size, `${what}: block size`);
      assert.equal(x.state, b.state, `${what}: block state`);
      if (b.state !== 'inactive') {
        assert.equal(x.requested_bytes, b.requested_bytes);
        assert.equal(x.size_from_dump, b.size_from_dump);
        assert.equal(x.alloc_entry, b.alloc_entry);
        assert.equal(x.site, b.site, `${what}: block site`);
      } else {
        assert.equal(x.requested_bytes, null);
        assert.equal(x.site, null);
      }
    });
  });
  assert.equal(blocks.rows.length, want.segments.reduce((n, g) => n + g.blocks.length, 0), `${what}: blocks`);
  return want;
}

let checked = 0;
const samples = [
  'tests/data/snapshots/hand-made-protocol5.pickle',
  'tests/data/snapshots/segments-replayed-backwards.pickle',
  'tests/data/snapshots/expandable-segment-map-unmap.pickle',
  'tests/data/snapshots/categories-by-stack-rule.pickle',
  'tests/data/h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle',
];
// ../shared beside the checkout (or beside the folder of worktrees).
const vit = [path.join(repo, '..'), path.join(repo, '..', '..')].map((d) => path.join(d, 'shared', 'traces', 'h100_pt211', 'vit_timm')).find((d) => fs.existsSync(d)) ?? '';
if (fs.existsSync(path.join(vit, 'vit_timm.snapshot.pickle'))) samples.push(path.join(vit, 'vit_timm.snapshot.pickle'));
for (const rel of samples) {
  const file = path.resolve(repo, rel);
  const s = load(file);
  try {
    const summary = ask(s, 'snapshot-summary', {}).rows;
    for (const d of summary) {
      const n = d.trace_entries;
      const moments = n ? [-1, d.peak_entry, Math.floor(n / 2), n - 1] : [-1];
      for (const e of moments) checkState(s, file, d.device, e);
      // Without entry: the dump; at_us: the last entry at or before it.
      const dump = ask(s, 'snapshot-state-segments', { device: String(d.device) });
      assert.equal(dump.entry, n - 1);
      assert.equal(dump.dump, true);
      if (n && d.peak_at_us != null) {
        const at = ask(s, 'snapshot-state', { device: String(d.device), at_us: String(d.peak_at_us) });
        const want = run(['--segments', '--device', String(d.device), '--at-us', String(d.peak_at_us), file]).devices[0];
        assert.equal(at.entry, want.entry);
        assert.equal(at.allocated_bytes, want.allocated_bytes);
      }
      // The categories at the peak, as --categories --json prints them.
      const cats = run(['--categories', '--device', String(d.device), file]).devices[0].moments[0];
      const got = ask(s, 'snapshot-categories', { device: String(d.device) });
      assert.equal(got.moment, 'peak');
      assert.equal(got.entry, cats.entry);
      assert.equal(got.at_us, cats.at_us);
      assert.equal(got.total_bytes, cats.total_bytes);
      assert.equal(got.total_bytes, d.peak_allocated_bytes, `${rel}: the categories add up to the peak`);
      assert.deepEqual(
        Object.fromEntries(got.rows.map((r) => [r.category, { bytes: r.bytes, allocations: r.allocations }])),
        cats.by_stacks,
        `${rel} cuda:${d.device}: categories at the peak`,
      );
      if (n) {
        // An entry asked: --categories --entry's second moment.
        const mid = Math.floor(n / 2);
        const asked = run(['--categories', '--device', String(d.device), '--entry', String(mid), file]).devices[0].moments[1];
        const a = ask(s, 'snapshot-categories', { device: String(d.device), entry: String(mid) });
        assert.equal(a.moment, 'asked');
        assert.deepEqual(Object.fromEntries(a.rows.map((r) => [r.category, { bytes: r.bytes, allocations: r.allocations }])), asked.by_stacks);
        // The series: its highest moment is the peak (each run of positions given at its highest).
        for (const points of ['1', '7', String(n + 1)]) {
          const series = ask(s, 'snapshot-categories-series', { device: String(d.device), points }).rows;
          assert.ok(series.length <= Number(points), `${rel}: at most ${points} moments`);
          const totals = series.map((r) => r.parameters + r.optimizer_state + r.activations + r.gradients + r.temporaries + r.unknown);
          const top = totals.indexOf(Math.max(...totals));
          assert.equal(totals[top], d.peak_allocated_bytes, `${rel}: the series reaches the peak (${points} points)`);
          assert.equal(series[top].entry, d.peak_entry, `${rel}: at the peak's entry (${points} points)`);
          for (const k of Object.keys(cats.by_stacks)) assert.equal(series[top][k], cats.by_stacks[k].bytes, `${rel}: ${k} at the peak in the series`);
        }
      }
      checked++;
    }
    const n0 = summary[0].trace_entries;
    assert.equal(
      s.query('snapshot-state', { entry: String(n0) }).error,
      n0 === 0
        ? `device ${summary[0].device} has no history: only entry -1 (the dump) can be shown.`
        : `device ${summary[0].device}'s history has ${n0} entries (0 to ${n0 - 1}; -1: before the first); entry ${n0} is not one.`,
    );
    assert.equal(s.query('snapshot-state', { entry: 'x' }).error, 'entry takes an entry number (-1: before the first), not "x".');
    assert.equal(s.query('snapshot-categories-series', { points: '0' }).error, 'points takes 1 to 20,000, not "0".');
    assert.equal(s.query('snapshot-memory-timeline', {}).error, 'No export_memory_timeline file is paired with this snapshot.');
  } finally {
    s.delete();
  }
}

// Pairing an export_memory_timeline: the same numbers as --memory-timeline.
function checkPaired(snapshot, timeline, text) {
  const s = load(snapshot);
  try {
    const name = path.basename(timeline);
    assert.equal(s.setMemoryTimeline(name, '[{"ph": "X"}]').startsWith(`${name}: `), true, 'a trace is refused');
    assert.equal(s.setMemoryTimeline(name, text), '');
    const want = run(['--categories', '--memory-timeline', timeline, snapshot]);
    const got = ask(s, 'snapshot-memory-timeline', { file: name });
    assert.equal(got.file, name);
    assert.equal(got.samples, want.memory_timeline.samples);
    assert.equal(got.first_us, want.memory_timeline.first_us);
    assert.equal(got.last_us, want.memory_timeline.last_us);
    const { matched, sample_us, ...bytes } = want.devices[0].moments[0].from_memory_timeline;
    assert.equal(got.matched, matched);
    assert.equal(got.sample_us, sample_us);
    assert.deepEqual(Object.fromEntries(got.rows.map((r) => [r.category, r.bytes])), bytes);
    const series = ask(s, 'snapshot-memory-timeline-series', { file: name }).rows;
    assert.equal(series.length, Math.min(1000, want.memory_timeline.samples));
    assert.ok(series[0].time_us >= want.memory_timeline.first_us && series.at(-1).time_us <= want.memory_timeline.last_us);
    // Each run of samples at its highest: the file's own peak is among them (the unmatched moment's row).
    const totals = series.map(({ time_us, ...r }) => Object.values(r).reduce((a, b) => a + b, 0));
    if (!matched) assert.equal(Math.max(...totals), Object.values(bytes).reduce((a, b) => a + b, 0), 'the series holds the file\'s peak');
    assert.equal(s.query('snapshot-memory-timeline', { file: 'other.json' }).error, `The export_memory_timeline paired with this snapshot is ${name}, not other.json.`);
    checked++;
    return got;
  } finally {
    s.delete();
  }
}
const byHand = path.join(repo, 'tests/data/snapshots/memory-timeline-by-hand.json');
checkPaired(path.join(repo, 'tests/data/snapshots/hand-made-protocol5.pickle'), byHand, fs.readFileSync(byHand, 'utf8'));
if (fs.existsSync(path.join(vit, 'memory_timeline.json.gz'))) {
  const gz = path.join(vit, 'memory_timeline.json.gz');
  const got = checkPaired(path.join(vit, 'vit_timm.snapshot.pickle'), gz, zlib.gunzipSync(fs.readFileSync(gz)).toString('utf8'));
  // docs/snapshots.md: the profiler ran on other steps; its own peak.
  assert.equal(got.matched, false);
  assert.equal(got.rows.find((r) => r.category === 'parameters').bytes, 86816656);
}
console.log(`wasm snapshot state: ${checked} devices and pairings checked against the CLI`);
