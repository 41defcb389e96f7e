// The deployment histories the engine reads and appends to, in memory, with the bucket's rules
// (bounded, an observation counted once): what the KV bucket holds, without NATS.
import { historyKey, type DeploymentHistories } from "../../bus/index.js";
import { appendToHistory, emptyHistory, type DeploymentHistory } from "../../verdicts/index.js";

export class InMemoryHistories implements DeploymentHistories {
  /** By the bucket's key (historyKey). */
  readonly byKey = new Map<string, DeploymentHistory>();

  async read(deployment: string, tenant: string | undefined): Promise<DeploymentHistory> {
    return this.byKey.get(historyKey(deployment, tenant)) ?? emptyHistory;
  }

  async append(deployment: string, tenant: string | undefined, entry: Parameters<DeploymentHistories["append"]>[2]): Promise<DeploymentHistory> {
    const next = appendToHistory(await this.read(deployment, tenant), entry);
    this.byKey.set(historyKey(deployment, tenant), next);
    return next;
  }
}
