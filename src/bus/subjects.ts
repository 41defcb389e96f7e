// Every name stagewatch uses on NATS, derived from one configurable subject prefix (SPEC section 7).
// Two stagewatch installations can share a NATS account only if nothing they create collides, so
// the JetStream stream and the KV bucket are named after the prefix too, not fixed.
import { randomUUID } from "node:crypto";

export const defaultSubjectPrefix = "stagewatch";
/**
 * Where every command and the client take the prefix from when none is given. Several clusters
 * share one NATS with one prefix each; setting it once per cluster (a CI environment, the
 * service's pod) keeps every tool of that cluster on its subjects without a flag in each call.
 */
export const subjectPrefixVariable = "STAGEWATCH_SUBJECT_PREFIX";
/** Every replica subscribes in this queue group, so each request is answered exactly once. */
export const queueGroup = "stagewatch";

/** Letters, digits, `-` and `_`: safe as a subject token, a stream name part and a KV key part. */
const tokenPattern = /^[A-Za-z0-9_-]+$/;

export class InvalidSubjectTokenError extends Error {
  override readonly name = "InvalidSubjectTokenError";
  constructor(
    readonly what: string,
    readonly value: string,
  ) {
    super(`${what} ${JSON.stringify(value)} is not a valid subject token: use letters, digits, '-' and '_'`);
  }
}

/** The prefix `env` names, else the default; an empty value counts as unset, as shells write it. */
export function subjectPrefixFromEnv(env: NodeJS.ProcessEnv): string {
  const value = env[subjectPrefixVariable];
  return value === undefined || value === "" ? defaultSubjectPrefix : value;
}

export function isSubjectToken(value: string): boolean {
  return tokenPattern.test(value);
}

function assertToken(what: string, value: string): string {
  if (!isSubjectToken(value)) throw new InvalidSubjectTokenError(what, value);
  return value;
}

/**
 * Observation ids become the last token of an event subject and part of a KV key, so they must
 * carry no `.`, `*` or `>`: a random UUID does not.
 */
export function newObservationId(): string {
  return randomUUID();
}

/** The requests the service answers, each on `<prefix>.<request>` (and `<prefix>.<request>.<tenant>` with a tenants file). */
export const requestKinds = ["observe", "cancel", "get", "list"] as const;
export type RequestKind = (typeof requestKinds)[number];
/**
 * The request answered with the public keys the service signs with (keysResponder.ts), on
 * `<prefix>.keys` and, with a tenants file, `<prefix>.keys.<tenant>` like the four: in the account
 * layout only the service can answer it, so a client given no key learns the key there. Answered
 * outside the four's queue: it costs the service nothing but a constant reply.
 */
export const keysRequest = "keys";
/** Every subject the service answers requests on. */
export type AnsweredRequest = RequestKind | typeof keysRequest;

