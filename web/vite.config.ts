// @ts-ignore -- the web project has no Node types; this line runs only in Vite's Node process.
import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vitest/config';
import preact from '@preact/preset-vite';
import { VitePWA } from 'vite-plugin-pwa';

/**
 * Inlines src/csp/policy.js right after <meta charset> of the built page: it computes the
 * Content-Security-Policy from the page's URL and inserts it as a meta tag before any other
 * script, stylesheet or fetch (docs/privacy.md). Build only: the dev server needs inline
 * scripts and a WebSocket for hot reload.
 */
function contentSecurityPolicy(): Plugin {
  return {
    name: 'kinetoscope-csp',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        const src = readFileSync(new URL('./src/csp/policy.js', import.meta.url), 'utf8') as string;
        if (/<\/script/i.test(src)) throw new Error('src/csp/policy.js must not contain "</script"');
        const anchor = /<meta charset="utf-8"\s*\/?>/i;
        if (!anchor.test(html)) throw new Error('index.html: <meta charset="utf-8"> not found; the CSP script goes right after it');
        const code = `(function () {\n${src}\nkinetoscopeApplyPolicy();\n})();`;
        return html.replace(anchor, (m) => `${m}\n    <script>${code}</script>`);
      },
    },
  };
}

// base './' so the built site works under any sub-path (GitHub Pages project sites).
export default defineConfig({
  base: './',
  plugins: [
    contentSecurityPolicy(),
    preact(),
    VitePWA({
      // A new version waits for the person to press "Reload" (components/update-prompt.tsx):
      // swapping the code under a page that holds loaded traces would lose them.
      registerType: 'prompt',
      // Registered from the app bundle (virtual:pwa-register/preact); no inline script, which
      // the CSP would block.
      injectRegister: false,
      // The icons and the manifest are already matched by globPatterns; listing them twice
      // (with other revisions) would make Workbox reject the precache list.
      includeManifestIcons: false,
      manifest: {
        name: 'Kinetoscope — PyTorch profiler traces in your browser',
        short_name: 'Kinetoscope',
        description: 'Analyze PyTorch profiler (Kineto) traces locally: nothing leaves your machine.',
        // Relative to the manifest, so an install under any sub-path opens that sub-path.
        id: './',
        start_url: './',
        scope: './',
        display: 'standalone',
        theme_color: '#3b5bdb',
        background_color: '#ffffff',
        icons: [
          { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: 'icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
          { src: 'icons/icon.svg', sizes: 'any', type: 'image/svg+xml' },
        ],
        // The installed app opens traces from the OS; lib/launch-queue.ts hands them to the app.
        file_handlers: [
          {
            action: './',
            accept: {
              'application/json': ['.json'],
              'application/gzip': ['.gz', '.json.gz'],
              // CUDA allocator snapshots (torch.cuda.memory._dump_snapshot), told by content in the worker.
              'application/octet-stream': ['.pickle', '.pkl'],
            },
          },
        ],
      },
      workbox: {
        // Everything the app needs offline: shell, JS/CSS, both workers, the wasm, the sample.
        globPatterns: ['**/*.{html,js,css,wasm,svg,png,gz}'],
        // The wasm (and the sample) must never be skipped for size (Workbox's default is 2 MiB).
        maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
        // Any navigation (index.html?url=…, ?perfetto=…) is answered with the cached page offline.
        navigateFallback: 'index.html',
        cleanupOutdatedCaches: true,
      },
    }),
  ],
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    // Never inline the wasm as a data: URL; emit it as a hashed file beside the worker.
    assetsInlineLimit: (file) => (file.endsWith('.wasm') ? false : undefined),
  },
  test: {
    include: ['../tests/web/**/*.test.ts'],
    // A hang guard, not a speed check: vitest's 5 s default failed tests that read megabytes
    // (the split read past 4 GiB, the 100k-row sort) when the machine was loaded.
    testTimeout: 120_000,
    environment: 'node',
  },
});
