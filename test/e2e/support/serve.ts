/**
 * `stagewatch serve` as the CLI, pipeline and operator tests run it: the global setup's compiled
 * CLI as a process of its own, each service under a subject prefix of its own, so test files never
 * answer each other's requests or read each other's records, signing with the file's e2e key
 * (signing.ts) as an install of the chart does.
 *
 * `useServes()` registers an afterAll in the file (or describe) that calls it: every service
 * started through it is stopped, and what its prefix left on NATS (the event stream and every KV
 * bucket, bus.ts) is removed, whether the test passed, failed, or stopped the service itself.
 */
import { randomBytes } from "node:crypto";
import { afterAll } from "vitest";
import { busNames, type BusNames } from "../../../src/bus/index.js";
import { scratchDir, startServe, type RunningService } from "../../cluster/stagewatch.ts";
import { removeBus } from "./bus.ts";
import { compiledStagewatch } from "./cli.ts";
import { kubeconfigPath, natsUrl } from "./cluster.ts";
import { e2eSigningKeyFile } from "./signing.ts";

export interface ServeUnderPrefix extends RunningService {
  readonly prefix: string;
  readonly names: BusNames;
  /** Its scratch directory, holding serve.log. */
  readonly dir: string;
}

export interface ServeOptions {
  /** Names the prefix (`e2e-<name>-<hex>`) and the scratch directory. */
  name: string;
  /** More flags (`--replica-id`, `--container-logs`, `--namespaces`); a `--signing-key` of its own replaces the e2e key. */
  args?: readonly string[];
  /** Sign with the e2e key (signing.ts), as the chart's default install must. Default true. */
  signed?: boolean;
  /** Added to the environment `stagewatch serve` documents. */
  env?: NodeJS.ProcessEnv;
  /** Default: the e2e cluster's admin kubeconfig. */
  kubeconfigPath?: string;
  /** How serve is given its prefix: `--subject-prefix` (default) or STAGEWATCH_SUBJECT_PREFIX alone, as a pod's environment gives it. */
  prefixFrom?: "flag" | "environment";
  /** Default: the global setup's build (the image test runs its production tree's). */
  cli?: string;
}

export interface Serves {
  /** Starts one and waits until /readyz answers. */
  start(options: ServeOptions): Promise<ServeUnderPrefix>;
}

export function useServes(): Serves {
  const prefixes: string[] = [];
  const started: RunningService[] = [];
  afterAll(async () => {
    await Promise.all(started.splice(0).map((service) => service.process.stop()));
    // A service that never became ready may still have made its stream and buckets.
    for (const prefix of prefixes.splice(0)) await removeBus(natsUrl(), prefix);
  });
  return {
    async start(options) {
      const prefix = `e2e-${options.name}-${randomBytes(3).toString("hex")}`;
      prefixes.push(prefix);
      const byEnvironment = options.prefixFrom === "environment";
      const dir = scratchDir(`serve-${options.name}`);
      const signed = options.signed !== false && !(options.args ?? []).some((arg) => arg.startsWith("--signing-key"));
      const service = await startServe(options.cli ?? compiledStagewatch().cli, {
        kubeconfigPath: options.kubeconfigPath ?? kubeconfigPath(),
        natsUrl: natsUrl(),
        dir,
        args: [...(byEnvironment ? [] : [`--subject-prefix=${prefix}`]), ...(signed ? [`--signing-key=${e2eSigningKeyFile()}`] : []), ...(options.args ?? [])],
        env: { ...(byEnvironment && { STAGEWATCH_SUBJECT_PREFIX: prefix }), ...options.env },
      });
      started.push(service);
      return { ...service, prefix, names: busNames(prefix), dir };
    },
  };
}
