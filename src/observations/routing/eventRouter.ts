// Watch events to the observations they concern, by index, never by letting every observation
// filter every event: a declared object's identity key names the observations waiting on it
// (RoutingTable), and a pod or ReplicaSet reaches its workload through controller UIDs
// (OwnedObjectIndex). An event costs a map lookup unless some observation cares about it.
//
// - one subscription per kind for the whole engine, and one to Warning events; the informer
//   replays its cache on subscription, so an object that existed before the first observation is
//   still read;
// - likewise one subscription per kind to its refusals (RBAC), kept as the kind's current
//   problems and handed to `onRefused`: not one per observation, which cost ten thousand
//   observations three rxjs subscriptions each, and each one's end a scan of the informer's
//   subscriber array;
// - a key no observation waits on any more (its resource settled or failed) is never read again;
// - the router decides nothing: it hands the object, what it owns and the warnings about them to
//   `onRead`, and a deletion to `onDeleted`, with the observations concerned.
import type { Subscription } from "rxjs";
import { podOwningKinds, routedOwnedKinds } from "../../kube/kindFacts.js";
import type { KubeObject, Pod, ReplicaSet } from "../../kube/objects.js";
import { warningIsAbout, type ClusterWarning } from "../../kube/warnings.js";
import type { Logger } from "../../logging/index.js";
import { controllerOf } from "../../ownership/index.js";
import { readsTheSame, type Informer, type InformerProblem, type ResourceMapping, type WarningSource, type WatchEvent } from "../../streams/index.js";
import { groupKind, identityKey, objectIdentityKey, type OwnedObjects } from "../../verdicts/index.js";
import { guarded } from "../guarded.js";
import { OwnedObjectIndex } from "./ownedObjects.js";
import type { KindSource } from "../ports.js";
import { RoutingTable, type DeclaredTarget } from "./routingTable.js";

/** A declared object to read again, for the observations waiting on it. */
export interface ObjectToRead {
  readonly key: string;
  readonly object: KubeObject;
  /** What it owns, for kinds whose rule reads it (podOwningKinds). */
  readonly owned: OwnedObjects | undefined;
  /** The newest Warning event about the object, each ReplicaSet and pod it owns, and each claim those pods mount. */
  readonly warnings: readonly (ClusterWarning | undefined)[];
  /** cluster-autoscaler's newest word about each of its pods (the object itself, when a Pod). */
  readonly autoscalerWords: readonly (ClusterWarning | undefined)[];
  readonly observers: readonly string[];
  /** performance.now() of the watch event that brought it, for event_to_verdict_seconds. */
  readonly receivedAt: number | undefined;
}

export interface DeletedObject {
  readonly key: string;
  readonly uid: string;
  readonly observers: readonly string[];
  readonly receivedAt: number;
}

export interface EventRouterOptions {
  readonly kinds: KindSource;
  /** Warning events shown in readings; none when undefined. */
  readonly warnings: WarningSource | undefined;
  readonly logger: Logger;
  readonly onRead: (read: ObjectToRead) => void;
  readonly onDeleted: (deleted: DeletedObject) => void;
  /** A kind's refusals changed (and its current ones, when first subscribed): for every observation reading through it. */
  readonly onRefused: (mapping: ResourceMapping, problems: readonly InformerProblem[]) => void;
}

export class EventRouter {
  private readonly options: EventRouterOptions;
  private readonly routes = new RoutingTable();
  private readonly owned = new OwnedObjectIndex();
  private readonly subscriptions = new Map<string, Subscription>();
  /** Each subscribed kind's refusals as its informer last told them. */
  private readonly problems = new Map<string, readonly InformerProblem[]>();

  constructor(options: EventRouterOptions) {
    this.options = options;
  }

  /** `observationId` waits on the object of `key` until stopWaiting. */
  wait(key: string, target: DeclaredTarget, observationId: string): void {
    this.routes.wait(key, target, observationId);
  }

  stopWaiting(key: string, observationId: string): void {
    this.routes.stopWaiting(key, observationId);
  }

  /** The informers of `mappings`, each subscribed to once for the whole engine. */
  subscribe(mappings: readonly ResourceMapping[]): Informer[] {
    const subscribed: Informer[] = [];
    const informers = mappings.map((mapping) => {
      const informer = this.options.kinds.informer(mapping);
      if (!this.subscriptions.has(mapping.kindKey)) {
        this.subscriptions.set(mapping.kindKey, informer.events$.subscribe((event) => this.route(event)));
        subscribed.push(informer);
      }
      return informer;
    });
    // Refusals after every kind's objects: what the caches hold is read before a refusal fails
    // what is still pending (a Deployment whose pods are refused fails at healthy, not at applied).
    for (const { mapping, problems$ } of subscribed) {
      this.subscriptions.get(mapping.kindKey)!.add(
        problems$.subscribe((problems) => {
          this.problems.set(mapping.kindKey, problems);
          guarded(this.options.logger, { kind: mapping.kindKey }, () => this.options.onRefused(mapping, problems));
        }),
      );
    }
    return informers;
  }

  /** The refusals of a subscribed kind as they stand (none for a kind not subscribed). */
  problemsOf(kindKey: string): readonly InformerProblem[] {
    return this.problems.get(kindKey) ?? [];
  }

  /** Reads the objects of `keys` from the caches for one observation (its informers just listed). */
  readCached(keys: Iterable<string>, observationId: string): void {
    for (const key of keys) {
      const object = this.objectOf(key);
      if (object) this.read(key, object, [observationId], undefined);
    }
  }

  stop(): void {
    for (const subscription of this.subscriptions.values()) subscription.unsubscribe();
    this.subscriptions.clear();
    this.problems.clear();
  }

