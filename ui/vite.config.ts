import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';

// Tauri serves the built files from ui/dist; the dev server runs on a fixed port for `tauri dev`.
export default defineConfig({
  plugins: [svelte(), svelteTesting()],
  clearScreen: false,
  server: { port: 5173, strictPort: true }, // devUrl in src-tauri/tauri.conf.json
  preview: { port: 4173, strictPort: false },
  build: { outDir: 'dist', target: 'es2022', sourcemap: false, chunkSizeWarningLimit: 800 },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.ts'],
    // CI machines can be busy (builds in parallel): generous limits, no flaky failures.
    testTimeout: 30000,
  },
});
