// The trace workers are started and readied while the page waits for a file (worker/worker-pool.ts
// warm, worker.ts warmUp): each compiles the module and runs the core over the bundled sample,
// so that a first load parses with optimized code. What a user must get: the page says when its
// workers are ready, the warm-up is not counted as a load, and a trace loaded after it gives the
// CLI's numbers (the warm-up's model must leave nothing behind: the sample itself is loaded after
// warming up on it).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkNumbers, openPage, openSite, sampleTrace, settled } from './helpers.mjs';

const site = await openSite();
const T = { timeout: 180_000 };

describe('warm trace workers', () => {
  it('every worker of the pool readies itself on the sample; a file loaded then gives the numbers of the CLI', T, async () => {
    const { page, context, errors } = await openPage(site.browser, site.server.url, { cores: 2 });
    try {
      const root = '[data-pool-warm]';
      // Both workers warm, with nothing dropped yet.
      await page.waitForSelector('[data-pool-warm="2"]', { state: 'attached', timeout: 120_000 });
      assert.ok(await page.isVisible('[data-testid=drop-zone]'), 'still the landing page');
      await page.click('[data-testid=open-sample]');
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      await checkNumbers(page, 'rank-0.json.gz', sampleTrace);
      const analysis = '[data-testid=analysis]';
      assert.equal(await page.getAttribute(analysis, 'data-pool-used'), '1', 'the warm-up is not a load: one worker used');
      assert.equal(await page.getAttribute(analysis, 'data-models'), '1');
      assert.equal(await page.getAttribute(root, 'data-pool-warm'), '2');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  it('a file dropped before the workers are warm loads at once with the same numbers', T, async () => {
    const { page, context, errors } = await openPage(site.browser, site.server.url, { cores: 2 });
    try {
      // openPage returns once the drop zone is shown: the warm-ups are under way or not begun.
      await page.locator('input[type=file]').first().setInputFiles(sampleTrace);
      assert.equal(await settled(page, 'rank-0.json.gz'), 'done');
      await checkNumbers(page, 'rank-0.json.gz', sampleTrace);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});
