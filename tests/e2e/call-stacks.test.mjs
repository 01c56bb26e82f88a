// Call stacks from python_function frames (issue 22 §2) in the page: PyTorch 2.x records
// with_stack=True as frames around the operators, not as a "Call stack" arg. The Operators detail
// (and "Operator + call stack" grouping), the Memory alive list and the events detail read the
// frames' stacks, held to `kinetoscope operators --detail NAME --json` on the real ModuleList GPT
// (H200, PyTorch 2.11) and the timm ViT of ../shared, and to the stacks worked out by hand for
// tests/data/python-function-call-stacks.json; calls without one say why (the autograd thread).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { card, cliHas, hasShared, openSite, pickFiles, repo, runCliJson, settled, sharedTraces, tableRows, waitStatus, withCheckedPage } from './helpers.mjs';

const gptDir = path.join(repo, 'tests', 'data', 'h200_pt211', 'gpt_modulelist');
const gpt = path.join(gptDir, fs.readdirSync(gptDir).find((f) => f.endsWith('.pt.trace.json.gz')));
const vitDir = path.join(sharedTraces, 'h100_pt211', 'vit_timm');
const vit = hasShared && fs.existsSync(vitDir) ? path.join(vitDir, fs.readdirSync(vitDir).find((f) => f.endsWith('.pt.trace.json.gz'))) : null;
const fixture = path.join(repo, 'tests', 'data', 'python-function-call-stacks.json');
const AUTOGRAD = 'No Python frames on the autograd thread: backward operators run there, outside Python.';

const { server, browser } = await openSite();
const T = { timeout: 240_000 };
const skipCli = !cliHas('operators') && 'the CLI has no operators command';
const frames = (s) => s.split(';').filter((f) => f.trim() !== '');

async function open(page, file) {
  await pickFiles(page, [file]);
  const name = path.basename(file);
  assert.equal(await settled(page, name), 'done');
  return card(name);
}

/** Selects operator `name` in the Operators tab and reads its detail panel's stacks and notes. */
async function operatorStacks(page, c, name) {
  await page.fill(`${c} [data-testid=op-search]`, name);
  await page.click(`${c} [data-testid=op-row][data-name="${name}"]`);
  await page.waitForSelector(`${c} [data-testid=op-stack], ${c} [data-testid=op-stacks-none]`);
  return page.$eval(`${c} [data-testid=op-stacks]`, (el) => ({
    stacks: [...el.querySelectorAll('[data-testid=op-stack]')].map((s) => ({
      calls: Number(s.querySelector('[data-testid=op-stack-calls]').textContent),
      frames: [...s.querySelectorAll('[data-testid=op-stack-frames] li')].map((li) => li.textContent),
    })),
    none: el.querySelector('[data-testid=op-stacks-none]')?.textContent ?? null,
    noneReason: el.querySelector('[data-testid=op-stacks-none]')?.dataset.reason ?? null,
    without: [...el.querySelectorAll('[data-testid=op-stacks-without]')].map((p) => [p.dataset.reason, p.textContent]),
  }));
}

/** The detail panel's stacks equal the CLI's. */
async function checkAgainstCli(page, c, file, name) {
  const want = runCliJson(['operators', '--json', '--detail', name, file]);
  const got = await operatorStacks(page, c, name);
  assert.deepEqual(
    got.stacks,
    want.stacks.map((s) => ({ calls: s.calls, frames: frames(s.call_stack) })),
    `${name}: the stacks`,
  );
  return { want, got };
}

