// The tenants file the platform team maintains (serve --tenants FILE): which NATS account may
// observe, read and cancel what. Each tenant is a NATS account, named as the server knows it
// (the `acc` of the Nats-Request-Info header the server stamps on a service import, and the token
// its account-token export enforces), so an entry is no new identity to keep in step with NATS.
//
//   tenants:
//     TEAM_A:
//       namespaces: [team-a, "team-a-*"]   # every resolved namespace must match one
//       clusterScoped: false               # may name cluster-scoped kinds (Namespace, ClusterRole, ...)
//       logTails: true                     # may ask for failing containers' log tails (logs: true)
//       quotas: {inFlight: 20, requestsPerSecond: 5, listsPerSecond: 1}
//     PLATFORM:
//       admin: true                        # sees, lists and cancels every tenant's observations
//
// Parsed with zod; every problem names its field (`tenants.TEAM_A.namespaces[1]: ...`).
import { parse } from "yaml";
import { z } from "zod";
import { describeIssues, parseWith, type FieldIssue } from "../verdicts/index.js";
import { tenantCaller, type Caller } from "./caller.js";

/** A NATS account name as it appears in a subject token: the account-token export compares the two. */
export const TenantId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "1-64 letters, digits, '-' and '_' (a NATS account name: it becomes a subject token)");

/** A namespace name, or a pattern where `*` stands for any run of name characters (`team-a-*`). */
export const NamespacePattern = z
  .string()
  .max(63, "at most 63 characters")
  .regex(/^[a-z0-9*]([-a-z0-9*]*[a-z0-9*])?$/, "a namespace name or a pattern of lowercase letters, digits, '-' and '*'");

/**
 * What a tenant may make the service as a whole spend (quotas.ts: each replica enforces its share);
 * what is left out is the service's default for every caller.
 */
export const TenantQuotas = z.strictObject({
  /** Observations in progress at once. */
  inFlight: z.int().positive().optional(),
  /** Observe requests per second. */
  requestsPerSecond: z.number().positive().optional(),
  getsPerSecond: z.number().positive().optional(),
  cancelsPerSecond: z.number().positive().optional(),
  listsPerSecond: z.number().positive().optional(),
  /** Requests of every kind waiting or being handled at once. */
  pending: z.int().positive().optional(),
});
export type TenantQuotas = z.infer<typeof TenantQuotas>;

export const TenantEntry = z.strictObject({
  admin: z.boolean().default(false),
  namespaces: z.array(NamespacePattern).default([]),
  clusterScoped: z.boolean().default(false),
  logTails: z.boolean().default(false),
  quotas: TenantQuotas.optional(),
});
export type TenantEntry = z.infer<typeof TenantEntry>;

export const TenantsFile = z.strictObject({
  // Keys checked here rather than by the record's key schema, whose issue says only "Invalid key".
  tenants: z.record(z.string(), TenantEntry).superRefine((tenants, ctx) => {
    const ids = Object.keys(tenants);
    if (ids.length === 0) ctx.addIssue({ code: "custom", message: "at least one tenant" });
    for (const id of ids) {
      const checked = TenantId.safeParse(id);
      if (!checked.success) ctx.addIssue({ code: "custom", path: [id], message: checked.error.issues[0]!.message });
    }
  }),
});
export type TenantsFile = z.infer<typeof TenantsFile>;

/** The tenants by account name. */
export type TenantDirectory = ReadonlyMap<string, Caller>;

export class TenantsFileError extends Error {
  override readonly name = "TenantsFileError";
  constructor(
    readonly source: string,
    readonly issues: readonly FieldIssue[],
    options?: ErrorOptions,
  ) {
    super(`${source}: ${describeIssues(issues)}`, options);
  }
}

/** Parses the file's text (YAML or JSON); throws TenantsFileError naming `source` and every field at fault. */
export function parseTenantsFile(text: string, source: string): TenantDirectory {
  let document: unknown;
  try {
    document = parse(text);
  } catch (cause) {
    throw new TenantsFileError(source, [{ path: "(file)", message: `not YAML or JSON: ${(cause as Error).message}` }], { cause });
  }
  const parsed = parseWith(TenantsFile, document ?? {});
  if (!parsed.ok) throw new TenantsFileError(source, parsed.issues);
  return new Map(Object.entries(parsed.value.tenants).map(([id, entry]) => [id, tenantCaller(id, entry)]));
}
