// The Warning events feed over a scripted API server on virtual time: warnings only (the field
// selector in list and watch), started by its first subscriber, the newest per object, and a
// refusal logged once without stopping anything.
import type { Logger } from "../logging/index.js";
import { describe, expect, it } from "vitest";
import type { ClusterWarning } from "../kube/warnings.js";
import { autoscalerEvent, legacyWarning } from "../../test/fixtures/kube/events.js";
import { captured } from "../../test/fixtures/kube/captured.js";
import { pod } from "../../test/fixtures/kube/pods.js";
import { deployment, replicaSet } from "../../test/fixtures/kube/workloads.js";
import { InformerHub } from "./informerHub.js";

import { ScriptedTransport, SteppedSlicing, VirtualClock, listBody } from "./testing/index.js";
import { statusError } from "./transport.js";

const eventsPath = "/api/v1/events";
const api = deployment();
const current = replicaSet(api, { name: "api-7f9c6d8b5", revision: "4", replicas: 3 });
const quota = 'Error creating: pods "api-7f9c6d8b5-x2k8p" is forbidden: exceeded quota: compute, requested: cpu=2, used: cpu=0, limited: cpu=1';
const failedCreate = (count: number, lastTimestamp: string) => legacyWarning(current, { reason: "FailedCreate", message: quota, count, lastTimestamp });
const warningsOnly = "type=Warning";
const autoscalerOnly = "type=Normal,source=cluster-autoscaler";

/** Answers each selection of events with its own list. */
function serveEvents(transport: ScriptedTransport, lists: { warnings?: () => unknown; autoscaler?: () => unknown }) {
  transport.onGet(eventsPath, (request) => {
    const list = request.query?.fieldSelector === autoscalerOnly ? lists.autoscaler : lists.warnings;
    return list ? list() : listBody([], "900");
  });
}

/** The open watch of one selection. */
function watchOf(transport: ScriptedTransport, fieldSelector: string) {
  const [watch, ...others] = transport.openWatches(eventsPath).filter((w) => w.request.query?.fieldSelector === fieldSelector);
  if (!watch || others.length > 0) throw new Error(`expected one open watch selecting ${fieldSelector}`);
  return watch;
}

function setup(stepped?: SteppedSlicing) {
  const clock = new VirtualClock();
  clock.scheduler.frame = Date.parse("2026-11-29T10:00:30Z");
  const transport = new ScriptedTransport();
  const warnings: { fields: object; message: string }[] = [];
  const logger: Logger = { debug() {}, info() {}, warn: (fields, message) => warnings.push({ fields, message }), error() {} };
  const hub = new InformerHub({ transport, scheduler: clock.scheduler, random: () => 0, logger, ...(stepped && { slicing: stepped.slicing }) });
  return { clock, transport, hub, warnings };
}

