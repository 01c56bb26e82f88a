// Browser tests of the streaming trace pipeline: the built site (web/dist), Debian's Chromium,
// real traces. Every number read off the page is checked against an independent count.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, it } from 'node:test';
import {
  card,
  dropFiles,
  expectedFor,
  handMadeTrace,
  hasShared,
  pickFiles,
  readCard,
  readTraceText,
  sampleTrace,
  settled,
  sharedTraces,
  withCheckedPage,
  openSite,
} from './helpers.mjs';

const { server, browser, tmp } = await openSite({ tmp: true });

const withPage = (fn) => withCheckedPage(browser, server.url, fn);

function assertMatches(shown, expected, label) {
  assert.equal(shown.error, null, `${label}: unexpected error ${shown.error}`);
  assert.equal(shown.events, expected.events, `${label}: events total`);
  assert.deepEqual(shown.categories, expected.categories, `${label}: events per category`);
  assert.deepEqual(shown.phases, expected.phases, `${label}: events per phase`);
  assert.deepEqual(shown.devices, expected.devices, `${label}: device names`);
  if (expected.distributed) {
    assert.deepEqual(shown.distributed, expected.distributed, `${label}: rank / world size`);
  } else {
    assert.equal(shown.notDistributed, true, `${label}: "not distributed"`);
  }
}

const T = { timeout: 180_000 };

describe('summary of real traces', () => {
  it('several files picked at once (.json.gz and plain .json) match independent counts', { ...T, skip: !hasShared && 'no ../shared/traces' }, async () => {
    const files = [
      path.join(sharedTraces, 'two_rank_sampled', 'rank-1.json.gz'),
      path.join(sharedTraces, 'v100_ns_resolution_rank0.pt.trace.json.gz'),
      path.join(sharedTraces, 'tb_unit', 'TestDistributed.test_distributed_nccl', 'worker0.pt.trace.json'),
      path.join(sharedTraces, 'resnet50_num_workers_0', 'worker0.1623143089861.pt.trace.json.gz'),
    ];
    await withPage(async (page) => {
      await pickFiles(page, files);
      for (const f of files) {
        const name = path.basename(f);
        assert.equal(await settled(page, name), 'done', name);
        assertMatches(await readCard(page, name), expectedFor(f), name);
      }
      // All four cards are there, each once.
      assert.equal((await page.$$('[data-testid=file-card]')).length, files.length);
    });
  });

  it('a hand-made plain .json dropped on the drop zone shows every field, strings as text', T, async () => {
    const file = path.join(tmp, 'hand-made.json');
    fs.writeFileSync(file, JSON.stringify(handMadeTrace(), null, 1));
    await withPage(async (page) => {
      await dropFiles(page, [file]);
      assert.equal(await settled(page, 'hand-made.json'), 'done');
      const shown = await readCard(page, 'hand-made.json');
      assertMatches(shown, expectedFor(file), 'hand-made');
      assert.deepEqual(shown.distributed, { rank: 3, worldSize: 8 });
      assert.equal(shown.categories[''], 3); // two metadata events and one instant without cat
      const c = card('hand-made.json');
      assert.equal(await page.textContent(`${c} [data-testid=distributed-backend]`), 'nccl');
      assert.equal(await page.textContent(`${c} [data-testid=trace-name]`), 'hand-made.json');
      assert.equal(await page.textContent(`${c} [data-testid=device-memory-0]`), '31.74 GB');
      assert.equal(await page.textContent(`${c} [data-testid=device-sms-1]`), '108');
      assert.equal(await page.textContent(`${c} [data-testid=naming]`), 'PyTorch 2.x naming');
      assert.equal(await page.textContent(`${c} [data-testid=schema-version]`), '1');
      // First ts 1000 µs (ProfilerStep#0), last end 1400 + 90 µs (ProfilerStep#4): 490 µs.
      assert.equal(await page.textContent(`${c} [data-testid=span]`), '490 µs');
      assert.equal(shown.healthOk, true, 'a clean trace says "No problems found"');
      // The kernel name with markup in it must not have become HTML anywhere on the page.
      assert.equal(await page.$(`${c} b`), null);
    });
  });

  it('"Open sample" loads the bundled sample trace', T, async () => {
    await withPage(async (page) => {
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      assertMatches(await readCard(page, 'rank-0.json.gz'), expectedFor(sampleTrace), 'sample');
    });
  });
});

