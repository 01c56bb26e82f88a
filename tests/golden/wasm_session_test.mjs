// The wasm module in Node (the code the browser worker runs), fed like the worker feeds it,
// against the independent count on every real trace; odd chunk sizes on the bundled sample.
// usage: node tests/golden/wasm_session_test.mjs build/wasm/kinetoscope_node.js
import { createRequire } from 'node:module';
import path from 'node:path';
import { traceFiles, independentCount, compare, report, readBytes } from './independent_count.mjs';

const require = createRequire(import.meta.url);
const createKinetoscope = require(path.resolve(process.argv[2]));
const mod = await createKinetoscope();

// Feeds bytes to a Session or Trimmer in chunks (until it fails), then finishes it.
// `kinetoscope kernels --detail --json`: the kernel_detail answer with kernel_operators' and
// kernel_launches' rows before its own (as the CLI prints the three).
function kernelDetail(s, p) {
  const { stacks, stacks_from_python_frames, ...head } = JSON.parse(s.queryJson('kernel_detail', p));
  const operators = JSON.parse(s.queryJson('kernel_operators', p)).operators;
  const launches = JSON.parse(s.queryJson('kernel_launches', p)).launches;
  return { ...head, operators, launches, stacks, stacks_from_python_frames };
}
// `kinetoscope modules --json` without "file": the modules answers of both tables, as the CLI joins them.
function modulesOf(s) {
  const m = JSON.parse(s.queryJson('modules', { table: 'modules' }));
  const l = JSON.parse(s.queryJson('modules', { table: 'lightning' }));
  return { rows: m.rows, lightning: m.has_lightning ? l.rows : null, backward: m.backward, error: m.error };
}
function feedAll(sink, bytes, chunk) {
  for (let i = 0; i < bytes.length && !sink.failed(); i += chunk) {
    const part = bytes.subarray(i, Math.min(i + chunk, bytes.length));
    const off = sink.prepare(part.length);
    mod.HEAPU8.set(part, off);  // HEAPU8 re-read after prepare: memory may have grown
    sink.commit(part.length);
  }
  sink.finish();
}

function load(bytes, chunk) {
  const s = new mod.Session();
  try {
    feedAll(s, bytes, chunk);
    return { summary: JSON.parse(s.queryJson('summary', {})), capacity: s.bufferCapacity() };
  } finally {
    s.delete();
  }
}

