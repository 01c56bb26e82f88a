import { defineConfig } from 'vitest/config';
import preact from '@preact/preset-vite';

// base './' so the built site works under any sub-path (GitHub Pages project sites).
export default defineConfig({
  base: './',
  plugins: [preact()],
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    // Never inline the wasm as a data: URL; emit it as a hashed file beside the worker.
    assetsInlineLimit: (file) => (file.endsWith('.wasm') ? false : undefined),
  },
  test: {
    include: ['../tests/web/**/*.test.ts'],
    environment: 'node',
  },
});
