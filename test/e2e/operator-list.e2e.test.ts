/**
 * `stagewatch list` as an operator runs it: the compiled CLI in child processes, reading the KV
 * buckets of a real `stagewatch serve` (its replica id set, so the owner is known) on the e2e
 * cluster and NATS server, about observations an apply tool started through the TypeScript client.
 * What is decided leaves the list; with the service stopped, list still answers and shows the
 * leases it released. Bad input and --help are unit tests (src/cli/commands/listCommand.test.ts).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectObserver, type ObservationRun, type Observer } from "../../src/bus/index.ts";
import type { InProgressItem } from "../../src/verdicts/contract/schemas.ts";
import { output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, natsUrl } from "./support/cluster.ts";
import { deployment } from "./support/manifests.ts";
import { useServes, type ServeUnderPrefix } from "./support/serve.ts";
import { apply, observeRequest } from "./support/stagewatch.ts";

const kc = kubeConfig();

describe("stagewatch list", () => {
  const replica = `list-replica-${randomBytes(2).toString("hex")}`;
  const serves = useServes();
  let prefix: string;
  let namespace: string;
  let service: ServeUnderPrefix;
  let observer: Observer;

  beforeAll(async () => {
    namespace = await createNamespace("list");
    service = await serves.start({ name: "list", args: [`--replica-id=${replica}`] });
    prefix = service.prefix;
    observer = await connectObserver({ servers: [natsUrl()], prefix });
  });

  afterAll(async () => {
    await observer?.close();
    if (namespace) await deleteNamespace(namespace);
  });

  const list = (args: string[] = [], env: NodeJS.ProcessEnv = { NATS_URL: natsUrl() }) => runStagewatch(["list", `--subject-prefix=${prefix}`, ...args], { env });
  const items = async (args: string[] = []): Promise<InProgressItem[]> => {
    const result = await list(["-o", "json", ...args]);
    expect(result.status, output(result)).toBe(0);
    return (JSON.parse(result.stdout) as { items: InProgressItem[] }).items;
  };

  it("nothing in flight: exit 0, nothing on stdout, a line on stderr", async () => {
    const result = await list();
    expect(result.status, output(result)).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(`No observations in progress (subject prefix ${prefix}).\n`);
    expect(await items()).toEqual([]);
  });

  it("lists observations in progress with their owner, oldest first; a decided one leaves the list; stopped, the service's leases show released", async () => {
    const runs: ObservationRun[] = [];
    for (const name of ["stuck-a", "stuck-b"]) {
      const stuck = deployment({ namespace, name, replicas: 1, fault: Fault.NeverReady });
      await apply(kc, stuck.manifest);
      runs.push(await observer.observe(observeRequest({ deployment: name, resources: [stuck.identity], timeoutSeconds: 600 })));
    }
    const web = deployment({ namespace, name: "web", replicas: 1 });
    await apply(kc, web.manifest);
    const healthy = await observer.observe(observeRequest({ deployment: "web", resources: [web.identity] }));
    expect((await healthy.verdict).outcome).toBe("succeeded");
    const [a, b] = runs as [ObservationRun, ObservationRun];

    const table = await list();
    expect(table.status, output(table)).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^OBSERVATION +DEPLOYMENT +KEY +REQUIRED +REACHED +AGE +USUALLY +LEFT +OWNER$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^${a.observationId} +stuck-a +e2e-\\S+/stuck-a +healthy +\\w+ +\\d+s +\\S+ +\\d+m\\d+s +${replica}$`)),
      expect.stringMatching(new RegExp(`^${b.observationId} +stuck-b +e2e-\\S+/stuck-b +healthy +\\w+ +\\d+s +\\S+ +\\d+m\\d+s +${replica}$`)),
    ]);

    const json = await items();
    expect(json.map((item) => item.observationId)).toEqual([a.observationId, b.observationId]);
    expect(json[0]).toMatchObject({ deployment: "stuck-a", required: "healthy", owner: { replica, lease: "held" } });
    expect((await items(["--deployment", "stuck-b"])).map((item) => item.observationId)).toEqual([b.observationId]);

    await observer.cancel(b.observationId, "list e2e");
    expect((await b.verdict).outcome).toBe("cancelled");
    await eventually("the cancelled observation gone from the list", async () => {
      const ids = (await items()).map((item) => item.observationId);
      return ids.length === 1 && ids[0] === a.observationId ? ids : undefined;
    });

    // SIGTERM hands leases back (released) for another replica to adopt; none runs, and list,
    // which needs no service, says so.
    await service.process.stop();
    const [left] = await items();
    expect(left).toMatchObject({ observationId: a.observationId, owner: { replica, lease: "released" } });
    expect((await list()).stdout).toMatch(new RegExp(`\\n${a.observationId} .* ${replica} \\(released\\)\\n$`));
  });

  it.each([
    { name: "no service ever ran with the prefix", args: ["--subject-prefix=nobody-here"], env: {}, status: 3, stderr: "no stagewatch service has run with subject prefix nobody-here on this NATS" },
    { name: "NATS unreachable", args: [], env: { NATS_URL: "nats://127.0.0.1:1" }, status: 3, stderr: "cannot connect to NATS at nats://127.0.0.1:1" },
  ])("$name: exit $status", async ({ args, env, status, stderr }) => {
    const result = await list(args, { NATS_URL: natsUrl(), ...env });
    expect(result.status, output(result)).toBe(status);
    expect(result.stderr).toContain(stderr);
    expect(result.stdout).toBe("");
  });
});