describe("WarningFeed", () => {
  it("lists and watches Warning events only, once its first subscriber comes, and keeps the newest per object", () => {
    const { transport, hub } = setup();
    serveEvents(transport, { warnings: () => listBody([failedCreate(1, "2026-11-29T10:00:03Z")], "900") });
    const feed = hub.warnings();
    expect(transport.requests).toEqual([]);

    const seen: ClusterWarning[] = [];
    feed.warnings$.subscribe((warning) => seen.push(warning));
    expect(transport.gets(eventsPath)[0]?.query).toMatchObject({ fieldSelector: "type=Warning" });
    const watch = watchOf(transport, warningsOnly);
    expect(watch.request.query).toMatchObject({ fieldSelector: "type=Warning", resourceVersion: "900" });
    expect(seen.map((w) => w.count)).toEqual([1]);

    watch.send("MODIFIED", { ...failedCreate(4, "2026-11-29T10:00:28Z"), metadata: { ...failedCreate(4, "x").metadata, resourceVersion: "905" } });
    expect(seen.map((w) => w.count)).toEqual([1, 4]);
    expect(feed.newest(current)).toMatchObject({ reason: "FailedCreate", count: 4, involved: { kind: "ReplicaSet", name: "api-7f9c6d8b5" } });
    // A second subscriber shares the one watch of each selection.
    feed.warnings$.subscribe(() => undefined);
    expect(transport.watches(eventsPath).map((w) => w.request.query?.fieldSelector)).toEqual([warningsOnly, autoscalerOnly]);
  });

  it("logs a refusal once and goes on retrying; warnings come once access is granted", () => {
    const { clock, transport, hub, warnings } = setup();
    const server = { refuse: true };
    transport.onGet(eventsPath, (request) => {
      if (request.query?.fieldSelector === autoscalerOnly) return listBody([], "910");
      if (server.refuse) {
        throw statusError(
          { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Forbidden", code: 403, message: 'events is forbidden: User "system:serviceaccount:stagewatch:stagewatch" cannot list resource "events" in API group "" at the cluster scope' },
          `GET ${eventsPath}`,
          403,
        );
      }
      return listBody([failedCreate(2, "2026-11-29T10:00:20Z")], "910");
    });
    const seen: ClusterWarning[] = [];
    hub.warnings().warnings$.subscribe((warning) => seen.push(warning));
    clock.advance(60_000);
    expect(transport.gets(eventsPath).length).toBeGreaterThan(1);
    const refusals = warnings.filter((w) => w.message.startsWith("cannot read Warning events"));
    expect(refusals.map((w) => w.message)).toEqual(["cannot read Warning events; verdicts go on without them"]);
    server.refuse = false;
    clock.advance(60_000);
    expect(seen.map((w) => w.reason)).toEqual(["FailedCreate"]);
  });

  it("offers a long list a slice at a time; watch events wait behind it, and nothing is offered after stop", () => {
    const stepped = new SteppedSlicing(2);
    const { clock, transport, hub } = setup(stepped);
    const replicaSets = ["a", "b", "c"].map((suffix) => replicaSet(api, { name: `api-${suffix}`, revision: "4", uid: `uid-rs-${suffix}` }));
    const warning = (owner: (typeof replicaSets)[number], count: number) =>
      legacyWarning(owner, { reason: "FailedCreate", message: quota, count, lastTimestamp: "2026-11-29T10:00:20Z", suffix: owner.metadata.name });
    serveEvents(transport, { warnings: () => listBody(replicaSets.map((owner) => warning(owner, 1)), "900") });
    const feed = hub.warnings();
    const seen: string[] = [];
    feed.warnings$.subscribe((w) => seen.push(`${w.involved.name} ${w.count}`));
    expect(seen).toEqual(["api-a 1", "api-b 1"]);
    expect(feed.newest(replicaSets[2]!)).toBeUndefined();

    const watch = watchOf(transport, warningsOnly);
    watch.send("MODIFIED", { ...warning(replicaSets[0]!, 2), metadata: { ...warning(replicaSets[0]!, 2).metadata, resourceVersion: "905" } });
    stepped.drain();
    expect(seen).toEqual(["api-a 1", "api-b 1", "api-c 1", "api-a 2"]);

    serveEvents(transport, { warnings: () => listBody(replicaSets.map((owner) => warning(owner, 3)), "950") });
    watch.status(410, "Expired", "too old resource version: 905 (950)");
    clock.advance(0);
    expect(seen.slice(4)).toEqual(["api-a 3", "api-b 3"]);
    hub.stop();
    stepped.drain();
    expect(seen.slice(4)).toEqual(["api-a 3", "api-b 3"]);
    expect(feed.newest(replicaSets[2]!)?.count).toBe(1);
  });

  it("keeps cluster-autoscaler's words on pods apart from the warnings, and drops its other Normal events", () => {
    const { transport, hub } = setup();
    const unplaced = pod({ name: "api-7f9c6d8b5-x2k8p", owner: current });
    const triggered = autoscalerEvent(unplaced, { reason: "TriggeredScaleUp", message: "pod triggered scale-up: [{eks-ng-1 2->3 (max: 10)}]", lastTimestamp: "2026-11-29T10:00:12Z" });
    const failedScheduling = legacyWarning(unplaced, {
      reason: "FailedScheduling",
      message: "0/4 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 3 Insufficient cpu.",
      lastTimestamp: "2026-11-29T10:00:25Z",
      component: "default-scheduler",
    });
    // The status ConfigMap's note of the same scale-up: not about a pod, not kept.
    const statusMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cluster-autoscaler-status", namespace: "payments", uid: "uid-cm-status", resourceVersion: "12" } };
    const scaledUpGroup = autoscalerEvent(statusMap as never, { reason: "TriggeredScaleUp", message: "x", lastTimestamp: "2026-11-29T10:00:12Z" });
    serveEvents(transport, { warnings: () => listBody([failedScheduling], "900"), autoscaler: () => listBody([triggered, { ...scaledUpGroup, reason: "ScaledUpGroup" }], "901") });
    const feed = hub.warnings();
    const seen: string[] = [];
    feed.warnings$.subscribe((w) => seen.push(`${w.involved.kind} ${w.reason}`));

    expect(seen.toSorted()).toEqual(["Pod FailedScheduling", "Pod TriggeredScaleUp"]);
    // The scheduler's newer warning does not hide the scale-up under way.
    expect(feed.newest(unplaced)).toMatchObject({ reason: "FailedScheduling" });
    expect(feed.newestAutoscalerWord(unplaced)).toMatchObject({ reason: "TriggeredScaleUp", message: "pod triggered scale-up: [{eks-ng-1 2->3 (max: 10)}]" });

    const noScaleUp = autoscalerEvent(unplaced, {
      reason: "NotTriggerScaleUp",
      message: "pod didn't trigger scale-up: 1 node(s) didn't match Pod's node affinity/selector, 2 max node group size reached",
      lastTimestamp: "2026-11-29T10:00:28Z",
    });
    watchOf(transport, autoscalerOnly).send("ADDED", { ...noScaleUp, metadata: { ...noScaleUp.metadata, resourceVersion: "930" } });
    expect(feed.newestAutoscalerWord(unplaced)).toMatchObject({ reason: "NotTriggerScaleUp" });
    expect(feed.newest(unplaced)).toMatchObject({ reason: "FailedScheduling" });
  });

  it("finds the warning about a claim by its name, as a pod's volumes name it", () => {
    const { transport, hub } = setup();
    // Pending on a StorageClass that does not exist, as the local cluster's PV controller leaves it.
    const claim = captured("pvc-pending");
    const provisioningFailed = legacyWarning(claim, {
      reason: "ProvisioningFailed",
      message: 'storageclass.storage.k8s.io "no-such-class" not found',
      count: 3,
      lastTimestamp: "2026-11-29T10:00:26Z",
      component: "persistentvolume-controller",
    });
    serveEvents(transport, { warnings: () => listBody([provisioningFailed], "900") });
    const feed = hub.warnings();
    feed.warnings$.subscribe(() => undefined);
    expect(feed.newestNamed("PersistentVolumeClaim", "capture", "scratch")).toMatchObject({ reason: "ProvisioningFailed", count: 3, involved: { name: "scratch" } });
    expect(feed.newestNamed("PersistentVolumeClaim", "capture", "logs")).toBeUndefined();
    expect(feed.newestNamed("PersistentVolumeClaim", "payments", "scratch")).toBeUndefined();
    expect(feed.newestNamed("Pod", "capture", "scratch")).toBeUndefined();
  });
});
