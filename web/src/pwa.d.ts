/// <reference types="vite-plugin-pwa/preact" />
