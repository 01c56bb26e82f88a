// The web app's floors (web/eslint.config.js): generated view types → lib → worker → components → views → app, each
// importing only the layers below it, lib without preact, and no import cycle. `npm run lint`
// (scripts/test) checks the tree; these lint one made-up file at a time, placed in a layer, to show
// that each kind of bad import fails and that imports downward pass.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
const { ESLint } = createRequire(path.join(web, 'package.json'))('eslint') as typeof import('eslint');
const eslint = new ESLint({ cwd: web });

/** The rules a file at `file` (under web/) with `text` breaks, with their messages. */
async function broken(file: string, text: string): Promise<string[]> {
  const [r] = await eslint.lintText(text, { filePath: path.join(web, file) });
  return r.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

// Linting is seconds a case when the machine is idle and much more under load: generous, never a race.
const T = { timeout: 600_000 };

describe('import boundaries', () => {
  it('lib/ importing worker/ fails', T, async () => {
    const m = await broken('src/lib/made-up.ts', "import type { Failure } from '../worker/protocol';\nexport type F = Failure;\n");
    expect(m).toHaveLength(1);
    expect(m[0]).toMatch(/^import\/no-restricted-paths: .*lib\/ may import only generated types /);
  });

  it('lib/ may import the generated view types, not the wasm module beside them', T, async () => {
    expect(await broken('src/lib/made-up.ts', "import type { Answer } from '../generated/views';\nexport type A = Answer;\n")).toEqual([]);
    const m = await broken('src/lib/made-up.ts', "import create from '../generated/kinetoscope_web.mjs';\nexport const c = create;\n");
    expect(m).toHaveLength(1);
    expect(m[0]).toMatch(/^import\/no-restricted-paths: .*lib\/ may import only generated types /);
  });

  it('lib/ importing preact fails', T, async () => {
    const m = await broken('src/lib/made-up.ts', "import { useState } from 'preact/hooks';\nexport const u = useState;\n");
    expect(m).toEqual(['no-restricted-imports: \'preact/hooks\' import is restricted from being used by a pattern. lib/ is pure: UI code belongs in components/ or views/.']);
  });

  it('each layer importing the one above it fails', T, async () => {
    const up: [string, string][] = [
      ['src/worker/made-up.ts', '../components/chart'],
      ['src/components/made-up.tsx', '../views/trace-page'],
      ['src/views/made-up.tsx', '../app/loader'],
      ['src/lib/made-up.ts', '../views/memory-view'],
    ];
    for (const [file, target] of up) {
      const m = await broken(file, `import * as x from '${target}';\nexport { x };\n`);
      expect(m, `${file} -> ${target}`).toHaveLength(1);
      expect(m[0], `${file} -> ${target}`).toMatch(/^import\/no-restricted-paths: /);
    }
  });

  it('an import cycle fails, inside one layer too', T, async () => {
    // lib/table-model.ts imports lib/format.ts: format importing table-model back closes a circle.
    // (A circle of `import type` only is erased by the compiler, and import/no-cycle skips it.)
    const m = await broken('src/lib/format.ts', "import { rowsModel } from './table-model';\nexport const f = rowsModel;\n");
    expect(m).toHaveLength(1);
    expect(m[0]).toMatch(/^import\/no-cycle: /);
  });

  it('imports downward pass', T, async () => {
    const text = [
      "import { formatBytes } from '../lib/format';",
      "import type { Query } from '../worker/protocol';",
      "import { Chart } from '../components/chart';",
      "import { OperatorsView } from './operators-view';",
      'export const all = [formatBytes, Chart, OperatorsView];',
      'export type Q = Query;',
      '',
    ].join('\n');
    expect(await broken('src/views/made-up.tsx', text)).toEqual([]);
    expect(await broken('src/app/made-up.ts', "import { TracePage } from '../views/trace-page';\nimport { useLoader } from './loader';\nexport const all = [TracePage, useLoader];\n")).toEqual([]);
  });
});
