// Records or compares the `--json` output of every CLI command on a set of traces: the check that
// a refactor changes no output (scripts/cli-outputs for the usage). The checked-in goldens of
// tests/golden/cli are one such recording, on the traces that tests/golden/cli/traces.txt lists.
//
// Layout of DIR: one folder per trace, named after its path (under tests/data: the path from
// there; under ../shared/traces: "shared/" and the path from there) without .json/.json.gz, holding
// <command>.json (standard output) and, where the command wrote to standard error or exited with
// another status than 0, <command>.err (standard error, then "exit N"). A run (a folder of two
// traces or more) gets distributed.json and diff.json (its first two traces in name order) in
// its folder; a pair "A B" of the list, diff/<A's name>--<B's name>.json.
//
// What is not compared: the model_bytes of `summary` (the bytes of the model's tables, which
// every change to the model's layout moves; no view shows it) is cut out of its line.
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = path.join(repo, 'tests/data');
const sharedDir = path.resolve(repo, '../shared/traces');

// The commands run on each trace, each named after its output file. tb: also run with
// --tb-plugin (as <name>.tb.json).
const COMMANDS = [
  { name: 'summary', args: ['summary', '--json'], tb: false },
  { name: 'steps', args: ['steps', '--json'], tb: true },
  { name: 'gpus', args: ['gpus', '--json'], tb: true },
  { name: 'overview', args: ['overview', '--json'], tb: true },
  { name: 'operators', args: ['operators', '--json'], tb: true },
  { name: 'operators.op+shape', args: ['operators', '--json', '--group-by', 'op+shape'], tb: true },
  { name: 'operators.op+stack', args: ['operators', '--json', '--group-by', 'op+stack'], tb: true },
  { name: 'kernels', args: ['kernels', '--json'], tb: true },
  { name: 'kernels.props', args: ['kernels', '--json', '--group-by', 'props'], tb: true },
  { name: 'modules', args: ['modules', '--json'], tb: true },
  { name: 'memory', args: ['memory', '--json'], tb: true },
  { name: 'ranges', args: ['ranges', '--json'], tb: false },
  { name: 'flops', args: ['flops', '--json'], tb: false },
  { name: 'gpu-time', args: ['gpu-time', '--json'], tb: false },
  { name: 'roofline', args: ['roofline', '--json'], tb: false },
  { name: 'distributed', args: ['distributed', '--json'], tb: true },
  { name: 'diff.self', args: ['diff', '--json'], self: true, tb: true },
];

const USAGE = `usage: scripts/cli-outputs record DIR [options]
       scripts/cli-outputs compare DIR [options]
  record   writes every command's --json output on every trace into DIR (its earlier
           outputs are removed first; DIR may hold only such outputs, .txt and README files)
  compare  runs the same into a temporary folder and compares it with DIR byte for byte:
           lists what differs, is missing or is new, prints a unified diff of the first
           difference, and exits 1 if anything differs
options:
  --bin PATH      the CLI (default: build/native/kinetoscope)
  --traces FILE   the traces listed in FILE (a line: a trace; a folder: a run, read by
                  distributed and diffed first to second; "A B": diff A B; paths from the
                  repository's root; --tb-plugin at the end: also with --tb-plugin; # starts
                  a comment) instead of every trace in tests/data and ../shared/traces
                  (skipped when absent), their runs, all with and without --tb-plugin
  --no-tb         leave out every --tb-plugin run
  --only TEXT     only the traces whose path holds TEXT
  --jobs N        commands run at a time (default 2)`;

function parseArgs(argv) {
  const o = { mode: argv[0], dir: argv[1], bin: path.join(repo, 'build/native/kinetoscope'), traces: null,
    tb: true, only: null, jobs: 2 };
  if (!['record', 'compare'].includes(o.mode) || !o.dir) fail(USAGE, 2);
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) fail(`cli-outputs: ${a} needs a value\n${USAGE}`, 2);
      return argv[++i];
    };
    if (a === '--bin') o.bin = path.resolve(next());
    else if (a === '--traces') o.traces = path.resolve(next());
    else if (a === '--no-tb') o.tb = false;
    else if (a === '--only') o.only = next();
    else if (a === '--jobs') o.jobs = Math.max(1, Number(next()) || 1);
    else fail(`cli-outputs: unknown option ${a}\n${USAGE}`, 2);
  }
  o.dir = path.resolve(o.dir);
  return o;
}

function fail(message, code = 1) {
  process.stderr.write(message + '\n');
  process.exit(code);
}

const isTrace = (name) => /\.json(\.gz)?$/.test(name);
const rel = (p) => path.relative(repo, p);

// The folder name of a trace (or run folder) in DIR.
function keyOf(p) {
  const abs = path.resolve(repo, p);
  let key;
  if (abs === dataDir || abs.startsWith(dataDir + path.sep)) key = path.relative(dataDir, abs);
  else if (abs === sharedDir || abs.startsWith(sharedDir + path.sep)) key = path.join('shared', path.relative(sharedDir, abs));
  else fail(`cli-outputs: ${p} is neither under tests/data nor under ../shared/traces`);
  return key.replace(/\.json(\.gz)?$/, '');
}

