// Objects cut down to what the verdict rules read, in the shapes of src/kube/objects.ts, as each
// arrives from a list page or a watch line: the cache never holds a full object. A running pod
// as the API server writes it is mostly managedFields, the pod spec (images, env, probes,
// volumes) and annotations; none of that decides a stage.
//
// What survives, and why:
// - metadata: identity (name, namespace, uid), resourceVersion, generation, creation and deletion
//   timestamps, controller links (ownerReferences), the revision annotation Deployments and
//   ReplicaSets carry (it picks a Deployment's current ReplicaSet), and labels under
//   `stagewatch.io/` only: rules read the bootstrap label and nothing else from labels (pods are
//   joined to workloads by owner UID, never by selector), and a pod's other labels would cost more
//   memory than everything else kept for it. A CEL health check may name a label or annotation of
//   its kind (`metadata.annotations['cnpg.io/reconciliationLoop']`): those are kept too.
// - known workload kinds (Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job): the spec
//   and status fields their rules read; for pods, only the conditions that say something the
//   container statuses do not (see podConditionTypes).
// - kinds whose rule reads a little more (Service, CronJob, PersistentVolumeClaim): those fields,
//   besides what any other kind keeps.
// - any other kind (custom resources, CRDs, APIServices, ...): `status.observedGeneration`, the
//   conditions, and the other top-level scalars of status (phase, message, replica counts). Nested
//   status (inventories, per-resource lists, `health: {status: Healthy}`) is emptied, not dropped:
//   the field stays as `{}` or `[]`, because whether a controller has written a status at all is
//   what separates AwaitingStatus from settled, and `status: {health: {...}}` is a written status.
//   The spec is dropped, but for `spec.paused`, which the fallback reads.
// - kinds judged by a CEL health check (the health library's or the service's configuration): the
//   fields of spec and status its expressions read, and those its rule reads around them
//   (conditions, message, phase), nested or not (fieldSelection.ts).
// - dropped although it sits among kept fields: the lastTransitionTime of a condition that is
//   True, a running container's startedAt (`running: {}` stays) and a pod's nodeName (kept on a
//   pod that Failed: an eviction is named with its node). No rule reads
//   them, and they are what tells apart the statuses of pods that run as they should: without them
//   those statuses are equal, and equal parts are held once (sharedValues.ts: a pod's spec, status,
//   owner references, kept labels and annotations, namespace and creation time). A condition that
//   is not True keeps its lastTransitionTime: it is when a problem began, what a failOn reason's
//   grace counts from (verdicts/reducer/reasonGrace.ts), and only pods in trouble carry one.
// The rules must decide the same on a stripped object as on the full one; strip.test.ts checks it
// for every fixture of the corpus.
// - metadata-only kinds (ConfigMap, Secret, ...): metadata alone, even if the server sent more.
// - cut although kept: the cluster's prose (reasons, messages, any other string of status) at the
//   lengths kube/heldText.ts gives, longer than anything a verdict shows of them: a custom
//   resource's 900 KiB reason is held as 256 characters, however many observations read it.
import { heldPrefix, maxHeldReasonChars, maxHeldTextChars } from "../kube/heldText.js";
import type { Condition, ContainerState, ContainerStatus, KubeObject, ObjectMeta, OwnerReference } from "../kube/objects.js";
import { revisionAnnotation } from "../kube/objects.js";
import { selectFields, type KeptFields } from "./fieldSelection.js";
import { SharedValues } from "./sharedValues.js";

type Json = Record<string, unknown>;

// One table for the process: equal parts of objects of any kind and any informer are held once
// (see sharedValues.ts; which bodies go through it: sharedBodyKinds). 16,384 entries are a few MB
// at most, and ample for the distinct owner references, statuses and namespaces of a cluster's
// pods between two fresh starts of the table.
const shared = new SharedValues(16_384);

export const keptLabelPrefix = "stagewatch.io/";
export const keptAnnotations: readonly string[] = [revisionAnnotation];

