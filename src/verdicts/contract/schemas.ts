// The wire contract (SPEC section 7): every body that crosses NATS is one of these schemas, and
// the TypeScript types are inferred from them. Objects are strict: a misspelt field
// ("timeoutSecond") is an error naming it, not a silently ignored budget.
import { z } from "zod";
import { FailOnEntry, FailOnReason, repeatedReasons } from "./failOn.js";

/**
 * `verified` is opt-in and comes after `healthy`: the new revision's pods held for a soak window
 * (the request's `verify`). It is the one stage no resource supports on its own: the observation
 * reaches it when the window ends without a problem (reducer/verificationWindow.ts).
 */
export const stages = ["applied", "bootstrapped", "healthy", "verified"] as const;
export const Stage = z.enum(stages);
export type Stage = z.infer<typeof Stage>;
/** The stages a declared resource holds back or supports; `verified` is the observation's alone. */
export type ResourceStage = Exclude<Stage, "verified">;

/** `none` until every declared resource has been seen: reaching nothing is a legal reading. */
export const ReachedStage = z.enum(["none", ...stages]);
export type ReachedStage = z.infer<typeof ReachedStage>;

export const outcomes = ["in_progress", "succeeded", "failed", "timed_out", "cancelled"] as const;
export const Outcome = z.enum(outcomes);
export type Outcome = z.infer<typeof Outcome>;

export const ResourceState = z.enum(["pending", "settled", "failed"]);
export type ResourceState = z.infer<typeof ResourceState>;

export const maxResources = 1000;
export const maxBodyBytes = 1024 * 1024;
export { defaultFailOn } from "./reasonTable.js";
export const defaultAbsentGraceSeconds = 10;
/**
 * Two minutes without a change of state, reason or reading: longer than a slow image pull's
 * back-off step (up to 5 minutes between retries only after several), shorter than the budgets
 * CI jobs give a rollout, so the notice comes while there is still time to act on it.
 */
export const defaultStallSeconds = 120;

// RFC 1123 label (namespaces) and subdomain (most object names), as the API server validates them.
const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export const NamespaceName = z
  .string()
  .max(63, "at most 63 characters")
  .regex(dnsLabel, "must be a DNS label: lowercase letters, digits and '-', starting and ending alphanumeric");

const apiVersionPattern = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?v[0-9]+((alpha|beta)[0-9]+)?$/;

export const ResourceIdentity = z
  .strictObject({
    apiVersion: z.string().regex(apiVersionPattern, "must be 'v1' or 'group/version', e.g. 'apps/v1'"),
    // CamelCase by convention, but the API server takes a lowercase first letter and charts ship
    // one (Zalando's `postgresql`).
    kind: z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/, "must be a kind, e.g. 'Deployment': letters and digits, starting with a letter").max(63),
    namespace: NamespaceName.optional(),
    name: z.string().min(1, "required").max(253, "at most 253 characters"),
    /** The metadata.generation the apply produced; status older than it is not read. */
    generation: z.int().positive().optional(),
    /** A Job that must complete for `bootstrapped` (also marked by the stagewatch.io/bootstrap label). */
    bootstrap: z.boolean().optional(),
  })
  .superRefine((identity, ctx) => {
    // RBAC objects are the one family whose names are path segments ("system:auth-delegator");
    // everything else a deploy declares is a DNS subdomain.
    const rbac = identity.apiVersion.startsWith("rbac.authorization.k8s.io/");
    const ok = rbac
      ? identity.name !== "." && identity.name !== ".." && !/[/%]/.test(identity.name)
      : dnsSubdomain.test(identity.name);
    if (!ok) {
      ctx.addIssue({
        code: "custom",
        path: ["name"],
        message: rbac
          ? "must not be '.' or '..' nor contain '/' or '%'"
          : "must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending alphanumeric",
      });
    }
    if (identity.bootstrap && identity.kind !== "Job") {
      ctx.addIssue({ code: "custom", path: ["bootstrap"], message: "only a Job can be a bootstrap Job" });
    }
  });
export type ResourceIdentity = z.infer<typeof ResourceIdentity>;

