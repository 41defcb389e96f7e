// Which observations wait on which object: the index that lets a watch event cost one map lookup
// unless some observation cares about it. Keys are identity keys (`apps/Deployment/payments/api`);
// owned pods and ReplicaSets arrive with a workload UID, which names the workload's key here.
import type { ResourceMapping } from "../../streams/index.js";

export interface DeclaredTarget {
  mapping: ResourceMapping;
  namespace: string | undefined;
  name: string;
}

export class RoutingTable {
  /** Identity key -> observations still waiting on that object (settled ones are dropped). */
  private readonly waiting = new Map<string, Set<string>>();
  /** Identity key -> where its object lives, while anyone waits on it. */
  private readonly targets = new Map<string, DeclaredTarget>();
  /** UID of a declared workload seen in the cluster -> its identity key. */
  private readonly workloadKeys = new Map<string, string>();

  wait(key: string, target: DeclaredTarget, observationId: string): void {
    this.targets.set(key, target);
    let observers = this.waiting.get(key);
    if (!observers) this.waiting.set(key, (observers = new Set()));
    observers.add(observationId);
  }

  stopWaiting(key: string, observationId: string): void {
    const observers = this.waiting.get(key);
    if (!observers) return;
    observers.delete(observationId);
    if (observers.size === 0) {
      this.waiting.delete(key);
      this.targets.delete(key);
    }
  }

  /** A copy: handling an event may change who waits. */
  observersOf(key: string): string[] | undefined {
    const observers = this.waiting.get(key);
    return observers ? [...observers] : undefined;
  }

  targetOf(key: string): DeclaredTarget | undefined {
    return this.targets.get(key);
  }

  /** A workload object came or went: its owned pods route to `key` while it exists. */
  noteWorkload(uid: string, key: string, exists: boolean): void {
    if (exists) this.workloadKeys.set(uid, key);
    else this.workloadKeys.delete(uid);
  }

  workloadKey(uid: string): string | undefined {
    return this.workloadKeys.get(uid);
  }
}