/** What the stripper needs to know about the collection an object came from. */
export interface StripTarget {
  /** Written into every object: list items and PartialObjectMetadata carry no (or another) kind. */
  apiVersion: string;
  kind: string;
  kindKey: string;
  metadataOnly: boolean;
  /**
   * Keep these fields of spec and status (`{spec: {...}, status: {...}}`): what the CEL health
   * check judging the kind reads (fieldSelection.ts); metadata is stripped as for every kind.
   */
  keptFields?: KeptFields;
}

/** The object as the rules see it, or undefined when it has no name or uid (not an object of the collection). */
export function stripObject(raw: unknown, target: StripTarget): KubeObject | undefined {
  if (!isRecord(raw)) return undefined;
  const metadata = stripMeta(raw.metadata, target.keptFields);
  if (!metadata) return undefined;
  const object: KubeObject = { apiVersion: target.apiVersion, kind: target.kind, metadata };
  if (target.metadataOnly) return object;
  const body = target.keptFields ? selectedBody(raw, target.keptFields) : (bodies[target.kindKey] ?? genericBody)(raw);
  const shares = sharedBodyKinds.has(target.kindKey);
  if (body.spec) object.spec = shares ? shared.share(body.spec) : body.spec;
  if (body.status) object.status = shares ? shared.share(body.status) : body.status;
  return object;
}

// The kinds whose spec and status go through the table: those the cache holds by the thousand, a
// pod for every replica and a ReplicaSet for every revision, whose parts repeat from one object to
// the next (20 pods of a ReplicaSet running as they should have one status between them). Any
// other kind's spec and status stay its own. A workload's status is one object's by content: its
// conditions name its ReplicaSet or itself, and its counts step through the values of a rollout,
// so each step of each Deployment's rollout was one more entry, held by nothing else once the next
// step came. Shared, they filled the table (16,384 entries of about 1.1 KB with their keys: 18 MB,
// measured) and made it start afresh, and the pods lost their sharing each time it did.
const sharedBodyKinds: ReadonlySet<string> = new Set(["core/Pod", "apps/ReplicaSet", "core/ReplicationController"]);

/**
 * Whether two stripped objects read the same to every rule. The strip shares equal parts (spec,
 * status, owner references, kept labels and annotations), so equal parts are the same objects and
 * this costs a few reference comparisons. It errs one way only: parts equal in content but not
 * shared (the table started afresh between the two) read as a change.
 */
export function readsTheSame(previous: KubeObject, next: KubeObject): boolean {
  const a = previous.metadata;
  const b = next.metadata;
  return (
    previous.spec === next.spec &&
    previous.status === next.status &&
    a.uid === b.uid &&
    a.generation === b.generation &&
    a.deletionTimestamp === b.deletionTimestamp &&
    a.labels === b.labels &&
    a.annotations === b.annotations &&
    a.ownerReferences === b.ownerReferences
  );
}

interface Body {
  spec?: Json;
  status?: KubeObject["status"];
}

