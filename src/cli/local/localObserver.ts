// Local mode: `stagewatch observe` with no service configured runs the service's own engine in
// this process, against the user's kubeconfig. The same ObservationEngine, rules, reducer, health
// checks, Warning events, stall notices and log tails decide; only what is around them differs:
// - Scoped watches, least privilege: the informers list and watch only the namespaces the declared
//   resources are in (namespaced requests, never cluster-wide, except for a declared kind that is
//   itself cluster-scoped), and only the kinds they need (the engine starts the informer of each
//   declared kind, and Pods and ReplicaSets only for the workloads that own them). A namespaced CI
//   ServiceAccount that may apply may also observe; a list or watch it may not make fails the
//   resources read through it at once, naming the verb and resource (the engine's refusals).
// - Nothing durable pretends to be: records and leases are in memory (src/observations
//   inMemoryRecords, inMemoryLeases), events go straight to the follower (inProcessEvents).
//   There is no replay by key and nothing survives the process: Ctrl-C cancels.
// - Nothing is signed: the verdict is this process's own, not a service's word.
// Loaded by observeCommand only in local mode (it brings the Kubernetes client and the engine).
import type { KubeConfig } from "@kubernetes/client-node";
import { asyncScheduler, filter, firstValueFrom, merge } from "rxjs";
import type { ObservationRun } from "../../bus/client/client.js";
import { ObservationRejectedError, ObserverUnavailableError } from "../../bus/client/clientErrors.js";
import type { Logger } from "../../logging/index.js";
import { InMemoryLeaseStore, InMemoryObservationRecords, LeaseKeeper, ObservationEngine, defaultLeaseTiming, noopLeaseMetrics } from "../../observations/index.js";
import { InProcessEvents } from "../../observations/records/inProcessEvents.js";
import { podOwningKinds, replicaSetOwningKinds } from "../../kube/kindFacts.js";
import { InformerHub, KubeRequestError, RestMapper, kubeHttpTransport, kubePodLogReader, type Informer, type KubeTransport, type ResourceMapping } from "../../streams/index.js";
import { prometheusChecks } from "../../prometheus/index.js";
import type { AnalysesSetting } from "../inputs/analysesFlags.js";
import { cachedFieldsOf, type ObservationRequest, type ObservationVerdict, type Rule } from "../../verdicts/index.js";

export interface LocalObserverOptions {
  readonly kubeConfig: KubeConfig;
  /** `--health-checks FILE`, compiled: they decide instead of the health library's entries. */
  readonly healthChecks?: ReadonlyMap<string, Rule> | undefined;
  /** `--analyses FILE` and `--prometheus-url`: the metric checks a `require: verified` request may name, queried from here. */
  readonly analyses?: AnalysesSetting | undefined;
  /** Where warnings of the engine and informers go (a refused Warning event watch, say). */
  readonly logger: Logger;
  /** The API server's transport; the kubeconfig's when absent (tests and the benchmark count requests through their own). */
  readonly transport?: KubeTransport;
}

/** What observeCommand drives: one observation, decided here. */
export interface LocalObservation extends ObservationRun {
  get(): Promise<ObservationVerdict | undefined>;
  cancel(reason: string): Promise<ObservationVerdict | undefined>;
  /** Stops every watch and timer; a verdict not decided yet rejects. */
  close(): void;
}

/** The one replica id of local mode, in its in-memory record and lease. */
const localReplica = "local";

