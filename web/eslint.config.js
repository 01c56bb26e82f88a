// The web app's floors, checked by `npm run lint` (scripts/test runs it): five layers, each
// importing only those below it — lib (pure models and formatting: no preact, no worker) →
// worker (the trace workers, their protocol and pool, the load's plumbing) → components →
// views → app (the page, its loader, deep links and run page; main.tsx) — and no import cycle.
// TypeScript is read by Babel's parser: typescript-eslint needs the TypeScript compiler's JS API,
// which TypeScript 7 (the native compiler this project builds with) no longer ships.
import babelParser from '@babel/eslint-parser';
import importPlugin from 'eslint-plugin-import';
import reactHooks from 'eslint-plugin-react-hooks';

const here = import.meta.dirname;

/** The layers from the bottom up: each may import those before it, never those after. */
export const LAYERS = [
  // The views' schemas as TypeScript (generated from the core's) are plain types: lib reads answers with them.
  { name: 'lib', paths: ['./src/lib', './src/generated/views.ts'] },
  { name: 'worker', paths: ['./src/worker', './src/generated/kinetoscope_web.mjs', './src/generated/kinetoscope_web.wasm'] },
  { name: 'components', paths: ['./src/components'] },
  { name: 'views', paths: ['./src/views'] },
  { name: 'app', paths: ['./src/app', './src/main.tsx'] },
];

const zones = LAYERS.flatMap((layer, i) =>
  layer.paths.map((target) => ({
    target,
    from: LAYERS.slice(i + 1).flatMap((l) => l.paths),
    message: `${layer.name}/ may import only ${LAYERS.slice(0, i).map((l) => l.name).join(', ') || 'nothing of the app'} (the floors in web/eslint.config.js).`,
  })),
);

export default [
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/generated/**'],
    languageOptions: {
      parser: babelParser,
      parserOptions: {
        requireConfigFile: false,
        babelOptions: { babelrc: false, configFile: false, presets: [['@babel/preset-typescript', { isTSX: true, allExtensions: true }]] },
      },
    },
    plugins: { import: importPlugin, 'react-hooks': reactHooks },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs'] } },
      // The files whose imports are followed (no-cycle): TypeScript's too, not only .js.
      'import/extensions': ['.ts', '.tsx', '.js', '.mjs'],
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'import/no-restricted-paths': ['error', { basePath: here, zones }],
      // disableScc: the cycle is looked for from the file as it is linted (the components' shortcut
      // reads the files on disk, so it misses a circle that a file's new import closes).
      'import/no-cycle': ['error', { disableScc: true }],
      'react-hooks/rules-of-hooks': 'error',
    },
  },
  {
    // lib/ is pure: what it computes does not draw (no preact, no chart library, no service worker).
    files: ['src/lib/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['preact', 'preact/*', 'uplot', 'virtual:*'], message: 'lib/ is pure: UI code belongs in components/ or views/.' }] }],
    },
  },
];
