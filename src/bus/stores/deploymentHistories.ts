// Each deployment's recent observations in a JetStream KV bucket of their own (`<prefix>-history`):
// one key a deployment, holding its last 50 (verdicts/history/history.ts), appended with compare-and-swap
// so two replicas deciding two observations of one deployment at once both land.
//
// The history is advice (an expectation, the `--stall auto` threshold), never part of a verdict's
// correctness: a history that cannot be read is an empty one, and an append that cannot be stored
// is logged by the caller and dropped. Appending the same observation twice (a verdict republished
// after a crash) counts it once.
import type { JetStreamClient } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { appendToHistory, DeploymentHistory, emptyHistory, type HistoryEntry } from "../../verdicts/index.js";
import { parseWith } from "../../verdicts/contract/validation.js";
import { isCompareAndSwapConflict, openKvBucket, type KvBucketOptions } from "./kvBuckets.js";
import { busNames, defaultSubjectPrefix } from "../subjects.js";

/** `tenant`: whose deployment (a tenants file's account); two teams' `api` are two histories. */
export interface DeploymentHistories {
  read(deployment: string, tenant: string | undefined): Promise<DeploymentHistory>;
  /** Resolves with the history as stored after the append. */
  append(deployment: string, tenant: string | undefined, entry: HistoryEntry): Promise<DeploymentHistory>;
}

/**
 * The KV key of a deployment's history, the one place it is built: `deployments.<deployment>`, and
 * with a tenant `tenants.<tenant>.<deployment>` (both are subject tokens already), so one team's
 * rollouts never set another's expectation.
 */
export function historyKey(deployment: string, tenant: string | undefined): string {
  return tenant === undefined ? `deployments.${deployment}` : `tenants.${tenant}.${deployment}`;
}

/** A history outlives the observations it counts: a deployment rolled out monthly still has one. */
export const historyTtlMs = 90 * 24 * 3_600_000;

const appendRounds = 5;

export class HistoryContendedError extends Error {
  override readonly name = "HistoryContendedError";
}

export async function openDeploymentHistories(js: JetStreamClient, options: KvBucketOptions & { prefix?: string } = {}): Promise<DeploymentHistories> {
  const kv = await openKvBucket(js, busNames(options.prefix ?? defaultSubjectPrefix).historyBucket, { ttlMs: historyTtlMs, ...options });
  return deploymentHistoriesIn(kv);
}

export function deploymentHistoriesIn(kv: KV): DeploymentHistories {
  const readStored = async (key: string): Promise<{ history: DeploymentHistory; revision: number }> => {
    const entry = await kv.get(key);
    if (entry === null || entry.operation !== "PUT") return { history: emptyHistory, revision: 0 };
    let json: unknown;
    try {
      json = JSON.parse(entry.string());
    } catch {
      json = undefined;
    }
    const parsed = parseWith(DeploymentHistory, json);
    // A history this version cannot read starts over (the next append replaces it): it is advice.
    return { history: parsed.ok ? parsed.value : emptyHistory, revision: entry.revision };
  };

  return {
    read: async (deployment, tenant) => (await readStored(historyKey(deployment, tenant))).history,

    async append(deployment, tenant, entry) {
      const key = historyKey(deployment, tenant);
      for (let round = 0; round < appendRounds; round++) {
        const { history, revision } = await readStored(key);
        const next = appendToHistory(history, entry);
        if (next === history) return history;
        try {
          if (revision === 0) await kv.create(key, JSON.stringify(next));
          else await kv.update(key, JSON.stringify(next), revision);
          return next;
        } catch (error) {
          if (!isCompareAndSwapConflict(error)) throw error;
        }
      }
      throw new HistoryContendedError(`history of deployment ${deployment} kept changing; observation ${entry.observationId} not added`);
    },
  };
}
