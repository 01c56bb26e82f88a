// The Snapshot page's allocator state and memory by kind (issue 26), in Chromium, against the
// CLI: the state panel's numbers (segments, reserved, allocated, awaiting free, inactive, the
// largest free block) equal `kinetoscope snapshot --segments --json` at the dump, at an entry
// typed, and at the moment the timeline is hovered; a hovered block reads the CLI's block; the
// kinds at the peak equal `--categories --json`; an export_memory_timeline picked on the panel is
// paired (its categories equal `--memory-timeline`'s) and a file that is none gets one sentence.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { card, cli, dropFiles, hasShared, openSite, repo, runCliJson, settled, sharedTraces, withCheckedPage } from './helpers.mjs';

const T = { timeout: 240_000 };
const gpt = path.join(repo, 'tests/data/h200_pt211/snapshot_p5/gpt_protocol5.snapshot.pickle');
const handMade = path.join(repo, 'tests/data/snapshots/hand-made-protocol5.pickle');
const byHand = path.join(repo, 'tests/data/snapshots/memory-timeline-by-hand.json');
const vitDir = path.join(sharedTraces, 'h100_pt211', 'vit_timm');
const LABEL_W = 190; // views/snapshot-state.tsx
const ROW_H = 20;

/** The state panel's numbers, read from the page. */
async function readState(page, scope) {
  return page.$eval(`${scope} [data-testid=snapshot-state][data-ready=true]`, (el) => {
    const v = (id) => Number(el.querySelector(`[data-testid=${id}]`).getAttribute('data-value'));
    return {
      entry: Number(el.getAttribute('data-entry')),
      source: el.getAttribute('data-source'),
      segments: v('snapshot-state-segments'),
      reserved_bytes: v('snapshot-state-reserved'),
      allocated_bytes: v('snapshot-state-allocated'),
      allocated_blocks: v('snapshot-state-allocated-blocks'),
      awaiting_free_bytes: v('snapshot-state-awaiting'),
      awaiting_free_blocks: v('snapshot-state-awaiting-blocks'),
      inactive_bytes: v('snapshot-state-inactive'),
      inactive_blocks: v('snapshot-state-inactive-blocks'),
      largest_inactive_bytes: v('snapshot-state-largest'),
      frag_inactive: v('snapshot-state-frag-inactive'),
      frag_largest: v('snapshot-state-frag-largest'),
      rows: Number(el.querySelector('[data-testid=snapshot-state-bars]')?.getAttribute('data-rows') ?? 0),
    };
  });
}

function expectState(got, file, entry) {
  const want = runCliJson(['snapshot', '--segments', '--json', ...(entry == null ? [] : ['--entry', String(entry)]), file]).devices[0];
  assert.equal(got.entry, want.entry, 'the moment');
  for (const k of ['reserved_bytes', 'allocated_bytes', 'allocated_blocks', 'awaiting_free_bytes', 'awaiting_free_blocks', 'inactive_bytes', 'inactive_blocks', 'largest_inactive_bytes'])
    assert.equal(got[k], want[k], `entry ${want.entry}: ${k}`);
  assert.equal(got.segments, want.segments.length, `entry ${want.entry}: segments`);
  assert.equal(got.rows, want.segments.length, `entry ${want.entry}: a bar per segment`);
  assert.equal(got.frag_inactive, want.inactive_bytes);
  assert.equal(got.frag_largest, want.largest_inactive_bytes);
  return want;
}

async function readKinds(page, scope, table) {
  await page.waitForSelector(`${scope} [data-testid=${table}] [data-testid=snapshot-kind]`);
  return page.$$eval(`${scope} [data-testid=${table}] [data-testid=snapshot-kind]`, (rows) =>
    Object.fromEntries(rows.map((r) => [r.getAttribute('data-kind'), { bytes: Number(r.getAttribute('data-bytes')), allocations: r.getAttribute('data-allocations') }])),
  );
}