const RequiredStage = z.string().superRefine((value, ctx) => {
  if (value === "rendered") {
    ctx.addIssue({
      code: "custom",
      message: "'rendered' is not observable: render without a cluster instead (helm template, kustomize build)",
    });
  } else if (!(stages as readonly string[]).includes(value)) {
    ctx.addIssue({ code: "custom", message: `must be one of ${stages.join(", ")}` });
  }
}) as unknown as typeof Stage;

/**
 * Warning event reasons that fail the verification window by default: the kubelet's crash
 * back-off (`BackOff`: "Back-off restarting failed container"), a failing liveness, readiness or
 * startup probe (`Unhealthy`) and the kubelet evicting a pod under node pressure (`Evicted`). The
 * OOM killer's own event (`OOMKilling`) is about the Node, not a pod, so it is read off the
 * container's `OOMKilled` termination instead, which is always checked.
 */
export const defaultVerifyFailOn = ["BackOff", "Unhealthy", "Evicted"] as const;

/** An analysis (a metric check of the service's `--analyses` file) as a request names it. */
export const AnalysisName = z
  .string()
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a DNS label: lowercase letters, digits and '-'")
  .max(63, "at most 63 characters");
export const AnalysisArgName = z.string().regex(/^[a-z][a-z0-9-]{0,62}$/, "must be a lowercase letter, then lowercase letters, digits and '-' (at most 63)");
/** An argument's value: text, without control characters, bounded; written into the query escaped (verdicts/analysis). */
export const AnalysisArgValue = z
  .string()
  .max(256, "at most 256 characters")
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not hold control characters");

/** The soak window of `require: verified` (SPEC section 2 as docs/design/contract.md extends it). */
export const VerifySettings = z.strictObject({
  /** How long after `healthy` the new revision's pods must hold, inside the same budget. */
  windowSeconds: z.int().positive().max(24 * 3600, "at most 24 hours"),
  /** Warning event reasons about the new revision's pods (or the workload) that fail the window. */
  failOn: z.array(FailOnReason).max(64).default([...defaultVerifyFailOn]),
  /**
   * Metric checks to run through the window, by the name the service's analyses file gives them,
   * with the arguments each declares; the request never carries PromQL.
   */
  analyses: z
    .array(z.strictObject({ name: AnalysisName, args: z.record(AnalysisArgName, AnalysisArgValue).default({}) }))
    .max(8, "at most 8 analyses")
    .default([]),
});
export type VerifySettings = z.infer<typeof VerifySettings>;

export const loadBalancerAddressChoices = ["wait", "ignore"] as const;

// Request fields that reach a NATS subject or a KV key are bounded in length and alphabet here,
// at the edge. nats-server closes a connection whose control line (`PUB <subject> <reply> <size>`)
// passes its max_control_line, 4 KiB by default ("maximum control line exceeded"), so one `get`
// with a long id would take the service off the bus. The longest subject a request can make is
// the KV direct get of its record, `$JS.API.DIRECT.GET.KV_<bucket>.$KV.<bucket>.observations.<id>`
// with <bucket> `<prefix>-observations`: 2 × prefix + 67 + id characters; the event subject
// `<prefix>.events.<deployment>.<id>` is prefix + 9 + deployment + id. With ids of at most 64 and
// deployments of at most 63 characters, a prefix as long as 64 makes 259 characters, about 320
// with the reply inbox: under a tenth of the limit whatever a request holds. `key` reaches the
// claims bucket only as its sha256 (bus/stores/observationRecords.ts); its bound keeps records and
// replies small, and it may not hold control characters because replies, logs and the CLI echo it.

export const DeploymentName = z
  .string()
  .regex(/^[a-z0-9-]{1,63}$/, "1-63 characters of a-z, 0-9 and '-' (it becomes a subject token and a metric label)");

/** The ids stagewatch gives are UUIDs (36 characters); the alphabet is a subject token's. */
export const ObservationId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, "1-64 letters, digits, '-' and '_' (an id stagewatch gave: it becomes a subject token and a KV key)");

const RequestKey = z
  .string()
  .min(1, "required")
  .max(256, "at most 256 characters")
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "must not hold control characters");

