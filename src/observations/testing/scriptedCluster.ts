// The collections of an API server, served over a ScriptedTransport the way kube-apiserver serves
// them: a list answers with the objects stored and the current resourceVersion; a change made while
// an informer watches goes out on its watch as an ADDED, MODIFIED or DELETED line carrying the new
// resourceVersion. Objects are the full API JSON of test/fixtures; stripping is the informer's job.
import { kindKey } from "../../kube/kinds.js";
import type { KubeObject } from "../../kube/objects.js";
import { builtinMappings, collectionPath, KubeRequestError, splitApiVersion, type ResourceMapping } from "../../streams/index.js";
import { listBody, type ScriptedTransport } from "../../streams/testing/index.js";

export interface DiscoveredKind {
  readonly name: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export class ScriptedCluster {
  readonly transport: ScriptedTransport;
  private readonly namespaces: readonly string[] | undefined;
  private readonly mappings = new Map<string, ResourceMapping>();
  /** By cluster-wide collection path, then namespace/name. */
  private readonly stored = new Map<string, Map<string, KubeObject>>();
  private revision = 48_000;

  /** `namespaces`: the collections an informer restricted to these namespaces lists and watches. */
  constructor(transport: ScriptedTransport, namespaces?: readonly string[]) {
    this.transport = transport;
    this.namespaces = namespaces;
    for (const mapping of builtinMappings) this.serve(mapping);
  }

  /** A custom kind, as installing its CRD makes it: in discovery, and its collection served. */
  customKind(apiVersion: string, kind: DiscoveredKind): this {
    const { group, version } = splitApiVersion(apiVersion);
    this.discovery(apiVersion, [kind]);
    const { name: resource, namespaced } = kind;
    return this.serve({ apiVersion, group, version, kind: kind.kind, resource, namespaced, kindKey: kindKey(group, kind.kind) });
  }

  /** Serves a kind's collection, cluster-wide and in each namespace given to the constructor. */
  serve(mapping: ResourceMapping): this {
    this.mappings.set(`${mapping.apiVersion}|${mapping.kind}`, mapping);
    const all = collectionPath(mapping);
    if (!this.stored.has(all)) this.stored.set(all, new Map());
    this.transport.onGet(all, (request) => listBody(this.list(all, undefined, request.query?.fieldSelector), String(this.revision)));
    if (mapping.namespaced) {
      for (const namespace of this.namespaces ?? []) {
        this.transport.onGet(collectionPath(mapping, namespace), (request) => listBody(this.list(all, namespace, request.query?.fieldSelector), String(this.revision)));
      }
    }
    return this;
  }

  /** Answers `GET /apis/<groupVersion>` (or `/api/v1`) with an APIResourceList. */
  discovery(groupVersion: string, kinds: readonly DiscoveredKind[]): this {
    this.transport.onGet(discoveryPath(groupVersion), () => ({
      kind: "APIResourceList",
      apiVersion: "v1",
      groupVersion,
      resources: kinds.flatMap(({ name, kind, namespaced }) => [
        { name, singularName: kind.toLowerCase(), namespaced, kind, verbs: ["create", "delete", "get", "list", "patch", "update", "watch"] },
        { name: `${name}/status`, singularName: "", namespaced, kind, verbs: ["get", "patch", "update"] },
      ]),
    }));
    return this;
  }

  /** Discovery of `groupVersion` fails as an overloaded or unreachable API server does. */
  failDiscovery(groupVersion: string, status = 503, reason = "ServiceUnavailable"): this {
    const path = discoveryPath(groupVersion);
    this.transport.onGet(path, () => {
      throw new KubeRequestError(`GET ${path}: ${status} ${reason}`, { status, reason });
    });
    return this;
  }

  /** Creates or updates the object; returns it as stored, with its new resourceVersion. */
  put(object: KubeObject): KubeObject {
    const { collection, key } = this.locate(object);
    const existed = collection.has(key);
    const stored = this.stamp(object);
    collection.set(key, stored);
    this.send(existed ? "MODIFIED" : "ADDED", stored);
    return stored;
  }

  /** Deletes the object; the watch carries its final state, as the API server sends it. */
  delete(object: KubeObject): void {
    const { collection, key } = this.locate(object);
    const last = collection.get(key);
    if (!last) throw new Error(`${object.kind} ${key} is not in the cluster`);
    collection.delete(key);
    this.send("DELETED", this.stamp(last));
  }

  private locate(object: KubeObject): { collection: Map<string, KubeObject>; key: string } {
    const collection = this.stored.get(collectionPath(this.mappingOf(object)));
    if (!collection) throw new Error(`${object.apiVersion} ${object.kind} is not served`);
    return { collection, key: `${object.metadata.namespace ?? ""}/${object.metadata.name}` };
  }

  private mappingOf(object: KubeObject): ResourceMapping {
    const mapping = this.mappings.get(`${object.apiVersion}|${object.kind}`);
    if (!mapping) throw new Error(`${object.apiVersion} ${object.kind} is not served`);
    return mapping;
  }

  private stamp(object: KubeObject): KubeObject {
    this.revision += 1;
    const copy = structuredClone(object);
    copy.metadata.resourceVersion = String(this.revision);
    return copy;
  }

  private list(path: string, namespace: string | undefined, fieldSelector: unknown): KubeObject[] {
    return [...(this.stored.get(path)?.values() ?? [])].filter((object) => (namespace === undefined || object.metadata.namespace === namespace) && selects(fieldSelector, object));
  }

  private send(type: "ADDED" | "MODIFIED" | "DELETED", object: KubeObject): void {
    const mapping = this.mappingOf(object);
    const paths = [collectionPath(mapping)];
    if (mapping.namespaced && object.metadata.namespace !== undefined) paths.push(collectionPath(mapping, object.metadata.namespace));
    for (const path of paths) {
      for (const watch of this.transport.openWatches(path)) if (selects(watch.request.query?.fieldSelector, object)) watch.send(type, structuredClone(object));
    }
  }
}

/**
 * Whether `field=value,...` selects the object, for the fields the API server selects Events by
 * (`type`, `reason`, and `source`: source.component, else reportingComponent); any other selector
 * selects everything.
 */
function selects(fieldSelector: unknown, object: KubeObject): boolean {
  if (typeof fieldSelector !== "string" || fieldSelector === "" || object.kind !== "Event") return true;
  const event = object as KubeObject & { type?: string; reason?: string; source?: { component?: string }; reportingComponent?: string };
  const fields: Record<string, string | undefined> = { type: event.type, reason: event.reason, source: event.source?.component || event.reportingComponent };
  return fieldSelector.split(",").every((term) => {
    const [field = "", value] = term.split("=");
    return !(field in fields) || fields[field] === value;
  });
}

/** `/api/v1` for the core group, `/apis/<group>/<version>` for the others. */
function discoveryPath(groupVersion: string): string {
  return groupVersion.includes("/") ? `/apis/${groupVersion}` : `/api/${groupVersion}`;
}