describe('bad input', () => {
  it('a non-trace file gets one clear sentence and the page stays usable', T, async () => {
    const png = path.join(tmp, 'picture.png');
    const png8 = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    fs.writeFileSync(png, Buffer.concat([png8, Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 131) & 0xff))]));
    const txt = path.join(tmp, 'notes.txt');
    fs.writeFileSync(txt, 'These are my notes about the training run.\nNothing to see here.\n'.repeat(50));
    await withPage(async (page) => {
      for (const f of [png, txt]) {
        const name = path.basename(f);
        await pickFiles(page, [f]);
        assert.equal(await settled(page, name), 'failed', name);
        const shown = await readCard(page, name);
        assert.ok(shown.error && shown.error.trim().length > 10, `${name}: an error sentence`);
        assert.match(shown.error.trim(), /^[^\n]+[.!]$/, `${name}: one sentence`);
        assert.equal(shown.events, null, `${name}: no summary numbers for a non-trace`);
      }
      // Still usable: a good file after the bad ones loads.
      await pickFiles(page, [sampleTrace]);
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      assert.equal((await readCard(page, 'rank-0.json.gz')).events, expectedFor(sampleTrace).events);
    });
  });

  it('a trace cut at 60% loads what is complete and reports the truncation', T, async () => {
    const text = Buffer.from(readTraceText(sampleTrace), 'utf8');
    const cut = path.join(tmp, 'cut-at-60-percent.json');
    fs.writeFileSync(cut, text.subarray(0, Math.floor(text.length * 0.6)));
    const full = expectedFor(sampleTrace);
    await withPage(async (page) => {
      await pickFiles(page, [cut]);
      assert.equal(await settled(page, 'cut-at-60-percent.json'), 'done');
      const shown = await readCard(page, 'cut-at-60-percent.json');
      assert.ok(shown.events > 0, 'events > 0');
      assert.ok(shown.events < full.events, 'fewer events than the whole trace');
      assert.ok(Object.values(shown.categories).every((n) => n > 0));
      assert.ok(shown.health.truncated >= 1, `a "truncated" health row, got ${JSON.stringify(shown.health)}`);
      assert.ok(await page.$(`${card('cut-at-60-percent.json')} [data-testid=truncated]`));
    });
  });

  it('a gzip stream cut off mid-way does not hang: what was read loads, with a health row', T, async () => {
    const gz = fs.readFileSync(sampleTrace);
    const cut = path.join(tmp, 'cut-gzip.json.gz');
    fs.writeFileSync(cut, gz.subarray(0, Math.floor(gz.length * 0.6)));
    // Independent: how many bytes does zlib recover from the same cut?
    const recovered = zlib.gunzipSync(gz.subarray(0, Math.floor(gz.length * 0.6)), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    assert.ok(recovered.length > 0);
    await withPage(async (page) => {
      await pickFiles(page, [cut]);
      assert.equal(await settled(page, 'cut-gzip.json.gz', 30_000), 'done');
      const shown = await readCard(page, 'cut-gzip.json.gz');
      assert.ok(shown.events > 0, 'events > 0');
      assert.ok(shown.events < expectedFor(sampleTrace).events);
      // the core records both: the gzip stream broke, and the JSON inside it is incomplete
      assert.equal(shown.health['gzip-error'], 1, JSON.stringify(shown.health));
      assert.equal(shown.health.truncated, 1, JSON.stringify(shown.health));
    });
  });
});

describe('cancel', () => {
  it('cancels a 256 MB load mid-way and the page stays usable', { timeout: 300_000 }, async () => {
    const big = path.join(tmp, 'big-synthetic.json');
    const fd = fs.openSync(big, 'w');
    fs.writeSync(fd, '{"schemaVersion":1,"traceEvents":[\n');
    const target = 256 * 1024 * 1024;
    let written = 0;
    let ts = 0;
    while (written < target) {
      const parts = [];
      for (let i = 0; i < 50_000; i++, ts += 3) {
        parts.push(`{"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":${ts},"dur":2,"args":{"External id":${ts}}},\n`);
      }
      const chunk = parts.join('');
      fs.writeSync(fd, chunk);
      written += chunk.length;
    }
    fs.writeSync(fd, '{"ph":"i","name":"end","pid":1,"tid":1,"ts":0,"s":"t"}\n]}\n');
    fs.closeSync(fd);

    await withPage(async (page) => {
      await pickFiles(page, [big]);
      await page.waitForSelector('[data-testid=progress]');
      // Wait for a real progress event, then cancel while the load is running.
      // (the first event may come before a rate can be measured, so wait for one that has it).
      await page.waitForFunction(() => {
        const bar = document.querySelector('[data-testid=progress] [role=progressbar]');
        const v = Number(bar?.getAttribute('aria-valuenow'));
        const rate = document.querySelector('[data-testid=progress-rate]')?.textContent ?? '';
        return v > 0 && v < 90 && /MB\/s$/.test(rate);
      });
      const rate = await page.textContent('[data-testid=progress-rate]');
      assert.match(rate, /^\d+\.\d MB\/s$/);
      await page.click('[data-testid=cancel]');
      assert.equal(await settled(page, 'big-synthetic.json', 10_000), 'cancelled');
      await page.waitForSelector('[data-testid=progress]', { state: 'detached', timeout: 10_000 });
      assert.equal(await page.$(`${card('big-synthetic.json')} [data-testid=events-total]`), null);

      await pickFiles(page, [sampleTrace]);
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      assert.equal((await readCard(page, 'rank-0.json.gz')).events, expectedFor(sampleTrace).events);
    });
    fs.rmSync(big, { force: true });
  });
});