// W3C Trace Context (https://www.w3.org/TR/trace-context/): version 00, a 32-hex trace id and a
// 16-hex parent id that are not all zeros, 2-hex flags. Other versions may carry more fields;
// this service understands version 00 only and says so rather than guess.
export const TraceParent = z
  .string()
  .regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/, "must be a W3C traceparent: 00-<32 lowercase hex trace id>-<16 hex parent id>-<2 hex flags>")
  .refine((value) => !/^00-0{32}-/.test(value) && !/^00-[0-9a-f]{32}-0{16}-/.test(value), "must not have an all-zero trace id or parent id");
/** Up to 32 comma-separated `key=value` members, at most 512 characters (what the W3C text asks vendors to propagate). */
export const TraceState = z
  .string()
  .max(512, "at most 512 characters")
  .regex(/^[\x20-\x7e]*$/, "must be printable ASCII")
  .refine((value) => value.split(",").length <= 32, "at most 32 members");

export const ObservationRequest = z
  .strictObject({
    key: RequestKey,
    deployment: DeploymentName,
    require: RequiredStage,
    timeoutSeconds: z.int().positive().max(7 * 24 * 3600, "at most 7 days").optional(),
    deadline: z.iso.datetime({ offset: true, message: "must be an RFC 3339 date-time, e.g. 2026-11-29T10:00:00Z" }).optional(),
    defaultNamespace: NamespaceName.optional(),
    absentGraceSeconds: z.number().nonnegative().max(3600).default(defaultAbsentGraceSeconds),
    /**
     * No resource changed state, reason or reading for this long: one `stalled` notice (0: never).
     * `auto`: a notice once the rollout has taken longer than 95% of the deployment's earlier ones
     * to reach its next stage (verdicts/history/history.ts says why 95%); without enough history, the default.
     */
    stallSeconds: z
      .union([z.int().nonnegative().max(24 * 3600, "at most 24 hours"), z.literal("auto")], { error: "must be a whole number of seconds (at most 24 hours) or 'auto'" })
      .default(defaultStallSeconds),
    resources: z
      .array(ResourceIdentity)
      .min(1, "at least one resource")
      .max(maxResources, `at most ${maxResources} resources`),
    /**
     * Read the failing container's last log lines into the verdict's failure (`failure.logTail`),
     * once, when the observation fails on a pod; only where the service allows it (serve
     * --container-logs), else the failure carries a `logNote` saying so.
     */
    logs: z.boolean().optional(),
    /**
     * Waiting reasons (pods), the reasons of conditions and phases speaking against a custom resource,
     * and Warning event reasons that are terminal: a plain reason at once, `{reason, graceSeconds}`
     * once it has held that long on the same object. Reasons as controllers write them: CamelCase
     * words, with the '.', ':', '_' and '-' some use (`ACK.Terminal`). Left out: the service's
     * default (`stagewatch reasons` prints it).
     */
    failOn: z.array(FailOnEntry).max(64).optional(),
    /** With `require: verified` (and only then): the soak window after `healthy`. */
    verify: VerifySettings.optional(),
    /**
     * `wait` (the default, as Helm's legacy wait and Argo CD): a LoadBalancer Service is settled once a
     * load-balancer controller wrote its address. `ignore`: settled without one, for clusters that
     * have no load-balancer controller (kind, kwok, bare metal), as kstatus reads it.
     */
    loadBalancerAddress: z.enum(loadBalancerAddressChoices).optional(),
    /**
     * The W3C trace context of the caller's trace (a CI pipeline's, `TRACEPARENT`): the observation
     * is exported as spans under it when the service exports traces (docs/user/tracing.md).
     */
    traceparent: TraceParent.optional(),
    tracestate: TraceState.optional(),
  })
  .superRefine((request, ctx) => {
    if (request.timeoutSeconds === undefined && request.deadline === undefined) {
      ctx.addIssue({ code: "custom", path: ["timeoutSeconds"], message: "required (or give a deadline)" });
    }
    // No default window: like the budget, a wait the caller never chose would hide its mistake.
    if (request.require === "verified" && request.verify === undefined) {
      ctx.addIssue({ code: "custom", path: ["verify", "windowSeconds"], message: "required with require 'verified'" });
    }
    if (request.require !== "verified" && request.verify !== undefined) {
      ctx.addIssue({ code: "custom", path: ["verify"], message: "only with require 'verified'" });
    }
    if (request.verify !== undefined && request.timeoutSeconds !== undefined && request.verify.windowSeconds >= request.timeoutSeconds) {
      ctx.addIssue({
        code: "custom",
        path: ["verify", "windowSeconds"],
        message: "must be shorter than timeoutSeconds: the window counts inside the budget, after healthy",
      });
    }
    for (const { index, message } of repeatedReasons(request.failOn ?? [])) ctx.addIssue({ code: "custom", path: ["failOn", index], message });
  });