describe('the Snapshot page: allocator state and memory by kind', { skip: !fs.existsSync(cli) && 'needs build/native/kinetoscope' }, () => {
  const site = openSite();

  it('shows the GPT sample\'s state at the dump, at an entry typed and where the timeline is hovered, as the CLI; a block hovered; the kinds at the peak', T, async () => {
    const { browser, server } = await site;
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      await dropFiles(page, [gpt]);
      const name = path.basename(gpt);
      assert.equal(await settled(page, name), 'done');
      const scope = card(name);
      await page.waitForSelector(`${scope} [data-testid=snapshot-state][data-ready=true]`);
      // The dump by default.
      let got = await readState(page, scope);
      assert.equal(got.source, 'dump');
      const dump = expectState(got, gpt, null);

      // An entry typed: the peak's.
      const summary = runCliJson(['snapshot', '--json', gpt]).devices[0];
      await page.selectOption(`${scope} [data-testid=snapshot-state-kind]`, 'entry');
      await page.fill(`${scope} [data-testid=snapshot-state-input]`, String(summary.peak_entry));
      await page.click(`${scope} [data-testid=snapshot-state-show]`);
      await page.waitForSelector(`${scope} [data-testid=snapshot-state][data-source=typed][data-entry="${summary.peak_entry}"][data-ready=true]`);
      const atPeak = expectState(await readState(page, scope), gpt, summary.peak_entry);
      assert.notEqual(atPeak.allocated_bytes, dump.allocated_bytes, 'the peak is not the dump');

      // An entry the history lacks: the core's sentence.
      await page.fill(`${scope} [data-testid=snapshot-state-input]`, '99999999');
      await page.click(`${scope} [data-testid=snapshot-state-show]`);
      const err = await page.waitForSelector(`${scope} [data-testid=snapshot-state-error]`);
      assert.match(await err.textContent(), /^device 0's history has \d+ entries \(0 to \d+; -1: before the first\); entry 99999999 is not one\.$/);

      // The timeline hovered at a third of its width: the state follows that column's moment.
      const cv = `${scope} [data-testid=snapshot-timeline-canvas][data-ready=true]`;
      await page.waitForSelector(cv);
      const box = await page.locator(cv).boundingBox();
      await page.mouse.move(box.x + box.width / 3, box.y + box.height - 5);
      await page.waitForSelector(`${scope} [data-testid=snapshot-state][data-source=hover][data-ready=true]`);
      got = await readState(page, scope);
      expectState(got, gpt, got.entry);
      assert.ok(got.entry > 0 && got.entry < summary.trace_entries - 1, `a moment inside the history (${got.entry})`);
      // Clicking holds it; leaving the timeline keeps it.
      await page.mouse.click(box.x + box.width / 3, box.y + box.height - 5);
      await page.mouse.move(box.x - 40, box.y - 40);
      await page.waitForSelector(`${scope} [data-testid=snapshot-state][data-source=pin][data-entry="${got.entry}"]`);

      // A block hovered: the first block of the first segment, as the CLI has it.
      const held = runCliJson(['snapshot', '--segments', '--json', '--entry', String(got.entry), gpt]).devices[0];
      await page.locator(`${scope} [data-testid=snapshot-state-canvas]`).scrollIntoViewIfNeeded();
      const bars = await page.locator(`${scope} [data-testid=snapshot-state-canvas]`).boundingBox();
      await page.mouse.move(bars.x + LABEL_W + 1, bars.y + ROW_H / 2);
      const hover = `${scope} [data-testid=snapshot-state-hover]`;
      const first = held.segments[0].blocks[0];
      await page.waitForSelector(`${hover}[data-address="0x${first.address.toString(16)}"]`);
      assert.equal(Number(await page.getAttribute(hover, 'data-size')), first.size);
      assert.equal(await page.getAttribute(hover, 'data-state'), first.state);
      if (first.state !== 'inactive') {
        assert.equal((await page.textContent(`${hover} [data-testid=snapshot-state-hover-requested]`)).replace(/\D/g, ''), String(first.requested_bytes));
        assert.equal((await page.textContent(`${hover} [data-testid=snapshot-state-hover-site]`)).trim(), first.site);
      }

      // The kinds at the peak: --categories --json's.
      const cats = runCliJson(['snapshot', '--categories', '--json', gpt]).devices[0].moments[0];
      const kinds = await readKinds(page, scope, 'snapshot-categories-peak');
      for (const [k, v] of Object.entries(cats.by_stacks)) {
        assert.equal(kinds[k].bytes, v.bytes, `${k} bytes`);
        assert.equal(Number(kinds[k].allocations), v.allocations, `${k} allocations`);
      }
      assert.equal(Number(await page.getAttribute(`${scope} [data-testid=snapshot-categories-peak]`, 'data-total')), summary.peak_allocated_bytes);
      await page.waitForSelector(`${scope} [data-testid=snapshot-categories-chart] canvas`);
      assert.match(await page.textContent(`${scope} [data-testid=snapshot-categories-rule]`), /_init_group/);
    });
  });

  it('pairs an export_memory_timeline picked on the panel, with the CLI\'s --memory-timeline numbers; refuses a file that is none', T, async () => {
    const { browser, server } = await site;
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      const files = [handMade, ...(hasShared && fs.existsSync(vitDir) ? [path.join(vitDir, 'vit_timm.snapshot.pickle')] : [])];
      await dropFiles(page, files);
      for (const f of files) assert.equal(await settled(page, path.basename(f)), 'done');
      const pairs = [[handMade, byHand], ...(files.length > 1 ? [[files[1], path.join(vitDir, 'memory_timeline.json.gz')]] : [])];
      for (const [snap, tl] of pairs) {
        const scope = card(path.basename(snap));
        if (files.length > 1) await page.click(`[data-testid=nav-trace][data-file="${path.basename(snap)}"]`).catch(() => {});
        await page.waitForSelector(`${scope} [data-testid=snapshot-categories][data-source=rule]`);
        // A trace picked instead: one sentence, nothing paired.
        await page.setInputFiles(`${scope} [data-testid=snapshot-pair-input]`, gpt);
        const err = await page.waitForSelector(`${scope} [data-testid=snapshot-pair-error]`);
        assert.match(await err.textContent(), /is not an export_memory_timeline file/);
        await page.setInputFiles(`${scope} [data-testid=snapshot-pair-input]`, tl);
        await page.waitForSelector(`${scope} [data-testid=snapshot-categories][data-source=memory_timeline]`);
        assert.equal((await page.textContent(`${scope} [data-testid=snapshot-paired-file]`)).trim(), path.basename(tl));
        const want = runCliJson(['snapshot', '--categories', '--json', '--memory-timeline', tl, snap]).devices[0].moments[0].from_memory_timeline;
        const kinds = await readKinds(page, scope, 'snapshot-paired-peak');
        const { matched, sample_us, ...bytes } = want;
        for (const [k, v] of Object.entries(bytes)) assert.equal(kinds[k].bytes, v, `${path.basename(tl)}: ${k}`);
        assert.equal(await page.getAttribute(`${scope} [data-testid=snapshot-paired-peak]`, 'data-matched'), String(matched));
        assert.equal(await page.isVisible(`${scope} [data-testid=snapshot-paired-unmatched]`), !matched);
        await page.waitForSelector(`${scope} [data-testid=snapshot-paired-chart] canvas`);
      }
    });
  });

  it('pairs an export_memory_timeline dropped anywhere with the one snapshot open', T, async () => {
    const { browser, server } = await site;
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setViewportSize({ width: 1440, height: 900 });
      // Before any snapshot is open: a sentence, nothing loaded as a trace.
      await dropFiles(page, [byHand]);
      await page.waitForSelector('text=open its memory snapshot first');
      await dropFiles(page, [handMade]);
      const name = path.basename(handMade);
      assert.equal(await settled(page, name), 'done');
      await dropFiles(page, [byHand]);
      const scope = card(name);
      await page.waitForSelector(`${scope} [data-testid=snapshot-categories][data-source=memory_timeline]`);
      assert.equal((await page.textContent(`${scope} [data-testid=snapshot-paired-file]`)).trim(), path.basename(byHand));
      const want = runCliJson(['snapshot', '--categories', '--json', '--memory-timeline', byHand, handMade]).devices[0].moments[0].from_memory_timeline;
      assert.equal(want.matched, false, 'tests/data/README.md: the by-hand timeline does not cover the peak');
      const kinds = await readKinds(page, scope, 'snapshot-paired-peak');
      assert.equal(kinds.activations.bytes, 4000);
      assert.equal(kinds.activations.bytes, want.activations);
      assert.equal(await page.locator('[data-testid=file-card]').count(), 1, 'the timeline opened no card of its own');
    });
  });
});
