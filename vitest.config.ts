import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{engine,control-plane,sip-gateway,mcp,bench}/{src,test}/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '.build/**'],
    // Each file owns its schema, subjects and embedded database, so files run in parallel safely.
    pool: 'forks',
    // PGlite boots in a few seconds per file, and a busy two-core CI machine can double that.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
