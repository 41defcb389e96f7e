/**
 * Faults the local cluster's kwok "kubelet" plays on request.
 *
 * A pod (usually through its workload's pod template) asks for a fault with the label
 * `stagewatch.io/fault: <Fault>`. kwok then writes the status a real kubelet writes for that
 * failure, through the real API, and never makes the pod Ready: the default stages select only
 * pods without the label, so they cannot overwrite a fault.
 *
 * | value              | what the pod shows                                                          |
 * |--------------------|-----------------------------------------------------------------------------|
 * | `ImagePullBackOff` | Pending; every container waiting, reason ImagePullBackOff                   |
 * | `InvalidImageName` | Pending; every container waiting, reason InvalidImageName                   |
 * | `CrashLoopBackOff` | Running, not ready; waiting CrashLoopBackOff, restartCount 5, lastState Error |
 * | `Error`            | Failed; every container terminated, reason Error, exit code and termination message from the annotations below (a Job with `backoffLimit: 0` then fails with BackoffLimitExceeded) |
 * | `NeverReady`       | Running; containers running but not ready, Ready=False (ContainersNotReady) |
 * | `Scripted`         | nothing: kwok writes no status, the test writes it through `/status` as the kubelet would (a crash loop's restarts, one by one) |
 *
 * `Error` is for pods with `restartPolicy: Never` (Jobs, bare pods): a kubelet never fails a pod
 * that restarts its containers, and a ReplicaSet replaces failed pods without end. A Deployment's
 * crashing container is `CrashLoopBackOff`.
 */
export const FAULT_LABEL = "stagewatch.io/fault";

/** Termination message of the `Error` fault's containers (default "stagewatch: simulated failure"). */
export const TERMINATION_MESSAGE_ANNOTATION = "stagewatch.io/termination-message";

/** Exit code of the `Error` fault's containers (default 1). */
export const EXIT_CODE_ANNOTATION = "stagewatch.io/exit-code";

export const Fault = {
  ImagePullBackOff: "ImagePullBackOff",
  InvalidImageName: "InvalidImageName",
  CrashLoopBackOff: "CrashLoopBackOff",
  Error: "Error",
  NeverReady: "NeverReady",
  Scripted: "Scripted",
} as const;

export type Fault = (typeof Fault)[keyof typeof Fault];

export const DEFAULT_TERMINATION_MESSAGE = "stagewatch: simulated failure";

/** Annotation selecting the Nodes this harness's kwok manages (and nothing else in a shared cluster). */
export const KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node";
export const KWOK_NODE_ANNOTATION_VALUE = "fake";
