// The newest Warning event about each object, by the object's UID: what a verdict shows of the
// events, and all that is kept of them. Bounded twice, so a noisy cluster (a crash-looping
// DaemonSet on 500 nodes writes an event a second) cannot grow the service:
// - in age: a warning last seen longer ago than `maxAgeMs` is neither stored nor answered (the
//   API server itself drops events after its --event-ttl, one hour by default);
// - in objects: past `maxObjects` UIDs, the one written to least recently is forgotten first;
// - in bytes: past `maxBytes` (the strings kept, two bytes a character as V8 may hold them),
//   likewise. Messages are cut as they come off the watch (kube/warnings.ts), so one warning is
//   kilobytes, but 10,000 of them still need a byte bound of their own.
// Only the newest warning per object is kept, since only the newest is shown: an older event's
// update (its count going up while a newer reason stands) replaces it only if it is newer.
import type { ClusterWarning } from "../kube/warnings.js";

export interface WarningIndexLimits {
  maxObjects: number;
  maxAgeMs: number;
  maxBytes: number;
}

export const defaultWarningIndexLimits: WarningIndexLimits = { maxObjects: 10_000, maxAgeMs: 3_600_000, maxBytes: 16 * 1024 * 1024 };

/** What one warning holds, roughly: its strings at two bytes a character, and the entry around them. */
export function warningBytes(warning: ClusterWarning): number {
  const { involved } = warning;
  const chars = warning.message.length + warning.reason.length + involved.uid.length + involved.kind.length + involved.name.length + (involved.namespace?.length ?? 0) + (involved.apiVersion?.length ?? 0);
  return 2 * chars + 200;
}

export class WarningIndex {
  private readonly limits: WarningIndexLimits;
  /** In order of the last write: the first entry is the one to forget. */
  private readonly byUid = new Map<string, ClusterWarning>();
  private heldBytes = 0;

  constructor(limits: Partial<WarningIndexLimits> = {}) {
    this.limits = { ...defaultWarningIndexLimits, ...limits };
  }

  get size(): number {
    return this.byUid.size;
  }

  /** warningBytes of every warning kept. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Keeps `warning` if it is the newest about its object and young enough; says whether it did. */
  offer(warning: ClusterWarning, nowMs: number): boolean {
    if (this.tooOld(warning, nowMs)) return false;
    const { uid } = warning.involved;
    const current = this.byUid.get(uid);
    // Equal times are common (timestamps have whole seconds): the later arrival is the newer write.
    if (current && current.lastSeenMs > warning.lastSeenMs) return false;
    this.forget(uid);
    this.byUid.set(uid, warning);
    this.heldBytes += warningBytes(warning);
    while (this.byUid.size > this.limits.maxObjects || (this.heldBytes > this.limits.maxBytes && this.byUid.size > 1)) this.forget(this.byUid.keys().next().value!);
    return true;
  }

  /** The newest warning about the object, unless it has aged out. */
  newest(uid: string, nowMs: number): ClusterWarning | undefined {
    const warning = this.byUid.get(uid);
    if (warning && this.tooOld(warning, nowMs)) {
      this.forget(uid);
      return undefined;
    }
    return warning;
  }

  private forget(uid: string): void {
    const warning = this.byUid.get(uid);
    if (!warning) return;
    this.byUid.delete(uid);
    this.heldBytes -= warningBytes(warning);
  }

  private tooOld(warning: ClusterWarning, nowMs: number): boolean {
    return warning.lastSeenMs < nowMs - this.limits.maxAgeMs;
  }
}
