/**
 * SPEC section 10 against the real thing: compiled `stagewatch serve` processes killed (SIGKILL)
 * and stopped (SIGTERM) mid-observation on the local control plane and nats-server. Every test
 * asserts the verdict bodies and the events the stream holds: exactly one verdict an observation,
 * the budget never restarted, nothing lost. Leases are 3 s here so the tests wait seconds; the
 * adoption delays measured go to `.stagewatch/e2e/durability.json`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BatchV1Api } from "@kubernetes/client-node";
import { connect } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectObserver, type Observer } from "../../src/bus/index.js";
import type { ObservationVerdict } from "../../src/verdicts/contract/schemas.js";
import { REPO_ROOT } from "../cluster/stagewatch.ts";
import { createNamespace, deleteNamespace, eventually, Fault, kubeConfig, kubeconfigPath, natsUrl } from "./support/cluster.ts";
import { deployment, job, type Declared } from "./support/manifests.ts";
import { leasesByHolder, median, ServeFleet, streamEvents, verdictsById } from "./support/replicas.ts";
import { apply, observeRequest } from "./support/stagewatch.ts";

const kc = kubeConfig();
let namespace: string;
let fleet: ServeFleet | undefined;
const observers: Observer[] = [];
const measured: Record<string, number[]> = {};

beforeAll(async () => {
  namespace = await createNamespace("durability");
}, 300_000);

afterEach(async () => {
  await Promise.all(observers.splice(0).map((o) => o.close()));
  await fleet?.stopAll();
  fleet = undefined;
});

afterAll(async () => {
  await deleteNamespace(namespace);
  const dir = join(REPO_ROOT, ".stagewatch", "e2e");
  mkdirSync(dir, { recursive: true });
  const summary = Object.fromEntries(
    Object.entries(measured).map(([what, ms]) => [what, { samples: ms.length, medianMs: median(ms), maxMs: Math.max(...ms) }]),
  );
  writeFileSync(join(dir, "durability.json"), JSON.stringify({ measured: summary, samples: measured }, null, 2) + "\n");
  console.log("adoption delays:", JSON.stringify(summary));
});

function newFleet(options: { leaseDuration?: string } = {}): ServeFleet {
  fleet = new ServeFleet({ kubeconfigPath: kubeconfigPath(), natsUrl: natsUrl(), ...options });
  return fleet;
}

async function observerOf(f: ServeFleet): Promise<Observer> {
  const observer = await connectObserver({ servers: natsUrl(), prefix: f.prefix });
  observers.push(observer);
  return observer;
}

/** A Deployment whose pods run but never become ready, until `ready` applies it again without the fault. */
function stuckDeployment(name: string, replicas = 1): { declared: Declared; ready: () => Promise<unknown> } {
  const declared = deployment({ namespace, name, replicas, fault: Fault.NeverReady });
  return { declared, ready: () => apply(kc, deployment({ namespace, name, replicas }).manifest) };
}

function record(what: string, ms: number): void {
  (measured[what] ??= []).push(ms);
}

/** Adoption delay of each observation: from `since` to the first "observation adopted" line naming it. */
function adoptionDelays(f: ServeFleet, ids: readonly string[], since: number): number[] {
  const adopted = f.logLines("observation adopted");
  return ids.map((id) => {
    const line = adopted.find((l) => l.observationId === id && l.time >= since);
    if (!line) throw new Error(`observation ${id} was never adopted`);
    return line.time - since;
  });
}

async function expectOneVerdictEach(f: ServeFleet, ids: readonly string[], check: (verdict: ObservationVerdict) => void): Promise<void> {
  // A client's verdict comes from the service's core-subject notice, sent as the record's terminal
  // write is stored; the stream's copy follows on the same connection, a few milliseconds behind.
  // So the stream is read once it holds a verdict for every id; duplicates would be there by then:
  // each replica publishes only after its own terminal compare-and-swap won.
  const byId = await eventually("a verdict event on the stream for every observation", async () => {
    const found = verdictsById(await streamEvents(natsUrl(), f.names));
    return ids.every((id) => found.has(id)) ? found : undefined;
  });
  for (const id of ids) {
    const verdicts = byId.get(id) ?? [];
    expect(verdicts, `verdict events of ${id}`).toHaveLength(1);
    check(verdicts[0]!);
  }
}