export async function observeLocally(request: ObservationRequest, options: LocalObserverOptions): Promise<LocalObservation> {
  const { kubeConfig, logger } = options;
  const transport = options.transport ?? kubeHttpTransport(kubeConfig);
  await checkReachable(transport, kubeConfig.getCurrentCluster()?.server ?? "(no server)");
  const restMapper = new RestMapper(transport);
  const declared = await declaredKinds(restMapper, request);
  const hub = new InformerHub({
    transport,
    restMapper,
    namespaces: declared.namespaces,
    keptFieldsOf: (kindKey) => cachedFieldsOf(kindKey, options.healthChecks),
    logger,
  });
  const events = new InProcessEvents();
  const engine = new ObservationEngine({
    kinds: hub,
    events,
    records: new InMemoryObservationRecords(),
    leases: new LeaseKeeper({ store: new InMemoryLeaseStore(), replicaId: localReplica, timing: defaultLeaseTiming, scheduler: asyncScheduler, metrics: noopLeaseMetrics, logger }),
    ...(options.healthChecks && { healthChecks: options.healthChecks }),
    ...(options.analyses && { analyses: prometheusChecks(options.analyses.templates, options.analyses.prometheus) }),
    warnings: hub.warnings(),
    // With the user's own pods/log permission; read only for a request with `logs` (--logs).
    podLogs: kubePodLogReader(kubeConfig),
    logger,
  });
  const close = () => {
    engine.stop();
    hub.stop();
    events.close(new ObserverUnavailableError("stopped before a verdict"));
  };
  const started = async () => {
    await listedOnce((await kindsRead(restMapper, declared.mappings)).map((mapping) => hub.informer(mapping)));
    return engine.observe(request);
  };
  const result = await started().catch((error: unknown) => {
    close();
    throw error;
  });
  if (!result.ok) {
    close();
    if (result.code === "invalid_request") throw new ObservationRejectedError("invalid_request", result.message, result.issues ?? []);
    throw new ObserverUnavailableError(result.message);
  }
  const { observationId } = result;
  return {
    observationId,
    replay: false,
    ...events.follow(observationId),
    get: () => engine.get(observationId),
    cancel: (reason) => engine.cancel(observationId, reason),
    close,
  };
}

/**
 * The declared resources' kinds, and the namespaces to list and watch: those of the resources of
 * namespaced kinds (their own, else the request's default). A kind discovery cannot resolve is
 * left out; the engine then refuses the request naming its field.
 */
async function declaredKinds(restMapper: RestMapper, request: ObservationRequest): Promise<{ mappings: ResourceMapping[]; namespaces: string[] }> {
  const resolved = await Promise.allSettled(request.resources.map((resource) => restMapper.resolve(resource.apiVersion, resource.kind)));
  const mappings = new Map<string, ResourceMapping>();
  const namespaces = new Set<string>();
  for (const [index, outcome] of resolved.entries()) {
    if (outcome.status !== "fulfilled") continue;
    mappings.set(outcome.value.kindKey, outcome.value);
    const namespace = request.resources[index]!.namespace ?? request.defaultNamespace;
    if (outcome.value.namespaced && namespace !== undefined) namespaces.add(namespace);
  }
  return { mappings: [...mappings.values()], namespaces: [...namespaces].sort() };
}

/** The declared kinds and what their workloads own: Pods, and a Deployment's ReplicaSets. */
async function kindsRead(restMapper: RestMapper, declared: readonly ResourceMapping[]): Promise<ResourceMapping[]> {
  const read = [...declared];
  if (declared.some((mapping) => podOwningKinds.has(mapping.kindKey))) read.push(await restMapper.resolve("v1", "Pod"));
  if (declared.some((mapping) => replicaSetOwningKinds.has(mapping.kindKey))) read.push(await restMapper.resolve("apps/v1", "ReplicaSet"));
  return read;
}

/**
 * Waits until each informer has listed once, or been refused, or `boundMs` passed. The service's
 * informers are warm when a request arrives, so it reads every declared resource in one go; cold
 * ones would let a resource whose kind listed first decide alone (a bootstrap Job seen failed
 * before the Deployment beside it was listed: "reached none" where the service says "applied").
 * Waiting for the lists makes the two modes judge from the same picture. The bound only keeps an
 * API server that answers nothing from holding the observation before its own budget starts.
 */
async function listedOnce(informers: readonly Informer[], boundMs = 10_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)));
  const listed = Promise.all(
    informers.map((informer) => firstValueFrom(merge(informer.synced$.pipe(filter(Boolean)), informer.problems$.pipe(filter((problems) => problems.length > 0))), { defaultValue: undefined })),
  );
  await Promise.race([listed, bound]);
  clearTimeout(timer);
}

/**
 * One request before any watch: an API server that cannot be reached, or refuses the kubeconfig's
 * credentials (an exec plugin that fails, an expired token), is "no observer" (exit 3) at once,
 * not an observation that times out with every resource "not seen yet".
 */
async function checkReachable(transport: KubeTransport, server: string): Promise<void> {
  try {
    await firstValueFrom(transport.getJson({ path: "/version" }));
  } catch (cause) {
    const refused = cause instanceof KubeRequestError && cause.status === 401;
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new ObserverUnavailableError(
      refused ? `the API server at ${server} refused the kubeconfig's credentials: ${detail}` : `cannot reach the API server at ${server}: ${detail}`,
      { cause },
    );
  }
}
