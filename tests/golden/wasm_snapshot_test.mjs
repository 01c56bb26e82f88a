// A memory snapshot through the wasm module in Node (the code the browser worker runs), fed as
// the worker feeds it (prepare/commit in odd chunk sizes): each snapshot view's rows on the
// hand-made snapshot and the GPT sample equal the native CLI's `kinetoscope snapshot --json`
// (read from it, not recomputed here), and a refused pickle answers the reader's sentence.
// usage: node tests/golden/wasm_snapshot_test.mjs build/wasm/kinetoscope_node.js build/native/kinetoscope
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const createKinetoscope = require(path.resolve(process.argv[2]));
const cli = process.argv[3] && fs.existsSync(process.argv[3]) ? path.resolve(process.argv[3]) : null;
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const mod = await createKinetoscope();

function load(file, chunk) {
  const bytes = fs.readFileSync(file);
  const s = new mod.SnapshotSession();
  s.setFile(path.basename(file));
  s.setTotalSize(bytes.length);
  for (let i = 0; i < bytes.length && !s.failed(); i += chunk) {
    const part = bytes.subarray(i, Math.min(i + chunk, bytes.length));
    const off = s.prepare(part.length);
    mod.HEAPU8.set(part, off); // HEAPU8 re-read after prepare: memory may have grown
    s.commit(part.length);
  }
  s.finish();
  return s;
}

let checked = 0;
for (const rel of ['tests/data/snapshots/hand-made-protocol5.pickle', 'tests/data/h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle']) {
  const file = path.join(repo, rel);
  for (const chunk of [7, 4096, 1 << 22]) {
    const s = load(file, chunk);
    try {
      const summary = JSON.parse(s.queryJson('snapshot-summary', {}));
      assert.equal(summary.ok, true, `${rel}: read`);
      assert.equal(summary.error, null, `${rel}: whole`);
      const ooms = JSON.parse(s.queryJson('snapshot-ooms', {})).rows;
      const sites = JSON.parse(s.queryJson('snapshot-sites', {})).rows;
      // The page's typed answer holds the same rows as the JSON.
      const a = s.query('snapshot-summary', {});
      assert.equal(a.rowCount, summary.rows.length);
      if (cli) {
        const want = JSON.parse(execFileSync(cli, ['snapshot', '--json', file], { encoding: 'utf8' }));
        assert.equal(summary.rows.length, want.devices.length, `${rel}: devices`);
        want.devices.forEach((d, i) => {
          const { ooms: wantOoms, top_sites, ...numbers } = d;
          for (const [k, v] of Object.entries(numbers)) assert.equal(summary.rows[i][k], v, `${rel} device ${d.device}: ${k}`);
          assert.deepEqual(
            ooms.filter((o) => o.device === d.device).map(({ device, site, stack, ...o }) => o),
            wantOoms,
            `${rel} device ${d.device}: ooms`,
          );
          assert.deepEqual(sites.filter((x) => x.device === d.device).map(({ device, ...x }) => x), top_sites, `${rel} device ${d.device}: sites`);
        });
      }
      // The timeline's columns of the whole history, one per position: the highest is the peak.
      const entries = summary.rows[0].trace_entries;
      const cols = JSON.parse(s.queryJson('snapshot-timeline-columns', { width: String(entries + 1) })).rows;
      assert.equal(Math.max(...cols.map((c) => c.allocated_bytes)), summary.rows[0].peak_allocated_bytes, `${rel}: the timeline reaches the peak`);
      checked++;
    } finally {
      s.delete();
    }
  }
}

const refused = load(path.join(repo, 'tests/data/hostile-snapshots/refused-global-os-system.pickle'), 4096);
try {
  const expected = JSON.parse(fs.readFileSync(path.join(repo, 'tests/data/hostile-snapshots/expected.json'), 'utf8'));
  const summary = JSON.parse(refused.queryJson('snapshot-summary', {}));
  assert.equal(summary.ok, false);
  assert.equal(summary.error, expected['refused-global-os-system.pickle'].error);
  assert.equal(refused.query('snapshot-timeline', {}).error, summary.error);
} finally {
  refused.delete();
}
console.log(`wasm snapshot: ${checked} loads checked${cli ? ' against the CLI' : ' (no CLI given: against themselves)'}`);