export type ObservationRequest = z.infer<typeof ObservationRequest>;
/** What a client writes: defaults (absentGraceSeconds, failOn) may be left out. */
export type ObservationRequestInput = z.input<typeof ObservationRequest>;

// History (verdicts/history/history.ts): what earlier observations of the same deployment took.

/** Observations kept per deployment: enough for a stable 95th percentile, small enough for one KV value. */
export const historyLimit = 50;

/** How long earlier successful rollouts took to reach one stage. */
export const StageEstimate = z.object({
  samples: z.int().positive(),
  medianSeconds: z.number().nonnegative(),
  p90Seconds: z.number().nonnegative(),
  p95Seconds: z.number().nonnegative(),
  /** The earlier durations themselves, ascending (at most historyLimit): a success is ranked among them. */
  earlierSeconds: z.array(z.number().nonnegative()).max(historyLimit),
});
export type StageEstimate = z.infer<typeof StageEstimate>;

/** How this rollout compared with the earlier ones at its required stage (a success's verdict). */
export const HistoryComparison = z.object({
  stage: Stage,
  seconds: z.number().nonnegative(),
  samples: z.int().positive(),
  medianSeconds: z.number().nonnegative(),
  p90Seconds: z.number().nonnegative(),
  /** Earlier rollouts that took longer than this one. */
  fasterThan: z.int().nonnegative(),
  message: z.string(),
});
export type HistoryComparison = z.infer<typeof HistoryComparison>;

/**
 * What the history said when the observation began (fixed from then on, so every replica and every
 * reader shows the same), and with a success how this one compared.
 */
export const HistoryOutlook = z.object({
  /** Earlier observations of this deployment in the history, whatever their outcome. */
  earlier: z.int().nonnegative(),
  stages: z.partialRecord(Stage, StageEstimate),
  comparison: HistoryComparison.optional(),
});
export type HistoryOutlook = z.infer<typeof HistoryOutlook>;

/** The expectation shown beside the elapsed time: one stage's estimate. */
export const Expectation = StageEstimate.omit({ earlierSeconds: true }).extend({ stage: Stage, message: z.string() });
export type Expectation = z.infer<typeof Expectation>;

/** The newest Warning event about a resource or what it owns (its ReplicaSets, its pods). */
export const ResourceWarning = z.object({
  /** The object the event is about: the resource itself, one of its ReplicaSets or pods. */
  kind: z.string(),
  name: z.string(),
  reason: z.string(),
  message: z.string(),
  count: z.int().positive(),
  lastSeen: z.string(),
});
export type ResourceWarning = z.infer<typeof ResourceWarning>;

export const ResourceVerdict = z.object({
  identity: ResourceIdentity,
  state: ResourceState,
  reason: z.string().optional(),
  /** The reading, followed by the warning when there is one (`...; ReplicaSet api-7f9c: FailedCreate (x4): ...`). */
  message: z.string().optional(),
  warning: ResourceWarning.optional(),
  /** A settled workload: the image digests (containerStatuses[].imageID) its ready pods run, sorted. */
  images: z.array(z.string()).optional(),
});
export type ResourceVerdict = z.infer<typeof ResourceVerdict>;

/**
 * The last lines of the failing container's log, read once when the verdict was decided (the
 * request's `logs`): which pod and container, whether it is the previous instance (a restarted
 * container whose current one has not run), the lines oldest first with credentials scrubbed and
 * control characters removed, and whether older lines (or the end of a long line) were cut off.
 */
