import { defineConfig } from "vitest/config";

// No @vitejs/plugin-*: esbuild's automatic JSX runtime, pointed at Preact.
export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // Strict CSP: no inline scripts; keep assets as files (no data: URLs for scripts).
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
