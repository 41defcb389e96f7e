// What the informer tests serve and record: realistic objects (the fixtures of src/streams/fixtures,
// full API objects as the API server writes them) under another identity, a list served from
// mutable state, and events written down as `type name@resourceVersion`.
import { readFileSync } from "node:fs";
import type { WatchEvent } from "../cache.js";
import type { KubeRequestError } from "../transport.js";
import { listBody, type ScriptedTransport } from "./scriptedTransport.js";

export const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), "utf8")) as Record<string, unknown>;

/** A full API object of the fixture's shape, under another identity. */
export function fixtureObject(template: Record<string, unknown>, namespace: string, name: string, resourceVersion: string, uid = `uid-${name}`) {
  const copy = structuredClone(template) as { metadata: Record<string, unknown> };
  Object.assign(copy.metadata, { namespace, name, uid, resourceVersion });
  return copy;
}

export const describeEvent = (event: WatchEvent) => `${event.type} ${event.object.metadata.name}@${event.object.metadata.resourceVersion}`;

/** Subscribes, and returns the events seen so far (described), growing as they come. */
export function recordEvents(events$: { subscribe(next: (event: WatchEvent) => void): unknown }): string[] {
  const seen: string[] = [];
  events$.subscribe((event) => seen.push(describeEvent(event)));
  return seen;
}

/** Serves `path` from a mutable list of objects at a mutable resourceVersion. */
export function serveList(transport: ScriptedTransport, path: string, initial: { items: unknown[]; resourceVersion: string }) {
  const state = { ...initial, failWith: undefined as KubeRequestError | undefined };
  transport.onGet(path, () => {
    if (state.failWith) throw state.failWith;
    return listBody(state.items, state.resourceVersion);
  });
  return state;
}