describe('call stacks from python_function frames', () => {
  it('ModuleList GPT (H200): Operators detail, "Operator + call stack", and the autograd thread', { ...T, skip: skipCli }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await open(page, gpt);
      await page.click(`${c} [data-testid=tab-operators]`);
      await page.waitForSelector(`${c} [data-testid=op-row]`);

      // aten::layer_norm: every call has one, from the user's code down to LayerNorm.forward.
      const ln = await checkAgainstCli(page, c, gpt, 'aten::layer_norm');
      assert.ok(ln.got.stacks.length >= 2);
      assert.deepEqual(ln.got.stacks[0].frames.slice(0, 4), [
        'torch/nn/functional.py(2914): layer_norm',
        'torch/nn/modules/normalization.py(228): forward',
        'torch/nn/modules/module.py(1783): _call_impl',
        'make_traces.py(54): forward',
      ]);
      assert.deepEqual(ln.got.stacks[0].frames.slice(-3), ['make_traces.py(98): gpt_step', 'make_traces.py(127): part_gpt', 'make_traces.py(359): <module>']);
      for (const s of ln.got.stacks) assert.ok(s.frames.every((f) => !f.startsWith('nn.Module:') && !f.startsWith('<built-in') && !f.includes('torch/profiler/')));
      assert.equal(ln.got.none, null);
      assert.deepEqual(ln.got.without, []);

      // aten::mm: the forward's calls have stacks; the 68 on the autograd thread say why.
      const mm = await checkAgainstCli(page, c, gpt, 'aten::mm');
      assert.deepEqual(mm.want.no_stack.map((w) => [w.reason, w.calls]), [['autograd_thread', 68]]);
      assert.deepEqual(mm.got.without, [['autograd_thread', `68 calls without one: ${AUTOGRAD}`]]);

      // A backward-only operator: no with_stack advice, the reason instead.
      const bw = await operatorStacks(page, c, 'aten::native_layer_norm_backward');
      assert.deepEqual(bw.stacks, []);
      assert.equal(bw.none, AUTOGRAD);
      assert.equal(bw.noneReason, 'autograd_thread');

      // Grouped by operator and call stack: the CLI's rows, with a call-stack column.
      const byStack = runCliJson(['operators', '--json', '--group-by', 'op+stack', gpt]);
      await page.fill(`${c} [data-testid=op-search]`, '');
      await page.selectOption(`${c} [data-testid=op-group-by]`, 'op+stack');
      await waitStatus(page, c, 'op', `${byStack.rows.length} rows`);
      const rows = await tableRows(page, c, 'op');
      const shown = (r) => frames(r.call_stack).join(' ← ') || '(no call stack)';
      assert.deepEqual(
        rows.slice(0, 5).map((r) => [r.cells.name, r.cells.call_stack]),
        byStack.rows.slice(0, 5).map((r) => [r.name, shown(r)]),
      );
      // Its detail: the kernels and the one stack of that (operator, stack) pair.
      const adam = byStack.rows.find((r) => r.name === 'aten::_fused_adamw_');
      assert.ok(adam && adam.call_stack.startsWith('torch/optim/adam.py'));
      await page.fill(`${c} [data-testid=op-search]`, 'aten::_fused_adamw_');
      await page.click(`${c} [data-testid=op-row] >> nth=0`);
      await page.waitForSelector(`${c} [data-testid=op-stack]`);
      assert.deepEqual(
        await page.$$eval(`${c} [data-testid=op-stack-frames] li`, (lis) => lis.map((li) => li.textContent)),
        frames(adam.call_stack),
      );
    });
  });

  it('hand-made frames: Memory alive list and events detail show the stack, or why there is none', { ...T, skip: skipCli }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await open(page, fixture);
      await page.click(`${c} [data-testid=tab-memory]`);
      await page.waitForSelector(`${c} [data-testid=memory-view][data-state=ready]`);
      await page.waitForSelector(`${c} [data-testid=memory-alive][data-state=ready]`);
      // At the peak (403 us): aten::addmm's 1 MB (frames around it) and aten::mm's 512 KB (autograd thread).
      const alive = await page.$$eval(`${c} [data-testid=memory-alive-row]`, (rs) => rs.map((r) => [Number(r.dataset.bytes), r.dataset.operator]));
      assert.deepEqual(alive, [[1048576, 'aten::addmm'], [524288, 'aten::mm']]);
      const none = await page.$eval(`${c} [data-testid=memory-alive-row] >> nth=1`, (r) => {
        const s = r.querySelector('[data-testid=memory-alive-no-stack]');
        return [s.textContent, s.title];
      });
      assert.deepEqual(none, ['none (autograd thread)', AUTOGRAD]);
      await page.click(`${c} [data-testid=memory-alive-row] >> nth=0 >> [data-testid=memory-alive-stack-toggle]`);
      assert.deepEqual(await page.$$eval(`${c} [data-testid=memory-alive-frames] li`, (lis) => lis.map((li) => li.textContent)), [
        'model.py(12): forward',
        'torch/nn/modules/module.py(1783): _call_impl',
        'train.py(20): train_step',
        'train.py(90): <module>',
      ]);
      // The events table's detail: the same stack, and the reason for the backward's.
      await page.fill(`${c} [data-testid=mem-event-search]`, 'aten::addmm');
      await page.click(`${c} [data-testid=mem-event-row] >> nth=0`);
      assert.equal(await page.textContent(`${c} [data-testid=mem-event-detail-frames] li >> nth=0`), 'model.py(12): forward');
      await page.fill(`${c} [data-testid=mem-event-search]`, 'aten::mm');
      await page.click(`${c} [data-testid=mem-event-row] >> nth=0`);
      assert.equal(await page.textContent(`${c} [data-testid=mem-event-detail-no-stack]`), AUTOGRAD);
    });
  });

  it('timm ViT (H100, ../shared): the Operators detail lists the frames of timm\'s code', { ...T, skip: skipCli || (!vit && 'no ../shared/traces/h100_pt211/vit_timm') }, async () => {
    await withCheckedPage(browser, server.url, async (page) => {
      const c = await open(page, vit);
      await page.click(`${c} [data-testid=tab-operators]`);
      await page.waitForSelector(`${c} [data-testid=op-row]`);
      const { got } = await checkAgainstCli(page, c, vit, 'aten::addmm');
      assert.deepEqual(got.stacks[0].frames.slice(0, 3), [
        'torch/nn/modules/linear.py(130): forward',
        'torch/nn/modules/module.py(1783): _call_impl',
        'timm/layers/mlp.py(47): forward',
      ]);
      assert.ok(got.stacks.every((s) => s.frames.some((f) => f.startsWith('timm/models/vision_transformer.py'))));
    });
  });
});
