// A workload judged again on one pod's event judges that pod only (problemsOf keeps each pod
// object's problems): on random sequences of pod events, what it answers after each event is what
// judging every pod from scratch answers (podProblems of each, nothing kept), and so is the
// workload's reading built on it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Pod } from "../../kube/objects.js";
import { pod, running, terminated, waiting } from "../../../test/fixtures/kube/pods.js";
import { podProblems, problemsOf, type PodProblem } from "./podProblems.js";
import { judgeWorkload } from "./workload.js";

const container = fc.oneof(
  fc.constant(running("api")),
  fc.constant(running("api", { ready: false })),
  fc.constant(running("api", { restartCount: 3 })),
  fc.constantFrom("ImagePullBackOff", "CrashLoopBackOff", "ContainerCreating", "CreateContainerConfigError").map((reason) => waiting("api", reason, `${reason} message`)),
  fc.constant(terminated("api", { exitCode: 1, reason: "Error", message: "exit 1" })),
);
const podAt = (slot: number) =>
  fc
    .record({
      containers: fc.array(container, { minLength: 1, maxLength: 2 }),
      phase: fc.constantFrom("Pending", "Running", "Failed" as const),
      unschedulable: fc.option(fc.constant("0/3 nodes are available"), { nil: undefined }),
      deleting: fc.boolean(),
    })
    .map(({ containers, phase, unschedulable, deleting }) =>
      pod({
        name: `api-7f9c6d8b5-${slot}`,
        containers: containers.map((c, i) => ({ ...c, name: `c${i}` })),
        phase,
        ...(unschedulable && { unschedulable }),
        ...(phase === "Failed" && { reason: "Evicted", message: "The node was low on resource: memory." }),
        ...(deleting && { deletionTimestamp: "2026-11-29T10:01:00Z" }),
      }),
    );
/** An event: the pod in `slot` is replaced by a new version, or goes away. */
/** SPEC's order, every pod judged: not being deleted, by name, each pod's problems in its own order. */
function judgedFromScratch(pods: readonly Pod[]): PodProblem[] {
  return pods
    .filter((p) => p.metadata.deletionTimestamp === undefined)
    .toSorted((a, b) => a.metadata.name.localeCompare(b.metadata.name))
    .flatMap((p) => podProblems(p));
}

const event = fc.nat({ max: 9 }).chain((slot) => fc.oneof(podAt(slot).map((next) => ({ slot, next })), fc.constant({ slot, next: undefined })));

describe("problemsOf judges each pod object once", () => {
  it("answers, after every pod event, what judging every pod from scratch answers", () => {
    fc.assert(
      fc.property(fc.array(podAt(0), { minLength: 0, maxLength: 10 }), fc.array(event, { maxLength: 40 }), (initial, events) => {
        const pods = new Map<number, Pod>(initial.map((p, slot) => [slot, { ...p, metadata: { ...p.metadata, name: `api-7f9c6d8b5-${slot}` } }]));
        const check = () => {
          const current = [...pods.values()];
          expect(problemsOf(current)).toEqual(judgedFromScratch(current));
          // The reading too, against the same pods as new objects (nothing of them judged before).
          const workload = (list: Pod[]) => judgeWorkload({ summary: `${list.length} replicas`, complete: false, problems: problemsOf(list), failOn: new Set(["ImagePullBackOff"]) });
          expect(workload(current)).toEqual(workload(structuredClone(current)));
        };
        check();
        for (const { slot, next } of events) {
          if (next) pods.set(slot, next);
          else pods.delete(slot);
          check();
        }
      }),
      { numRuns: 300 },
    );
  });
});
