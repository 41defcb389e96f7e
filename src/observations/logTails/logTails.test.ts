// FailureLogs on its own: the bound on a read that never answers (the engine's tests cover the rest).
import { silentLogger } from "../../logging/index.js";
import { of } from "rxjs";
import { describe, expect, it } from "vitest";
import type { Job, KubeObject, Pod } from "../../kube/objects.js";
import { captured } from "../../../test/fixtures/kube/captured.js";
import type { Informer, PodLogRequest, ResourceMapping } from "../../streams/index.js";
import type { ObservationVerdict } from "../../verdicts/index.js";
import type { KindSource } from "../ports.js";
import { FailureLogs } from "./logTails.js";

const failedJob = captured<Job>("job-failed");
const failedPod = captured<Pod>("pod-failed");

/** Informers that listed long ago: the failed Job and its pod. */
function kindsHolding(...objects: KubeObject[]): KindSource {
  return {
    namespaces: undefined,
    resolve: async (apiVersion, kind) => ({ kindKey: `${apiVersion}/${kind}` }) as ResourceMapping,
    informer: ({ kindKey }) => {
      const ofKind = objects.filter((o) => `${o.apiVersion}/${o.kind}` === kindKey);
      return {
        synced$: of(true),
        hasSynced: () => true,
        get: (_namespace: string | undefined, name: string) => ofKind.find((o) => o.metadata.name === name),
        list: () => ofKind,
      } as unknown as Informer;
    },
  };
}

const verdict: ObservationVerdict = {
  observationId: "obs-1",
  key: "k",
  deployment: "seed",
  required: "bootstrapped",
  reached: "applied",
  outcome: "failed",
  failure: {
    stage: "bootstrapped",
    resource: { apiVersion: "batch/v1", kind: "Job", namespace: failedJob.metadata.namespace!, name: failedJob.metadata.name },
    reason: "BackoffLimitExceeded",
    message: "Job has reached the specified backoff limit",
  },
  resources: [],
  message: "",
  startedAt: "2026-12-01T11:11:18Z",
  deadline: "2026-12-01T11:16:18Z",
};

describe("FailureLogs", () => {
  it("abandons a read that does not answer within its bound, for a note", async () => {
    const asked: PodLogRequest[] = [];
    const logs = new FailureLogs({
      reader: (request, signal) => {
        asked.push(request);
        return new Promise<string>((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      },
      kinds: kindsHolding(failedJob, failedPod),
      logger: silentLogger,
      timeoutMs: 20,
    });
    const detailed = await logs.attach("obs-1", verdict);
    expect(asked).toHaveLength(1);
    expect(detailed.failure?.logNote).toBe("log of pod seed-7s579 container seed not read: no answer within 0.02s");
    expect(detailed.failure?.logTail).toBeUndefined();
  });

  it("wants a read only for a failed or timed-out verdict of a request with logs", () => {
    const logs = new FailureLogs({ reader: undefined, kinds: kindsHolding(failedJob), logger: silentLogger });
    expect(logs.wanted(true, verdict)).toBe(true);
    expect(logs.wanted(true, { ...verdict, outcome: "timed_out" })).toBe(true);
    expect(logs.wanted(false, verdict)).toBe(false);
    expect(logs.wanted(true, { ...verdict, outcome: "cancelled" })).toBe(false);
  });

  it("reads at most maxConcurrentReads logs at once; one finding no slot within its bound gets a note naming the limit, and the next read gets the freed slot", async () => {
    const answers: ((text: string) => void)[] = [];
    const logs = new FailureLogs({
      reader: () => new Promise<string>((resolve) => answers.push(resolve)),
      kinds: kindsHolding(failedJob, failedPod),
      logger: silentLogger,
      timeoutMs: 50,
      maxConcurrentReads: 1,
    });
    const first = logs.attach("obs-1", verdict);
    const second = await logs.attach("obs-2", verdict);
    expect(answers).toHaveLength(1);
    expect(second.failure?.logNote).toBe("log of pod seed-7s579 container seed not read: 1 log reads already in progress (limit maxLogReads 1); none came free in time");
    answers[0]!("done\n");
    expect((await first).failure?.logTail?.lines).toEqual(["done"]);
    const third = logs.attach("obs-3", verdict);
    await new Promise((resolve) => setTimeout(resolve, 5));
    answers[1]!("again\n");
    expect((await third).failure?.logTail?.lines).toEqual(["again"]);
  });
});
