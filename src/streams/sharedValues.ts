// Parts of cached objects that are equal across objects, held once. JSON.parse gives every object
// its own copy of every string and structure, so 20,000 pods of 1,000 ReplicaSets hold 20,000
// copies of their namespace, 20,000 identical owner references and, for pods that run as they
// should, 20,000 identical statuses (`Running`, Ready and PodScheduled `True`, one ready container
// started once). Stripped parts are looked up by content here and the first copy is kept.
//
// Shared values are frozen: a consumer that changed one would change every object holding it,
// and the cache's objects are read-only by contract (rules are pure) anyway.
//
// The table is bounded, not weak: past `capacity` distinct values it starts afresh. What was
// shared stays shared (the objects hold it); only later copies miss it, until they fill the new
// table. So memory is at most `capacity` entries beyond what the objects hold, whatever churns.
export class SharedValues {
  private readonly capacity: number;
  private objects = new Map<string, object>();
  private strings = new Map<string, string>();

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** The value equal to `value` (same JSON) handed out before, or `value` itself, frozen, from now on shared. */
  share<T extends object>(value: T): T {
    const key = JSON.stringify(value);
    const known = this.objects.get(key);
    if (known !== undefined) return known as T;
    this.makeRoom();
    this.objects.set(key, deepFreeze(value));
    return value;
  }

  /** The equal string handed out before, or `value`. */
  string(value: string): string;
  string(value: string | undefined): string | undefined;
  string(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const known = this.strings.get(value);
    if (known !== undefined) return known;
    this.makeRoom();
    this.strings.set(value, value);
    return value;
  }

  private makeRoom(): void {
    if (this.objects.size + this.strings.size < this.capacity) return;
    this.objects = new Map();
    this.strings = new Map();
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const field of Object.values(value)) deepFreeze(field);
    Object.freeze(value);
  }
  return value;
}
