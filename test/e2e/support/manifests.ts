/**
 * The objects the observe e2e tests apply, written as a chart would render them: workloads whose
 * pod templates may ask kwok for a fault (FAULT_LABEL), Jobs that complete or fail with a
 * termination message, ConfigMaps. Each builder returns the manifest and the identity an apply
 * tool would send for it.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import type { ResourceIdentity } from "../../../src/verdicts/contract/schemas.js";
import { FAULT_LABEL, TERMINATION_MESSAGE_ANNOTATION, type Fault } from "./cluster.js";

/** A manifest as the tests write it: identity fields required, the body free-form. */
export type Manifest = KubernetesObject & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
};

export interface Declared {
  manifest: Manifest;
  identity: ResourceIdentity;
}

function declared(manifest: Manifest): Declared {
  const { apiVersion, kind, metadata } = manifest;
  return { manifest, identity: { apiVersion, kind, ...(metadata.namespace && { namespace: metadata.namespace }), name: metadata.name } };
}

export interface PodTemplateOptions {
  /** The fault kwok plays for every pod of this template. */
  fault?: Fault;
  /** Default `registry.example/<app>:1`; kwok pulls nothing, the image only changes the template. */
  image?: string;
  /** The container's CPU request and limit (`2`, `500m`): what the scheduler fits and a ResourceQuota counts. */
  cpu?: string;
  /** Taints the pods tolerate (NoSchedule), to land on a node the test made for them alone. */
  tolerates?: readonly string[];
  /** Node labels the pods require (spec.nodeSelector). */
  nodeSelector?: Record<string, string>;
  /** PersistentVolumeClaims the pods mount, each at /data/<claim>. */
  claims?: readonly string[];
}

function podTemplate(app: string, options: PodTemplateOptions, annotations?: Record<string, string>) {
  return {
    metadata: {
      labels: { app, ...(options.fault && { [FAULT_LABEL]: options.fault }) },
      ...(annotations && { annotations }),
    },
    spec: {
      containers: [
        {
          name: app,
          image: options.image ?? `registry.example/${app}:1`,
          ...(options.cpu !== undefined && { resources: { requests: { cpu: options.cpu }, limits: { cpu: options.cpu } } }),
          ...(options.claims && { volumeMounts: options.claims.map((claim) => ({ name: claim, mountPath: `/data/${claim}` })) }),
        },
      ],
      ...(options.tolerates && { tolerations: options.tolerates.map((key) => ({ key, operator: "Exists", effect: "NoSchedule" })) }),
      ...(options.nodeSelector && { nodeSelector: options.nodeSelector }),
      ...(options.claims && { volumes: options.claims.map((claim) => ({ name: claim, persistentVolumeClaim: { claimName: claim } })) }),
    },
  };
}

export interface WorkloadOptions extends PodTemplateOptions {
  namespace: string;
  name: string;
  /** The `app` label selecting its pods; defaults to the name. Two workloads may share it. */
  app?: string;
  replicas?: number;
}

export function deployment(options: WorkloadOptions & { progressDeadlineSeconds?: number }): Declared {
  const app = options.app ?? options.name;
  return declared({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: options.name, namespace: options.namespace },
    spec: {
      replicas: options.replicas ?? 2,
      ...(options.progressDeadlineSeconds !== undefined && { progressDeadlineSeconds: options.progressDeadlineSeconds }),
      selector: { matchLabels: { app } },
      template: podTemplate(app, options),
    },
  });
}

export function statefulSet(options: WorkloadOptions): Declared {
  const app = options.app ?? options.name;
  return declared({
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: options.name, namespace: options.namespace },
    spec: {
      replicas: options.replicas ?? 3,
      serviceName: options.name,
      selector: { matchLabels: { app } },
      template: podTemplate(app, options),
    },
  });
}

export function daemonSet(options: Omit<WorkloadOptions, "replicas">): Declared {
  const app = options.app ?? options.name;
  return declared({
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: options.name, namespace: options.namespace },
    spec: { selector: { matchLabels: { app } }, template: podTemplate(app, options) },
  });
}

export interface JobOptions {
  namespace: string;
  name: string;
  /** Marked by the `stagewatch.io/bootstrap` label (the request may also say `bootstrap: true`). */
  bootstrapLabel?: boolean;
  /** `Error` makes its pod fail with `terminationMessage`; with backoffLimit 0 the Job fails. */
  fault?: Fault;
  terminationMessage?: string;
  ttlSecondsAfterFinished?: number;
}

export function job(options: JobOptions): Declared {
  const annotations = options.terminationMessage === undefined ? undefined : { [TERMINATION_MESSAGE_ANNOTATION]: options.terminationMessage };
  const template = podTemplate(options.name, { ...(options.fault && { fault: options.fault }) }, annotations);
  return declared({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: options.name,
      namespace: options.namespace,
      ...(options.bootstrapLabel && { labels: { "stagewatch.io/bootstrap": "true" } }),
    },
    spec: {
      backoffLimit: 0,
      ...(options.ttlSecondsAfterFinished !== undefined && { ttlSecondsAfterFinished: options.ttlSecondsAfterFinished }),
      template: { ...template, spec: { ...template.spec, restartPolicy: "Never" } },
    },
  });
}

export function configMap(namespace: string, name: string): Declared {
  return declared({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data: { LOG_LEVEL: "info" } });
}
