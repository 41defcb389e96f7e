// The objects of one kind, keyed by namespace and name, and the events their changes produce.
// Events describe the cache, not the wire: `added` is the first time the cache holds a key,
// whatever the server called the event, so a watch resumed after a gap, or a relist replaying
// what was already seen, comes out as `modified` (or nothing, when the resourceVersion did not
// move) instead of a second `added`.
import type { KubeObject } from "../kube/objects.js";

export const watchEventTypes = ["added", "modified", "deleted"] as const;
export type WatchEventType = (typeof watchEventTypes)[number];

/** One change of one object; for `deleted`, the object as last known (the server's final state when it sent one). */
export type WatchEvent =
  | { type: "added"; object: KubeObject }
  | { type: "modified"; object: KubeObject }
  | { type: "deleted"; object: KubeObject };

/** Cluster-scoped objects live under the empty namespace. */
const clusterScope = "";
/** The step of an object a relist finds unchanged, shared: most steps of a relist are these. */
const noEvents: readonly WatchEvent[] = Object.freeze([]);

export class ObjectCache {
  private readonly namespaces = new Map<string, Map<string, KubeObject>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.namespaces.get(namespace ?? clusterScope)?.get(name);
  }

  /** Every object, or those of one namespace. */
  list(namespace?: string): KubeObject[] {
    if (namespace !== undefined) return [...(this.namespaces.get(namespace)?.values() ?? [])];
    const all: KubeObject[] = [];
    // Not push(...values): spreading passes every object as an argument, and past about 125,000
    // objects of one kind in a namespace that overflows the stack (scale-curve's 200,000 pods).
    for (const objects of this.namespaces.values()) for (const object of objects.values()) all.push(object);
    return all;
  }

  upsert(object: KubeObject): WatchEvent[] {
    const { namespace, name } = object.metadata;
    const previous = this.get(namespace, name);
    this.put(object);
    if (!previous) return [{ type: "added", object }];
    // Same name, new UID: the object was deleted and created again while we were not looking
    // (a relist after a gap). Say so, rather than passing a stranger off as an update.
    if (previous.metadata.uid !== object.metadata.uid) {
      return [
        { type: "deleted", object: previous },
        { type: "added", object },
      ];
    }
    return [{ type: "modified", object }];
  }

  /** `object` is the final state the server sent; nothing is emitted for a key the cache never held. */
  remove(object: KubeObject): WatchEvent[] {
    const { namespace, name } = object.metadata;
    const objects = this.namespaces.get(namespace ?? clusterScope);
    if (!objects?.delete(name)) return [];
    this.count -= 1;
    if (objects.size === 0) this.namespaces.delete(namespace ?? clusterScope);
    return [{ type: "deleted", object }];
  }

  /**
   * The cache after a (re)list, one object at a time: `objects` is the whole truth for
   * `namespace` (for the whole cache when undefined). Objects unchanged since the last look (same
   * uid and resourceVersion) produce no event; objects the list no longer has were deleted during
   * the gap. Each step applies one listed object (in list order), then, once every listed object
   * is in, looks at one cached object and removes it if the list no longer has it (in cache
   * order), and yields the events of that step: none for an unchanged object, which is still a step (a relist of 200,000
   * unchanged pods must be sliced too). Nothing else may change the cache until the steps are
   * done: the deletions are judged against the cache as the listed objects left it.
   */
  *replaceSteps(objects: readonly KubeObject[], namespace?: string): Generator<readonly WatchEvent[], void, undefined> {
    const listed = new Set<string>();
    // A first list finds nothing stale: only what it put in.
    const heldBefore = namespace === undefined ? this.count > 0 : this.namespaces.has(namespace);
    for (const object of objects) {
      listed.add(keyOf(object));
      const previous = this.get(object.metadata.namespace, object.metadata.name);
      const unchanged =
        previous?.metadata.uid === object.metadata.uid && previous.metadata.resourceVersion === object.metadata.resourceVersion;
      yield unchanged ? noEvents : this.upsert(object);
    }
    // A step per object looked at, kept or not: at the end of a relist of 200,000 pods, looking
    // at all of them in one step held the loop for a quarter of a second.
    if (!heldBefore) return;
    for (const stale of namespace === undefined ? this.list() : this.list(namespace)) {
      yield listed.has(keyOf(stale)) ? noEvents : this.remove(stale);
    }
  }

  private put(object: KubeObject): void {
    const scope = object.metadata.namespace ?? clusterScope;
    let objects = this.namespaces.get(scope);
    if (!objects) {
      objects = new Map();
      this.namespaces.set(scope, objects);
    }
    if (!objects.has(object.metadata.name)) this.count += 1;
    objects.set(object.metadata.name, object);
  }
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? clusterScope}/${object.metadata.name}`;
}
