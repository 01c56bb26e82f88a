// `kinetoscope snapshot`'s analyses as the CLI prints them (cli/snapshot_analyses.cpp): the new oom
// keys of --json, --segments, --categories (with --memory-timeline) and --compare on the hand-made
// snapshots of tests/data/snapshots (numbers worked out by hand in tests/data/README.md,
// "Snapshot analyses"), and the sentences for what cannot be shown.
// usage: node tests/golden/snapshot_cli_test.mjs build/native/kinetoscope
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const cli = process.argv[2];
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const snap = (name) => path.join(repo, 'tests/data/snapshots', name);
const run = (args) => spawnSync(cli, ['snapshot', ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
const MiB = 1 << 20;
let failed = 0;

function check(label, fn) {
  const diffs = [];
  const eq = (what, got, want) => {
    if (JSON.stringify(got) !== JSON.stringify(want)) diffs.push(`${what}: ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  };
  try {
    fn(eq);
  } catch (e) {
    diffs.push(String(e));
  }
  console.log(`${diffs.length ? 'FAIL' : 'ok'} ${label}${diffs.length ? `\n  ${diffs.join('\n  ')}` : ''}`);
  if (diffs.length) failed++;
}

function json(args) {
  const r = run(args);
  if (r.status !== 0) throw new Error(`exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

check('the oom of --json with its fragmentation (segments-replayed-backwards)', (eq) => {
  const o = json(['--json', snap('segments-replayed-backwards.pickle')]).devices[0].ooms[0];
  eq('oom', o, {
    at_us: 107, entry: 7, requested_bytes: 30000000, device_free_bytes: 5000000, allocated_bytes: 21500000,
    reserved_bytes: 42 * MiB, alive_blocks: 3, alive_block_bytes: 22165504, inactive_bytes: 21874688,
    largest_inactive_bytes: 16 * MiB,
  });
  const text = run([snap('segments-replayed-backwards.pickle')]).stdout;
  eq('text line', text.includes('    then 21.1 MiB in 3 live blocks, 20.9 MiB cached but free (reserved - allocated), the largest free block 16.0 MiB\n'), true);
});

check('--segments at an entry and at a time (segments-replayed-backwards)', (eq) => {
  const d = json(['--segments', '--entry', '7', '--json', snap('segments-replayed-backwards.pickle')]).devices[0];
  eq('totals', [d.entry, d.at_us, d.reserved_bytes, d.allocated_bytes, d.allocated_blocks, d.inactive_bytes, d.largest_inactive_bytes],
    [7, 107, 42 * MiB, 22165504, 3, 21874688, 16 * MiB]);
  eq('S3', d.segments[2].blocks.map((b) => [b.state, b.size, b.alloc_entry ?? null]),
    [['inactive', 3000320, null], ['allocated', 16000000, 2], ['allocated', 1971200, 3]]);
  eq('site', d.segments[2].blocks[2].site, 'model.py:7:forward');
  const t = json(['--segments', '--at-us', '103', '--json', snap('segments-replayed-backwards.pickle')]).devices[0];
  eq('at 103 us', [t.entry, t.allocated_bytes, t.awaiting_free_bytes, t.awaiting_free_blocks], [3, 25165824, 1024, 1]);
  const dump = json(['--segments', '--json', snap('segments-replayed-backwards.pickle')]).devices[0];
  eq('the dump', [dump.entry, dump.reserved_bytes, dump.awaiting_free_bytes, dump.segments.length], [15, 22 * MiB, 2 * MiB, 2]);
});

check('--categories at the peak and at an entry (categories-by-stack-rule)', (eq) => {
  const d = json(['--categories', '--entry', '7', '--json', snap('categories-by-stack-rule.pickle')]).devices[0];
  const bytes = (m) => Object.fromEntries(Object.entries(m.by_stacks).map(([k, v]) => [k, v.bytes]));
  eq('moments', d.moments.map((m) => [m.moment, m.entry]), [['peak', 13], ['asked', 7]]);
  eq('peak', bytes(d.moments[0]), { parameters: 16096, optimizer_state: 28000, activations: 0, gradients: 12000, temporaries: 500, unknown: 12945 });
  eq('entry 7', bytes(d.moments[1]), { parameters: 16096, optimizer_state: 24000, activations: 1000, gradients: 12000, temporaries: 3000, unknown: 12945 });
  eq('total', d.moments[0].total_bytes, 69541);
});

check('--memory-timeline: the row at the time, or said unmatched (memory-timeline-by-hand)', (eq) => {
  const r = json(['--categories', '--at-us', '107', '--memory-timeline', snap('memory-timeline-by-hand.json'), '--json',
    snap('segments-replayed-backwards.pickle')]);
  eq('file', [r.memory_timeline.samples, r.memory_timeline.first_us, r.memory_timeline.last_us], [3, 100, 110]);
  const [peak, asked] = r.devices[0].moments.map((m) => m.from_memory_timeline);
  eq('at 107 us', asked, { matched: true, sample_us: 105, parameters: 1000, optimizer_state: 2000, inputs: 300, temporaries: 50,
    activations: 4000, gradients: 0, autograd_detail: 0, unknown: 7 });
  eq('the peak (103 us)', [peak.matched, peak.sample_us], [true, 100]);
  const u = json(['--categories', '--memory-timeline', snap('memory-timeline-by-hand.json'), '--json', snap('categories-by-stack-rule.pickle')]);
  eq('a peak (14 us) the timeline does not cover: its own peak row', u.devices[0].moments[0].from_memory_timeline,
    { matched: false, sample_us: 105, parameters: 1000, optimizer_state: 2000, inputs: 300, temporaries: 50, activations: 4000,
      gradients: 0, autograd_detail: 0, unknown: 7 });
});

check('--compare: the site that grew first (hand-made vs compare-site-grew)', (eq) => {
  const r = json(['--compare', '--json', '--device', '0', snap('hand-made-protocol4.pickle'), snap('compare-site-grew.pickle')]);
  const d = r.devices[0];
  eq('peaks', [d.a.peak_allocated_bytes, d.b.peak_allocated_bytes, d.peak_growth_bytes], [4024288, 7024288, 3000000]);
  eq('sites', d.sites.map((s) => [s.frame, s.a_bytes, s.b_bytes, s.growth_bytes]), [
    ['model.py:7:forward', 3000000, 6000000, 3000000], ['model.py:3:__init__', 524288, 524288, 0],
    ['<allocated before the history began>', 500000, 500000, 0]]);
  eq('devices', json(['--compare', '--json', snap('hand-made-protocol4.pickle'), snap('compare-site-grew.pickle')]).devices.length, 2);
});

check('what cannot be shown gets one sentence', (eq) => {
  const r1 = run(['--segments', '--entry', '99', snap('segments-replayed-backwards.pickle')]);
  eq('entry past the history', [r1.status, r1.stderr],
    [1, "segments-replayed-backwards.pickle: device 0's history has 16 entries (0 to 15; -1: before the first); --entry 99 is not one.\n"]);
  const r2 = run(['--categories', '--memory-timeline', snap('memory-timeline-raw-format.json'), snap('segments-replayed-backwards.pickle')]);
  eq('raw timeline', [r2.status, r2.stderr],
    [1, "memory-timeline-raw-format.json: Not export_memory_timeline's JSON ([times, sizes]): a time that is not a whole number at byte 16.\n"]);
  const r3 = run(['--compare', snap('compare-site-grew.pickle')]);
  eq('compare of one', [r3.status, r3.stderr.split('\n')[0]], [2, 'kinetoscope: --compare takes two snapshots, A and B (and no --at-us)']);
  const r4 = run(['--segments', '--categories', snap('compare-site-grew.pickle')]);
  eq('two outputs', r4.status, 2);
  const r5 = run(['--compare', snap('not-a-snapshot-dict.pickle'), snap('compare-site-grew.pickle')]);
  eq('not a snapshot', [r5.status, r5.stderr.startsWith('not-a-snapshot-dict.pickle: ')], [1, true]);
});

console.log(failed ? `${failed} failed` : 'all passed');
process.exit(failed ? 1 : 0);