  /** The one subscription to Warning events, made with the first observation. */
  followWarnings(): void {
    const { warnings } = this.options;
    if (!warnings || this.subscriptions.has("core/Event")) return;
    const subscription = warnings.warnings$.subscribe((warning) =>
      guarded(this.options.logger, { kind: "core/Event", reason: warning.reason }, () => this.routeWarning(warning, performance.now())),
    );
    this.subscriptions.set("core/Event", subscription);
  }

  private route(event: WatchEvent): void {
    const receivedAt = performance.now();
    guarded(this.options.logger, { kind: event.object.kind, type: event.type }, () => {
      if (routedOwnedKinds.has(groupKind(event.object.apiVersion, event.object.kind))) this.routeToOwner(event, receivedAt);
      this.routeDeclared(event, receivedAt);
    });
  }

  /**
   * A warning reaches the observations reading its object: a pod or ReplicaSet through the
   * workload it answers to (by UID, as its watch events are), a declared object by the identity
   * the event's involvedObject names. That object is then read again, the warning with it, only
   * when the warning names the whole identity (warningIsAbout): a UID is no proof of the object.
   */
  private routeWarning(warning: ClusterWarning, receivedAt: number): void {
    const { uid, apiVersion, kind, namespace, name } = warning.involved;
    if (kind === "PersistentVolumeClaim" && namespace !== undefined) {
      const workloads = new Set([...this.owned.podsMounting(namespace, name)].map((pod) => this.owned.workloadUidOf(pod)));
      for (const workloadUid of workloads) this.readWorkload(workloadUid, receivedAt);
    }
    const owned = this.owned.byUid(kind, uid);
    if (owned && warningIsAbout(warning, owned)) this.readWorkload(this.owned.workloadUidOf(owned), receivedAt);
    // A bare ReplicaSet or pod may be declared itself as well as indexed.
    if (apiVersion === undefined) return;
    const key = identityKey({ apiVersion, kind, namespace, name });
    const observers = this.routes.observersOf(key);
    const object = observers && this.objectOf(key);
    if (observers && object?.metadata.uid === uid) this.read(key, object, observers, receivedAt);
  }

  private routeDeclared({ type, object }: WatchEvent, receivedAt: number): void {
    const key = objectIdentityKey(object);
    // A ReplicaSet is a workload of its own only when bare: a Deployment's are reached through it.
    if (podOwningKinds.has(groupKind(object.apiVersion, object.kind)) && !(object.kind === "ReplicaSet" && controllerOf(object))) {
      this.routes.noteWorkload(object.metadata.uid, key, type !== "deleted");
    }
    const observers = this.routes.observersOf(key);
    if (!observers) return;
    if (type === "deleted") this.options.onDeleted({ key, uid: object.metadata.uid, observers, receivedAt });
    else this.read(key, object, observers, receivedAt);
  }

  private routeToOwner({ type, object }: WatchEvent, receivedAt: number): void {
    // The owner is looked up before a deleted ReplicaSet leaves the index.
    const workloadUid = this.owned.workloadUidOf(object);
    const previous = type === "modified" ? this.owned.byUid(object.kind, object.metadata.uid) : undefined;
    if (object.kind === "Pod") this.owned.applyPod(type, object as Pod);
    else this.owned.applyReplicaSet(type, object as ReplicaSet);
    // Re-sent as it was to the rules (a relist after a gap, a status write of fields the strip
    // drops): no reading can change, so the workload is not judged again.
    if (previous !== undefined && readsTheSame(previous, object)) return;
    this.readWorkload(workloadUid, receivedAt);
  }

  /** The workload an owned object answers to is read again for whoever waits on it. */
  private readWorkload(workloadUid: string | undefined, receivedAt: number): void {
    if (workloadUid === undefined) return;
    const key = this.routes.workloadKey(workloadUid);
    const observers = key === undefined ? undefined : this.routes.observersOf(key);
    if (key === undefined || !observers) return;
    const workload = this.objectOf(key);
    if (workload?.metadata.uid === workloadUid) this.read(key, workload, observers, receivedAt);
  }

  private read(key: string, object: KubeObject, observers: readonly string[], receivedAt: number | undefined): void {
    const owned = podOwningKinds.has(groupKind(object.apiVersion, object.kind)) ? this.owned.ownedBy(object) : undefined;
    this.options.onRead({ key, object, owned, ...this.warningsAbout(object, owned), observers, receivedAt });
  }

  private warningsAbout(object: KubeObject, owned: OwnedObjects | undefined): Pick<ObjectToRead, "warnings" | "autoscalerWords"> {
    const { warnings: source } = this.options;
    if (!source) return { warnings: [], autoscalerWords: [] };
    const warnings = [source.newest(object)];
    for (const child of owned?.replicaSets ?? []) warnings.push(source.newest(child));
    const pods = owned?.pods ?? (object.kind === "Pod" ? [object as Pod] : []);
    const claims = new Set<string>();
    const autoscalerWords: (ClusterWarning | undefined)[] = [];
    for (const pod of pods) {
      warnings.push(source.newest(pod));
      autoscalerWords.push(source.newestAutoscalerWord(pod));
      for (const { persistentVolumeClaim: claim } of pod.spec?.volumes ?? []) if (claim) claims.add(claim.claimName);
    }
    const namespace = object.metadata.namespace;
    if (namespace !== undefined) for (const claim of claims) warnings.push(source.newestNamed("PersistentVolumeClaim", namespace, claim));
    return { warnings, autoscalerWords };
  }

  private objectOf(key: string): KubeObject | undefined {
    const target = this.routes.targetOf(key);
    if (!target) return undefined;
    return this.options.kinds.informer(target.mapping).get(target.namespace, target.name);
  }
}
