/**
 * examples/go-client, docs/user/clients.md's example of a client in another language, built with Go
 * and run against `stagewatch serve` on the e2e cluster and NATS server: it speaks the subjects and
 * the event stream of schema/asyncapi.yaml with nothing from this repository but that contract.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runToCompletion, scratchDir, type CommandResult } from "../cluster/stagewatch.ts";
import { output } from "./support/cli.ts";
import { createNamespace, deleteNamespace, Fault, kubeConfig, natsUrl } from "./support/cluster.ts";
import { configMap, deployment } from "./support/manifests.ts";
import { useServes } from "./support/serve.ts";
import { e2eVerifyKey } from "./support/signing.ts";
import { apply } from "./support/stagewatch.ts";

// A first `go build` fetches nats.go from the Go module proxy.
const SETUP_TIMEOUT_MS = 600_000;
const kc = kubeConfig();

function goBinary(): string {
  const onPath = spawnSync("sh", ["-c", "command -v go"], { encoding: "utf8" }).stdout.trim();
  if (onPath) return onPath;
  if (existsSync("/usr/local/go/bin/go")) return "/usr/local/go/bin/go";
  throw new Error("Go is needed to build examples/go-client (the same Go that builds the local control plane)");
}

describe("examples/go-client against stagewatch serve", () => {
  const serves = useServes();
  let prefix: string;
  let dir: string;
  let client: string;
  let namespace: string;

  beforeAll(async () => {
    dir = scratchDir("go-client");
    client = join(dir, "go-client");
    const build = spawnSync(goBinary(), ["build", "-mod=readonly", "-o", client, "."], { cwd: join(REPO_ROOT, "examples/go-client"), encoding: "utf8", env: { ...process.env, CGO_ENABLED: "0" } });
    if (build.status !== 0) throw new Error(`go build failed:\n${build.stdout}${build.stderr}`);
    namespace = await createNamespace("go");
    prefix = (await serves.start({ name: "go" })).prefix;
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    if (namespace) await deleteNamespace(namespace);
  });

  /** The client as a CI job runs it: with the service's key (signing.ts), unless `env` says otherwise. */
  const run = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CommandResult> =>
    runToCompletion(client, args, { cwd: dir, env: { NATS_URL: natsUrl(), STAGEWATCH_VERIFY_KEY: e2eVerifyKey(), ...env }, timeoutMs: 120_000 });

  it("a healthy Deployment and its ConfigMap: exit 0, the verdict message on stdout, progress on stderr", async () => {
    await apply(kc, configMap(namespace, "api-config").manifest, deployment({ namespace, name: "api", replicas: 1 }).manifest);
    const result = await run(["-prefix", prefix, "-deployment", "api", "-namespace", namespace, "-timeout", "2m", "apps/v1/Deployment/api", "v1/ConfigMap/api-config"]);
    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toBe("deployment api reached healthy: 2 resources settled\n");
    expect(result.stderr).toMatch(/^observing 2 resources as \S+\n/);
    expect(result.stderr).toContain("stage healthy reached\n");
  });

  it("without the service's key, a success it cannot verify: exit 3, unless -allow-unverified", async () => {
    const args = ["-prefix", prefix, "-deployment", "api", "-namespace", namespace, "-timeout", "2m", "apps/v1/Deployment/api"];
    const unverified = await run(args, { STAGEWATCH_VERIFY_KEY: "" });
    expect(unverified.status, output(unverified)).toBe(3);
    expect(unverified.stdout).toBe("deployment api reached healthy: 1 resource settled\n");
    expect(unverified.stderr).toContain("the verdict says succeeded, but it was not verified (no STAGEWATCH_VERIFY_KEY): exit 3");
    // Go's flags come before the resources.
    const allowed = await run(["-allow-unverified", ...args], { STAGEWATCH_VERIFY_KEY: "" });
    expect(allowed.status, output(allowed)).toBe(0);
  });

  it("ImagePullBackOff, the prefix from STAGEWATCH_SUBJECT_PREFIX: exit 1", async () => {
    await apply(kc, deployment({ namespace, name: "broken", replicas: 1, fault: Fault.ImagePullBackOff }).manifest);
    const result = await run(["-deployment", "broken", "-namespace", namespace, "-timeout", "2m", "apps/v1/Deployment/broken"], { STAGEWATCH_SUBJECT_PREFIX: prefix });
    expect(result.status, output(result)).toBe(1);
    expect(result.stdout).toMatch(/^deployment broken cannot reach healthy: .*ImagePullBackOff/);
  });

  it("a request the service refuses: exit 2 with its error code; no service on the prefix: exit 3", async () => {
    const refused = await run(["-prefix", prefix, "-deployment", "Not_A_Token", "apps/v1/Deployment/api"]);
    expect(refused.status, output(refused)).toBe(2);
    expect(refused.stderr).toContain("refused (invalid_request)");
    const nobody = await run(["-prefix", "nobody", "-deployment", "api", "apps/v1/Deployment/api"]);
    expect(nobody.status, output(nobody)).toBe(3);
  });
});