describe("one replica, SIGKILL mid-observation, restarted", () => {
  it("decides the right verdict under the same id and deadline, once; a bootstrap Job settled before the kill and removed by its TTL still counts", async () => {
    const f = newFleet();
    const first = await f.start("serve-0");
    const observer = await observerOf(f);
    const migrate = job({ namespace, name: "migrate-ttl", ttlSecondsAfterFinished: 0 });
    const api = stuckDeployment("api-kill");
    await apply(kc, migrate.manifest, api.declared.manifest);
    const run = await observer.observe(
      observeRequest({ deployment: "kill", resources: [{ ...migrate.identity, bootstrap: true }, api.declared.identity], timeoutSeconds: 120 }),
    );
    const started = (await observer.get(run.observationId))!;
    await eventually("the Job settled and removed by its TTL", async () => {
      const verdict = await observer.get(run.observationId);
      const jobGone = await kc.makeApiClient(BatchV1Api).readNamespacedJob({ name: "migrate-ttl", namespace }).then(() => false, () => true);
      return (verdict?.reached === "bootstrapped" && verdict.resources[0]?.state === "settled" && jobGone) || undefined;
    });

    const killedAt = Date.now();
    await first.service.process.kill("SIGKILL");
    // Restarted as a container restart is: same replica id, so it takes its own leases back at once.
    await f.start("serve-0");
    await api.ready();
    const verdict = await run.verdict;
    record("restart after SIGKILL (same id)", adoptionDelays(f, [run.observationId], killedAt)[0]!);

    expect(verdict).toMatchObject({
      observationId: run.observationId,
      outcome: "succeeded",
      reached: "healthy",
      startedAt: started.startedAt,
      deadline: started.deadline,
      resources: [
        { identity: { name: "migrate-ttl" }, state: "settled", message: "1/1 completions" },
        { identity: { name: "api-kill" }, state: "settled" },
      ],
    });
    await expectOneVerdictEach(f, [run.observationId], (v) => expect(v.outcome).toBe("succeeded"));
  });
});

describe("three replicas, 30 observations, the busiest replica SIGKILLed", () => {
  it("adopts every one of them after the lease expires and decides each once", async () => {
    const f = newFleet();
    const replicas = await Promise.all(["serve-a", "serve-b", "serve-c"].map((id) => f.start(id)));
    const observer = await observerOf(f);
    const workloads = Array.from({ length: 30 }, (_, i) => stuckDeployment(`fleet-${i}`));
    await apply(kc, ...workloads.map((w) => w.declared.manifest));
    const runs = await Promise.all(
      workloads.map((w, i) => observer.observe(observeRequest({ deployment: `fleet-${i}`, resources: [w.declared.identity], timeoutSeconds: 180 }))),
    );
    const nc = await connect({ servers: natsUrl() });
    const holders = await leasesByHolder(nc, f.names);
    await nc.close();
    const [busiest, owned] = [...holders.entries()].toSorted((a, b) => b[1].length - a[1].length)[0]!;
    expect(owned.length).toBeGreaterThan(0);

    const victim = replicas.find((r) => r.id === busiest)!;
    const killedAt = Date.now();
    await victim.service.process.kill("SIGKILL");
    await Promise.all(workloads.map((w) => w.ready()));
    const verdicts = await Promise.all(runs.map((run) => run.verdict));

    for (const delay of adoptionDelays(f, owned, killedAt)) record("adoption after SIGKILL (3s lease)", delay);
    expect(verdicts.map((v) => v.outcome)).toEqual(runs.map(() => "succeeded"));
    await expectOneVerdictEach(f, runs.map((r) => r.observationId), (v) => expect(v.reached).toBe("healthy"));
    const adopted = f.logLines("observation adopted").filter((l) => owned.includes(l.observationId!));
    expect(adopted.every((l) => l.cause === "expired")).toBe(true);
  });
});

