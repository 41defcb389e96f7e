// The newest Warning event about each object, by the object's whole identity (UID, kind, namespace,
// name: kube/warnings.ts says why a UID alone is no evidence): what a verdict shows of the events,
// and all that is kept of them. Bounded, so a noisy cluster (a crash-looping DaemonSet on 500
// nodes writes an event a second) cannot grow the service:
// - in age: a warning last seen longer ago than `maxAgeMs` is neither stored nor answered (the
//   API server itself drops events after its --event-ttl, one hour by default);
// - in objects: past `maxObjects` objects, the one written to least recently is forgotten first;
// - per namespace the events are written in: past `maxObjectsPerNamespace`, that namespace's own
//   least recently written is forgotten, so whoever floods Events in one namespace evicts only
//   warnings written there, never the evidence about another team's objects;
// - in bytes: past `maxBytes` (the strings kept, two bytes a character as V8 may hold them),
//   likewise. Messages are cut as they come off the watch (kube/warnings.ts), so one warning is
//   kilobytes, but 10,000 of them still need a byte bound of their own.
// Only the newest warning per object is kept, since only the newest is shown: an older event's
// update (its count going up while a newer reason stands) replaces it only if it is newer.
//
// An object known by name only (the claim a pod mounts: its spec names the claim, not its UID) is
// found by kind, namespace and name: the newest warning written about an object of that name.
// That is evidence only because the decoder kept just events written in the object's own
// namespace (kube/warnings.ts eventNamespaceFits); a claim deleted and created again under its
// name may show its predecessor's warning until a new one is written.
import { warnedObjectKey, type ClusterWarning, type InvolvedObject, type WarnedObject } from "../kube/warnings.js";

export interface WarningIndexLimits {
  maxObjects: number;
  /** Objects kept per namespace the Events are written in (a tenant's share of maxObjects). */
  maxObjectsPerNamespace: number;
  maxAgeMs: number;
  maxBytes: number;
}

export const defaultWarningIndexLimits: WarningIndexLimits = {
  maxObjects: 10_000,
  maxObjectsPerNamespace: 1_000,
  maxAgeMs: 3_600_000,
  maxBytes: 16 * 1024 * 1024,
};

/** What one warning holds, roughly: its strings at two bytes a character, and the entry around them. */
export function warningBytes(warning: ClusterWarning): number {
  const { involved } = warning;
  const chars =
    warning.message.length +
    warning.reason.length +
    warning.eventNamespace.length +
    involved.uid.length +
    involved.kind.length +
    involved.name.length +
    (involved.namespace?.length ?? 0) +
    (involved.apiVersion?.length ?? 0);
  return 2 * chars + 200;
}

export class WarningIndex {
  private readonly limits: WarningIndexLimits;
  /** By warnedObjectKey, in order of the last write: the first entry is the one to forget. */
  private readonly byObject = new Map<string, ClusterWarning>();
  /** The keys of byObject by the namespace their events are written in, in the same order. */
  private readonly byEventNamespace = new Map<string, Set<string>>();
  /** The byObject key last written about each kind, namespace and name. */
  private readonly byName = new Map<string, string>();
  private heldBytes = 0;

  constructor(limits: Partial<WarningIndexLimits> = {}) {
    this.limits = { ...defaultWarningIndexLimits, ...limits };
  }

  get size(): number {
    return this.byObject.size;
  }

  /** warningBytes of every warning kept. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Keeps `warning` if it is the newest about its object and young enough; says whether it did. */
  offer(warning: ClusterWarning, nowMs: number): boolean {
    if (this.tooOld(warning, nowMs)) return false;
    const key = warnedObjectKey(warning.involved);
    const current = this.byObject.get(key);
    // Equal times are common (timestamps have whole seconds): the later arrival is the newer write.
    if (current && current.lastSeenMs > warning.lastSeenMs) return false;
    this.forget(key);
    this.byObject.set(key, warning);
    this.byName.set(nameKey(warning.involved), key);
    const written = this.byEventNamespace.get(warning.eventNamespace) ?? new Set<string>();
    this.byEventNamespace.set(warning.eventNamespace, written.add(key));
    this.heldBytes += warningBytes(warning);
    while (written.size > this.limits.maxObjectsPerNamespace) this.forget(written.values().next().value!);
    while (this.byObject.size > this.limits.maxObjects || (this.heldBytes > this.limits.maxBytes && this.byObject.size > 1)) this.forget(this.byObject.keys().next().value!);
    return true;
  }

  /** The newest warning about the object, unless it has aged out. */
  newest(object: WarnedObject, nowMs: number): ClusterWarning | undefined {
    const key = warnedObjectKey(object);
    const warning = this.byObject.get(key);
    if (warning && this.tooOld(warning, nowMs)) {
      this.forget(key);
      return undefined;
    }
    return warning;
  }

  /** The newest warning about an object of this kind, namespace and name, whatever its UID, unless it has aged out. */
  newestNamed(kind: string, namespace: string, name: string, nowMs: number): ClusterWarning | undefined {
    const key = this.byName.get(nameKey({ kind, namespace, name }));
    if (key === undefined) return undefined;
    const warning = this.byObject.get(key)!;
    if (!this.tooOld(warning, nowMs)) return warning;
    this.forget(key);
    return undefined;
  }

  private forget(key: string): void {
    const warning = this.byObject.get(key);
    if (!warning) return;
    this.byObject.delete(key);
    const named = nameKey(warning.involved);
    if (this.byName.get(named) === key) this.byName.delete(named);
    const written = this.byEventNamespace.get(warning.eventNamespace)!;
    written.delete(key);
    if (written.size === 0) this.byEventNamespace.delete(warning.eventNamespace);
    this.heldBytes -= warningBytes(warning);
  }

  private tooOld(warning: ClusterWarning, nowMs: number): boolean {
    return warning.lastSeenMs < nowMs - this.limits.maxAgeMs;
  }
}

function nameKey({ kind, namespace, name }: Pick<InvolvedObject, "kind" | "namespace" | "name">): string {
  return `${kind}/${namespace ?? ""}/${name}`;
}