const bodies: Record<string, (raw: Json) => Body> = {
  "core/Pod": (raw) => ({
    spec: nonEmpty({
      ...(field(raw.status, "phase") === "Failed" && scalars(raw.spec, ["nodeName"])),
      containers: names(field(raw.spec, "containers")),
      initContainers: names(field(raw.spec, "initContainers")),
      volumes: claimVolumes(field(raw.spec, "volumes")),
    }),
    status: nonEmpty({
      ...scalars(raw.status, ["phase", "reason", "message"]),
      conditions: conditions(field(raw.status, "conditions"), podConditionTypes),
      initContainerStatuses: containerStatuses(field(raw.status, "initContainerStatuses")),
      containerStatuses: containerStatuses(field(raw.status, "containerStatuses")),
    }),
  }),
  "apps/Deployment": (raw) =>
    workload(raw, ["replicas", "paused", "progressDeadlineSeconds"], [
      "replicas",
      "updatedReplicas",
      "readyReplicas",
      "availableReplicas",
      "unavailableReplicas",
      "terminatingReplicas",
    ]),
  "apps/ReplicaSet": (raw) => replicaSetBody(raw),
  "core/ReplicationController": (raw) => replicaSetBody(raw),
  "batch/CronJob": (raw) => ({ spec: nonEmpty(scalars(raw.spec, ["schedule", "suspend"])), status: genericStatus(raw.status) }),
  "core/PersistentVolumeClaim": (raw) => ({ spec: nonEmpty(scalars(raw.spec, ["volumeName"])), status: genericStatus(raw.status) }),
  "core/Service": (raw) => {
    const status = genericStatus(raw.status);
    const ingress = loadBalancerIngress(field(field(raw.status, "loadBalancer"), "ingress"));
    return {
      spec: nonEmpty(scalars(raw.spec, ["type"])),
      status: ingress ? { ...status, loadBalancer: { ingress } } : status,
    };
  },
  "apps/StatefulSet": (raw) => ({
    spec: nonEmpty({
      ...scalars(raw.spec, ["replicas"]),
      updateStrategy: nonEmpty({
        ...scalars(field(raw.spec, "updateStrategy"), ["type"]),
        rollingUpdate: nonEmpty(scalars(field(field(raw.spec, "updateStrategy"), "rollingUpdate"), ["partition"])),
      }),
    }),
    status: workloadStatus(raw.status, [
      "replicas",
      "readyReplicas",
      "currentReplicas",
      "updatedReplicas",
      "availableReplicas",
      "currentRevision",
      "updateRevision",
    ]),
  }),
  "apps/DaemonSet": (raw) => ({
    spec: nonEmpty({ updateStrategy: nonEmpty(scalars(field(raw.spec, "updateStrategy"), ["type"])) }),
    status: workloadStatus(raw.status, [
      "desiredNumberScheduled",
      "currentNumberScheduled",
      "updatedNumberScheduled",
      "numberAvailable",
      "numberReady",
      "numberUnavailable",
    ]),
  }),
  "batch/Job": (raw) => {
    const body = workload(raw, ["suspend", "completions", "parallelism", "backoffLimit", "ttlSecondsAfterFinished"], [
      "active",
      "succeeded",
      "failed",
      "ready",
      "terminating",
      "startTime",
      "completionTime",
    ]);
    // Finished pods the controller has not counted yet: the update that sets SuccessCriteriaMet
    // still lists the successful pod here, with `succeeded` at 0.
    const pending = field(raw.status, "uncountedTerminatedPods");
    const uncounted = nonEmpty({ succeeded: uids(field(pending, "succeeded")), failed: uids(field(pending, "failed")) });
    return uncounted ? { ...body, status: { ...body.status, uncountedTerminatedPods: uncounted } } : body;
  },
};

function workload(raw: Json, specFields: readonly string[], statusFields: readonly string[]): Body {
  return { spec: nonEmpty(scalars(raw.spec, specFields)), status: workloadStatus(raw.status, statusFields) };
}

function workloadStatus(status: unknown, fields: readonly string[]): Body["status"] {
  return nonEmpty({
    ...scalars(status, ["observedGeneration", ...fields]),
    conditions: conditions(field(status, "conditions")),
  });
}

function replicaSetBody(raw: Json): Body {
  return workload(raw, ["replicas"], ["replicas", "readyReplicas", "availableReplicas", "terminatingReplicas"]);
}

function selectedBody(raw: Json, kept: KeptFields): Body {
  const body = selectFields({ spec: raw.spec, status: raw.status }, kept) as Body;
  return { ...(isRecord(body.spec) && { spec: body.spec }), ...(isRecord(body.status) && { status: body.status }) };
}

function genericBody(raw: Json): Body {
  const status = genericStatus(raw.status);
  const spec = nonEmpty(scalars(raw.spec, ["paused"]));
  return { ...(spec && { spec }), ...(status && { status }) };
}

function genericStatus(raw: unknown): Body["status"] {
  if (!isRecord(raw)) return undefined;
  const status: Json = {};
  for (const [key, value] of Object.entries(raw)) {
    if (isScalar(value)) status[key] = typeof value === "string" ? heldPrefix(value, maxHeldTextChars) : value;
    else if (Array.isArray(value)) status[key] = emptyList;
    else if (isRecord(value)) status[key] = emptyRecord;
  }
  const kept = conditions(raw.conditions);
  if (kept) status.conditions = kept;
  return nonEmpty(status);
}