const { files } = traceFiles();
const results = [];
let skipped = 0;
for (const file of files) {
  const count = independentCount(file);
  if (!count) { skipped++; continue; }
  const bytes = readBytes(file);
  const { summary, capacity } = load(bytes, 4 << 20);
  const diffs = compare(summary, count);
  // the reader keeps the unfinished tail, not the file
  if (bytes.length > (16 << 20) && capacity > (16 << 20)) diffs.push(`buffer grew to ${capacity} bytes`);
  results.push({ name: `wasm ${path.basename(path.dirname(file))}/${path.basename(file)}`, diffs });
}
// Chunk sizes that split everything everywhere give the very same summary.
if (files.length) {
  const bytes = readBytes(files[0]);
  const whole = JSON.stringify(load(bytes, bytes.length).summary);
  for (const chunk of [1 << 20, 65537, 4093, 777]) {
    const got = JSON.stringify(load(bytes, chunk).summary);
    results.push({ name: `wasm chunk ${chunk} = whole file`, diffs: got === whole ? [] : [`differs: ${got.slice(0, 300)}`] });
  }
}
// Columns: the kernel and cpu_op tables cross as typed arrays plus the string table, and
// agree with the independent count of the same events.
for (const file of files.slice(0, 12)) {
  const count = independentCount(file);
  if (!count || !count.ok) continue;
  const doc = JSON.parse(readBytes(file).toString('utf8'));
  const events = (Array.isArray(doc) ? doc : doc.traceEvents).filter((e) => e && e.ph === 'X');
  const s = new mod.Session();
  const bytes = readBytes(file);
  const off = s.prepare(bytes.length);
  mod.HEAPU8.set(bytes, off);
  s.commit(bytes.length);
  s.finish();
  const strings = s.strings(0);
  const start = Number(JSON.parse(s.queryJson('summary', {})).start_us);
  const diffs = [];
  for (const [kind, cats] of [['kernel', ['kernel']], ['cpu_op', ['cpu_op', 'operator']]]) {
    const cols = s.columns(kind);
    const mine = events.filter((e) => cats.includes(String(e.cat).toLowerCase()));
    if (!(cols.ts instanceof Float64Array) || !(cols.name instanceof Uint32Array)) diffs.push(`${kind}: not typed arrays`);
    if (cols.ts.length !== mine.length) { diffs.push(`${kind}: ${cols.ts.length} rows, expected ${mine.length}`); continue; }
    const durSum = cols.dur.reduce((a, b) => a + b, 0) / 1000;
    const expectedDur = mine.reduce((a, e) => a + Number(e.dur || 0), 0);
    if (Math.abs(durSum - expectedDur) > 1e-6 * Math.max(1, expectedDur) + 0.01) diffs.push(`${kind}: dur sum ${durSum} vs ${expectedDur}`);
    if (mine.length) {
      const names = new Set(mine.map((e) => String(e.name)));
      const shown = new Set(Array.from(cols.name, (id) => strings[id]));
      if ([...names].some((n) => !shown.has(n))) diffs.push(`${kind}: names differ`);
      const minTs = Math.min(...mine.map((e) => Number(e.ts)));
      if (Math.abs(start + Math.min(...cols.ts) / 1000 - minTs) > 0.5) diffs.push(`${kind}: first ts differs`);
    }
  }
  if (count.categories.kernel) {
    const k = s.columns('kernel');
    const first = events.find((e) => e.cat === 'kernel' && Array.isArray(e.args?.grid));
    if (first) {
      const i = Array.from(k.name, (id) => strings[id]).indexOf(String(first.name));
      if (i < 0 || !(k.grid_x instanceof Int32Array)) diffs.push('kernel grid column missing');
    }
  }
  s.delete();
  results.push({ name: `wasm columns ${path.basename(file)}`, diffs });
}
// The step-time breakdown from the wasm Session equals the native CLI's, number for number.
{
  const { execFileSync } = await import('node:child_process');
  const cli = path.resolve('build/native/kinetoscope');
  const fs = await import('node:fs');
  for (const file of files.filter((f) => /resnet50|rank-0|v100|nccl_data/.test(f)).slice(0, 4)) {
    const bytes = readBytes(file);
    const s = new mod.Session();
    feedAll(s, bytes, 4 << 20);
    const mine = {
      steps: JSON.parse(s.queryJson('steps', {})), gpus: JSON.parse(s.queryJson('gpu_metrics', {})),
      overview: JSON.parse(s.queryJson('overview', {})),
      'operators op+shape': JSON.parse(s.queryJson('operators', { group_by: 'op+shape' })),
      'kernels props': JSON.parse(s.queryJson('kernels', { group_by: 'props' })),
    };
    // tb_plugin's mode is the Session's, for its life: a second one reads the trace that way.
    const tb = new mod.Session(true);
    feedAll(tb, bytes, 4 << 20);
    mine['kernels name --tb-plugin'] = JSON.parse(tb.queryJson('kernels', {}));
    tb.delete();
    const badGroup = JSON.parse(s.queryJson('operators', { group_by: 'shape' }));
    // One step's tables and a row's details: the same as `--step N` and `--detail NAME`.
    const step = mine.steps.steps[mine.steps.steps.length - 1]?.name;
    const perStep = []; // [CLI arguments, the Session's answer]
    if (step != null) {
      const ops = JSON.parse(s.queryJson('operators', { step }));
      const kernels = JSON.parse(s.queryJson('kernels', { group_by: 'props', step }));
      perStep.push([['operators', '--step', step], ops], [['kernels', '--group-by', 'props', '--step', step], kernels]);
      const k = kernels.rows[0];
      if (k) {
        const props = [...(k.grid ?? [0, 0, 0]), ...(k.block ?? [0, 0, 0]), k.registers_per_thread, k.shared_memory];
        perStep.push(
          [['kernels', '--detail', k.name, '--step', step], kernelDetail(s, { group_by: 'name', name: k.name, step })],
          [
            ['kernels', '--detail', k.name, '--group-by', 'props', '--operator', k.operator, '--grid', props.slice(0, 3).join(','),
              '--block', props.slice(3, 6).join(','), '--registers', String(props[6]), '--shared-memory', String(props[7])],
            kernelDetail(s, {
              group_by: 'props', name: k.name, operator: k.operator, grid: props.slice(0, 3).join(','), block: props.slice(3, 6).join(','),
              registers: String(props[6]), shared_memory: String(props[7]),
            }),
          ],
        );
      }
      const o = ops.rows[0];
      // A row's detail is two answers (operator_kernels' rows, then operator_detail's), printed as one object.
      const p = { group_by: 'op', name: o?.name ?? '', step };
      if (o) perStep.push([['operators', '--detail', o.name, '--step', step], { ...JSON.parse(s.queryJson('operator_kernels', p)), ...JSON.parse(s.queryJson('operator_detail', p)) }]);
    }
    const badStep = JSON.parse(s.queryJson('kernels', { step: 'no-such-step' }));
    s.delete();
    const diffs = [];
    if (!mine.steps.steps.length) diffs.push('no steps');
    if (fs.existsSync(cli)) {
      for (const command of Object.keys(mine)) {
        const [verb, group, tb] = command.split(' ');
        const args = [verb, '--json', ...(group?.startsWith('--') ? [group] : group ? ['--group-by', group] : []), ...(tb ? [tb] : []), file];
        const native = JSON.parse(execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28 }));
        if ('file' in native) native.file = '';
        if (JSON.stringify(native) !== JSON.stringify(mine[command])) diffs.push(`${command} differs from the native CLI`);
      }
    }
    if (!/unknown group_by/.test(badGroup.error ?? '')) diffs.push(`bad group_by: ${JSON.stringify(badGroup)}`);
    if (!/^no step no-such-step \((the steps are|the only step is) /.test(badStep.error ?? '')) diffs.push(`unknown step: ${JSON.stringify(badStep)}`);
    if (step != null && perStep.length < 5) diffs.push(`step ${step}: no rows to ask details of`);
    if (fs.existsSync(cli)) {
      for (const [args, got] of perStep) {
        const native = JSON.parse(execFileSync(cli, [...args, '--json', file], { encoding: 'utf8', maxBuffer: 1 << 28 }));
        if (JSON.stringify(native) !== JSON.stringify(got)) diffs.push(`${args.join(' ')} differs from the native CLI`);
      }
    }
    // The wasm Trimmer writes the same bytes as `kinetoscope trim` for the first step's window.
    if (fs.existsSync(cli)) {
      const step = mine.steps.steps[0];
      const native = execFileSync(cli, ['trim', '--from-us', String(step.start_us), '--to-us', String(step.end_us), file],
        { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
      const t = new mod.Trimmer(step.start_us, step.end_us);
      feedAll(t, bytes, 1 << 20);
      const out = t.output();
      if (t.error() || Buffer.compare(Buffer.from(out), native) !== 0) diffs.push(`trim: wasm ${out.length} bytes vs native ${native.length} (${t.error()})`);
      // Its report (the trim view's answer) is what `kinetoscope trim -o OUT --json` prints.
      const os = await import('node:os');
      const outFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ks-trim-')), 'out.json');
      const nativeReport = JSON.parse(execFileSync(cli, ['trim', '--from-us', String(step.start_us), '--to-us', String(step.end_us), '-o', outFile, '--json', file],
        { maxBuffer: 1 << 28, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
      fs.rmSync(path.dirname(outFile), { recursive: true, force: true });
      const report = t.report();
      const meta = JSON.parse(report.meta);
      const wasmKinds = Array.from(report.columns.kept, (k, i) => [k, report.columns.dropped[i]]);
      const nativeKinds = nativeReport.kinds.map((k) => [k.kept, k.dropped]);
      if (report.view !== 'trim' || report.error || meta.kept_events !== nativeReport.kept_events || meta.total_events !== nativeReport.total_events ||
          JSON.stringify(wasmKinds) !== JSON.stringify(nativeKinds) || meta.bytes !== out.length) {
        diffs.push(`trim report: wasm ${JSON.stringify({ meta, wasmKinds })} vs native ${JSON.stringify(nativeReport)}`);
      }
      t.delete();
    }
    results.push({ name: `wasm steps, gpus, overview, operators, kernels, trim = native ${path.basename(file)}`, diffs });
  }
}
// The Module view from the wasm Session equals `kinetoscope modules --json` on the fixtures (they
// are in the repo: this runs without ../shared), in both modes; the presence and the tree answer.
// The Distributed view: each Session's rank summary, reduced in the module (what the page's worker
// does), is what `kinetoscope distributed --json` prints for the same files, in both modes; a text
// that is not a rank summary is refused with a sentence.
{
  const { execFileSync } = await import('node:child_process');
  const fs = await import('node:fs');
  const cli = path.resolve('build/native/kinetoscope');
  for (const f of ['modules-fwdbwd.json', 'lightning-modules.json', 'tb-unit-module-hierarchy.json', 'op-tree-linking.json']) {
    const file = path.resolve('tests/data', f);
    const s = new mod.Session();
    feedAll(s, readBytes(file), 997);
    const diffs = [];
    const presence = JSON.parse(s.queryJson('module_presence', {}));
    const tb = new mod.Session(true);
    feedAll(tb, readBytes(file), 997);
    const mine = [modulesOf(s), modulesOf(tb)];
    tb.delete();
    const tree = JSON.parse(s.queryJson('module_tree', {}));
    const bad = JSON.parse(s.queryJson('module_tree', { tid: 'no-such-thread' }));
    const nodes = s.query('module_tree', {}).rowCount;
    s.delete();
    const has = mine[0].rows.length > 0 || mine[0].lightning !== null;
    if (presence.modules !== mine[0].rows.length > 0 || presence.lightning !== (mine[0].lightning !== null)) diffs.push(`presence ${JSON.stringify(presence)}`);
    if (has !== tree.threads.length > 0 || (has && !nodes)) diffs.push(`tree: ${tree.threads.length} threads, ${nodes} nodes`);
    if (!/no thread no-such-thread/.test(bad.error ?? '')) diffs.push(`unknown thread: ${JSON.stringify(bad)}`);
    if (fs.existsSync(cli)) {
      ['', '--tb-plugin'].forEach((tb, k) => {
        let out;
        try {
          out = execFileSync(cli, ['modules', '--json', ...(tb ? [tb] : []), file], { encoding: 'utf8' });
        } catch (e) {
          out = e.stdout;
        }
        const native = JSON.parse(out);
        delete native.file;
        if (JSON.stringify(native) !== JSON.stringify(mine[k])) diffs.push(`modules ${tb} differs from the native CLI`);
      });
    }
    results.push({ name: `wasm modules = native ${f}`, diffs });
  }
  const run = path.resolve('tests/data/distributed-diverging-ranks');
  const diffs = [];
  // A column's cells as the --json writes them (null for the column type's null).
  const cells = (a, name) => {
    const col = a.columns[name];
    const strings = new TextDecoder().decode(a.stringBytes).split('\0');
    return Array.from(col, (v) =>
      col instanceof Uint32Array ? (v === 0xffffffff ? null : strings[v]) : col instanceof Int32Array ? (v === -0x80000000 ? null : v) : Number.isNaN(v) ? null : v,
    );
  };
  for (const tb of [false, true]) {
    const ranks = fs.readdirSync(run).sort().map((f) => {
      const s = new mod.Session(tb);
      feedAll(s, readBytes(path.join(run, f)), 1 << 20);
      const out = s.queryBytes('distributed_rank', { worker: f.replace(/\.pt\.trace\.json$/, ''), span: 'default' });
      s.delete();
      return out;
    });
    const mine = mod.reduceDistributed(ranks, tb);
    if (mine.error) diffs.push(`${tb}: ${mine.error}`);
    if (fs.existsSync(cli)) {
      const native = execFileSync(cli, ['distributed', '--json', ...(tb ? ['--tb-plugin'] : []), run], { encoding: 'utf8' }).trim().split('\n').map((l) => JSON.parse(l));
      if (native.length !== mine.spans.length) diffs.push(`${tb}: ${mine.spans.length} spans vs native ${native.length}`);
      native.forEach((want, i) => {
        const got = mine.spans[i];
        const meta = JSON.parse(got.workers.meta);
        for (const k of ['span', 'mode', 'available', 'reason', 'steps', 'overlap', 'waittime', 'matching'])
          if (JSON.stringify(meta[k]) !== JSON.stringify(want[k])) diffs.push(`${tb} ${k}: ${JSON.stringify(meta[k])} vs native ${JSON.stringify(want[k])}`);
        const same = (label, answer, rows, names) =>
          names.forEach((n) => {
            const g = cells(answer, n), w = rows.map((r) => r[n]);
            if (JSON.stringify(g) !== JSON.stringify(w)) diffs.push(`${tb} ${label}.${n}: ${JSON.stringify(g)} vs native ${JSON.stringify(w)}`);
          });
        same('workers', got.workers, want.workers, ['worker', 'rank', 'span', 'world_size', 'backend', 'node', 'process']);
        same('collectives', got.collectives, want.collectives, ['process_group', 'group_size', 'name', 'bytes', 'calls', 'workers', 'total_us', 'avg_us', 'transfer_us']);
        same('stragglers', got.stragglers, want.stragglers, ['step', 'median_us', 'slowest_worker', 'slowest_rank', 'slowest_us', 'behind_median_us', 'behind_median_pct']);
        const ops = Object.entries(want.commops).flatMap(([worker, rows]) => rows.map((r) => ({ worker, ...r })));
        same('commops', got.commops, ops, ['worker', 'name', 'calls', 'total_bytes', 'avg_bytes', 'total_latency_us', 'transfer_us']);
      });
    }
  }
  const bad = mod.reduceDistributed([new TextEncoder().encode('{"traceEvents": []}')], false);
  if (bad.error !== 'rank summary 1: not a Kinetoscope answer') diffs.push(`bad summary: ${JSON.stringify(bad.error)}`);
  results.push({ name: 'wasm distributed map + reduce = native kinetoscope distributed', diffs });
}
// The split plan is the core's (core/trace/model_merge.h): the page asks it through the binding,
// with offsets past 4 GiB exact.
{
  const diffs = [];
  const same = (what, got, want) => {
    if (JSON.stringify(got) !== JSON.stringify(want)) diffs.push(`${what}: ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  };
  same('nominalSplits(1000, 3)', mod.nominalSplits(1000, 3), [333, 666]);
  same('nominalSplits(1e10, 3)', mod.nominalSplits(1e10, 3), [3333333333, 6666666666]);
  same('nominalSplits(1000, 1)', mod.nominalSplits(1000, 1), []);
  same('chooseSplits one', mod.chooseSplits([500], [12], 1000), [512]);
  same('chooseSplits none found', mod.chooseSplits([333, 666], [-1, 5], 1000), [671]);
  same('chooseSplits the same twice', mod.chooseSplits([333, 666], [400, 67], 1000), [733]);
  same('chooseSplits at the end', mod.chooseSplits([500], [500], 1000), []);
  same('chooseSplits past 4 GiB', mod.chooseSplits([3333333333, 6666666666], [17, 17], 1e10), [3333333350, 6666666683]);
  results.push({ name: 'wasm split plan = the core\'s, past 4 GiB exact', diffs });
}
// The Memory view from the wasm Session equals `kinetoscope memory --json`: each device's
// statistics, events and curve, whole and in a window, and the devices' peaks — the answers' JSON
// and their typed columns.
{
  const { execFileSync } = await import('node:child_process');
  const fs = await import('node:fs');
  const cli = path.resolve('build/native/kinetoscope');
  const memFiles = [path.resolve('tests/data/memory-alive-at-peak.json'), ...files.filter((f) => /resnet50/.test(f)).slice(0, 1)];
  for (const file of memFiles) {
    if (!fs.existsSync(cli) || !fs.existsSync(file)) continue;
    const s = new mod.Session();
    feedAll(s, readBytes(file), 1 << 20);
    const diffs = [];
    const json = (view, params) => JSON.parse(s.queryJson(view, params));
    const devices = json('memory_devices', {});
    const whole = JSON.parse(execFileSync(cli, ['memory', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 28 }));
    if (JSON.stringify(devices.devices) !== JSON.stringify(whole.devices)) diffs.push('devices differ');
    if (devices.origin_us !== whole.origin_us || devices.default_device !== whole.default_device) diffs.push('origin or default device differ');
    const end = Math.max(...whole.devices.map((d) => d.peak_us ?? 0)) * 1.5;
    for (const [from, to] of [[NaN, NaN], [end / 3, end]]) {
      const win = Number.isNaN(from) ? {} : { from_us: String(from), to_us: String(to) };
      const native = Number.isNaN(from) ? whole
        : JSON.parse(execFileSync(cli, ['memory', '--json', '--from-us', String(from), '--to-us', String(to), file], { encoding: 'utf8', maxBuffer: 1 << 28 }));
      for (const d of whole.devices.map((x) => x.device)) {
        const p = { device: d, ...win };
        if (JSON.stringify(json('memory_stats', p).rows) !== JSON.stringify(native.stats[d])) diffs.push(`${d} ${from}..${to}: statistics differ`);
        if (JSON.stringify(json('memory_events', p).rows) !== JSON.stringify(native.events[d])) diffs.push(`${d} ${from}..${to}: events differ`);
        const curve = json('memory_curve', p).rows.map((r) => [r.t_us, r.allocated_bytes, r.reserved_bytes]);
        if (JSON.stringify(curve) !== JSON.stringify(native.curve[d])) diffs.push(`${d} ${from}..${to}: curve differs`);
        // The typed answer holds the same numbers.
        const ev = s.query('memory_events', p);
        const want = native.events[d];
        const orNull = (v) => (Number.isNaN(v) ? null : v);
        if (ev.rowCount !== want.length || want.some((e, i) => ev.columns.size_bytes[i] !== e.size_bytes || orNull(ev.columns.release_us[i]) !== e.release_us)) {
          diffs.push(`${d} ${from}..${to}: typed events differ (${ev.rowCount} vs ${want.length})`);
        }
      }
    }
    if (!/no device GPU9/.test(s.query('memory_stats', { device: 'GPU9' }).error)) diffs.push('unknown device not refused');
    s.delete();
    results.push({ name: `wasm memory = native ${path.basename(file)}`, diffs });
  }
}
// The Diff view from two wasm Sessions (the baseline's query with the experiment's: the diff and
// diff_operators answers, typed columns) equals `kinetoscope diff --json` on the hand-made pair
// (and on resnet50's two spans when ../shared is there), in both modes: every node in pre-order
// (path, name, role, parent, both sides' numbers) and every node side's operators in order.
{
  const { execFileSync } = await import('node:child_process');
  const fs = await import('node:fs');
  const cli = path.resolve('build/native/kinetoscope');
  const resnet = path.resolve('../shared/traces/resnet50_num_workers_0');
  const pairs = [['tests/data/diff-baseline.json', 'tests/data/diff-experiment.json'].map((f) => path.resolve(f))];
  if (fs.existsSync(resnet)) pairs.push(fs.readdirSync(resnet).sort().map((f) => path.join(resnet, f)));
  const cell = (a, strings, col, r) => {
    const v = a.columns[col][r];
    return a.columns[col] instanceof Uint32Array ? (v === 0xffffffff ? null : strings[v]) : v;
  };
  // diffs: what differs between the answers and the CLI's nested object `want`.
  const compareDiff = (tree, ops, want, diffs) => {
    if (tree.error || ops.error) return diffs.push(`error: ${tree.error || ops.error}`);
    const ts = new TextDecoder().decode(tree.stringBytes).split('\0');
    const os = new TextDecoder().decode(ops.stringBytes).split('\0');
    const meta = JSON.parse(tree.meta);
    if (meta.baseline !== want.baseline || meta.experiment !== want.experiment) diffs.push(`names ${tree.meta}`);
    const rows = [];
    const walk = (n, parent) => {
      rows.push({ n, parent });
      const self = rows.length - 1;
      n.children.forEach((c) => walk(c, self));
    };
    walk(want.tree, -1);
    if (tree.rowCount !== rows.length) return diffs.push(`${tree.rowCount} nodes, the CLI ${rows.length}`);
    let op = 0;
    rows.forEach(({ n, parent }, r) => {
      for (const k of ['path', 'name', 'role']) if (cell(tree, ts, k, r) !== n[k]) diffs.push(`${n.path} ${k}: ${cell(tree, ts, k, r)} vs ${n[k]}`);
      if (tree.columns.parent[r] !== parent) diffs.push(`${n.path} parent ${tree.columns.parent[r]} vs ${parent}`);
      for (const side of ['baseline', 'experiment']) {
        const { aggs, ...numbers } = n[side];
        for (const [k, v] of Object.entries(numbers)) if (cell(tree, ts, `${side}_${k}`, r) !== v) diffs.push(`${n.path} ${side}_${k}: ${cell(tree, ts, `${side}_${k}`, r)} vs ${v}`);
        for (const a of aggs) {
          if (ops.columns.node[op] !== r || cell(ops, os, 'side', op) !== side) diffs.push(`${n.path} ${side}: operator row ${op} is node ${ops.columns.node[op]}'s ${cell(ops, os, 'side', op)}`);
          for (const [k, v] of Object.entries(a)) if (cell(ops, os, k, op) !== v) diffs.push(`${n.path} ${side} ${a.name} ${k}: ${cell(ops, os, k, op)} vs ${v}`);
          op++;
        }
      }
    });
    if (ops.rowCount !== op) diffs.push(`${ops.rowCount} operator rows, the CLI ${op}`);
  };
  for (const pair of pairs) {
    const [a, b, aTb, bTb] = [...pair, ...pair].map((f, i) => {
      const s = new mod.Session(i >= 2);
      feedAll(s, readBytes(f), 65521);
      return s;
    });
    const names = pair.map((f) => path.basename(f));
    const p = { baseline: names[0], experiment: names[1] };
    const mine = [[a, b], [aTb, bTb]].map(([x, y]) => [x.query('diff', p, y), x.query('diff_operators', p, y)]);
    const diffs = [];
    if (mine[0][0].error || !(mine[0][0].columns.baseline_duration_us instanceof Float64Array)) diffs.push(`no tree: ${mine[0][0].error}`);
    // A view of two traces asked of one, and one of one trace asked with two, say so.
    if (!/compares two traces/.test(a.query('diff', p).error)) diffs.push('diff without the experiment not refused');
    if (!/is of one trace/.test(a.query('operators', {}, b).error)) diffs.push('operators with another Session not refused');
    for (const s of [a, b, aTb, bTb]) s.delete();
    if (fs.existsSync(cli)) {
      ['', '--tb-plugin'].forEach((tb, k) => {
        const native = JSON.parse(execFileSync(cli, ['diff', '--json', ...(tb ? [tb] : []), ...pair], { encoding: 'utf8', maxBuffer: 1 << 28 }));
        const before = diffs.length;
        compareDiff(mine[k][0], mine[k][1], native, diffs);
        if (diffs.length > before) diffs.splice(before + 5, Infinity, `diff ${tb || 'default'} differs from the native CLI`);
      });
    }
    results.push({ name: `wasm diff = native ${names.join(' vs ')}`, diffs });
  }
}
// The GPU time tab's answers from the wasm Session (issue 24: the query that aborted in Node before
// the AnswerBuilder fix) equal `kinetoscope gpu-time --json`: the temporal breakdown's rows and the
// idle and kernel breakdowns' (HTA's rounding too), and the typed columns hold the same numbers.
{
  const { execFileSync } = await import('node:child_process');
  const fs = await import('node:fs');
  const cli = path.resolve('build/native/kinetoscope');
  const gpuFiles = ['tests/data/gpu-idle-overlapping-sync.json', 'tests/data/gpu-time-sub-us-memset.json', 'tests/data/h200_pt211/gpt_modulelist/gpt_rank0.1795735873838978949.pt.trace.json.gz']
    .map((f) => path.resolve(f))
    .concat(files.filter((f) => /nccl_data/.test(f)));
  for (const file of gpuFiles) {
    if (!fs.existsSync(cli) || !fs.existsSync(file)) continue;
    const s = new mod.Session();
    feedAll(s, readBytes(file), 1 << 20);
    const diffs = [];
    for (const rounding of ['ns', 'hta']) {
      const native = JSON.parse(execFileSync(cli, ['gpu-time', '--json', '--rounding', rounding, file], { encoding: 'utf8', maxBuffer: 1 << 28 }));
      const parts = [['gpu-time', 'rows'], ['gpu-idle', 'idle'], ['gpu-idle-intervals', 'idle_intervals'], ['gpu-kernel-types', 'kernel_types'], ['gpu-top-kernels', 'top_kernels']];
      for (const [view, key] of parts) {
        const mine = JSON.parse(s.queryJson(view, { rounding }));
        if (JSON.stringify(mine[key]) !== JSON.stringify(native[key])) diffs.push(`${view} ${rounding}: rows differ from the native CLI`);
      }
      const idle = s.query('gpu-idle', { rounding });
      if (idle.error || idle.rowCount !== native.idle.length || native.idle.some((r, i) => idle.columns.stream[i] !== r.stream || idle.columns.host_wait_us[i] !== r.host_wait_us))
        diffs.push(`gpu-idle ${rounding}: typed columns differ (${idle.error || idle.rowCount})`);
      const top = s.query('gpu-top-kernels', { rounding });
      if (top.error || top.rowCount !== native.top_kernels.length || native.top_kernels.some((r, i) => top.columns.sum_us[i] !== r.sum_us))
        diffs.push(`gpu-top-kernels ${rounding}: typed columns differ (${top.error || top.rowCount})`);
    }
    if (s.query('gpu-time', {}).rowCount === 0) diffs.push('gpu-time answered no rows');
    s.delete();
    results.push({ name: `wasm gpu-time = native ${path.basename(file)}`, diffs });
  }
}
// Not a trace: one sentence, reading stops at once.
{
  const s = new mod.Session();
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10]);
  const off = s.prepare(png.length);
  mod.HEAPU8.set(png, off);
  s.commit(png.length);
  const diffs = s.failed() && /not JSON/.test(s.error()) ? [] : [`failed=${s.failed()} error=${s.error()}`];
  s.delete();
  results.push({ name: 'wasm PNG fails on its first bytes', diffs });
}
// Issue 12: the Session reports the Overview's parts in order, each once; the core beats from its
// long loops; an abort and an out of memory (the failure tests' hook) come out as the RuntimeErrors
// the worker tells apart. Each failure in a module of its own: an aborted module is dead.
{
  const s = new mod.Session();
  feedAll(s, readBytes(path.resolve('web/public/samples/rank-0.json.gz')), 1 << 20);
  const seen = [];
  s.setProgress((phase, index, count) => seen.push(`${index}/${count} ${phase}`));
  let beats = 0;
  mod.setHeartbeat(() => beats++);
  s.queryJson('steps', {});
  s.queryJson('gpu_metrics', {});
  s.queryJson('overview', {});
  s.queryJson('overview', {});
  s.queryJson('operators', {});
  s.query('modules', {});
  mod.setHeartbeat(undefined);
  s.delete();
  const want = ['1/5 steps', '2/5 step breakdown', '3/5 GPU metrics', '4/5 operator trees', '5/5 recommendations', '5/5 recommendations', '0/0 module trees'];
  const diffs = JSON.stringify(seen) === JSON.stringify(want) ? [] : [`phases ${JSON.stringify(seen)}`];
  results.push({ name: 'wasm Session reports the overview phases in order (issue 12)', diffs });
}
// An out of memory aborts as "Aborted(OOM)" when the heap cannot grow, or as "Aborted()" from
// operator new when the next block would pass 4 GB: at a full heap either way (protocol.ts trapFailure).
for (const [kind, message] of [['abort', /^Aborted\(\)/], ['oom', /^Aborted\((OOM)?\)/]]) {
  const m = await createKinetoscope({ printErr: () => {} });
  const s = new m.Session();
  let got = 'no error';
  try {
    s.debugFault(kind);
  } catch (e) {
    got = `${e instanceof WebAssembly.RuntimeError ? 'RuntimeError' : e?.name}: ${e?.message}`;
  }
  const heap = m.HEAPU8.length;
  const diffs = got.startsWith('RuntimeError: ') && message.test(got.slice(14)) ? [] : [`got ${got}`];
  if (kind === 'oom' && heap < 3.5 * 2 ** 30) diffs.push(`heap only ${heap} bytes at the out-of-memory abort`);
  results.push({ name: `wasm debugFault('${kind}') is a RuntimeError ${message} (issue 12)`, diffs });
}
report(results, skipped);
