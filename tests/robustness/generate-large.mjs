// The hostile inputs too large to keep in the repository, written on demand into a directory:
// a 100 MB event name, a gzip bomb (a 500 KB .gz holding 512 MiB) and a million metadata events.
// Each name matches its row in tests/data/hostile/expected.json.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const GOOD = '{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":5}';

function* chunks(head, fill, count, tail) {
  yield Buffer.from(head);
  for (let i = 0; i < count; i++) yield fill;
  yield Buffer.from(tail);
}

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'data', 'hostile');

/** What each input must give (tests/data/hostile/expected.json), by file name. */
export const hostileExpected = JSON.parse(fs.readFileSync(path.join(CORPUS, 'expected.json'), 'utf8'));

/**
 * The whole corpus: the small inputs of tests/data/hostile and the large ones, written into dir.
 * `large` lists the latter (they read for seconds each).
 */
export async function hostileInputs(dir) {
  const small = fs.readdirSync(CORPUS).filter((f) => f !== 'expected.json' && f !== 'README.md').map((f) => path.join(CORPUS, f));
  const large = await writeLargeHostile(dir);
  return { small, large, files: [...small, ...large] };
}

/** Writes the large inputs into dir (created if needed) and returns their paths. */
export async function writeLargeHostile(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const out = {};
  const mib = Buffer.alloc(1 << 20, 'a');
  out.string = path.join(dir, 'string-100mb-name.json');
  await pipeline(Readable.from(chunks('{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"', mib, 100, `","pid":1,"tid":1,"ts":1,"dur":1},${GOOD}]}`)), fs.createWriteStream(out.string));
  out.bomb = path.join(dir, 'gzip-bomb-512mib.json.gz');
  const spaces = Buffer.alloc(1 << 20, ' ');
  await pipeline(Readable.from(chunks(`{"traceEvents":[${GOOD},`, spaces, 512, `${GOOD}]}`)), zlib.createGzip({ level: 9 }), fs.createWriteStream(out.bomb));
  out.metadata = path.join(dir, 'metadata-1m-events.json');
  const lines = [];
  for (let i = 0; i < 1000; i++) lines.push(`{"ph":"M","name":"thread_name","pid":1,"tid":${i},"args":{"name":"thread ${i}"}},`);
  const block = Buffer.from(lines.join(''));
  await pipeline(Readable.from(chunks('{"traceEvents":[', block, 1000, `${GOOD}]}`)), fs.createWriteStream(out.metadata));
  return Object.values(out);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await writeLargeHostile(process.argv[2] ?? 'hostile-large')) console.log(f, fs.statSync(f).size);
}
