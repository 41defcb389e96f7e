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
import { asyncScheduler, firstValueFrom } from "rxjs";
import type { ObservationRun } from "../bus/client.js";
import { ObservationRejectedError, ObserverUnavailableError } from "../bus/clientErrors.js";
import type { Logger } from "../logging/index.js";
import { InMemoryLeaseStore, InMemoryObservationRecords, LeaseKeeper, ObservationEngine, defaultLeaseTiming, noopLeaseMetrics } from "../observations/index.js";
import { InProcessEvents } from "../observations/inProcessEvents.js";
import { InformerHub, KubeRequestError, RestMapper, kubeHttpTransport, kubePodLogReader, type KubeTransport } from "../streams/index.js";
import { cachedFieldsOf, type ObservationRequest, type ObservationVerdict, type Rule } from "../verdicts/index.js";

export interface LocalObserverOptions {
  readonly kubeConfig: KubeConfig;
  /** `--health-checks FILE`, compiled: they decide instead of the health library's entries. */
  readonly healthChecks?: ReadonlyMap<string, Rule> | undefined;
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
  const hub = new InformerHub({
    transport,
    restMapper,
    namespaces: await declaredNamespaces(restMapper, request),
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
  const result = await engine.observe(request).catch((error: unknown) => {
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
 * The namespaces to list and watch: those of the declared resources of namespaced kinds (their
 * own, else the request's default). A kind discovery cannot resolve adds none; the engine then
 * refuses the request naming its field.
 */
async function declaredNamespaces(restMapper: RestMapper, request: ObservationRequest): Promise<string[]> {
  const resolved = await Promise.allSettled(request.resources.map((resource) => restMapper.resolve(resource.apiVersion, resource.kind)));
  const namespaces = new Set<string>();
  for (const [index, outcome] of resolved.entries()) {
    if (outcome.status !== "fulfilled" || !outcome.value.namespaced) continue;
    const namespace = request.resources[index]!.namespace ?? request.defaultNamespace;
    if (namespace !== undefined) namespaces.add(namespace);
  }
  return [...namespaces].sort();
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
