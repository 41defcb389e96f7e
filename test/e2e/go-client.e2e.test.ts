/**
 * examples/go-client, the README's example of a client in another language, built with Go and run
 * against `stagewatch serve` on the e2e cluster and NATS server: it speaks the subjects and the
 * event stream of schema/asyncapi.yaml with nothing from this repository but that contract.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { busNames } from "../../src/bus/index.ts";
import { compileStagewatch, REPO_ROOT, scratchDir, startServe, type CommandResult, type RunningService } from "../cluster/stagewatch.ts";
import { createNamespace, deleteNamespace, Fault, kubeConfig, kubeconfigPath, natsUrl } from "./support/cluster.ts";
import { configMap, deployment } from "./support/manifests.ts";
import { apply } from "./support/stagewatch.ts";

// Compiling stagewatch, and a first `go build` that fetches nats.go from the Go module proxy.
const SETUP_TIMEOUT_MS = 600_000;
const kc = kubeConfig();

function goBinary(): string {
  const onPath = spawnSync("sh", ["-c", "command -v go"], { encoding: "utf8" }).stdout.trim();
  if (onPath) return onPath;
  if (existsSync("/usr/local/go/bin/go")) return "/usr/local/go/bin/go";
  throw new Error("Go is needed to build examples/go-client (the same Go that builds the local control plane)");
}

describe("examples/go-client against stagewatch serve", () => {
  const prefix = `e2e-go-${randomBytes(3).toString("hex")}`;
  let dir: string;
  let client: string;
  let namespace: string;
  let service: RunningService | undefined;

  beforeAll(async () => {
    dir = scratchDir("go-client");
    client = join(dir, "go-client");
    const build = spawnSync(goBinary(), ["build", "-mod=readonly", "-o", client, "."], { cwd: join(REPO_ROOT, "examples/go-client"), encoding: "utf8", env: { ...process.env, CGO_ENABLED: "0" } });
    if (build.status !== 0) throw new Error(`go build failed:\n${build.stdout}${build.stderr}`);
    const compiled = compileStagewatch(join(dir, "build"));
    namespace = await createNamespace("go");
    service = await startServe(compiled.cli, { kubeconfigPath: kubeconfigPath(), natsUrl: natsUrl(), dir, args: [`--subject-prefix=${prefix}`] });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await service?.process.stop();
    const nc = await connect({ servers: natsUrl() });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(busNames(prefix).eventStream).catch(() => false);
    await jsm.streams.delete(`KV_${busNames(prefix).recordsBucket}`).catch(() => false);
    await nc.close();
    if (namespace) await deleteNamespace(namespace);
  });

  function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CommandResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(client, args, { env: { NATS_URL: natsUrl(), ...env }, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      child.once("error", reject);
      child.once("close", (status) => {
        clearTimeout(timer);
        resolve({ status, stdout, stderr });
      });
    });
  }
  const output = (result: CommandResult) => `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`;

  it("a healthy Deployment and its ConfigMap: exit 0, the verdict message on stdout, progress on stderr", async () => {
    await apply(kc, configMap(namespace, "api-config").manifest, deployment({ namespace, name: "api", replicas: 1 }).manifest);
    const result = await run(["-prefix", prefix, "-deployment", "api", "-namespace", namespace, "-timeout", "2m", "apps/v1/Deployment/api", "v1/ConfigMap/api-config"]);
    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toBe("deployment api reached healthy: 2 resources settled\n");
    expect(result.stderr).toMatch(/^observing 2 resources as \S+\n/);
    expect(result.stderr).toContain("stage healthy reached\n");
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
