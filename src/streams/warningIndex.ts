// The newest Warning event about each object, by the object's UID: what a verdict shows of the
// events, and all that is kept of them. Bounded twice, so a noisy cluster (a crash-looping
// DaemonSet on 500 nodes writes an event a second) cannot grow the service:
// - in age: a warning last seen longer ago than `maxAgeMs` is neither stored nor answered (the
//   API server itself drops events after its --event-ttl, one hour by default);
// - in objects: past `maxObjects` UIDs, the one written to least recently is forgotten first.
// Only the newest warning per object is kept, since only the newest is shown: an older event's
// update (its count going up while a newer reason stands) replaces it only if it is newer.
import type { ClusterWarning } from "../kube/warnings.js";

export interface WarningIndexLimits {
  maxObjects: number;
  maxAgeMs: number;
}

export const defaultWarningIndexLimits: WarningIndexLimits = { maxObjects: 10_000, maxAgeMs: 3_600_000 };

export class WarningIndex {
  private readonly limits: WarningIndexLimits;
  /** In order of the last write: the first entry is the one to forget. */
  private readonly byUid = new Map<string, ClusterWarning>();

  constructor(limits: Partial<WarningIndexLimits> = {}) {
    this.limits = { ...defaultWarningIndexLimits, ...limits };
  }

  get size(): number {
    return this.byUid.size;
  }

  /** Keeps `warning` if it is the newest about its object and young enough; says whether it did. */
  offer(warning: ClusterWarning, nowMs: number): boolean {
    if (this.tooOld(warning, nowMs)) return false;
    const { uid } = warning.involved;
    const current = this.byUid.get(uid);
    // Equal times are common (timestamps have whole seconds): the later arrival is the newer write.
    if (current && current.lastSeenMs > warning.lastSeenMs) return false;
    this.byUid.delete(uid);
    this.byUid.set(uid, warning);
    if (this.byUid.size > this.limits.maxObjects) this.byUid.delete(this.byUid.keys().next().value!);
    return true;
  }

  /** The newest warning about the object, unless it has aged out. */
  newest(uid: string, nowMs: number): ClusterWarning | undefined {
    const warning = this.byUid.get(uid);
    if (warning && this.tooOld(warning, nowMs)) {
      this.byUid.delete(uid);
      return undefined;
    }
    return warning;
  }

  private tooOld(warning: ClusterWarning, nowMs: number): boolean {
    return warning.lastSeenMs < nowMs - this.limits.maxAgeMs;
  }
}
