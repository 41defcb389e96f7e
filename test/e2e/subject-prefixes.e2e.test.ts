/**
 * Several clusters on one NATS, one subject prefix each (docs/user/observing.md, "Several clusters
 * on one NATS"): two `stagewatch serve` processes on the one e2e NATS server, each given its prefix
 * only by STAGEWATCH_SUBJECT_PREFIX, as a pod's environment would. Every request is answered by the
 * service of its prefix and no other (each counts what it answered on /metrics), each keeps its own
 * records, and the CLI and the TypeScript client follow the variable; a flag or option wins.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectObserver } from "../../src/bus/index.ts";
import type { InProgressItem } from "../../src/verdicts/contract/schemas.ts";
import { ObservationVerdict } from "../../src/verdicts/contract/schemas.ts";
import { scratchDir, writeManifest } from "../cluster/stagewatch.ts";
import { output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, Fault, kubeConfig, natsUrl } from "./support/cluster.ts";
import { deployment } from "./support/manifests.ts";
import { useServes, type ServeUnderPrefix } from "./support/serve.ts";
import { apply, observeRequest, sumSamples } from "./support/stagewatch.ts";

const kc = kubeConfig();

describe("two clusters' services on one NATS, one subject prefix each", () => {
  const suffix = randomBytes(3).toString("hex");
  const serves = useServes();
  const east = { name: "east", replica: `east-${suffix}`, prefix: "" };
  const west = { name: "west", replica: `west-${suffix}`, prefix: "" };
  let namespace: string;
  let manifests: string;
  const services = new Map<string, ServeUnderPrefix>();

  beforeAll(async () => {
    namespace = await createNamespace("prefixes");
    const web = deployment({ namespace, name: "web", replicas: 1 });
    await apply(kc, web.manifest);
    manifests = writeManifest(join(scratchDir("prefixes"), "web.yaml"), [web.manifest]);
    for (const side of [east, west]) {
      const service = await serves.start({ name: side.name, args: [`--replica-id=${side.replica}`], prefixFrom: "environment" });
      side.prefix = service.prefix;
      services.set(side.prefix, service);
    }
  });

  afterAll(async () => {
    if (namespace) await deleteNamespace(namespace);
  });

  const cli = (args: string[], prefix: string) => runStagewatch(args, { env: { NATS_URL: natsUrl(), STAGEWATCH_SUBJECT_PREFIX: prefix } });
  /** Observe requests each service answered, from its own /metrics. */
  const answered = async () => {
    const counts: Record<string, number> = {};
    for (const side of [east, west]) {
      const text = await (await fetch(`${services.get(side.prefix)!.url}/metrics`)).text();
      counts[side.replica] = sumSamples(text, "stagewatch_requests_total", {});
    }
    return counts;
  };

  it("observe, get and list follow STAGEWATCH_SUBJECT_PREFIX: only that prefix's service answers, and only it knows the observation", async () => {
    const result = await cli(["observe", "-f", manifests, "--deployment", "web", "--timeout", "2m", "--json"], east.prefix);
    expect(result.status, output(result)).toBe(0);
    const verdict = ObservationVerdict.parse(JSON.parse(result.stdout));
    expect(await answered()).toEqual({ [east.replica]: 1, [west.replica]: 0 });

    expect((await cli(["get", verdict.observationId], east.prefix)).status).toBe(0);
    const elsewhere = await cli(["get", verdict.observationId], west.prefix);
    expect(elsewhere.status, output(elsewhere)).toBe(2);
    expect(elsewhere.stderr).toContain(`no observation ${verdict.observationId}`);
  });

  it("--subject-prefix wins over the variable", async () => {
    const result = await cli(["observe", "-f", manifests, "--deployment", "web", "--timeout", "2m", `--subject-prefix=${west.prefix}`], east.prefix);
    expect(result.status, output(result)).toBe(0);
    expect(await answered()).toEqual({ [east.replica]: 1, [west.replica]: 1 });
  });

  it("connectObserver without a prefix option follows the variable; in progress, each prefix lists and cancels its own only", async () => {
    const stuck = deployment({ namespace, name: "stuck", replicas: 1, fault: Fault.NeverReady });
    await apply(kc, stuck.manifest);
    const before = process.env.STAGEWATCH_SUBJECT_PREFIX;
    process.env.STAGEWATCH_SUBJECT_PREFIX = west.prefix;
    const observer = await connectObserver({ servers: [natsUrl()] }).finally(() => {
      if (before === undefined) delete process.env.STAGEWATCH_SUBJECT_PREFIX;
      else process.env.STAGEWATCH_SUBJECT_PREFIX = before;
    });
    try {
      const run = await observer.observe(observeRequest({ deployment: "stuck", resources: [stuck.identity], timeoutSeconds: 600 }));
      expect(await answered()).toEqual({ [east.replica]: 1, [west.replica]: 2 });

      const listed = async (prefix: string) => (JSON.parse((await cli(["list", "-o", "json"], prefix)).stdout) as { items: InProgressItem[] }).items;
      expect(await listed(west.prefix)).toEqual([expect.objectContaining({ observationId: run.observationId, owner: expect.objectContaining({ replica: west.replica }) })]);
      expect(await listed(east.prefix)).toEqual([]);

      expect((await cli(["cancel", run.observationId], east.prefix)).status).toBe(2);
      const cancelled = await cli(["cancel", run.observationId], west.prefix);
      expect(cancelled.status, output(cancelled)).toBe(0);
      expect((await run.verdict).outcome).toBe("cancelled");
    } finally {
      await observer.close();
    }
  });
});
