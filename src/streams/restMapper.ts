// apiVersion + kind -> the resource to list and watch, through the API server's discovery.
//
// Discovery is read one group version at a time (`/api/v1`, `/apis/<group>/<version>`), because
// a request names its apiVersion: there is nothing to guess. Answers are cached; a miss fetches
// that group version again, so a CRD installed after start-up becomes observable the first time
// a request names it. Positive answers are kept for the life of the process: a kind's plural and
// scope do not change while its CRD exists.
import { firstValueFrom } from "rxjs";
import { clusterScopedKinds } from "../kube/kindFacts.js";
import { kindKey } from "../kube/kinds.js";
import { KubeRequestError, type KubeTransport } from "./transport.js";

export interface ResourceMapping {
  /** As requests write it: `v1`, `apps/v1`, `example.com/v1alpha1`. */
  apiVersion: string;
  /** Empty for the core group. */
  group: string;
  version: string;
  kind: string;
  /** The plural resource name used in paths: `deployments`. */
  resource: string;
  namespaced: boolean;
  /** The kind key (`apps/Deployment`, `core/Pod`; see src/kube/kinds.ts): one informer per key. */
  kindKey: string;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The collection path of a mapping, cluster-wide or in one namespace. */
export function collectionPath(mapping: ResourceMapping, namespace?: string): string {
  const root = mapping.group === "" ? `/api/${mapping.version}` : `/apis/${mapping.group}/${mapping.version}`;
  const scope = mapping.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${root}${scope}/${mapping.resource}`;
}

/** The kind does not exist in the cluster (after a fresh look at discovery), or cannot be watched. */
export class UnknownKindError extends Error {
  override readonly name = "UnknownKindError";
  /** The kind as asked for: `Widget`, or a kind key (`example.com/Widget`) when no apiVersion was given. */
  readonly kind: string;
  readonly apiVersion: string | undefined;

  constructor(kind: string, apiVersion: string | undefined, detail: string) {
    super(`${apiVersion ? `${kind} (${apiVersion})` : kind}: ${detail}`);
    this.kind = kind;
    this.apiVersion = apiVersion;
  }
}

/** Discovery itself failed (network, authorization, server error): says nothing about the kind. */
export class DiscoveryError extends Error {
  override readonly name = "DiscoveryError";
  constructor(groupVersion: string, options: { cause: unknown }) {
    super(`discovery of ${groupVersion} failed`, options);
  }
}

/**
 * Kinds whose plural and scope Kubernetes fixes forever (GA APIs): known without asking, so
 * `informer("core/Pod")` works before any discovery round trip.
 */
export const builtinMappings: readonly ResourceMapping[] = [
  mapping("v1", "Pod", "pods"),
  mapping("v1", "ConfigMap", "configmaps"),
  mapping("v1", "Secret", "secrets"),
  mapping("v1", "Service", "services"),
  mapping("v1", "ServiceAccount", "serviceaccounts"),
  mapping("v1", "PersistentVolumeClaim", "persistentvolumeclaims"),
  mapping("v1", "Namespace", "namespaces"),
  mapping("v1", "Event", "events"),
  mapping("apps/v1", "Deployment", "deployments"),
  mapping("apps/v1", "ReplicaSet", "replicasets"),
  mapping("apps/v1", "StatefulSet", "statefulsets"),
  mapping("apps/v1", "DaemonSet", "daemonsets"),
  mapping("batch/v1", "Job", "jobs"),
  mapping("batch/v1", "CronJob", "cronjobs"),
];

function mapping(apiVersion: string, kind: string, resource: string): ResourceMapping {
  const { group, version } = splitApiVersion(apiVersion);
  const key = kindKey(group, kind);
  return { apiVersion, group, version, kind, resource, namespaced: !clusterScopedKinds.has(key), kindKey: key };
}

interface DiscoveredResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
}

export class RestMapper {
  private readonly byApiVersionKind = new Map<string, ResourceMapping>();
  private readonly byKindKey = new Map<string, ResourceMapping>();
  /** Discovery reads in flight, per group version: concurrent misses share one request. */
  private readonly inFlight = new Map<string, Promise<void>>();

  private readonly transport: KubeTransport;

  constructor(transport: KubeTransport, seed: readonly ResourceMapping[] = builtinMappings) {
    this.transport = transport;
    for (const known of seed) this.remember(known);
  }

  /** The mapping last resolved for a kind key, without asking the API server. */
  cached(key: string): ResourceMapping | undefined {
    return this.byKindKey.get(key);
  }

  async resolve(apiVersion: string, kind: string): Promise<ResourceMapping> {
    const known = this.byApiVersionKind.get(`${apiVersion}|${kind}`);
    if (known) return known;
    await this.refresh(apiVersion);
    const found = this.byApiVersionKind.get(`${apiVersion}|${kind}`);
    if (found) return found;
    throw new UnknownKindError(kind, apiVersion, `the API server serves no kind of that name in ${apiVersion} that can be listed and watched`);
  }

  private refresh(apiVersion: string): Promise<void> {
    let pending = this.inFlight.get(apiVersion);
    if (!pending) {
      pending = this.discover(apiVersion).finally(() => this.inFlight.delete(apiVersion));
      this.inFlight.set(apiVersion, pending);
    }
    return pending;
  }

  private async discover(apiVersion: string): Promise<void> {
    const { group, version } = splitApiVersion(apiVersion);
    const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    let body: unknown;
    try {
      body = await firstValueFrom(this.transport.getJson({ path }));
    } catch (error) {
      // The group version itself is not served: every kind in it is unknown.
      if (error instanceof KubeRequestError && error.status === 404) return;
      throw new DiscoveryError(apiVersion, { cause: error });
    }
    for (const resource of discoveredResources(body)) {
      // Subresources (deployments/status, pods/log) share their parent's kind; only the
      // collection itself can be listed, and only what can be listed and watched is observable.
      if (resource.name.includes("/")) continue;
      if (resource.verbs && !(resource.verbs.includes("list") && resource.verbs.includes("watch"))) continue;
      this.remember({
        apiVersion,
        group,
        version,
        kind: resource.kind,
        resource: resource.name,
        namespaced: resource.namespaced,
        kindKey: kindKey(group, resource.kind),
      });
    }
  }

  private remember(found: ResourceMapping): void {
    this.byApiVersionKind.set(`${found.apiVersion}|${found.kind}`, found);
    // The first version resolved for a kind keeps the kind key: one informer per kind, whichever
    // version later requests name.
    if (!this.byKindKey.has(found.kindKey)) this.byKindKey.set(found.kindKey, found);
  }
}

function discoveredResources(body: unknown): DiscoveredResource[] {
  const resources = typeof body === "object" && body !== null ? (body as { resources?: unknown }).resources : undefined;
  if (!Array.isArray(resources)) return [];
  return resources.filter(
    (entry): entry is DiscoveredResource =>
      typeof entry === "object" &&
      entry !== null &&
      typeof entry.name === "string" &&
      typeof entry.kind === "string" &&
      typeof entry.namespaced === "boolean" &&
      (entry.verbs === undefined || Array.isArray(entry.verbs)),
  );
}
