// scripts/check-floors, which the build runs on the core (CMakeLists.txt, ks_floors_check), on two
// small trees: every-fault/ holds one of each fault it must name — an include running back up a
// floor, a floor including cli/, cli/ and wasm/ including each other, a relative include, a
// folder of core/ that is no floor, an include loop through a source and its header — and must
// fail with exactly the lines of every-fault.expected.txt; kept/ holds what is allowed (includes
// down and across one floor, cli/ and wasm/ over any floor, headers outside the floors) and
// must pass with nothing said.
// usage: node tests/floors/check_floors_test.mjs [PYTHON]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.join(here, '../../scripts/check-floors');
const python = process.argv[2] || 'python3';
const floors = ['--floors', 'core/util,core/trace,core/analysis', '--above', 'cli,wasm'];
let failed = 0;
const check = (name, ok, detail) => {
  console.log(`${ok ? 'ok' : 'FAIL'} ${name}`);
  if (!ok) { failed++; console.log(detail); }
};

const bad = spawnSync(python, [script, '--root', path.join(here, 'every-fault'), ...floors], { encoding: 'utf8' });
const want = fs.readFileSync(path.join(here, 'every-fault.expected.txt'), 'utf8');
check('every-fault/: exit status 1', bad.status === 1, `status ${bad.status}\n${bad.stderr}`);
check('every-fault/: each fault named with its file, line and floors', bad.stdout === want,
  `expected:\n${want}\ngot:\n${bad.stdout}`);

const good = spawnSync(python, [script, '--root', path.join(here, 'kept'), ...floors], { encoding: 'utf8' });
check('kept/: exit status 0, nothing said', good.status === 0 && good.stdout === '',
  `status ${good.status}\n${good.stdout}${good.stderr}`);

console.log(failed ? `${failed} failed` : 'all passed');
process.exit(failed ? 1 : 0);
