import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/unit/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.e2e.test.ts"],
          // Starts (or, with E2E_KUBECONFIG and E2E_NATS_URL, reuses) a real control plane and NATS
          // server; a cold first run also builds them from Go modules (see CONTRIBUTING.md).
          globalSetup: ["test/e2e/support/global-setup.ts"],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
