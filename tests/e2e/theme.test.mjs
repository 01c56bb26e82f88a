// Light and dark themes follow the system (prefers-color-scheme), read off the rendered page:
// the page background, the text colour and a file card, in both schemes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openSite } from './helpers.mjs';

const { server, browser } = await openSite();

// Relative luminance of an "rgb(r, g, b)" colour (WCAG), 0 (black) to 1 (white).
function luminance(css) {
  const [r, g, b] = css.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

async function colours(scheme) {
  const context = await browser.newContext({ colorScheme: scheme });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url);
    await page.click('[data-testid=open-sample]');
    await page.waitForSelector('[data-testid=file-card] [data-testid=header-events]', { timeout: 60000 });
    const c = await page.evaluate(() => {
      const style = (sel) => getComputedStyle(document.querySelector(sel));
      return { bg: style('body').backgroundColor, fg: style('body').color,
        card: style('[data-testid=file-card]').backgroundColor, scheme: style(':root').colorScheme };
    });
    assert.deepEqual(errors, []);
    return c;
  } finally {
    await context.close();
  }
}

describe('themes', () => {
  it('light by default, dark when the system prefers dark, text readable in both', async () => {
    const light = await colours('light');
    const dark = await colours('dark');
    assert.ok(luminance(light.bg) > 0.8, `light background ${light.bg}`);
    assert.ok(luminance(dark.bg) < 0.05, `dark background ${dark.bg}`);
    for (const [name, t] of [['light', light], ['dark', dark]]) {
      const [hi, lo] = [luminance(t.bg), luminance(t.fg)].sort((a, b) => b - a);
      assert.ok((hi + 0.05) / (lo + 0.05) >= 7, `${name}: text contrast ${t.fg} on ${t.bg}`);
      assert.notEqual(t.card, 'rgba(0, 0, 0, 0)', `${name}: the card has its own background`);
    }
    assert.notEqual(light.card, dark.card);
  });
});
