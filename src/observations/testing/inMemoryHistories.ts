// The deployment histories the engine reads and appends to, in memory, with the bucket's rules
// (bounded, an observation counted once): what the KV bucket holds, without NATS.
import type { DeploymentHistories } from "../../bus/index.js";
import { appendToHistory, emptyHistory, type DeploymentHistory } from "../../verdicts/index.js";

export class InMemoryHistories implements DeploymentHistories {
  readonly byDeployment = new Map<string, DeploymentHistory>();

  async read(deployment: string): Promise<DeploymentHistory> {
    return this.byDeployment.get(deployment) ?? emptyHistory;
  }

  async append(deployment: string, entry: Parameters<DeploymentHistories["append"]>[1]): Promise<DeploymentHistory> {
    const next = appendToHistory(await this.read(deployment), entry);
    this.byDeployment.set(deployment, next);
    return next;
  }
}
