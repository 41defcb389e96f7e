// Who asked, and what that caller may do: observe which namespaces, name cluster-scoped kinds, ask
// for log tails, read and cancel which observations. A caller is a tenant of the tenants file (a
// NATS account), or, without a tenants file, the one caller everything is allowed to, as before
// tenants existed. Pure: the bus says who the caller is, the engine asks what it may do.
import type { FieldIssue, ResourceIdentity } from "../verdicts/index.js";
import type { TenantEntry, TenantQuotas } from "./tenantsFile.js";

export interface Caller {
  /** The opaque id admission counts by: the tenant's id, or `default` without a tenants file. */
  readonly id: string;
  /** Recorded with its observations and carried by their event subjects; undefined without a tenants file. */
  readonly tenant: string | undefined;
  /** Reads, lists and cancels every tenant's observations, and may observe anything. */
  readonly admin: boolean;
  /** The namespace patterns it may observe in (`*` any run of name characters); ignored for an admin. */
  readonly namespaces: readonly string[];
  readonly clusterScoped: boolean;
  readonly logTails: boolean;
  readonly quotas: TenantQuotas | undefined;
}

/** Without a tenants file: one caller, everything allowed, nothing recorded (the service as before tenants). */
export const soleCaller: Caller = {
  id: "default",
  tenant: undefined,
  admin: true,
  namespaces: [],
  clusterScoped: true,
  logTails: true,
  quotas: undefined,
};

export function tenantCaller(id: string, entry: TenantEntry): Caller {
  return {
    id,
    tenant: id,
    admin: entry.admin,
    namespaces: entry.namespaces,
    clusterScoped: entry.admin || entry.clusterScoped,
    logTails: entry.admin || entry.logTails,
    quotas: entry.quotas,
  };
}

const patternCache = new Map<string, RegExp>();

function patternOf(pattern: string): RegExp {
  let compiled = patternCache.get(pattern);
  if (!compiled) {
    // Namespace names hold only [a-z0-9-]: nothing to escape but the stars.
    compiled = new RegExp(`^${pattern.replaceAll("*", "[a-z0-9-]*")}$`);
    patternCache.set(pattern, compiled);
  }
  return compiled;
}

export function mayObserveIn(caller: Caller, namespace: string): boolean {
  return caller.admin || caller.namespaces.some((pattern) => patternOf(pattern).test(namespace));
}

/**
 * Whether `caller` may see an observation recorded for `tenant`. An observation of another tenant
 * is to be answered as missing (`not_found`), never as forbidden, so that ids cannot be probed.
 */
export function maySee(caller: Caller, tenant: string | undefined): boolean {
  return caller.admin || caller.tenant === tenant;
}

/**
 * What the caller may not ask for, each naming its field and resource: a namespace outside its
 * patterns, a cluster-scoped kind when it may not name one, log tails when it may not read them.
 * `identities` are the request's resources with their namespaces resolved, in request order.
 */
export function forbiddenParts(caller: Caller, identities: readonly ResourceIdentity[], logs: boolean): FieldIssue[] {
  if (caller.admin) return [];
  const who = `tenant ${caller.id}`;
  const issues = identities.flatMap((identity, index): FieldIssue[] => {
    const { kind, namespace, name } = identity;
    if (namespace === undefined) {
      return caller.clusterScoped ? [] : [{ path: `resources[${index}]`, message: `${kind} ${name}: ${who} may not name cluster-scoped kinds` }];
    }
    if (mayObserveIn(caller, namespace)) return [];
    const allowed = caller.namespaces.length === 0 ? "none" : caller.namespaces.join(", ");
    return [{ path: `resources[${index}].namespace`, message: `${kind} ${namespace}/${name}: namespace ${namespace} is not one of ${who}'s (${allowed})` }];
  });
  if (logs && !caller.logTails) issues.push({ path: "logs", message: `${who} may not ask for log tails` });
  return issues;
}
