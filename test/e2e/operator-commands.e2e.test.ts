/**
 * `stagewatch get` and `stagewatch cancel` as an operator runs them: the compiled CLI in child
 * processes, against `stagewatch serve` on the e2e cluster and NATS server, about an observation
 * an apply tool started (here through the TypeScript client, as any client would). Exit codes are
 * observe's conventions; `-o json` is the ObservationVerdict. Bad input and --help are unit tests
 * (src/cli/commands/operatorCommands.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectObserver, type Observer } from "../../src/bus/index.ts";
import { ObservationVerdict } from "../../src/verdicts/contract/schemas.ts";
import { output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, Fault, kubeConfig, natsUrl } from "./support/cluster.ts";
import { deployment } from "./support/manifests.ts";
import { useServes } from "./support/serve.ts";
import { apply, observeRequest } from "./support/stagewatch.ts";

const kc = kubeConfig();

describe("stagewatch get and cancel", () => {
  const serves = useServes();
  let prefix: string;
  let namespace: string;
  let observer: Observer;

  beforeAll(async () => {
    namespace = await createNamespace("ops");
    prefix = (await serves.start({ name: "ops" })).prefix;
    observer = await connectObserver({ servers: [natsUrl()], prefix });
  });

  afterAll(async () => {
    await observer?.close();
    if (namespace) await deleteNamespace(namespace);
  });

  const stagewatch = (args: string[], env: NodeJS.ProcessEnv = { NATS_URL: natsUrl() }) => runStagewatch(args, { env, timeoutMs: 30_000 });

  it("get shows an observation in progress (exit 0); cancel stops it (exit 0), its verdict cancelled; get then exits 1", async () => {
    const stuck = deployment({ namespace, name: "stuck", replicas: 1, fault: Fault.NeverReady });
    await apply(kc, stuck.manifest);
    const run = await observer.observe(observeRequest({ deployment: "stuck", resources: [stuck.identity], timeoutSeconds: 600 }));

    const table = await stagewatch(["get", run.observationId, `--subject-prefix=${prefix}`]);
    expect(table.status, output(table)).toBe(0);
    const lines = table.stdout.split("\n");
    expect(lines[0]).toMatch(/^OBSERVATION +DEPLOYMENT +KEY +REQUIRED +REACHED +OUTCOME +AGE +USUALLY +LEFT +DECIDED$/);
    expect(lines[1]).toMatch(new RegExp(`^${run.observationId} +stuck +\\S+ +healthy +\\w+ +in_progress +\\d+s +\\S+ +\\d+m\\d+s +-$`));
    expect(lines[3]).toMatch(/^RESOURCE +STATE +REASON +MESSAGE$/);
    expect(lines[4]).toMatch(new RegExp(`^Deployment ${namespace}/stuck +pending +`));

    const json = await stagewatch(["get", run.observationId, "-o", "json", `--subject-prefix=${prefix}`]);
    expect(json.status, output(json)).toBe(0);
    expect(ObservationVerdict.parse(JSON.parse(json.stdout))).toMatchObject({ observationId: run.observationId, outcome: "in_progress" });

    const cancel = await stagewatch(["cancel", run.observationId, "--reason", "rollback started", "-o", "json", `--subject-prefix=${prefix}`]);
    expect(cancel.status, output(cancel)).toBe(0);
    const cancelled = ObservationVerdict.parse(JSON.parse(cancel.stdout));
    expect(cancelled.outcome).toBe("cancelled");
    expect(cancelled.message).toContain("rollback started");
    // The apply tool following it sees the same verdict.
    expect((await run.verdict).outcome).toBe("cancelled");

    const again = await stagewatch(["cancel", run.observationId, `--subject-prefix=${prefix}`]);
    expect(again.status, output(again)).toBe(0);
    const after = await stagewatch(["get", run.observationId, `--subject-prefix=${prefix}`]);
    expect(after.status, output(after)).toBe(1);
    expect(after.stdout.split("\n")[1]).toMatch(/ +cancelled +\d+s +\S+ +- +\d+s ago$/);
  });

  it("get of a succeeded observation exits 0", async () => {
    const web = deployment({ namespace, name: "web", replicas: 1 });
    await apply(kc, web.manifest);
    const run = await observer.observe(observeRequest({ deployment: "web", resources: [web.identity] }));
    expect((await run.verdict).outcome).toBe("succeeded");
    const result = await stagewatch(["get", run.observationId, `--subject-prefix=${prefix}`]);
    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toContain(`Deployment ${namespace}/web   settled`);
  });

  it.each([
    { name: "no such observation", args: () => ["get", "no-such-id", `--subject-prefix=${prefix}`], status: 2, stderr: "no observation no-such-id" },
    { name: "cancel of no such observation", args: () => ["cancel", "no-such-id", `--subject-prefix=${prefix}`], status: 2, stderr: "no observation no-such-id" },
    { name: "no service on the prefix", args: () => ["get", "x", "--subject-prefix=nobody"], status: 3, stderr: "no stagewatch service is listening on nobody.get" },
  ])("$name: exit $status", async ({ args, status, stderr }) => {
    const result = await stagewatch(args());
    expect(result.status, output(result)).toBe(status);
    expect(result.stderr).toContain(stderr);
    expect(result.stdout).toBe("");
  });

  it("NATS unreachable: exit 3", async () => {
    const result = await stagewatch(["cancel", "x"], { NATS_URL: "nats://127.0.0.1:1" });
    expect(result.status, output(result)).toBe(3);
    expect(result.stderr).toContain("cannot connect to NATS at nats://127.0.0.1:1");
  });
});
