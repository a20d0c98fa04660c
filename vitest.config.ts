import { defineConfig } from "vitest/config";

// Two cores on the CI machines: a bounded number of workers keeps the Chromium-backed
// suites from starving each other. Each server test file launches at most one browser.
export default defineConfig({
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/tests/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Every server a test starts checks each JSON answer against its route's protocol schema
    // before sending it (a 500 naming the field instead): no test passes on a body that breaks it.
    env: { WF_CHECK_RESPONSES: "1" },
    typecheck: {
      enabled: true,
      include: ["packages/*/src/**/*.test-d.ts"],
      tsconfig: "./tsconfig.json",
    },
  },
});