function walk(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (isTrace(e.name) && fs.statSync(p).isFile()) out.push(p);
  }
  return out;
}

// Traces, runs (folders read by distributed and diffed first to second) and diff pairs.
function discover(o) {
  const traces = [], runs = [], pairs = [];
  if (o.traces) {
    const lines = fs.readFileSync(o.traces, 'utf8').split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean);
    for (const line of lines) {
      const words = line.split(/\s+/);
      const tb = words.includes('--tb-plugin');
      const parts = words.filter((w) => w !== '--tb-plugin').map((p) => path.resolve(repo, p));
      if (words.some((w) => w.startsWith('--') && w !== '--tb-plugin') || parts.length > 2) {
        fail(`cli-outputs: ${line} (in ${rel(o.traces)}): a line is a trace, a folder or two traces, then --tb-plugin or nothing`);
      }
      for (const p of parts) if (!fs.existsSync(p)) fail(`cli-outputs: ${line} (in ${rel(o.traces)}): no such file`);
      if (parts.length === 2) pairs.push({ path: parts, tb });
      else if (fs.statSync(parts[0]).isDirectory()) runs.push({ path: parts[0], tb });
      else traces.push({ path: parts[0], tb });
    }
  } else {
    const roots = [dataDir];
    if (fs.existsSync(sharedDir)) roots.push(sharedDir);
    else console.log(`cli-outputs: ${sharedDir} is absent: only tests/data`);
    for (const root of roots) {
      const found = walk(root);
      traces.push(...found.map((f) => ({ path: f, tb: true })));
      const byDir = new Map();
      for (const f of found) {
        const d = path.dirname(f);
        if (d !== root) byDir.set(d, (byDir.get(d) || 0) + 1);
      }
      for (const [d, n] of [...byDir].sort()) if (n >= 2) runs.push({ path: d, tb: true });
    }
  }
  const keep = (p) => !o.only || rel(p).includes(o.only);
  for (const x of [...traces, ...runs, ...pairs]) x.tb = x.tb && o.tb;
  return { traces: traces.filter((t) => keep(t.path)), runs: runs.filter((r) => keep(r.path)),
    pairs: pairs.filter((pr) => pr.path.some(keep)) };
}

function jobsFor(o, { traces, runs, pairs }) {
  const jobs = [];
  const seen = new Map();
  const add = (file, args) => {
    const prior = seen.get(file);
    if (prior) fail(`cli-outputs: ${prior} and ${args.join(' ')} would both write ${file}`);
    seen.set(file, args.join(' '));
    jobs.push({ file, args });
  };
  const modes = (tb) => (tb ? [false, true] : [false]);
  for (const { path: t, tb: withTb } of traces) {
    const key = keyOf(t);
    for (const c of COMMANDS) {
      for (const tb of modes(c.tb && withTb)) {
        const args = [...c.args, ...(tb ? ['--tb-plugin'] : []), t, ...(c.self ? [t] : [])];
        add(path.join(key, `${c.name}${tb ? '.tb' : ''}`), args);
      }
    }
  }
  for (const { path: r, tb: withTb } of runs) {
    const key = keyOf(r);
    const members = fs.readdirSync(r).filter(isTrace).sort().map((n) => path.join(r, n));
    if (members.length < 2) fail(`cli-outputs: ${rel(r)} holds fewer than two traces: not a run`);
    for (const tb of modes(withTb)) {
      const t = tb ? ['--tb-plugin'] : [];
      add(path.join(key, `distributed${tb ? '.tb' : ''}`), ['distributed', '--json', ...t, r]);
      add(path.join(key, `diff${tb ? '.tb' : ''}`), ['diff', '--json', ...t, members[0], members[1]]);
    }
  }
  for (const { path: [a, b], tb: withTb } of pairs) {
    const name = `${path.basename(keyOf(a))}--${path.basename(keyOf(b))}`;
    for (const tb of modes(withTb)) {
      add(path.join('diff', `${name}${tb ? '.tb' : ''}`), ['diff', '--json', ...(tb ? ['--tb-plugin'] : []), a, b]);
    }
  }
  return jobs;
}

// Runs one command (paths relative to the repository's root, so that outputs that name a file
// read the same from any checkout) and writes its outputs under `out`.
function runOne(o, out, job) {
  return new Promise((resolve) => {
    const args = job.args.map((a) => (path.isAbsolute(a) ? rel(a) : a));
    execFile(o.bin, args, { cwd: repo, encoding: 'buffer', maxBuffer: 1 << 30, timeout: 600_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : `${err.signal || err.code}`) : 0;
      let text = stdout;
      if (job.args[0] === 'summary') text = Buffer.from(stdout.toString('latin1').replace(/,"model_bytes":\d+/g, ''), 'latin1');
      const base = path.join(out, job.file);
      fs.mkdirSync(path.dirname(base), { recursive: true });
      fs.writeFileSync(`${base}.json`, text);
      if (code !== 0 || stderr.length) fs.writeFileSync(`${base}.err`, Buffer.concat([stderr, Buffer.from(`exit ${code}\n`)]));
      resolve();
    });
  });
}

