// A keyed store with named secondary indexes, after client-go's tools/cache ThreadSafeStore:
// one key function names each object, and every index function maps an object to the index values
// it is filed under. Updates re-file the object under its new values and withdraw the old ones,
// so each add/update/delete costs O(number of index values), independent of the store's size.

/** Names an object uniquely within the store (client-go's KeyFunc). */
export type KeyFunc<T> = (obj: T) => string;
/** The values an object is filed under in one index; empty when it belongs nowhere. */
export type IndexFunc<T> = (obj: T) => readonly string[];

export class IndexedStore<T, IndexName extends string> {
  readonly #items = new Map<string, T>();
  readonly #indices = new Map<IndexName, Map<string, FiledKeys>>();
  readonly #keyOf: KeyFunc<T>;
  readonly #indexers: Readonly<Record<IndexName, IndexFunc<T>>>;

  constructor(keyOf: KeyFunc<T>, indexers: Readonly<Record<IndexName, IndexFunc<T>>>) {
    this.#keyOf = keyOf;
    this.#indexers = indexers;
    for (const name of Object.keys(indexers) as IndexName[]) this.#indices.set(name, new Map());
  }

  get size(): number {
    return this.#items.size;
  }

  /** Adds or replaces the object under its key; returns the one it replaced. */
  upsert(obj: T): T | undefined {
    const key = this.#keyOf(obj);
    const previous = this.#items.get(key);
    this.#items.set(key, obj);
    for (const [name, index] of this.#indices) {
      const indexer = this.#indexers[name];
      const values = indexer(obj);
      if (previous !== undefined) {
        const before = indexer(previous);
        // Almost every update (a pod's status moving) keeps UID and owner: no index to touch.
        if (sameValues(before, values)) continue;
        withdraw(index, key, before);
      }
      file(index, key, values);
    }
    return previous;
  }

  /**
   * Removes whatever is stored under the object's key and returns it. The stored copy, not the
   * argument, decides which index entries go: a delete notification may carry a stale last state.
   */
  delete(obj: T): T | undefined {
    const key = this.#keyOf(obj);
    const previous = this.#items.get(key);
    if (previous === undefined) return undefined;
    this.#unfile(key, previous);
    this.#items.delete(key);
    return previous;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  /** The objects filed under `value` in the named index. */
  byIndex(name: IndexName, value: string): T[] {
    const keys = this.#indices.get(name)?.get(value);
    if (keys === undefined) return [];
    if (typeof keys === "string") return [this.#items.get(keys) as T];
    return [...keys].map((key) => this.#items.get(key) as T);
  }

  #unfile(key: string, obj: T): void {
    for (const [name, index] of this.#indices) withdraw(index, key, this.#indexers[name](obj));
  }
}

/**
 * The keys filed under one index value: the key itself while there is one, a Set from the second
 * on. Most values name one object (a UID names one pod), and a Set per pod would cost more heap
 * than the stripped pod itself.
 */
type FiledKeys = string | Set<string>;

function file(index: Map<string, FiledKeys>, key: string, values: readonly string[]): void {
  for (const value of values) {
    const keys = index.get(value);
    if (keys === undefined) index.set(value, key);
    else if (typeof keys !== "string") keys.add(key);
    else if (keys !== key) index.set(value, new Set([keys, key]));
  }
}

function withdraw(index: Map<string, FiledKeys>, key: string, values: readonly string[]): void {
  for (const value of values) {
    const keys = index.get(value);
    // Emptied values are dropped so an index does not grow with every pod that ever existed.
    if (keys === key) index.delete(value);
    else if (typeof keys === "object") {
      keys.delete(key);
      if (keys.size === 0) index.delete(value);
    }
  }
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