export const LogTail = z.object({
  pod: z.string(),
  container: z.string(),
  /** An init container's log. */
  init: z.boolean(),
  /** The log of the container's previous instance (`kubectl logs --previous`). */
  previous: z.boolean(),
  lines: z.array(z.string()),
  truncated: z.boolean(),
});
export type LogTail = z.infer<typeof LogTail>;

/** Pods a verdict's `verification` names: the verdict stays small with 1,000 replicas. */
export const maxVerificationPods = 100;

/**
 * The verification window of a `require: verified` observation, from the moment `healthy` was
 * reached: when it ends, what it watched, and (with a failure) what ended it.
 */
export const Verification = z.object({
  windowSeconds: z.int().positive(),
  /** When `healthy` was reached: the window's start. */
  startedAt: z.string(),
  endsAt: z.string(),
  /** The new revision's pods read in the window so far, by name, sorted (the first 100). */
  pods: z.array(z.string()).max(maxVerificationPods),
  /** Each metric check: measurements taken, failed and inconclusive so far, the last value, and where it stands. */
  analyses: z
    .array(
      z.object({
        name: z.string(),
        status: z.enum(["running", "passed", "failed"]),
        taken: z.int().nonnegative(),
        count: z.int().positive(),
        failed: z.int().nonnegative(),
        inconclusive: z.int().nonnegative(),
        /** The last measured value; absent before the first or when it had none. */
        last: z.number().optional(),
      }),
    )
    .optional(),
});
export type Verification = z.infer<typeof Verification>;

export const Failure = z.object({
  stage: Stage,
  resource: ResourceIdentity,
  reason: z.string(),
  message: z.string(),
  logTail: LogTail.optional(),
  /** Why a requested log tail is absent: not allowed by the service, refused, gone, too slow, never written. */
  logNote: z.string().optional(),
});
export type Failure = z.infer<typeof Failure>;

/**
 * The service's Ed25519 signature of the body it is a member of: `key` the public key that
 * signed (an nkeys public key), `sig` the 64-byte signature, base64url without padding, over the
 * UTF-8 of the body's canonical JSON (RFC 8785) without this member (src/signing/canonicalForm.ts,
 * docs/user/verifying.md). Absent when the service runs without a signing key.
 */
export const Signature = z.object({
  key: z.string().regex(/^[A-Z2-7]{56}$/, "must be an nkeys public key"),
  sig: z.string().regex(/^[A-Za-z0-9_-]{86}$/, "must be 64 bytes, base64url without padding"),
});
export type Signature = z.infer<typeof Signature>;

/**
 * A cluster's name as the operator gives it (`serve --cluster-name`): what a verdict's attestation
 * says it observed. A DNS subdomain of at most 63 characters, the way fleet tools name clusters.
 */
export const ClusterName = z
  .string()
  .max(63, "at most 63 characters")
  .regex(dnsSubdomain, "must be lowercase letters, digits, '-' and '.', starting and ending alphanumeric");
export type ClusterName = z.infer<typeof ClusterName>;

/**
 * What a decided verdict carries for its in-toto attestation (src/signing/attestation.ts): the
 * cluster the service observed, when it was named, and the service's Ed25519 signature, standard
 * base64, over DSSE's pre-authentication encoding of the in-toto Statement that the verdict
 * determines. A reader rebuilds the Statement from the verdict and assembles the DSSE envelope
 * (`observe --verdict-file` does), so the record and the events carry 88 characters rather than a
 * second copy of the verdict. Absent when the service signs nothing, the verdict is undecided, or
 * no settled workload runs an image by digest (a Statement needs at least one subject).
 */
export const VerdictAttestation = z.object({
  cluster: ClusterName.optional(),
  sig: z.string().regex(/^[A-Za-z0-9+/]{86}==$/, "must be 64 bytes, standard base64"),
});
export type VerdictAttestation = z.infer<typeof VerdictAttestation>;

