// Signed verdicts in the engine (docs/operator/tenants-and-trust.md): every verdict it stores,
// answers and publishes carries the service's signature, and after adopting a decided record it
// publishes the stored verdict only if the service signed it, whatever someone else put on the
// subject first.
import { describe, expect, it } from "vitest";
import { deployment, replicaSet, rollingOutDeployment } from "../../test/fixtures/kube/workloads.js";
import { checkEvent, checkVerdict, serviceSigner, signBody } from "../signing/index.js";
import { newKey, oldKey } from "../signing/testing/keys.js";
import type { ObservationEvent, ObservationVerdict } from "../verdicts/index.js";
import { defaultLeaseTiming } from "./leases/leasePolicy.js";
import { engineHarness, observationRequest, type EngineHarness } from "./testing/index.js";

const api = { apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 7 } as const;
const { durationMs, scanEveryMs } = defaultLeaseTiming;
const rollingOut = (ready: number) => rollingOutDeployment({ replicas: 2, ready });
const signer = serviceSigner(newKey);
const keys = [newKey.verifyKey];

/** Every verdict written into a record, in order. */
function recordedVerdicts(h: EngineHarness): ObservationVerdict[] {
  const written: ObservationVerdict[] = [];
  const put = h.records.putRecord.bind(h.records);
  const update = h.records.updateRecord.bind(h.records);
  h.records.putRecord = async (record) => {
    if (record.verdict) written.push(record.verdict);
    return put(record);
  };
  h.records.updateRecord = async (record, revision) => {
    if (record.verdict) written.push(record.verdict);
    return update(record, revision);
  };
  return written;
}

const expectSigned = (verdict: ObservationVerdict | undefined, observationId: string) =>
  expect(checkVerdict(verdict, keys, { observationId }), JSON.stringify(verdict)).toEqual({ trusted: true, key: newKey.publicKey });

describe("every verdict the engine makes is signed", () => {
  it("stored with each record write, answered by get, published with the verdict event", async () => {
    const h = engineHarness({ signer });
    const written = recordedVerdicts(h);
    h.cluster.put(rollingOut(0));
    h.cluster.put(replicaSet(rollingOut(0), { name: "api-7f9c6d8b5", revision: "4", replicas: 2, ready: 0 }));
    const id = await h.start(observationRequest({ resources: [api] }));
    expectSigned(await h.engine.get(id), id);
    h.cluster.put(rollingOut(1));
    await h.advance(0);
    h.cluster.put(deployment({ replicas: 2 }));
    await h.advance(0);

    expect(h.events.verdict(id).outcome).toBe("succeeded");
    expect(written.length).toBeGreaterThan(2);
    for (const verdict of written) expectSigned(verdict, id);
    expectSigned(await h.engine.get(id), id);
    for (const event of h.events.of(id)) expect(checkEvent(event, keys, { observationId: id }).trusted).toBe(true);
  });

  it("a cancel's verdict, on the replica that drives the observation and on one that does not", async () => {
    const h = engineHarness({ signer });
    const b = h.replica("replica-b");
    h.cluster.put(rollingOut(0));
    const here = await h.start(observationRequest({ key: "ci-1/payments", resources: [api] }));
    const elsewhere = await h.start(observationRequest({ key: "ci-2/payments", resources: [api] }));
    expectSigned(await h.engine.cancel(here, "superseded"), here);
    expectSigned(await b.engine.cancel(elsewhere, "superseded"), elsewhere);
    await h.advance(0);
    for (const id of [here, elsewhere]) {
      expectSigned(h.events.verdict(id), id);
      expectSigned((await h.records.getRecord(id))!.record.verdict, id);
    }
  });
});

describe("republishing a decided record after adopting it", () => {
  /**
   * A replica that died right after its terminal compare-and-swap: a decided record holding
   * `verdictFor(the record's verdict)`, and its lease. Every replica signs with `replicaSigner`.
   */
  async function decidedAndCrashed(verdictFor: (current: ObservationVerdict) => ObservationVerdict, replicaSigner = signer) {
    const h = engineHarness({ signer: replicaSigner });
    h.cluster.put(rollingOut(0));
    const id = await h.start(observationRequest({ resources: [api] }));
    const stored = (await h.records.getRecord(id))!;
    const cancelled = { ...stored.record.verdict!, outcome: "cancelled" as const, decidedAt: "2026-11-29T10:00:01.000Z", message: "cancelled" };
    const verdict = verdictFor(cancelled);
    await h.records.updateRecord({ ...stored.record, outcome: verdict.outcome, verdict }, stored.revision);
    h.first.crash();
    const adopt = async () => {
      await h.replica("replica-b").startAdopting();
      await h.advance(durationMs + scanEveryMs);
      expect(h.leaseStore.all()).toEqual([]);
    };
    return { h, id, adopt };
  }
  const verdicts = (h: EngineHarness, id: string) => h.events.of(id).flatMap((event) => (event.type === "verdict" ? [event] : []));

  it("publishes the stored verdict when it carries the service's signature", async () => {
    const { h, id, adopt } = await decidedAndCrashed((verdict) => signer.sign(verdict));
    await adopt();
    expect(verdicts(h, id).map((event) => event.verdict.outcome)).toEqual(["cancelled"]);
    expectSigned(h.events.verdict(id), id);
  });

  it("during a rotation, publishes a stored verdict signed by the previous key it was told to keep trusting", async () => {
    const { h, id, adopt } = await decidedAndCrashed((verdict) => signBody(verdict, oldKey), serviceSigner(newKey, [oldKey.verifyKey]));
    await adopt();
    expect(verdicts(h, id).map((event) => [event.verdict.outcome, event.verdict.signature?.key, event.signature?.key])).toEqual([["cancelled", oldKey.publicKey, newKey.publicKey]]);
  });

  it("publishes it even when a forged verdict reached the subject first: a verdict is out only when the service signed it", async () => {
    const { h, id, adopt } = await decidedAndCrashed((verdict) => signer.sign(verdict));
    const forged: ObservationEvent = {
      type: "verdict",
      observationId: id,
      deployment: "payments",
      at: "2026-11-29T10:00:01.000Z",
      verdict: { ...(await h.records.getRecord(id))!.record.verdict!, outcome: "succeeded", signature: undefined },
    };
    h.events.forge(forged);
    await adopt();
    expect(verdicts(h, id).map((event) => [event.verdict.outcome, checkEvent(event, keys, { observationId: id }).trusted])).toEqual([
      ["succeeded", false],
      ["cancelled", true],
    ]);
  });

  it.each([
    ["unsigned (a record someone else wrote)", (verdict: ObservationVerdict) => ({ ...verdict, outcome: "succeeded" as const })],
    ["signed by a key the service does not trust", (verdict: ObservationVerdict) => signBody({ ...verdict, outcome: "succeeded" as const }, oldKey)],
    ["signed, then changed", (verdict: ObservationVerdict) => ({ ...signer.sign(verdict), outcome: "succeeded" as const })],
  ])("never publishes a stored verdict %s under the service's name", async (_, verdictFor) => {
    const { h, id, adopt } = await decidedAndCrashed(verdictFor);
    await adopt();
    expect(verdicts(h, id)).toEqual([]);
    expect(h.logged.filter((line) => line.level === "error").map((line) => line.message)).toEqual([
      "stored verdict not published: it does not carry the service's signature",
    ]);
  });
});
