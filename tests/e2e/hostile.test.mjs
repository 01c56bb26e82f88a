// The hostile-input corpus (tests/data/hostile and the large generated inputs) dropped on the page
// at once: every file ends loaded (what it could) or failed with the sentence the CLI gives, as
// tests/data/hostile/expected.json says; no uncaught error; and the page still opens a trace.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, navRows, serveDist, showTrace, card, withCheckedPage } from './helpers.mjs';
import { hostileExpected as expected, hostileInputs } from '../robustness/generate-large.mjs';


describe('hostile inputs in the page', () => {
  let browser, server, tmp, files;
  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ks-hostile-page-'));
    ({ files } = await hostileInputs(tmp));
    server = await serveDist();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('every file loads what it can or fails with one sentence, and the page stays usable', async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      await page.setInputFiles('[data-testid=file-input]', files);
      const rows = (await navRows(page)).filter((r) => r.kind === 'trace');
      assert.deepEqual(rows.map((r) => r.file).sort(), files.map((f) => path.basename(f)).sort(), 'one navigator row per file');
      for (const r of rows) {
        const want = expected[r.file];
        assert.equal(r.status, want.ok ? 'done' : 'failed', `${r.file}: ${want.ok ? 'loads' : 'fails'}`);
        if (want.ok) {
          // A file that needed repairs says so on its row; a clean one does not.
          const warned = r.health !== 'ok' && r.health !== 'info';
          const hasWarnings = want.health.length > 0;
          if (!hasWarnings) assert.equal(warned, false, `${r.file}: no health warning`);
        }
      }
      // What the card says: the CLI's sentence for each failure, the CLI's event count otherwise.
      for (const file of files) {
        const name = path.basename(file);
        const want = expected[name];
        // The navigator shows only the rows in view: find the file by name, then pick it.
        await page.fill('[data-testid=nav-search]', name);
        await showTrace(page, name);
        if (!want.ok) {
          assert.equal((await page.textContent(`${card(name)} [data-testid=file-error]`)).trim(), want.error, `${name}: the error`);
        } else {
          assert.equal(
            Number((await page.textContent(`${card(name)} [data-testid=header-events]`)).replace(/[^0-9]/g, '')),
            want.events,
            `${name}: events kept`,
          );
        }
      }
      await page.fill('[data-testid=nav-search]', '');
      // Still usable: the bundled sample opens with its Overview.
      await page.click('[data-testid=open-sample]');
      await page.waitForSelector(`${card('rank-0.json.gz')}[data-status=done] [data-testid=tab-overview]`, { timeout: 120_000 });
    });
  });
});