export const ObservationVerdict = z.object({
  observationId: z.string(),
  key: z.string(),
  deployment: z.string(),
  required: Stage,
  reached: ReachedStage,
  outcome: Outcome,
  failure: Failure.optional(),
  resources: z.array(ResourceVerdict),
  message: z.string(),
  startedAt: z.string(),
  deadline: z.string(),
  decidedAt: z.string().optional(),
  /** The tenant (NATS account) that asked, with a tenants file; absent without one. Signed with the rest. */
  tenant: z.string().optional(),
  /** What earlier observations of the deployment took, as the observation began; with a success, how it compared. */
  history: HistoryOutlook.optional(),
  /** With `require: verified`, once `healthy` was reached: the soak window. */
  verification: Verification.optional(),
  attestation: VerdictAttestation.optional(),
  signature: Signature.optional(),
});
export type ObservationVerdict = z.infer<typeof ObservationVerdict>;

// Events on stagewatch.events.<deployment>.<observationId> (with a tenants file
// stagewatch.events.<tenant>.<deployment>.<observationId>): a tagged union on `type`. `tenant`
// names the tenant whose subject carries the event, when there is one.
export const ProgressEvent = z.object({
  type: z.literal("progress"),
  observationId: z.string(),
  deployment: z.string(),
  tenant: z.string().optional(),
  at: z.string(),
  resource: ResourceVerdict,
  /** How long the required stage usually takes this deployment (absent without an earlier success). */
  expectation: Expectation.optional(),
  /** On a measurement of the `verified` stage's analyses: the window as it stands (its end, each check's measurements and last value). */
  verification: Verification.optional(),
  signature: Signature.optional(),
});
/** A notice, never a failure: nothing moved for `sinceSeconds`; names what the observation waits on. */
export const StalledEvent = z.object({
  type: z.literal("stalled"),
  observationId: z.string(),
  deployment: z.string(),
  tenant: z.string().optional(),
  at: z.string(),
  sinceSeconds: z.number().nonnegative(),
  waitingFor: z.array(ResourceVerdict),
  message: z.string(),
  /** With `stallSeconds: auto`: the stage not reached, and the earlier rollouts' time to it that this one passed. */
  basis: z.object({ stage: Stage, quantile: z.number(), thresholdSeconds: z.number().nonnegative(), samples: z.int().positive() }).optional(),
  signature: Signature.optional(),
});
export const StageEvent = z.object({
  type: z.literal("stage"),
  observationId: z.string(),
  deployment: z.string(),
  tenant: z.string().optional(),
  at: z.string(),
  stage: Stage,
  signature: Signature.optional(),
});
export const VerdictEvent = z.object({
  type: z.literal("verdict"),
  observationId: z.string(),
  deployment: z.string(),
  tenant: z.string().optional(),
  at: z.string(),
  verdict: ObservationVerdict,
  signature: Signature.optional(),
});
export const ObservationEvent = z.discriminatedUnion("type", [ProgressEvent, StageEvent, StalledEvent, VerdictEvent]);
export type ProgressEvent = z.infer<typeof ProgressEvent>;
export type StageEvent = z.infer<typeof StageEvent>;
export type StalledEvent = z.infer<typeof StalledEvent>;
export type VerdictEvent = z.infer<typeof VerdictEvent>;
export type ObservationEvent = z.infer<typeof ObservationEvent>;

// `stagewatch observe --progress json`: what a CI system or an agent parses instead of reading. Every
// line observe writes on stderr is one of these, one JSON object a line: the observation's events as
// the service publishes them (or local mode's engine would), ending with the verdict event, beside
// two lines of observe's own: where it started, and its notices (what the other progress modes write
// as text: a verification notice, a warning of local mode's engine, the error that ended it).
/** Who decides an `observe`: the shared service over NATS, or the same engine in observe's own process. */
export const ObservationMode = z.enum(["local", "service"]);
export type ObservationMode = z.infer<typeof ObservationMode>;
export const ObservingLine = z.object({
  type: z.literal("observing"),
  observationId: z.string(),
  deployment: z.string(),
  at: z.string(),
  mode: ObservationMode,
  /** The key was seen before with the same content: this follows that observation. */
  replay: z.boolean(),
  /** How many resources the request declared. */
  resources: z.int().nonnegative(),
});
export const NoticeLine = z.object({
  type: z.literal("notice"),
  at: z.string(),
  /** The sentence the plain view prints, without its `stagewatch: ` prefix. */
  message: z.string(),
});
export const ProgressLine = z.discriminatedUnion("type", [ProgressEvent, StageEvent, StalledEvent, VerdictEvent, ObservingLine, NoticeLine]);
export type ObservingLine = z.infer<typeof ObservingLine>;
export type NoticeLine = z.infer<typeof NoticeLine>;
export type ProgressLine = z.infer<typeof ProgressLine>;

