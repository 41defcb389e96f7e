// Callers and tenants (docs/operator/tenants-and-trust.md): the tenants file and what each caller
// may do.
export { forbiddenParts, maySee, mayObserveIn, soleCaller, tenantCaller } from "./caller.js";
export type { Caller } from "./caller.js";
export { callerLabel, defaultCallerQuotas, describeShare, formatQuota, quotasOf, replicaShare } from "./quotas.js";
export type { CallerQuotas, QuotaName, ReplicaShare } from "./quotas.js";
export { NamespacePattern, parseTenantsFile, TenantEntry, TenantId, TenantQuotas, TenantsFile, TenantsFileError } from "./tenantsFile.js";
export type { TenantDirectory } from "./tenantsFile.js";
