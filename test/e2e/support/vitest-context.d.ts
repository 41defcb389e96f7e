// What the e2e project's global setup hands to the tests (vitest `provide` / `inject`).
import "vitest";
import type { CompiledTree } from "../../cluster/stagewatch.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Admin kubeconfig of the cluster under test. */
    kubeconfigPath: string;
    /** nats:// URL of a server with JetStream. */
    natsUrl: string;
    /** stagewatch compiled once for the run (`cli` is its dist/cli.js), with examples/ beside dist/. */
    stagewatch: CompiledTree;
  }
}