export type BusNames = {
  readonly prefix: string;
  readonly observe: string;
  readonly cancel: string;
  readonly get: string;
  readonly list: string;
  /** `<prefix>.keys`: the service's public keys (keysRequest). */
  readonly keys: string;
  /**
   * Where a tenant's requests arrive in the service's account: `<prefix>.<request>.<tenant>`. The
   * service's account exports `<prefix>.<request>.*` with the account token at the last position,
   * so the server lets each account import only the subject that names it.
   */
  tenantRequest(request: AnsweredRequest, tenant: string): string;
  /** Every tenant's requests of one kind, as the service subscribes them. */
  anyTenantRequest(request: AnsweredRequest): string;
  /** Every event subject, both layouts: what the one event stream captures without a tenants file. */
  readonly allEvents: string;
  /** Events without a tenant, `<prefix>.events.<deployment>.<id>`: what that stream keeps beside tenants' streams. */
  readonly tenantlessEvents: string;
  readonly eventStream: string;
  /**
   * The stream of one tenant's events (with a tenants file, eventStream.ts): `<eventStream>-<tenant>`.
   * eventStream is upper case, digits and `_` only, so the first `-` ends it and no prefix's
   * stream is another's tenant stream.
   */
  tenantEventStream(tenant: string): string;
  /** What a tenant's stream captures: `<prefix>.events.<tenant>.<deployment>.<id>`, disjoint from tenantlessEvents. */
  tenantEventSubjects(tenant: string): string;
  readonly recordsBucket: string;
  /** Which replica drives each observation in progress (leases with an expiry). */
  readonly leasesBucket: string;
  /** How long each deployment's recent observations took (one key a deployment, bounded). */
  readonly historyBucket: string;
  /**
   * Where one observation's events are published: `<prefix>.events.<deployment>.<id>`, and with a
   * tenant `<prefix>.events.<tenant>.<deployment>.<id>`, so each team can be exported its own.
   */
  eventSubject(deployment: string, observationId: string, tenant?: string): string;
  /** Every event of one tenant's observations: what the service's account exports to that tenant. */
  tenantEvents(tenant: string): string;
  /**
   * Match one observation's events without knowing its deployment or tenant (a client following
   * an id): one filter for each subject layout, the tenant's and the one without.
   */
  eventFilters(observationId: string): string[];
  /**
   * The core subject a verdict is also sent on the moment it is stored, for clients already
   * waiting, of an event subject or filter (eventSubject, eventFilters): the same tokens under
   * `verdicts` instead of `events`, so the event stream does not capture it (the stream's copy is
   * the one kept). Derived from the event subject, so whatever an event subject carries (a tenant
   * too), its notice carries too.
   */
  verdictNotice(eventSubjectOrFilter: string): string;
};

/** `stagewatch` or dotted tokens like `acme.stagewatch`; throws InvalidSubjectTokenError otherwise. */
export function busNames(prefix: string = defaultSubjectPrefix): BusNames {
  const tokens = prefix.split(".");
  for (const token of tokens) assertToken("subject prefix", token);
  const upper = tokens.join("_").toUpperCase().replaceAll("-", "_");
  return {
    prefix,
    observe: `${prefix}.observe`,
    cancel: `${prefix}.cancel`,
    get: `${prefix}.get`,
    list: `${prefix}.list`,
    keys: `${prefix}.${keysRequest}`,
    tenantRequest: (request, tenant) => `${prefix}.${request}.${assertToken("tenant", tenant)}`,
    anyTenantRequest: (request) => `${prefix}.${request}.*`,
    allEvents: `${prefix}.events.>`,
    tenantlessEvents: `${prefix}.events.*.*`,
    eventStream: `${upper}_EVENTS`,
    tenantEventStream: (tenant) => `${upper}_EVENTS-${assertToken("tenant", tenant)}`,
    tenantEventSubjects: (tenant) => `${prefix}.events.${assertToken("tenant", tenant)}.*.*`,
    recordsBucket: `${tokens.join("-")}-observations`,
    leasesBucket: `${tokens.join("-")}-leases`,
    historyBucket: `${tokens.join("-")}-history`,
    eventSubject: (deployment, observationId, tenant) =>
      `${prefix}.events.${tenant === undefined ? "" : `${assertToken("tenant", tenant)}.`}${assertToken("deployment", deployment)}.${assertToken("observation id", observationId)}`,
    tenantEvents: (tenant) => `${prefix}.events.${assertToken("tenant", tenant)}.>`,
    eventFilters: (observationId) => {
      const id = assertToken("observation id", observationId);
      return [`${prefix}.events.*.${id}`, `${prefix}.events.*.*.${id}`];
    },
    verdictNotice: (eventSubjectOrFilter) => {
      const events = `${prefix}.events.`;
      if (!eventSubjectOrFilter.startsWith(events)) throw new InvalidSubjectTokenError("event subject", eventSubjectOrFilter);
      return `${prefix}.verdicts.${eventSubjectOrFilter.slice(events.length)}`;
    },
  };
}