// Shared by every emptied field: an object or array per field would cost memory for nothing.
const emptyList: readonly unknown[] = Object.freeze([]);
const emptyRecord: Readonly<Json> = Object.freeze({});

function loadBalancerIngress(raw: unknown): { ip?: string; hostname?: string }[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const kept = raw.flatMap((entry) => {
    if (!isRecord(entry)) return [];
    const address = defined({ ip: str(entry.ip), hostname: str(entry.hostname) });
    return Object.keys(address).length > 0 ? [address] : [];
  });
  return exact(kept);
}

/** The labels or annotations a health check names (`metadata.labels['x']`), besides those every kind keeps. */
function namedKeys(kept: KeptFields | undefined, field: "labels" | "annotations"): (key: string) => boolean {
  const metadata = kept === true ? true : kept?.metadata;
  const named = metadata === true ? true : metadata?.[field];
  if (named === true) return () => true;
  return named === undefined ? () => false : (key) => Object.hasOwn(named, key);
}

function stripMeta(raw: unknown, kept?: KeptFields): ObjectMeta | undefined {
  if (!isRecord(raw) || typeof raw.name !== "string" || typeof raw.uid !== "string") return undefined;
  const namedLabel = namedKeys(kept, "labels");
  const namedAnnotation = namedKeys(kept, "annotations");
  return defined({
    name: raw.name,
    namespace: shared.string(str(raw.namespace)),
    uid: raw.uid,
    resourceVersion: str(raw.resourceVersion),
    generation: num(raw.generation),
    creationTimestamp: shared.string(str(raw.creationTimestamp)),
    deletionTimestamp: str(raw.deletionTimestamp),
    labels: sharedIfAny(entries(raw.labels, (key) => key.startsWith(keptLabelPrefix) || namedLabel(key))),
    annotations: sharedIfAny(entries(raw.annotations, (key) => keptAnnotations.includes(key) || namedAnnotation(key))),
    ownerReferences: sharedIfAny(ownerReferences(raw.ownerReferences)),
  });
}

function sharedIfAny<T extends object>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : shared.share(value);
}

function ownerReferences(raw: unknown): OwnerReference[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const kept: OwnerReference[] = [];
  for (const ref of raw) {
    if (!isRecord(ref) || typeof ref.uid !== "string" || typeof ref.kind !== "string") continue;
    kept.push(
      defined({
        apiVersion: str(ref.apiVersion) ?? "",
        kind: ref.kind,
        name: str(ref.name) ?? "",
        uid: ref.uid,
        controller: bool(ref.controller),
      }),
    );
  }
  return exact(kept);
}

/**
 * The pod conditions worth their memory: Ready, PodScheduled (Unschedulable and its message),
 * DisruptionTarget (why a pod is being evicted or preempted). Initialized, ContainersReady and
 * PodReadyToStartContainers only restate the container statuses, which are kept; a pod is the
 * object the cache holds by the ten thousand.
 */
const podConditionTypes: ReadonlySet<string> = new Set(["Ready", "PodScheduled", "DisruptionTarget"]);

function conditions(raw: unknown, types?: ReadonlySet<string>): Condition[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const kept: Condition[] = [];
  for (const condition of raw) {
    if (!isRecord(condition) || typeof condition.type !== "string" || typeof condition.status !== "string") continue;
    if (types && !types.has(condition.type)) continue;
    kept.push(
      defined({
        type: condition.type,
        status: condition.status,
        reason: reasonText(condition.reason),
        message: text(condition.message),
        observedGeneration: num(condition.observedGeneration),
        lastTransitionTime: condition.status === "True" ? undefined : text(condition.lastTransitionTime),
      }),
    );
  }
  return exact(kept);
}

