import { defineConfig } from "vite";

// The console is served from `/console/` by server-core's static route: relative asset URLs,
// one module script, no inline code (the CSP forbids it), so no module-preload polyfill.
export default defineConfig({
  root: "app",
  base: "./",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "../dist/public",
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: "es2022",
  },
});
