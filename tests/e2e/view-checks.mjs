// What the Operators and Kernels views show, read off the page and held equal to the native
// CLI's rows (`kinetoscope operators|kernels --json`) and details (`--detail NAME --json`): the
// same core, so equal to the two decimals shown.
import assert from 'node:assert/strict';
import { assertClose, cellNum, runCliJson } from './helpers.mjs';

export const dims = (v) => (v ? `[${v.join(', ')}]` : '');
/** Tensor Cores as the page shows them: "?" for unknown (null, from a core with three states). */
export const tcText = (v) => (v == null ? '?' : v ? 'Yes' : 'No');
/** A CSS attribute value in double quotes. */
const quoted = (v) => v.replace(/["\\]/g, '\\$&');
const frames = (stack) => stack.split(';').filter((f) => f.trim() !== '');

export const OP_NUM_COLS = ['calls', 'device_self_us', 'device_total_us', 'host_self_us', 'host_total_us', 'tc_self_pct', 'tc_total_pct'];
export const opKey = (r, groupBy) => (groupBy === 'op+shape' ? `${r.name} ${r.input_shape ?? ''}` : r.name);

/** An operator row as the page shows it (tableRows) equals the CLI's row. */
export function assertOperatorRow(shown, expected, groupBy, label) {
  assert.equal(shown.name, opKey(expected, groupBy), `${label}: key`);
  assert.equal(shown.cells.name, expected.name, `${label}: name`);
  if (groupBy === 'op+shape') assert.equal(shown.cells.input_shape, expected.input_shape ?? '', `${label}: input shape`);
  for (const k of OP_NUM_COLS) if (k in shown.cells) assertClose(cellNum(shown.cells[k]), expected[k], `${label}: ${k}`);
  if ('tc_eligible' in shown.cells) assert.equal(shown.cells.tc_eligible, tcText(expected.tc_eligible), `${label}: tc_eligible`);
}

const KERNEL_NUM_COLS = ['total_us', 'mean_us', 'min_us', 'max_us', 'occupancy_pct', 'blocks_per_sm', 'calls', 'registers_per_thread', 'shared_memory'];

/** A kernel row as the page shows it equals the CLI's row (the columns shown). */
export function assertKernelRow(shown, expected, label) {
  assert.equal(shown.cells.name, expected.name, `${label}: name`);
  if ('operator' in shown.cells) {
    assert.equal(shown.cells.operator, expected.operator ?? '', `${label}: operator`);
    assert.equal(shown.cells.grid, dims(expected.grid), `${label}: grid`);
    assert.equal(shown.cells.block, dims(expected.block), `${label}: block`);
  }
  assert.equal(shown.cells.tensor_cores, tcText(expected.tensor_cores), `${label}: tensor cores`);
  for (const k of KERNEL_NUM_COLS) if (k in shown.cells) assertClose(cellNum(shown.cells[k]), expected[k], `${label}: ${k}`);
}

/** The page's detail panel of the selected kernel row equals `kinetoscope kernels --detail`. */
export async function checkKernelDetail(page, c, file, shownRow, cliRow, groupBy, step = null) {
  const args = ['kernels', '--json', '--detail', cliRow.name, ...(step != null ? ['--step', step] : [])];
  if (groupBy === 'props') {
    const d = (v) => (v ?? [0, 0, 0]).join(',');
    args.push('--group-by', 'props', '--operator', cliRow.operator, '--grid', d(cliRow.grid), '--block', d(cliRow.block));
    args.push('--registers', String(cliRow.registers_per_thread), '--shared-memory', String(cliRow.shared_memory));
  }
  const want = runCliJson([...args, file]);
  const label = `detail of ${cliRow.name.slice(0, 40)}${step != null ? ` in step ${step}` : ''}`;
  await page.click(`${c} [data-testid=kernel-row][data-name="${quoted(shownRow.name)}"]`);
  await page.waitForSelector(`${c} [data-testid=kernel-detail-operators], ${c} [data-testid=kernel-detail-operators-empty]`);
  const panel = await page.$eval(`${c} [data-testid=kernel-detail]`, (el) => {
    const rows = (id) => [...el.querySelectorAll(`[data-testid=${id}-row]`)].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
    return {
      name: el.querySelector('[data-testid=kernel-detail-name] code').textContent,
      fields: Object.fromEntries([...el.querySelectorAll('[data-testid^=kernel-detail-field-]')].map((f) => [f.getAttribute('data-testid').slice(20), f.querySelector('dd').textContent])),
      operators: rows('kernel-detail-operators'),
      launches: rows('kernel-detail-launches'),
      stacks: [...el.querySelectorAll('[data-testid=kernel-detail-stack]')].map((s) => ({
        operator: s.querySelector('[data-testid=kernel-detail-stack-operator]').textContent,
        calls: s.querySelector('[data-testid=kernel-detail-stack-calls]').textContent,
        total: s.querySelector('[data-testid=kernel-detail-stack-total]').textContent,
        frames: [...s.querySelectorAll('[data-testid=kernel-detail-stack-frames] li')].map((li) => li.textContent),
      })),
    };
  });
  // The full name, whatever the cell's width; every column's value, hidden ones too.
  assert.equal(panel.name, cliRow.name, `${label}: name`);
  assert.equal(cellNum(panel.fields.calls), cliRow.calls, `${label}: calls`);
  assert.equal(panel.fields.tensor_cores, tcText(cliRow.tensor_cores), `${label}: tensor cores`);
  for (const k of ['total_us', 'mean_us', 'min_us', 'max_us', 'blocks_per_sm', 'occupancy_pct']) {
    if (k in panel.fields) assertClose(cellNum(panel.fields[k]), cliRow[k], `${label}: ${k}`);
  }
  assert.equal('mean_us' in panel.fields && 'max_us' in panel.fields, true, `${label}: every column is in the panel`);
  if (groupBy === 'props') {
    assert.equal(panel.fields.grid, dims(cliRow.grid), `${label}: grid`);
    assert.equal(cellNum(panel.fields.registers_per_thread), cliRow.registers_per_thread, `${label}: registers`);
  }
  // The row's calls and time are those of the detail.
  assert.equal(want.calls, cliRow.calls, `${label}: the CLI's detail covers the row`);
  assert.deepEqual(
    panel.operators.map(([op, calls]) => [op, cellNum(calls)]),
    want.operators.map((o) => [o.name, o.calls]),
    `${label}: launching operators`,
  );
  want.operators.forEach((o, k) => assertClose(cellNum(panel.operators[k][2]), o.total_us, `${label}: operator ${k} time`));
  assert.deepEqual(
    panel.launches.map((r) => [r[0], r[1], cellNum(r[2]), cellNum(r[3]), cellNum(r[6])]),
    want.launches.map((l) => [dims(l.grid) || '—', dims(l.block) || '—', l.registers_per_thread, l.shared_memory, l.calls]),
    `${label}: launch properties`,
  );
  want.launches.forEach((l, k) => assertClose(cellNum(panel.launches[k][7]), l.total_us, `${label}: launch ${k} time`));
  assert.deepEqual(
    panel.stacks.map((s) => [s.operator, cellNum(s.calls), s.frames]),
    want.stacks.map((s) => [s.operator, s.calls, frames(s.call_stack)]),
    `${label}: call stacks of the launching operators`,
  );
  want.stacks.forEach((s, k) => assertClose(cellNum(panel.stacks[k].total), s.total_us, `${label}: stack ${k} time`));
  if (!want.stacks.length) await page.waitForSelector(`${c} [data-testid=kernel-detail-stacks-none]`);
  return want;
}


/** The page's detail panel of the selected operator row equals `kinetoscope operators --detail`. */
export async function checkOperatorDetail(page, c, file, shownRow, cliRow, groupBy, { showGpu, step = null } = {}) {
  const args = ['operators', '--json', '--detail', cliRow.name, ...(step != null ? ['--step', step] : [])];
  if (groupBy === 'op+shape') args.push('--group-by', 'op+shape', '--input-shape', cliRow.input_shape);
  const want = runCliJson([...args, file]);
  const label = `detail of ${cliRow.name.slice(0, 40)}${step != null ? ` in step ${step}` : ''}`;
  await page.click(`${c} [data-testid=op-row][data-name="${quoted(shownRow.name)}"]`);
  await page.waitForSelector(
    `${c} [data-testid=op-detail-kernels], ${c} [data-testid=op-detail-kernels-empty], ${c} [data-testid=op-stack], ${c} [data-testid=op-stacks-none]`,
  );
  if (showGpu) await page.waitForSelector(`${c} [data-testid=op-detail-kernels], ${c} [data-testid=op-detail-kernels-empty]`);
  if (want.stacks.some((s) => frames(s.call_stack).length)) await page.waitForSelector(`${c} [data-testid=op-stack]`);
  const panel = await page.$eval(`${c} [data-testid=op-detail]`, (el) => ({
    name: el.querySelector('[data-testid=op-detail-name]').textContent,
    fields: Object.fromEntries([...el.querySelectorAll('[data-testid^=op-detail-field-]')].map((f) => [f.getAttribute('data-testid').slice(16), f.querySelector('dd').textContent])),
    kernels: [...el.querySelectorAll('[data-testid=op-detail-kernels-row]')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    stacks: [...el.querySelectorAll('[data-testid=op-stack]')].map((s) => ({
      calls: s.querySelector('[data-testid=op-stack-calls]').textContent,
      frames: [...s.querySelectorAll('[data-testid=op-stack-frames] li')].map((li) => li.textContent),
    })),
  }));
  assert.equal(panel.name, groupBy === 'op+shape' ? `${cliRow.name} ${cliRow.input_shape}` : cliRow.name, `${label}: name`);
  assert.equal(cellNum(panel.fields.calls), cliRow.calls, `${label}: calls`);
  for (const k of ['host_self_us', 'host_total_us', 'device_self_us', 'device_total_us', 'tc_self_pct', 'tc_total_pct']) {
    if (k in panel.fields) assertClose(cellNum(panel.fields[k]), cliRow[k], `${label}: ${k}`);
  }
  if (showGpu) {
    assert.equal(panel.fields.tc_eligible, tcText(cliRow.tc_eligible), `${label}: Tensor Cores eligible`);
    assert.deepEqual(
      panel.kernels.map(([name, calls, , tc]) => [name, cellNum(calls), tc]),
      want.kernels.map((k) => [k.name, k.calls, tcText(k.tensor_cores)]),
      `${label}: kernels it launched`,
    );
    want.kernels.forEach((k, i) => assertClose(cellNum(panel.kernels[i][2]), k.total_us, `${label}: kernel ${i} time`));
  }
  const recorded = want.stacks.filter((s) => frames(s.call_stack).length);
  assert.deepEqual(
    panel.stacks.map((s) => [cellNum(s.calls), s.frames]),
    recorded.map((s) => [s.calls, frames(s.call_stack)]),
    `${label}: call stacks`,
  );
  return want;
}

/**
 * What the run page's Distributed view shows for the step on screen: the overlap and wait-time
 * tables by worker, and the straggler line.
 */
export async function readDistributed(page) {
  return page.$eval('[data-testid=distributed]', (root) => {
    const table = (id) => {
      const out = {};
      for (const tr of root.querySelectorAll(`[data-testid=${id}-row]`)) {
        out[tr.dataset.worker] = Object.fromEntries([...tr.querySelectorAll('td[data-part]')].map((td) => [td.dataset.part, Number(td.dataset.us)]));
      }
      return out;
    };
    const s = root.querySelector('[data-testid=dist-stragglers]');
    return {
      step: root.dataset.step,
      overlap: table('overlap'),
      waittime: table('waittime'),
      straggler: s && { step: s.dataset.step, slowest: s.dataset.slowest, median: Number(s.dataset.medianUs), behind: Number(s.dataset.behindUs) },
    };
  });
}

/** readDistributed's shape from `kinetoscope distributed --json`'s view, for `step`. */
export function expectedDistributed(view, step = 'all') {
  const overlap = {}, waittime = {};
  for (const [w, v] of Object.entries(view.overlap[step])) overlap[w] = { computation: v.computation_us, overlapping: v.overlapping_us, communication: v.communication_us, other: v.other_us };
  for (const [w, v] of Object.entries(view.waittime[step])) waittime[w] = { transfer: v.transfer_us, synchronizing: v.synchronizing_us, unmatched: v.unmatched_us };
  const s = view.stragglers.find((x) => x.step === step);
  return { step, overlap, waittime, straggler: { step, slowest: s.slowest_worker, median: s.median_us, behind: s.behind_median_us } };
}
