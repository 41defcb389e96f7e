// What the e2e project's global setup hands to the tests (vitest `provide` / `inject`).
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin kubeconfig of the cluster under test. */
    kubeconfigPath: string;
    /** nats:// URL of a server with JetStream. */
    natsUrl: string;
  }
}