export const CancelRequest = z.strictObject({
  observationId: ObservationId,
  reason: z.string().max(1024).optional(),
});
export type CancelRequest = z.infer<typeof CancelRequest>;

export const GetRequest = z.strictObject({ observationId: ObservationId });
export type GetRequest = z.infer<typeof GetRequest>;

/**
 * `quota`: a limit of the service's (observations in flight, requests a second) was reached; retry later.
 * `forbidden`: the caller's tenant may not observe what it named (or the NATS server did not vouch for the caller).
 */
export const errorCodes = ["invalid_request", "conflict", "not_found", "forbidden", "too_large", "quota", "unavailable", "internal"] as const;
export const ErrorCode = z.enum(errorCodes);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const FieldIssue = z.object({ path: z.string(), message: z.string() });
export type FieldIssue = z.infer<typeof FieldIssue>;

export const ErrorReply = z.object({
  ok: z.literal(false),
  error: z.object({ code: ErrorCode, message: z.string(), issues: z.array(FieldIssue) }),
});
export type ErrorReply = z.infer<typeof ErrorReply>;

export const ObserveReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), observationId: z.string(), replay: z.boolean() }),
  ErrorReply,
]);
export type ObserveReply = z.infer<typeof ObserveReply>;

export const CancelReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), verdict: ObservationVerdict }),
  ErrorReply,
]);
export type CancelReply = z.infer<typeof CancelReply>;

/** What `<prefix>.list` accepts: the observations in progress of the caller's tenant (all of them for an admin). */
export const ListRequest = z.strictObject({ deployment: DeploymentName.optional() });
export type ListRequest = z.infer<typeof ListRequest>;

export const leaseStates = ["held", "expired", "released"] as const;
/** One observation in progress as `list` shows it. */
export const InProgressItem = z.object({
  observationId: z.string(),
  deployment: z.string(),
  key: z.string(),
  required: Stage,
  /** What the last stored reading reached (`none` before the first). */
  reached: ReachedStage,
  startedAt: z.string(),
  deadline: z.string(),
  /** With a tenants file: the tenant that asked. */
  tenant: z.string().optional(),
  /** How long the required stage usually takes this deployment, when its history has earlier successes. */
  expectation: Expectation.optional(),
  /** The lease holder: the replica driving it, or, when the lease is expired or released, the one that did. */
  owner: z.object({ replica: z.string(), lease: z.enum(leaseStates), leaseExpiresAt: z.string() }),
});
export type InProgressItem = z.infer<typeof InProgressItem>;

export const ListReply = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    items: z.array(InProgressItem),
    /** Observations whose record this service could not read, named rather than hidden. */
    unreadable: z.array(z.object({ observationId: z.string(), problem: z.string() })),
  }),
  ErrorReply,
]);
export type ListReply = z.infer<typeof ListReply>;

/**
 * The reply on `<prefix>.keys`: the public keys verdicts are signed with, the signing key's first,
 * then the ones the service still trusts during a rotation; none when it signs nothing. It is
 * unsigned, and need not be signed: what a client learns from it is worth what the place it was
 * answered is worth (who else could answer there), not what it says (docs/user/verifying.md).
 */
export const KeysReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), keys: z.array(z.string().regex(/^N[A-Z2-7]{55}$/, "must be an nkeys server public key")) }),
  ErrorReply,
]);
export type KeysReply = z.infer<typeof KeysReply>;

export const GetReply = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), verdict: ObservationVerdict }),
  ErrorReply,
]);
export type GetReply = z.infer<typeof GetReply>;
