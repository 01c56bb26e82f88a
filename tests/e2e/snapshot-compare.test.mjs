// Issue 26's "Compare two snapshots" and "Linked to the trace" in the page. Compare: with two
// snapshots open, the Snapshot page's compare panel shows A and B's peaks, the sites at each peak
// most grown first, the categories at each peak and both curves; every number equals `kinetoscope
// snapshot --compare --json` on the same pair (the hand-made pair of tests/data/snapshots, and the
// real pair vit_timm against gpt_protocol5 when ../shared holds the first), swapped too. Linked:
// the trace's Memory view shows the snapshot's allocations in its range, checked against the
// hand-made snapshot's history worked out by hand (tests/data/README.md, snapshot-link-trace.json),
// and a snapshot of another time (the real sample: its snapshot was taken after its trace ended)
// is refused in one sentence.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { card, cli, dropFiles, openSite, parseCsv, repo, runCliJson, settled, sharedTraces, showTrace, withCheckedPage } from './helpers.mjs';

const T = { timeout: 300_000 };
const snaps = path.join(repo, 'tests/data/snapshots');
const handA = path.join(snaps, 'hand-made-protocol4.pickle');
const handB = path.join(snaps, 'compare-site-grew.pickle');
const gpt = path.join(repo, 'tests/data/h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle');
const vitDir = path.join(sharedTraces, 'h100_pt211/vit_timm');
const vit = path.join(vitDir, 'vit_timm.snapshot.pickle');
const vitTrace = path.join(vitDir, 'vit_timm_rank0.1795712510372129229.pt.trace.json.gz');
const linkTrace = path.join(repo, 'tests/data/snapshot-link-trace.json');
const hand5 = path.join(snaps, 'hand-made-protocol5.pickle');