describe("a rolling restart, one replica at a time (SIGTERM), with 50 observations in flight", () => {
  it("loses none, decides none twice, and never waits for a lease to expire", async () => {
    // A lease longer than the whole test: an adoption that waited for expiry would not happen in time.
    const f = newFleet({ leaseDuration: "10m" });
    const ids = ["roll-a", "roll-b", "roll-c"];
    const running = new Map((await Promise.all(ids.map((id) => f.start(id)))).map((r) => [r.id, r]));
    const observer = await observerOf(f);
    const workloads = Array.from({ length: 50 }, (_, i) => stuckDeployment(`roll-${i}`));
    await apply(kc, ...workloads.map((w) => w.declared.manifest));
    const runs = await Promise.all(
      workloads.map((w, i) => observer.observe(observeRequest({ deployment: `roll-${i}`, resources: [w.declared.identity], timeoutSeconds: 300 }))),
    );

    const nc = await connect({ servers: natsUrl() });
    const handedOver: { held: string[]; stoppedAt: number }[] = [];
    for (const id of ids) {
      const held = (await leasesByHolder(nc, f.names)).get(id) ?? [];
      const stoppedAt = Date.now();
      const exit = await running.get(id)!.service.process.stop(30_000);
      expect(exit.signal ?? exit.code, `${id} exits on SIGTERM by itself`).toBe(0);
      handedOver.push({ held, stoppedAt });
      running.set(id, await f.start(`${id}-new`));
    }
    const holders = await leasesByHolder(nc, f.names);
    await nc.close();
    expect([...holders.keys()].every((holder) => holder.endsWith("-new")), "only the new replicas hold leases").toBe(true);
    expect([...holders.values()].flat().length).toBe(50);

    await Promise.all(workloads.map((w) => w.ready()));
    const verdicts = await Promise.all(runs.map((run) => run.verdict));
    expect(verdicts.map((v) => v.outcome)).toEqual(runs.map(() => "succeeded"));
    await expectOneVerdictEach(f, runs.map((r) => r.observationId), (v) => expect(v.reached).toBe("healthy"));
    for (const { held, stoppedAt } of handedOver) for (const delay of adoptionDelays(f, held, stoppedAt)) record("adoption after SIGTERM", delay);
    const adopted = f.logLines("observation adopted");
    expect(adopted.length).toBeGreaterThanOrEqual(50);
    expect(adopted.filter((l) => l.cause !== "released")).toEqual([]);
  });
});

describe("cancel on any replica", () => {
  it("cancels every time, whichever of three replicas the queue group hands it to", async () => {
    const f = newFleet();
    await Promise.all(["cancel-a", "cancel-b", "cancel-c"].map((id) => f.start(id)));
    const observer = await observerOf(f);
    const workloads = Array.from({ length: 10 }, (_, i) => stuckDeployment(`cancel-${i}`));
    await apply(kc, ...workloads.map((w) => w.declared.manifest));
    const runs = await Promise.all(
      workloads.map((w, i) => observer.observe(observeRequest({ deployment: `cancel-${i}`, resources: [w.declared.identity], timeoutSeconds: 300 }))),
    );
    const cancelled = await Promise.all(runs.map((run) => observer.cancel(run.observationId, "superseded by revision 43")));
    expect(cancelled.map((v) => v?.outcome)).toEqual(runs.map(() => "cancelled"));
    const verdicts = await Promise.all(runs.map((run) => run.verdict));
    expect(verdicts.map((v) => v.outcome)).toEqual(runs.map(() => "cancelled"));
    await expectOneVerdictEach(f, runs.map((r) => r.observationId), (v) => expect(v.message).toContain("superseded by revision 43"));
    // With three replicas, ten cancels all reaching the driving one has odds of 3^-10.
    expect(f.logLines("cancelled through the record").length).toBeGreaterThan(0);
    // Nothing is left driving what was cancelled elsewhere.
    await Promise.all(workloads.map((w) => w.ready()));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await expectOneVerdictEach(f, runs.map((r) => r.observationId), (v) => expect(v.outcome).toBe("cancelled"));
  });
});

describe("a deadline that passes while no replica runs", () => {
  it("ends as timed_out as soon as a replica starts, naming the outstanding resource with the reading its record holds", async () => {
    const f = newFleet();
    const only = await f.start("alone");
    const observer = await observerOf(f);
    const api = stuckDeployment("api-deadline");
    await apply(kc, api.declared.manifest);
    const run = await observer.observe(observeRequest({ deployment: "deadline", resources: [api.declared.identity], timeoutSeconds: 6 }));
    await eventually("a reading in the record", async () => ((await observer.get(run.observationId))?.resources[0]?.reason === "ContainersNotReady" ? true : undefined));
    await only.service.process.kill("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 8_000));

    const startedAt = Date.now();
    await f.start("later");
    const verdict = await run.verdict;
    record("deadline passed while stopped: start to timed_out", Date.now() - startedAt);
    expect(verdict).toMatchObject({ outcome: "timed_out", failure: { reason: "ContainersNotReady" } });
    expect(verdict.decidedAt).toBe(verdict.deadline);
    expect(verdict.message).toMatch(/^deployment deadline did not reach healthy within 6s: Deployment .*\/api-deadline: 0\/1 replicas ready/);
    await expectOneVerdictEach(f, [run.observationId], (v) => expect(v.outcome).toBe("timed_out"));
  });
});