function containerStatuses(raw: unknown): ContainerStatus[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const kept: ContainerStatus[] = [];
  for (const container of raw) {
    if (!isRecord(container) || typeof container.name !== "string") continue;
    kept.push(
      defined({
        name: container.name,
        ready: container.ready === true,
        // Kept for the verdict as evidence (readyImages.ts); empty until the image is pulled.
        imageID: container.imageID === "" ? undefined : str(container.imageID),
        restartCount: num(container.restartCount) ?? 0,
        started: bool(container.started),
        state: containerState(container.state),
        lastState: containerState(container.lastState),
      }),
    );
  }
  return exact(kept);
}

function containerState(raw: unknown): ContainerState | undefined {
  if (!isRecord(raw)) return undefined;
  const { waiting, running, terminated } = raw;
  return nonEmpty({
    waiting: isRecord(waiting) ? defined({ reason: reasonText(waiting.reason), message: text(waiting.message) }) : undefined,
    running: isRecord(running) ? emptyRecord : undefined,
    terminated: isRecord(terminated)
      ? defined({
          exitCode: num(terminated.exitCode) ?? 0,
          reason: reasonText(terminated.reason),
          message: text(terminated.message),
          finishedAt: str(terminated.finishedAt),
        })
      : undefined,
  });
}

function uids(raw: unknown): string[] | undefined {
  return Array.isArray(raw) ? exact(raw.filter((uid): uid is string => typeof uid === "string")) : undefined;
}

function names(raw: unknown): { name: string }[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const kept = raw.flatMap((container) => (isRecord(container) && typeof container.name === "string" ? [{ name: container.name }] : []));
  return exact(kept);
}

/** The pod's volumes that are claims, as `{persistentVolumeClaim: {claimName}}`: which claims' warnings are the pod's. */
function claimVolumes(raw: unknown): { persistentVolumeClaim: { claimName: string } }[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const kept = raw.flatMap((volume) => {
    const claimName = field(field(volume, "persistentVolumeClaim"), "claimName");
    return typeof claimName === "string" && claimName !== "" ? [{ persistentVolumeClaim: { claimName } }] : [];
  });
  return kept.length > 0 ? exact(kept) : undefined;
}

// Arrays grown by push keep spare capacity (16 slots and more, 128 bytes) that a cached object
// would carry for its whole life; a copy is exactly as long as its contents.
function exact<T>(items: T[]): T[] | undefined {
  return items.length > 0 ? items.slice() : undefined;
}

function entries(raw: unknown, keep: (key: string) => boolean): Record<string, string> | undefined {
  if (!isRecord(raw)) return undefined;
  let kept: Record<string, string> | undefined;
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value === "string" && keep(key)) (kept ??= {})[key] = value;
  }
  return kept;
}

function scalars(raw: unknown, fields: readonly string[]): Json {
  const kept: Json = {};
  if (!isRecord(raw)) return kept;
  for (const name of fields) {
    const value = raw[name];
    if (isScalar(value)) kept[name] = typeof value === "string" ? heldPrefix(value, maxHeldTextChars) : value;
  }
  return kept;
}

// Objects are built without their undefined fields: a stripped object's size is what it holds,
// and tests compare it with the API's own JSON, where absent fields are absent.
function defined<T extends object>(object: T): T {
  const kept: Json = {};
  for (const key in object) {
    const value = object[key];
    if (value !== undefined) kept[key] = value;
  }
  return kept as T;
}

function nonEmpty<T extends object>(object: T): T | undefined {
  const kept = defined(object);
  return Object.keys(kept).length > 0 ? kept : undefined;
}

function field(raw: unknown, name: string): unknown {
  return isRecord(raw) ? raw[name] : undefined;
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

const str = (value: unknown) => (typeof value === "string" ? value : undefined);
const text = (value: unknown) => (typeof value === "string" ? heldPrefix(value, maxHeldTextChars) : undefined);
const reasonText = (value: unknown) => (typeof value === "string" ? heldPrefix(value, maxHeldReasonChars) : undefined);
const num = (value: unknown) => (typeof value === "number" ? value : undefined);
const bool = (value: unknown) => (typeof value === "boolean" ? value : undefined);
