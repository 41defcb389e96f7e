// Exit codes of `stagewatch observe` (SPEC section 9), shared by every command so a CI script can
// tell "your deploy failed" (1) from "you called me wrong" (2) from "nobody is listening" (3).
export const exitCodes = {
  reached: 0,
  failed: 1,
  badInput: 2,
  unavailable: 3,
} as const;

export class UsageError extends Error {
  override name = "UsageError";
}

export const overview = `stagewatch: observe Kubernetes deployments and publish stage verdicts on NATS

Usage:
  stagewatch serve [flags]       run the observer service
  stagewatch observe [flags]     observe applied manifests (through the service, or in this
                                 process when no NATS is configured), print the verdict
  stagewatch list                the observations in progress, with the replica that owns each
  stagewatch get ID              an observation: stages, outcome, budget left, one row per resource
  stagewatch cancel ID           cancel an observation in progress
  stagewatch verify FILE         check a verdict kept as evidence against the service's public key
  stagewatch keys create FILE    make the key pair the service signs verdicts with
  stagewatch health [KIND]       the health library: the custom kinds judged out of the box
  stagewatch reasons             the reasons a rollout waits on: which fail by default, the grace
                                 to give the others in --fail-on, what heals each
  stagewatch demo                local control plane, NATS, the service and three sample deployments

Run 'stagewatch <command> --help' for a command's flags.
`;
