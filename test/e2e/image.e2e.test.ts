/**
 * The container image, short of a Docker engine (none runs here): the production tree the
 * Dockerfile assembles is built in a clean directory (sources without unit tests compiled as the
 * build stage does, then `npm ci --omit=dev` and the compiled output, as the final stage does),
 * and `stagewatch serve` is started from it. A runtime dependency declared as a dev dependency,
 * or a file the image does not copy, fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { installedPackages, installProductionTree, REPO_ROOT, scratchDir, startLogged, type CompiledTree } from "../cluster/stagewatch.ts";
import { http } from "../cluster/probes.ts";
import { compiledStagewatch } from "./support/cli.ts";
import { useServes } from "./support/serve.ts";

const packageJson = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};
const lockfile = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { dev?: boolean }>;
};
const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");

describe("Dockerfile", () => {
  it("runs the package's bin entry from /app as the unprivileged node user, in production mode", () => {
    const finalStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(finalStage).toContain("WORKDIR /app");
    expect(finalStage).toContain(`ENTRYPOINT ["node", "/app/${packageJson.bin.stagewatch}"]`);
    expect(finalStage).toContain('CMD ["serve"]');
    expect(finalStage).toMatch(/^USER node$/m);
    expect(finalStage).toMatch(/^ENV NODE_ENV=production$/m);
    // Its node_modules come from the stage that installs production dependencies only.
    expect(finalStage).toContain("COPY --from=dependencies /app/node_modules ./node_modules");
    expect(dockerfile).toMatch(/AS dependencies\n[^]*?RUN npm ci --omit=dev/);
  });
});

describe("the production tree the image ships", () => {
  let production: CompiledTree;
  let scratch: string;

  // The global setup's build stands in for the image's build stage.
  beforeAll(async () => {
    scratch = scratchDir("image");
    production = await installProductionTree(compiledStagewatch(), join(scratch, "app"));
  }, 10 * 60_000);

  it("holds the runtime dependencies and nothing only development needs", () => {
    const installed = installedPackages(production.root);
    for (const name of Object.keys(packageJson.dependencies)) expect(installed).toContain(name);
    // npm marks `dev` the packages that only dev dependencies reach (typescript, vitest, vite...);
    // a dev dependency that a runtime dependency also needs (@types/node) is not one of them.
    const devOnly = Object.entries(lockfile.packages)
      .filter(([path, entry]) => entry.dev === true && /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path))
      .map(([path]) => path.slice("node_modules/".length));
    expect(devOnly).toEqual(expect.arrayContaining(["typescript", "vitest"]));
    expect(installed.filter((name) => devOnly.includes(name))).toEqual([]);
  });

  it("prints `stagewatch serve --help` with the documented flags", async () => {
    const help = startLogged(process.execPath, [production.cli, "serve", "--help"], {
      cwd: production.root,
      env: { PATH: process.env.PATH, HOME: scratch, NODE_ENV: "production" },
      logFile: join(scratch, "help.log"),
    });
    const exit = await help.exit;
    const text = readFileSync(help.logFile, "utf8");
    expect(exit.code, text).toBe(0);
    for (const flag of ["--namespaces", "--metrics-host", "--metrics-port", "--subject-prefix", "--log-level", "NATS_URL", "KUBECONFIG"]) {
      expect(text).toContain(flag);
    }
  });

  describe("serving", () => {
    const serves = useServes();

    it("becomes ready against the real cluster and NATS, serves metrics, and exits cleanly on SIGTERM", async () => {
      const service = await serves.start({ name: "image", cli: production.cli });
      expect((await http(`${service.url}/healthz`)).status).toBe(200);
      const metrics = await http(`${service.url}/metrics`);
      expect(metrics.status).toBe(200);
      expect(metrics.body).toContain("# TYPE stagewatch_observations_active gauge");
      const exit = await service.process.stop();
      expect(exit, readFileSync(service.process.logFile, "utf8")).toEqual({ code: 0, signal: null });
    });
  });
});
