/**
 * Regenerates test/fixtures/kube/captured/*.json: objects of the kinds with rules of their own, in
 * their healthy, progressing and failed states, as the local cluster's API server and controllers
 * write them. Run against a fresh local cluster:
 *   npm run cluster:up && set -a && . .stagewatch/local/env && set +a
 *   node test/cluster/capture-fixtures.ts && npm run cluster:down
 * Each file is one object, unedited but for managedFields (dropped: long, and no rule reads them).
 * States the local cluster cannot produce on its own are produced through the real API as the
 * missing controller would: a load balancer's address written to a Service's status, a custom
 * resource's status written as its operator would.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FAULT_LABEL, Fault } from "./faults.ts";
import { kubeJson, loadKubeConfig, type Json } from "./kubeJson.ts";

const outDir = fileURLToPath(new URL("../fixtures/kube/captured/", import.meta.url));
const kubeconfig = process.env.KUBECONFIG;
if (!kubeconfig) {
  process.stderr.write("KUBECONFIG must name the local cluster's kubeconfig (see the header of this file)\n");
  process.exit(2);
}
const kc = loadKubeConfig(kubeconfig);
const api = (method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown) => kubeJson(kc, method, path, body);
const ns = "capture";
const group = "capture.stagewatch.io";

function save(name: string, object: Json): void {
  const { managedFields: _dropped, ...metadata } = object.metadata as Json;
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify({ ...object, metadata }, null, 2)}\n`);
  process.stdout.write(`${name}\n`);
}

async function until(what: string, read: () => Promise<Json>, holds: (object: Json) => boolean, timeoutMs = 60_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const object = await read();
    if (holds(object)) return object;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(object.status)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const status = (object: Json) => (object.status ?? {}) as Json;
const conditionOf = (object: Json, type: string) =>
  ((status(object).conditions ?? []) as Json[]).find((c) => c.type === type) as Json | undefined;

function podSpec(app: string, fault?: Fault) {
  return {
    metadata: { labels: { app, ...(fault && { [FAULT_LABEL]: fault }) } },
    spec: { containers: [{ name: app, image: `registry.example/${app}:1` }] },
  };
}

async function replicaSets(): Promise<void> {
  const base = `/apis/apps/v1/namespaces/${ns}/replicasets`;
  const rs = (name: string, replicas: number, fault?: Fault) => ({
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name, namespace: ns, labels: { app: name } },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: podSpec(name, fault) },
  });
  save("replicaset-new", await api("POST", base, rs("queue", 2)));
  save("replicaset-ready", await until("queue ready", () => api("GET", `${base}/queue`), (o) => status(o).readyReplicas === 2 && status(o).availableReplicas === 2));
  await api("POST", base, rs("broker", 2, Fault.ImagePullBackOff));
  save("replicaset-imagepullbackoff", await until("broker pods", () => api("GET", `${base}/broker`), (o) => status(o).replicas === 2 && status(o).observedGeneration === 1));
  const pods = await until("broker pods in ImagePullBackOff", () => api("GET", `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dbroker`), (list) =>
    ((list.items ?? []) as Json[]).some((pod) => JSON.stringify(pod.status).includes("ImagePullBackOff")),
  );
  // List items carry no apiVersion and kind of their own.
  const stuck = (pods.items as Json[]).find((pod) => JSON.stringify(pod.status).includes("ImagePullBackOff"))!;
  save("pod-of-replicaset-imagepullbackoff", { apiVersion: "v1", kind: "Pod", ...stuck });

  await api("POST", `/api/v1/namespaces/${ns}/resourcequotas`, { metadata: { name: "pods" }, spec: { hard: { pods: "4" } } });
  await until("quota counted", () => api("GET", `/api/v1/namespaces/${ns}/resourcequotas/pods`), (o) => status(o).used !== undefined);
  await api("POST", base, rs("worker", 3));
  save("replicaset-replicafailure", await until("worker FailedCreate", () => api("GET", `${base}/worker`), (o) => conditionOf(o, "ReplicaFailure")?.status === "True"));
  await api("PATCH", `${base}/queue`, { spec: { replicas: 1 } });
  save("replicaset-scaled-generation-not-observed", await api("GET", `${base}/queue`));
}

async function cronJobs(): Promise<void> {
  const base = `/apis/batch/v1/namespaces/${ns}/cronjobs`;
  const cronJob = (name: string, suspend: boolean) => ({
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name, namespace: ns },
    spec: {
      schedule: "0 3 * * *",
      suspend,
      jobTemplate: { spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: name, image: `registry.example/${name}:1` }] } } } },
    },
  });
  await api("POST", base, cronJob("nightly-report", false));
  await api("POST", base, cronJob("cleanup", true));
  // The controller has seen them once it requeued them for their next schedule; nothing is written.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  save("cronjob-new", await api("GET", `${base}/nightly-report`));
  save("cronjob-suspended", await api("GET", `${base}/cleanup`));
}

function crd(plural: string, kind: string, options: { shortNames?: string[] } = {}) {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, ...(options.shortNames && { shortNames: options.shortNames }) },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  };
}

async function customResourceDefinitions(): Promise<void> {
  const base = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  save("crd-created", await api("POST", base, crd("gadgets", "Gadget")));
  save("crd-established", await until("gadgets established", () => api("GET", `${base}/gadgets.${group}`), (o) => conditionOf(o, "Established")?.status === "True"));
  // Same kind under another plural in the group: the naming controller refuses it.
  await api("POST", base, crd("gizmos", "Gadget"));
  save("crd-names-not-accepted", await until("gizmos refused", () => api("GET", `${base}/gizmos.${group}`), (o) => conditionOf(o, "NamesAccepted")?.status === "False"));

  // A custom resource whose operator writes nested status only.
  const gadgets = `/apis/${group}/v1/namespaces/${ns}/gadgets`;
  await until("gadgets served", () => api("GET", gadgets), () => true);
  const created = await api("POST", gadgets, { apiVersion: `${group}/v1`, kind: "Gadget", metadata: { name: "press", namespace: ns }, spec: { size: 3 } });
  save("cr-no-status", created);
  save(
    "cr-nested-status",
    await api("PUT", `${gadgets}/press/status`, {
      ...created,
      status: { health: { status: "Healthy", lastProbeTime: "2026-12-01T10:30:00Z" }, nodes: [{ name: "press-0", role: "primary" }, { name: "press-1", role: "replica" }] },
    }),
  );
}

async function apiServices(): Promise<void> {
  const base = "/apis/apiregistration.k8s.io/v1/apiservices";
  save("apiservice-local", await api("GET", `${base}/v1.apps`));
  await api("POST", `/api/v1/namespaces/${ns}/services`, {
    metadata: { name: "metrics-api", namespace: ns },
    spec: { selector: { app: "metrics-api" }, ports: [{ name: "https", port: 443, targetPort: 6443 }] },
  });
  const apiService = (version: string, service: string) => ({
    apiVersion: "apiregistration.k8s.io/v1",
    kind: "APIService",
    metadata: { name: `${version}.metrics.${group}` },
    spec: { group: `metrics.${group}`, version, service: { namespace: ns, name: service, port: 443 }, groupPriorityMinimum: 100, versionPriority: 100, insecureSkipTLSVerify: true },
  });
  await api("POST", base, apiService("v1beta1", "metrics-api"));
  save(
    "apiservice-missing-endpoints",
    await until("MissingEndpoints", () => api("GET", `${base}/v1beta1.metrics.${group}`), (o) => conditionOf(o, "Available")?.reason === "MissingEndpoints"),
  );
  await api("POST", base, apiService("v1", "no-such-service"));
  save(
    "apiservice-service-not-found",
    await until("ServiceNotFound", () => api("GET", `${base}/v1.metrics.${group}`), (o) => conditionOf(o, "Available")?.status === "False"),
  );
  // Aggregated group versions nobody serves make discovery partial for every client: remove them.
  await api("DELETE", `${base}/v1beta1.metrics.${group}`);
  await api("DELETE", `${base}/v1.metrics.${group}`);
}

async function services(): Promise<void> {
  const base = `/api/v1/namespaces/${ns}/services`;
  await api("POST", base, { metadata: { name: "api", namespace: ns }, spec: { selector: { app: "api" }, ports: [{ port: 80, targetPort: 8080 }] } });
  save("service-clusterip", await api("GET", `${base}/api`));
  const lb = await api("POST", base, { metadata: { name: "edge", namespace: ns }, spec: { type: "LoadBalancer", selector: { app: "edge" }, ports: [{ port: 443, targetPort: 8443 }] } });
  save("service-loadbalancer-pending", lb);
  // What a cloud's service controller writes once the load balancer is provisioned.
  save("service-loadbalancer-ready", await api("PUT", `${base}/edge/status`, { ...lb, status: { loadBalancer: { ingress: [{ ip: "203.0.113.10", ipMode: "VIP" }] } } }));
}

async function volumes(): Promise<void> {
  const claims = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
  const claim = (name: string, storageClassName: string) => ({
    metadata: { name, namespace: ns },
    spec: { storageClassName, accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  });
  await api("POST", "/api/v1/persistentvolumes", {
    metadata: { name: "data-0" },
    spec: { storageClassName: "manual", capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/srv/data-0" } },
  });
  save("pv-available", await until("data-0 available", () => api("GET", "/api/v1/persistentvolumes/data-0"), (o) => status(o).phase === "Available"));
  await api("POST", claims, claim("data", "manual"));
  save("pvc-bound", await until("data bound", () => api("GET", `${claims}/data`), (o) => status(o).phase === "Bound"));
  save("pv-bound", await until("data-0 bound", () => api("GET", "/api/v1/persistentvolumes/data-0"), (o) => status(o).phase === "Bound"));
  await api("POST", claims, claim("scratch", "no-such-class"));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  save("pvc-pending", await api("GET", `${claims}/scratch`));
  // Deleting the claim releases a Retain volume (the default for hand-made PVs).
  await api("DELETE", `${claims}/data`);
  save("pv-released", await until("data-0 released", () => api("GET", "/api/v1/persistentvolumes/data-0"), (o) => status(o).phase === "Released"));
}

async function noStatusKinds(): Promise<void> {
  save(
    "csidriver",
    await api("POST", "/apis/storage.k8s.io/v1/csidrivers", { metadata: { name: `disk.${group}` }, spec: { attachRequired: false, podInfoOnMount: true } }),
  );
  save("runtimeclass", await api("POST", "/apis/node.k8s.io/v1/runtimeclasses", { metadata: { name: "gvisor" }, handler: "runsc" }));
}

async function certificateSigningRequests(): Promise<void> {
  const base = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
  const request = (name: string) => {
    const pem = execFileSync("openssl", ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "/dev/null", "-subj", `/CN=${name}`]);
    return {
      apiVersion: "certificates.k8s.io/v1",
      kind: "CertificateSigningRequest",
      metadata: { name },
      spec: { request: pem.toString("base64"), signerName: "kubernetes.io/kube-apiserver-client", usages: ["client auth"], expirationSeconds: 86400 },
    };
  };
  const decide = async (name: string, type: "Approved" | "Denied", reason: string, message: string) => {
    const created = await api("GET", `${base}/${name}`);
    const conditions = [{ type, status: "True", reason, message }];
    return api("PUT", `${base}/${name}/approval`, { ...created, status: { conditions } });
  };
  save("csr-pending", await api("POST", base, request("capture-reporter")));
  await api("POST", base, request("capture-auditor"));
  // No signer runs on the local cluster: approved is as far as it gets there.
  save("csr-approved-not-issued", await decide("capture-reporter", "Approved", "CaptureApproved", "approved for the fixture corpus"));
  save("csr-denied", await decide("capture-auditor", "Denied", "CaptureDenied", "not a client this cluster trusts"));
}

/** The workload kinds too, so the stripped-versus-full property test runs on what controllers write. */
async function workloads(): Promise<void> {
  // A namespace of their own: the ReplicaSet captures put a pod quota on theirs.
  const ns = "capture-workloads";
  await api("POST", "/api/v1/namespaces", { metadata: { name: ns } });
  await until("default ServiceAccount", () => api("GET", `/api/v1/namespaces/${ns}/serviceaccounts`), (list) => ((list.items ?? []) as Json[]).length > 0);
  const apps = `/apis/apps/v1/namespaces/${ns}`;
  const selector = (app: string) => ({ matchLabels: { app } });
  const podsOf = async (app: string) => ((await api("GET", `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`)).items ?? []) as Json[];
  const savePod = async (name: string, app: string, holds: (pod: Json) => boolean) => {
    const pods = await until(`a pod of ${app}`, async () => ({ items: await podsOf(app) }), (list) => (list.items as Json[]).some(holds));
    save(name, { apiVersion: "v1", kind: "Pod", ...(pods.items as Json[]).find(holds)! });
  };

  await api("POST", `${apps}/deployments`, { metadata: { name: "web", namespace: ns }, spec: { replicas: 2, selector: selector("web"), template: podSpec("web") } });
  save("deployment-ready", await until("web rolled out", () => api("GET", `${apps}/deployments/web`), (o) => status(o).readyReplicas === 2 && status(o).updatedReplicas === 2));
  await savePod("pod-running", "web", (pod) => status(pod).phase === "Running");
  await api("POST", `${apps}/deployments`, { metadata: { name: "search", namespace: ns }, spec: { replicas: 2, selector: selector("search"), template: podSpec("search", Fault.ImagePullBackOff) } });
  save("deployment-imagepullbackoff", await until("search progressing", () => api("GET", `${apps}/deployments/search`), (o) => status(o).updatedReplicas === 2));
  await savePod("pod-imagepullbackoff", "search", (pod) => JSON.stringify(pod.status).includes("ImagePullBackOff"));

  await api("POST", `${apps}/statefulsets`, { metadata: { name: "db", namespace: ns }, spec: { replicas: 2, serviceName: "db", selector: selector("db"), template: podSpec("db") } });
  save("statefulset-ready", await until("db ready", () => api("GET", `${apps}/statefulsets/db`), (o) => status(o).readyReplicas === 2 && status(o).currentRevision === status(o).updateRevision));
  await api("POST", `${apps}/daemonsets`, { metadata: { name: "agent", namespace: ns }, spec: { selector: selector("agent"), template: podSpec("agent") } });
  save("daemonset-ready", await until("agent on every node", () => api("GET", `${apps}/daemonsets/agent`), (o) => (status(o).numberReady as number) > 0 && status(o).numberReady === status(o).desiredNumberScheduled));
  await api("POST", `${apps}/daemonsets`, { metadata: { name: "shipper", namespace: ns }, spec: { selector: selector("shipper"), template: podSpec("shipper", Fault.CrashLoopBackOff) } });
  save("daemonset-crashloopbackoff", await until("shipper scheduled", () => api("GET", `${apps}/daemonsets/shipper`), (o) => (status(o).desiredNumberScheduled as number) > 0 && status(o).currentNumberScheduled === status(o).desiredNumberScheduled));
  await savePod("pod-crashloopbackoff", "shipper", (pod) => JSON.stringify(pod.status).includes("CrashLoopBackOff"));

  const jobs = `/apis/batch/v1/namespaces/${ns}/jobs`;
  const job = (name: string, fault?: Fault) => ({
    metadata: { name, namespace: ns },
    spec: { backoffLimit: 0, template: { metadata: { labels: { app: name, ...(fault && { [FAULT_LABEL]: fault }) } }, spec: { restartPolicy: "Never", containers: [{ name, image: `registry.example/${name}:1` }] } } },
  });
  await api("POST", jobs, job("migrate"));
  save("job-complete", await until("migrate complete", () => api("GET", `${jobs}/migrate`), (o) => conditionOf(o, "Complete")?.status === "True"));
  await api("POST", jobs, job("seed", Fault.Error));
  save("job-failed", await until("seed failed", () => api("GET", `${jobs}/seed`), (o) => conditionOf(o, "Failed")?.status === "True"));
  await savePod("pod-failed", "seed", (pod) => status(pod).phase === "Failed");
}

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await api("POST", "/api/v1/namespaces", { metadata: { name: ns } }).catch(() => undefined);
  await until("default ServiceAccount", () => api("GET", `/api/v1/namespaces/${ns}/serviceaccounts`), (list) => ((list.items ?? []) as Json[]).length > 0);
  process.stdout.write(`capturing into ${outDir} (run ${randomBytes(3).toString("hex")})\n`);
  await cronJobs();
  await customResourceDefinitions();
  await apiServices();
  await services();
  await volumes();
  await noStatusKinds();
  await certificateSigningRequests();
  await replicaSets();
  await workloads();
}

await main();