async function runAll(o, out, jobs) {
  let next = 0, done = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      await runOne(o, out, job);
      if (++done % 200 === 0 && process.stdout.isTTY) process.stdout.write(`  ${done}/${jobs.length} (${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
    }
  };
  await Promise.all(Array.from({ length: o.jobs }, worker));
}

function listOutputs(dir) {
  const out = [];
  const go = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) go(p);
      else if (/\.(json|err)$/.test(e.name)) out.push(path.relative(dir, p));
    }
  };
  if (fs.existsSync(dir)) go(dir);
  return out.sort();
}

// DIR may hold earlier outputs, lists and READMEs only: anything else means a wrong DIR.
function clearOutputs(dir) {
  const check = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) check(p);
      else if (!/\.(json|err|txt)$/.test(e.name) && !/^README/.test(e.name)) {
        fail(`cli-outputs: ${p} is not an output of this script: refusing to record into ${dir}`);
      }
    }
  };
  if (!fs.existsSync(dir)) return;
  check(dir);
  for (const f of listOutputs(dir)) fs.rmSync(path.join(dir, f));
  const prune = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) prune(path.join(d, e.name));
    if (d !== dir && fs.readdirSync(d).length === 0) fs.rmdirSync(d);
  };
  prune(dir);
}

// One-line JSON is unreadable in a diff: both sides are shown indented when both parse.
function readable(file) {
  const text = fs.readFileSync(file, 'utf8');
  if (!file.endsWith('.json')) return text;
  try {
    return text.split('\n').filter(Boolean).map((l) => JSON.stringify(JSON.parse(l), null, 1)).join('\n') + '\n';
  } catch {
    return text;
  }
}

function unifiedDiff(want, got, name) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-outputs-diff-'));
  const a = path.join(tmp, 'expected'), b = path.join(tmp, 'actual');
  fs.writeFileSync(a, readable(want));
  fs.writeFileSync(b, readable(got));
  const r = spawnSync('diff', ['-u', '--label', `expected/${name}`, '--label', `actual/${name}`, a, b], { encoding: 'utf8' });
  fs.rmSync(tmp, { recursive: true });
  const lines = (r.stdout || r.stderr || '').split('\n');
  return lines.slice(0, 80).join('\n') + (lines.length > 80 ? `\n... (${lines.length - 80} more lines)` : '');
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(o.bin)) fail(`cli-outputs: ${o.bin} not found: build it first (scripts/build --native-only)`);
  const found = discover(o);
  const jobs = jobsFor(o, found);
  console.log(`cli-outputs: ${jobs.length} commands on ${found.traces.length} traces, ${found.runs.length} runs, ` +
    `${found.pairs.length} pairs (${o.bin.startsWith(repo + path.sep) ? rel(o.bin) : o.bin})`);
  if (o.mode === 'record') {
    clearOutputs(o.dir);
    await runAll(o, o.dir, jobs);
    console.log(`recorded ${listOutputs(o.dir).length} files into ${o.dir}`);
    return;
  }
  if (!fs.existsSync(o.dir)) fail(`cli-outputs: ${o.dir}: no such folder (record it first)`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-outputs-'));
  try {
    await runAll(o, tmp, jobs);
    const wanted = new Set(jobs.flatMap((j) => [`${j.file}.json`, `${j.file}.err`]));
    // With --only a part is run: only that part of DIR is compared.
    const want = listOutputs(o.dir).filter((f) => !o.only || wanted.has(f));
    const got = listOutputs(tmp);
    const gotSet = new Set(got), wantSet = new Set(want);
    const missing = want.filter((f) => !gotSet.has(f));
    const added = got.filter((f) => !wantSet.has(f));
    const differ = want.filter((f) => gotSet.has(f) &&
      !fs.readFileSync(path.join(o.dir, f)).equals(fs.readFileSync(path.join(tmp, f))));
    for (const f of missing) console.log(`missing: ${f} (recorded, not written now)`);
    for (const f of added) console.log(`new: ${f} (written now, not recorded)`);
    for (const f of differ) console.log(`differs: ${f}`);
    const same = want.length - missing.length - differ.length;
    console.log(`cli-outputs: ${same} of ${want.length} recorded outputs identical, ${differ.length} differ, ` +
      `${missing.length} missing, ${added.length} new`);
    if (differ.length) console.log('\nfirst difference:\n' + unifiedDiff(path.join(o.dir, differ[0]), path.join(tmp, differ[0]), differ[0]));
    if (differ.length || missing.length || added.length) process.exitCode = 1;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