/** The compare panel's numbers, read from the page (the sites from its CSV export: every row, raw values). */
async function readCompare(page, c) {
  const panel = `${c} [data-testid=snapshot-compare]`;
  await page.waitForSelector(`${panel} [data-testid=snapshot-compare-body][data-state=ready]`, { timeout: 120_000 });
  const v = (id) => page.$eval(`${panel} [data-testid=${id}]`, (el) => Number(el.getAttribute('data-value')));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${panel} [data-testid=snapshot-compare-sites-export]`)]);
  const [, ...rows] = parseCsv(fs.readFileSync(await download.path(), 'utf8'));
  const categories = await page.$$eval(`${panel} [data-testid=cmp-category]`, (els) =>
    els.map((e) => ({ category: e.getAttribute('data-category'), a_bytes: Number(e.getAttribute('data-a')), b_bytes: Number(e.getAttribute('data-b')) })),
  );
  return {
    a: await page.getAttribute(panel, 'data-a'),
    b: await page.getAttribute(panel, 'data-b'),
    peakA: await v('cmp-peak-a'),
    peakB: await v('cmp-peak-b'),
    growth: await v('cmp-peak-growth'),
    reservedA: await v('cmp-reserved-a'),
    reservedB: await v('cmp-reserved-b'),
    entryA: await v('cmp-peak-entry-a'),
    entryB: await v('cmp-peak-entry-b'),
    sites: rows
      .filter((r) => r.length >= 6)
      .map((r) => ({ frame: r[0], a_bytes: Number(r[1]), b_bytes: Number(r[2]), growth_bytes: Number(r[3]), a_allocations: Number(r[4]), b_allocations: Number(r[5]) })),
    categories,
  };
}

/** The page's comparison equals `snapshot --compare --json --device 0 A B`. */
function expectCli(got, fileA, fileB) {
  const want = runCliJson(['snapshot', '--compare', '--json', '--device', '0', fileA, fileB]).devices[0];
  assert.equal(got.a, path.basename(fileA));
  assert.equal(got.b, path.basename(fileB));
  assert.equal(got.peakA, want.a.peak_allocated_bytes, 'A peak');
  assert.equal(got.peakB, want.b.peak_allocated_bytes, 'B peak');
  assert.equal(got.growth, want.peak_growth_bytes, 'peak growth');
  assert.equal(got.reservedA, want.a.peak_reserved_bytes, 'A reserved');
  assert.equal(got.reservedB, want.b.peak_reserved_bytes, 'B reserved');
  assert.equal(got.entryA, want.a.peak_entry, 'A peak entry');
  assert.equal(got.entryB, want.b.peak_entry, 'B peak entry');
  assert.deepEqual(got.sites, want.sites, 'sites, most grown first');
  assert.deepEqual(got.categories, want.categories, 'categories at each peak');
  return want;
}


describe('comparing two snapshots and linking one to its trace', { skip: !fs.existsSync(cli) && 'needs build/native/kinetoscope' }, () => {
  const site = openSite();

  it('compares the hand-made pair as snapshot --compare does, swapped too, with both curves', T, async () => {
    const { browser, server } = await site;
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await dropFiles(page, [handA, handB]);
      const a = path.basename(handA);
      const b = path.basename(handB);
      for (const n of [b, a]) assert.equal(await settled(page, n), 'done');
      const c = card(a);
      const want = expectCli(await readCompare(page, c), handA, handB);
      // By hand (tests/data/README.md): the peak 4,024,288 → 7,024,288, model.py:7 grew 3,000,000 first.
      assert.equal(want.peak_growth_bytes, 3_000_000);
      assert.equal(want.sites[0].frame, 'model.py:7:forward');
      // Both curves drawn on one axis.
      const curves = `${c} [data-testid=snapshot-compare-curves]`;
      assert.ok(Number(await page.getAttribute(curves, 'data-a-points')) > 1, 'A curve');
      assert.ok(Number(await page.getAttribute(curves, 'data-b-points')) > 1, 'B curve');
      await page.waitForSelector(`${c} [data-testid=snapshot-compare-chart] canvas`);
      // Swapped: this snapshot is B.
      await page.click(`${c} [data-testid=snapshot-compare-swap]`);
      await page.waitForSelector(`${c} [data-testid=snapshot-compare][data-a="${b}"]`);
      const back = expectCli(await readCompare(page, c), handB, handA);
      assert.equal(back.peak_growth_bytes, -3_000_000);
    });
  });

  it('compares the real pair vit_timm and gpt_protocol5 as the CLI does', { ...T, skip: !fs.existsSync(vit) && 'needs ../shared/traces/h100_pt211/vit_timm' }, async () => {
    const { browser, server } = await site;
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await dropFiles(page, [vit, gpt]);
      const a = path.basename(vit);
      const b = path.basename(gpt);
      for (const n of [b, a]) assert.equal(await settled(page, n), 'done');
      const c = card(a);
      const got = await readCompare(page, c);
      const want = expectCli(got, vit, gpt);
      // Every site of either peak (the CLI's text stops at 20; its JSON and the page do not).
      assert.ok(want.sites.length > 10, `sites (${want.sites.length})`);
      assert.ok(want.sites.some((s) => s.a_bytes === 0) || want.sites.some((s) => s.b_bytes === 0), 'a site of one peak only');
    });
  });

  it("shows the snapshot's allocations in the Memory view's range, by hand, and opens the Snapshot page there", T, async () => {
    const { browser, server } = await site;
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await dropFiles(page, [hand5, linkTrace]);
      const snapName = path.basename(hand5);
      const traceName = path.basename(linkTrace);
      assert.equal(await settled(page, snapName), 'done');
      assert.equal(await settled(page, traceName), 'done');
      const c = card(traceName);
      await page.click(`${c} [data-testid=tab-memory]`);
      await page.waitForSelector(`${c} [data-testid=memory-view][data-state=ready]`);
      // The trace's ts 495 .. 520 with baseTimeNanoseconds 500,000 are Unix 995 .. 1020 µs: the
      // whole trace holds the snapshot's history (1000 .. 1011 µs).
      const panel = `${c} [data-testid=memory-snapshot]`;
      await page.waitForSelector(`${panel}[data-state=ready]`);
      assert.equal(await page.getAttribute(panel, 'data-snapshot'), snapName);
      // The range 8 .. 11 µs from the trace's origin (495): Unix 1003 .. 1006 µs.
      await page.fill(`${c} [data-testid=memory-from]`, '0.008');
      await page.fill(`${c} [data-testid=memory-to]`, '0.011');
      await page.click(`${c} [data-testid=memory-apply]`);
      await page.waitForSelector(`${panel}[data-from-us="1003"][data-to-us="1006"][data-state=ready]`);
      const sum = `${panel} [data-testid=memory-snapshot-summary]`;
      // By hand: entries 3-6 are in the range; 2,324,288 allocated before it (after entry 2), the
      // peak 4,024,288 (entry 4).
      assert.equal(await page.getAttribute(sum, 'data-entries'), '4');
      assert.equal(await page.getAttribute(sum, 'data-level'), '2324288');
      assert.equal(await page.getAttribute(sum, 'data-peak'), '4024288');
      const [download] = await Promise.all([page.waitForEvent('download'), page.click(`${panel} [data-testid=memory-snapshot-sites-export]`)]);
      const [, ...rows] = parseCsv(fs.readFileSync(await download.path(), 'utf8'));
      // site, alive bytes, allocations, allocated bytes, allocs, freed, largest (the hand-made
      // history: A's 1,000,000 (1001-1006) and 2,000,000 (1004-), B's 524,288, the 500,000 from
      // before the history; the 300,000 freed at 1003 and E (1007) are not alive in it).
      assert.deepEqual(
        rows.filter((r) => r.length >= 7).map((r) => r.slice(0, 7).map((x, k) => (k ? Number(x) : x))),
        [
          ['model.py:7:forward', 3_000_000, 2, 2_000_000, 1, 1, 2_000_000],
          ['model.py:3:__init__', 524_288, 1, 0, 0, 0, 524_288],
          ['<allocated before the history began>', 500_000, 1, 0, 0, 0, 500_000],
        ],
      );
      // A site's stack: its largest allocation's.
      await page.click(`${panel} [data-testid=memory-snapshot-sites-row] >> nth=0`);
      const stack = await page.textContent(`${panel} [data-testid=memory-snapshot-stack]`);
      assert.match(stack, /^at::empty \(aten\/src\/ATen\/Empty\.cpp:42\)\nforward \(model\.py:7\)\ntrain_step \(train\.py:20\)/);
      // The Snapshot page at that moment: its timeline on the time axis, over the range.
      await page.click(`${panel} [data-testid=memory-snapshot-show]`);
      const sc = card(snapName);
      await page.waitForSelector(sc, { state: 'visible' });
      await page.waitForSelector(`${sc} [data-testid=snapshot-window][data-axis=time][data-from="1003"][data-to="1006"]`);
    });
  });

  it("refuses the real sample's snapshot against its trace: the snapshot was taken after the trace ended", { ...T, skip: !fs.existsSync(vitTrace) && 'needs ../shared/traces/h100_pt211/vit_timm' }, async () => {
    const { browser, server } = await site;
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await dropFiles(page, [vit, vitTrace]);
      const traceName = path.basename(vitTrace);
      assert.equal(await settled(page, path.basename(vit)), 'done');
      assert.equal(await settled(page, traceName), 'done');
      const c = card(traceName);
      await page.click(`${c} [data-testid=tab-memory]`);
      await page.waitForSelector(`${c} [data-testid=memory-view][data-state=ready]`);
      const err = await page.waitForSelector(`${c} [data-testid=memory-snapshot-error]`);
      // The trace: its events' ts 4855483934461.3 .. 4855484077094 (the summary's span) + baseTimeNanoseconds
      // 1790857026000000000 / 1000 = Unix 1795712509934461 .. 1795712510077094 µs; the snapshot's
      // history 1795712515913394 .. 1795712515996132 µs (Python's pickle), 5.84 s later.
      assert.match(await err.textContent(), /^The snapshot's history \(1795712515913394 – 1795712515996132 µs, Unix time\) falls outside this trace's span \(1795712509934461 – 1795712510077094 µs\): their clocks cannot be matched/);
    });
  });
});
