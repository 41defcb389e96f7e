/**
 * Issue 22, part 2, against the real thing: compiled `stagewatch serve` and `stagewatch observe`
 * on the local control plane. The same deployment rolled out five times builds its history in
 * the service's KV bucket; a sixth, slower rollout (its pods never ready until a fixed image is
 * applied) is shown the expectation, gets one `--stall auto` notice once it has taken longer than
 * the earlier ones did, never a failure, and its verdict says how it compared.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ObservationVerdict } from "../../src/verdicts/contract/schemas.js";
import { scratchDir, writeManifest } from "../cluster/stagewatch.ts";
import { output, runStagewatch } from "./support/cli.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, natsUrl } from "./support/cluster.ts";
import { deployment } from "./support/manifests.ts";
import { streamEvents } from "./support/replicas.ts";
import { useServes, type ServeUnderPrefix } from "./support/serve.ts";
import { apply } from "./support/stagewatch.ts";

const kc = kubeConfig();
const serves = useServes();
let namespace: string;
let service: ServeUnderPrefix;

beforeAll(async () => {
  [namespace, service] = await Promise.all([createNamespace("history"), serves.start({ name: "history" })]);
}, 300_000);

afterAll(async () => {
  if (namespace) await deleteNamespace(namespace);
});

/** The Deployment at image tag `tag` (each a new rollout), written where observe reads it, and applied. */
async function rollOut(tag: number, fault?: Fault): Promise<string> {
  const web = deployment({ namespace, name: "web", replicas: 1, image: `registry.example/web:${tag}`, ...(fault && { fault }) });
  await apply(kc, web.manifest);
  return writeManifest(join(scratchDir("history-manifests"), `web-${tag}.yaml`), [web.manifest]);
}

const observe = (file: string, ...flags: string[]) =>
  runStagewatch(["observe", "-f", file, "--deployment", "web-history", "--namespace", namespace, "--timeout", "2m", "--stall", "auto", "--progress", "plain", `--subject-prefix=${service.prefix}`, ...flags], {
    env: { NATS_URL: natsUrl() },
  });

describe("a deployment observed five times, then a slower sixth", () => {
  it("shows the expectation, announces the auto stall once past the earlier rollouts, and records how the sixth compared", async () => {
    for (let tag = 1; tag <= 5; tag++) {
      const result = await observe(await rollOut(tag));
      expect(result.status, output(result)).toBe(0);
      // From the second on, the earlier ones are the expectation.
      if (tag >= 2) expect(result.stderr, output(result)).toMatch(new RegExp(`expected: to healthy, usually [\\d.m]+s, 90% within [\\d.m]+s, from ${tag - 1} earlier rollouts?`));
    }

    const slow = rollOut(6, Fault.NeverReady).then((file) => observe(file, "--json"));
    const stalled = await eventually(
      "the auto stall notice",
      async () => (await streamEvents(natsUrl(), service.names)).find((event) => event.type === "stalled" && event.deployment === "web-history"),
      { timeoutMs: 90_000 },
    );
    expect(stalled).toMatchObject({ type: "stalled", basis: { stage: "healthy", quantile: 0.95, samples: 5 } });
    await apply(kc, deployment({ namespace, name: "web", replicas: 1, image: "registry.example/web:7" }).manifest);
    const result = await slow;
    expect(result.status, output(result)).toBe(0);
    const verdict = ObservationVerdict.parse(JSON.parse(result.stdout));
    console.log(`observe's progress of the sixth rollout:\n${result.stderr}`);

    expect(result.stderr).toMatch(/expected: to healthy, usually [\d.m]+s, 90% within [\d.m]+s, from 5 earlier rollouts/);
    const notices = result.stderr.split("\n").filter((line) => line.includes("stalled: "));
    expect(notices, output(result)).toHaveLength(1);
    expect(notices[0]).toMatch(/stalled: deployment web-history has taken \d+s and has not reached healthy: 95% of 5 earlier rollouts reached it within [\d.m]+s \(stall auto: the 95% quantile of their times to healthy, at least 5s\); waiting for: Deployment [^/]+\/web: /);
    expect(verdict).toMatchObject({ outcome: "succeeded", history: { earlier: 5, comparison: { stage: "healthy", samples: 5, fasterThan: 0 } } });
    expect(verdict.history!.comparison!.seconds).toBeGreaterThan(stalled.type === "stalled" ? stalled.basis!.thresholdSeconds : 0);
    expect(result.stderr).toMatch(/history: healthy in [\d.m]+s: slower than 90% of 5 earlier rollouts/);

    // `get` shows the same expectation, from the record.
    const get = await runStagewatch(["get", verdict.observationId, `--subject-prefix=${service.prefix}`], { env: { NATS_URL: natsUrl() } });
    expect(get.status, output(get)).toBe(0);
    expect(get.stdout).toMatch(/USUALLY/);
    expect(get.stdout).toMatch(/history: healthy in [\d.m]+s: slower than 90% of 5 earlier rollouts/);

    // The metric the dashboard's history panel reads, one series a quantile.
    const metrics = await fetch(`${service.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/stagewatch_history_expected_seconds\{deployment="web-history",stage="healthy",history_quantile="0.9"\} \d/);
  });
});
