// Kubernetes objects as stagewatch keeps them: the JSON field names and shapes the API server
// writes (timestamps as RFC 3339 strings), cut down to what the verdict rules read. Informer
// caches hold these, not the full objects: a parsed pod is ~6.8 KB of heap, a stripped one ~0.8 KB,
// and observers watch clusters of 10,000s of pods. Fixtures in tests are literal API JSON.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  /** Only the annotations a rule reads (deployment.kubernetes.io/revision); the rest are dropped. */
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown" | string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** Any object: identity plus whatever status it carries (generic rule input). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown> & { observedGeneration?: number; conditions?: Condition[] };
}

export interface Deployment extends KubeObject {
  kind: "Deployment";
  spec?: { replicas?: number; paused?: boolean; progressDeadlineSeconds?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    terminatingReplicas?: number;
    conditions?: Condition[];
  };
}

export interface ReplicaSet extends KubeObject {
  kind: "ReplicaSet";
  spec?: { replicas?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    terminatingReplicas?: number;
    conditions?: Condition[];
  };
}

export interface StatefulSet extends KubeObject {
  kind: "StatefulSet";
  spec?: {
    replicas?: number;
    updateStrategy?: { type?: "RollingUpdate" | "OnDelete" | string; rollingUpdate?: { partition?: number } };
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    currentReplicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
    conditions?: Condition[];
  };
}

export interface DaemonSet extends KubeObject {
  kind: "DaemonSet";
  spec?: { updateStrategy?: { type?: "RollingUpdate" | "OnDelete" | string } };
  status?: {
    observedGeneration?: number;
    desiredNumberScheduled?: number;
    currentNumberScheduled?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
    numberReady?: number;
    numberUnavailable?: number;
    conditions?: Condition[];
  };
}

export interface Job extends KubeObject {
  kind: "Job";
  spec?: {
    suspend?: boolean;
    completions?: number;
    parallelism?: number;
    backoffLimit?: number;
    ttlSecondsAfterFinished?: number;
  };
  status?: {
    active?: number;
    succeeded?: number;
    failed?: number;
    ready?: number;
    terminating?: number;
    startTime?: string;
    completionTime?: string;
    /** UIDs of finished pods not yet added to `succeeded` / `failed` (see settleJob). */
    uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
    conditions?: Condition[];
  };
}

export interface CronJob extends KubeObject {
  kind: "CronJob";
  spec?: { schedule?: string; suspend?: boolean };
}

export interface Service extends KubeObject {
  kind: "Service";
  spec?: { type?: "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName" | string };
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] }; conditions?: Condition[] };
}

export interface PersistentVolumeClaim extends KubeObject {
  kind: "PersistentVolumeClaim";
  spec?: { volumeName?: string };
  status?: { phase?: "Pending" | "Bound" | "Lost" | string; conditions?: Condition[] };
}

export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode: number; reason?: string; message?: string; finishedAt?: string };
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  /** The image the kubelet runs, by digest (`registry/app@sha256:...`): evidence of what ran. */
  imageID?: string;
  restartCount: number;
  started?: boolean;
  state?: ContainerState;
  lastState?: ContainerState;
}

export interface Pod extends KubeObject {
  kind: "Pod";
  /**
   * Only container names survive stripping (rules name containers, never read images or env), the
   * claims the pod mounts (the warnings about them are the pod's: a claim that cannot be
   * provisioned keeps it unplaced), and the node of a pod that failed there (an eviction names it).
   */
  spec?: {
    nodeName?: string;
    containers?: { name: string }[];
    initContainers?: { name: string }[];
    /** Stripped to the claims: other volume sources are not kept. */
    volumes?: { persistentVolumeClaim?: { claimName: string } }[];
  };
  status?: {
    phase?: "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown" | string;
    reason?: string;
    message?: string;
    conditions?: Condition[];
    initContainerStatuses?: ContainerStatus[];
    containerStatuses?: ContainerStatus[];
  };
}

export const revisionAnnotation = "deployment.kubernetes.io/revision";
