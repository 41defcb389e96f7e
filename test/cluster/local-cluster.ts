/**
 * A real Kubernetes control plane and a real NATS server on loopback ports, started from binaries
 * built out of the published Go modules: etcd, kube-apiserver, kube-controller-manager,
 * kube-scheduler, kwok (playing the kubelet for a few fake Nodes) and nats-server with JetStream.
 *
 * Everything lives in one state directory: certificates, tokens, kubeconfigs, data, logs
 * (`logs/<component>.log`) and the pidfile. A start first stops whatever an earlier run left
 * recorded there and wipes the directory, so each start is a fresh, empty cluster.
 *
 * Authentication is by static bearer tokens, authorization is RBAC: the admin kubeconfig is in
 * `system:masters`, and tests that need a narrower identity create ServiceAccounts as on any cluster.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildOrReuseBinaries, type Binaries } from "./binaries.ts";
import { KWOK_NODE_ANNOTATION, KWOK_NODE_ANNOTATION_VALUE } from "./faults.ts";
import { kwokNode } from "./kwokNode.ts";
import { kwokStagesYaml } from "./kwok-stages.ts";
import { createPki, SERVICE_CLUSTER_IP_RANGE, type Pki } from "./pki.ts";
import { freePorts, http, waitFor } from "./probes.ts";
import { isRunning, logTail, readPidfile, startProcess, stopRecorded, type StartedProcess } from "./processes.ts";

export interface LocalClusterOptions {
  /** Where certificates, data, logs and the pidfile go; wiped on start. */
  stateDir: string;
  /** kwok Nodes to create (default 3). */
  nodes?: number;
  /**
   * Stop the cluster when this process exits or receives SIGINT, SIGTERM or SIGHUP (default true).
   * `cluster:up` turns it off to leave the cluster running after it exits.
   */
  stopOnExit?: boolean;
  /** Progress lines (default: stderr). */
  log?: (line: string) => void;
  /** Binaries to run instead of building or reusing them with build.sh. */
  binaries?: Binaries;
  /**
   * Client QPS of kube-controller-manager and kube-scheduler (`--kube-api-qps`, with twice as
   * much `--kube-api-burst`), and the controller manager's Deployment and ReplicaSet workers
   * (`--concurrent-*-syncs`, a tenth of it, at least 5). Default: theirs (20 QPS, 5 workers): a
   * ReplicaSet of the default controller manager creates about 14 pods a second, too slow to
   * reach thousands of pods (bench/cluster). kwok's own client is never rate-limited (it uses
   * a fake always-accepting rate limiter), and its stage parallelism is only settable through a
   * KwokConfiguration that must then spell out every default, so it stays kwok's.
   */
  clientQps?: number;
}

export interface LocalCluster {
  stateDir: string;
  /** Admin kubeconfig (bearer token in system:masters). */
  kubeconfigPath: string;
  apiServerUrl: string;
  natsUrl: string;
  kubernetesVersion: string;
  /**
   * Stops kube-apiserver (SIGTERM, waiting for it to exit) and starts it again with the same
   * arguments and port, resolving once /readyz answers: what clients see of an upgrade or a
   * control-plane node restart. Every watch open at that moment ends; the other components stay up.
   */
  restartApiServer(): Promise<void>;
  /** Stops every process of the cluster (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 120_000;

// Kept to what stagewatch observes and what those controllers need; no node lifecycle (kwok Nodes
// have no real kubelet), no cloud, attach/detach, certificate or autoscaling controllers. The
// volume binder binds claims to hand-made PersistentVolumes (no provisioner runs), and the
// protection controllers release the finalizers the API server puts on claims and volumes.
const CONTROLLERS = [
  "deployment-controller",
  "replicaset-controller",
  "statefulset-controller",
  "daemonset-controller",
  "job-controller",
  "cronjob-controller",
  "ttl-after-finished-controller",
  "garbage-collector-controller",
  "namespace-controller",
  "serviceaccount-controller",
  "serviceaccount-token-controller",
  "root-ca-certificate-publisher-controller",
  "clusterrole-aggregation-controller",
  "replicationcontroller-controller",
  "pod-garbage-collector-controller",
  "disruption-controller",
  "resourcequota-controller",
  "endpoints-controller",
  "endpointslice-controller",
  "persistentvolume-binder-controller",
  "persistentvolume-protection-controller",
  "persistentvolumeclaim-protection-controller",
];

interface Identity {
  user: string;
  groups: string[];
  token: string;
}

function identity(user: string, groups: string[]): Identity {
  return { user, groups, token: randomBytes(24).toString("hex") };
}

function writeKubeconfig(path: string, server: string, caCertFile: string, who: Identity): void {
  // JSON is YAML; every Kubernetes client reads it.
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: "stagewatch-local",
        cluster: {
          server,
          "certificate-authority-data": readFileSync(caCertFile).toString("base64"),
        },
      },
    ],
    users: [{ name: who.user, user: { token: who.token } }],
    contexts: [{ name: "stagewatch-local", context: { cluster: "stagewatch-local", user: who.user } }],
    "current-context": "stagewatch-local",
  };
  writeFileSync(path, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
}

function clientRateArgs(qps: number | undefined, controllerManager: boolean): string[] {
  if (qps === undefined) return [];
  const rate = [`--kube-api-qps=${qps}`, `--kube-api-burst=${qps * 2}`];
  if (!controllerManager) return rate;
  const workers = Math.max(5, Math.round(qps / 10));
  return [...rate, `--concurrent-deployment-syncs=${workers}`, `--concurrent-replicaset-syncs=${workers}`];
}

/** Stops the processes a cluster in `stateDir` recorded, whichever process started them. */
export function stopLocalCluster(stateDir: string): string[] {
  return stopRecorded(resolve(stateDir));
}

export async function startLocalCluster(options: LocalClusterOptions): Promise<LocalCluster> {
  const stateDir = resolve(options.stateDir);
  const log = options.log ?? ((line: string) => process.stderr.write(`stagewatch cluster: ${line}\n`));
  const binaries = options.binaries ?? buildOrReuseBinaries();

  const leftovers = readPidfile(stateDir).filter(isRunning);
  if (leftovers.length > 0) log(`stopping what an earlier run left running: ${leftovers.map((p) => p.name).join(", ")}`);
  stopLocalCluster(stateDir);
  rmSync(stateDir, { recursive: true, force: true });
  for (const dir of ["pki", "logs", "etcd", "nats", "certs"]) mkdirSync(join(stateDir, dir), { recursive: true });

  let stopped = false;
  const stopNow = () => {
    if (stopped) return;
    stopped = true;
    removeExitHandlers();
    stopRecorded(stateDir);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    stopNow();
    // With our listener gone, re-raising gives the signal its usual effect (or other listeners theirs).
    process.kill(process.pid, signal);
  };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  const removeExitHandlers = () => {
    process.off("exit", stopNow);
    for (const sig of signals) process.off(sig, onSignal);
  };
  process.on("exit", stopNow);
  for (const sig of signals) process.once(sig, onSignal);

  const abortIfExited = (proc: StartedProcess) => () =>
    proc.exit === undefined
      ? undefined
      : `${proc.name} exited (${proc.exit.code ?? proc.exit.signal}); last lines of ${proc.logFile}:\n${logTail(proc.logFile)}`;

  try {
    const pki = createPki(join(stateDir, "pki"));
    const ca = readFileSync(pki.caCertFile, "utf8");
    const [etcdPort, etcdPeerPort, apiPort, kcmPort, schedulerPort, kwokPort, natsPort, natsMonitorPort] =
      (await freePorts(8)) as [number, number, number, number, number, number, number, number];
    const apiServerUrl = `https://127.0.0.1:${apiPort}`;

    const admin = identity("stagewatch-admin", ["system:masters"]);
    // With --use-service-account-credentials=false every controller acts as the controller manager
    // itself, which needs the union of their permissions.
    const controllerManager = identity("system:kube-controller-manager", ["system:masters"]);
    const scheduler = identity("system:kube-scheduler", []);
    const kwok = identity("kwok", ["system:masters"]);
    const tokenFile = join(stateDir, "pki", "tokens.csv");
    writeFileSync(
      tokenFile,
      [admin, controllerManager, scheduler, kwok]
        .map((who, i) => `${who.token},${who.user},uid-${i},"${who.groups.join(",")}"`)
        .join("\n") + "\n",
      { mode: 0o600 },
    );
    const kubeconfigPath = join(stateDir, "kubeconfig");
    writeKubeconfig(kubeconfigPath, apiServerUrl, pki.caCertFile, admin);
    const kubeconfigOf = (name: string, who: Identity) => {
      const path = join(stateDir, `${name}.kubeconfig`);
      writeKubeconfig(path, apiServerUrl, pki.caCertFile, who);
      return path;
    };

    const start = (name: string, binary: string, args: string[]) => startProcess(stateDir, name, binary, args);

    log(`starting etcd and nats-server in ${stateDir}`);
    const etcd = start("etcd", binaries.etcd, etcdArgs(stateDir, etcdPort, etcdPeerPort));
    // stagewatch answers a request body over 1 MiB with its own `too_large`; that answer needs a
    // server that lets such a body through (nats-server's default max_payload is 1 MiB).
    const natsConfigFile = join(stateDir, "nats.conf");
    writeFileSync(natsConfigFile, "max_payload: 8MB\n");
    const nats = start("nats-server", binaries.natsServer, [
      "-c", natsConfigFile,
      "--addr", "127.0.0.1",
      "--port", String(natsPort),
      "--http_port", String(natsMonitorPort),
      "--jetstream",
      "--store_dir", join(stateDir, "nats"),
      "--server_name", "stagewatch-local",
    ]);
    await Promise.all([
      waitFor("etcd", async () => (await http(`http://127.0.0.1:${etcdPort}/health`)).status === 200, {
        timeoutMs: READY_TIMEOUT_MS,
        abort: abortIfExited(etcd),
      }),
      waitFor("nats-server", async () => (await http(`http://127.0.0.1:${natsMonitorPort}/healthz`)).status === 200, {
        timeoutMs: READY_TIMEOUT_MS,
        abort: abortIfExited(nats),
      }),
    ]);

    log(`starting kube-apiserver ${binaries.kubernetesVersion} on ${apiServerUrl}`);
    const adminHeaders = { Authorization: `Bearer ${admin.token}` };
    const startApiServer = async () => {
      const proc = start("kube-apiserver", binaries.kubeApiserver, apiserverArgs(stateDir, pki, tokenFile, etcdPort, apiPort));
      await waitFor("kube-apiserver /readyz", async () => (await http(`${apiServerUrl}/readyz`, { ca, headers: adminHeaders })).status === 200, {
        timeoutMs: READY_TIMEOUT_MS,
        abort: abortIfExited(proc),
      });
      return proc;
    };
    let apiserver = await startApiServer();

    log("starting kube-controller-manager, kube-scheduler and kwok");
    const kcm = start("kube-controller-manager", binaries.kubeControllerManager, [
      `--kubeconfig=${kubeconfigOf("kube-controller-manager", controllerManager)}`,
      "--bind-address=127.0.0.1",
      `--secure-port=${kcmPort}`,
      `--cert-dir=${join(stateDir, "certs", "kube-controller-manager")}`,
      "--leader-elect=false",
      `--controllers=${CONTROLLERS.join(",")}`,
      "--use-service-account-credentials=false",
      `--service-account-private-key-file=${pki.serviceAccountKeyFile}`,
      `--root-ca-file=${pki.caCertFile}`,
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      "--profiling=false",
      ...clientRateArgs(options.clientQps, true),
    ]);
    const sched = start("kube-scheduler", binaries.kubeScheduler, [
      `--kubeconfig=${kubeconfigOf("kube-scheduler", scheduler)}`,
      "--bind-address=127.0.0.1",
      `--secure-port=${schedulerPort}`,
      `--cert-dir=${join(stateDir, "certs", "kube-scheduler")}`,
      "--leader-elect=false",
      "--profiling=false",
      ...clientRateArgs(options.clientQps, false),
    ]);
    const stagesFile = join(stateDir, "kwok-stages.yaml");
    writeFileSync(stagesFile, kwokStagesYaml);
    // Container logs: kwok serves the kubelet's /containerLogs from files its ClusterLogs objects
    // name, and the API server's pods/log proxies there (the Node's InternalIP and
    // daemonEndpoints port, HTTPS unverified as no --kubelet-certificate-authority is given).
    // The CRD is created before kwok starts, so its watch of ClusterLogs lists at once.
    await installKwokClusterLogs(apiServerUrl, ca, adminHeaders);
    const kwokProc = start("kwok", binaries.kwok, [
      `--kubeconfig=${kubeconfigOf("kwok", kwok)}`,
      `--config=${stagesFile}`,
      "--manage-all-nodes=false",
      `--manage-nodes-with-annotation-selector=${KWOK_NODE_ANNOTATION}=${KWOK_NODE_ANNOTATION_VALUE}`,
      `--server-address=127.0.0.1:${kwokPort}`,
      "--node-ip=127.0.0.1",
      `--node-port=${kwokPort}`,
      "--enable-crds=ClusterLogs",
    ]);
    const healthy = (url: string, insecure: boolean) => async () =>
      (await http(url, { insecure })).status === 200;
    await Promise.all([
      waitFor("kube-controller-manager /healthz", healthy(`https://127.0.0.1:${kcmPort}/healthz`, true), {
        timeoutMs: READY_TIMEOUT_MS,
        abort: abortIfExited(kcm),
      }),
      waitFor("kube-scheduler /healthz", healthy(`https://127.0.0.1:${schedulerPort}/healthz`, true), {
        timeoutMs: READY_TIMEOUT_MS,
        abort: abortIfExited(sched),
      }),
      waitFor("kwok /healthz", healthy(`http://127.0.0.1:${kwokPort}/healthz`, false), {
        timeoutMs: READY_TIMEOUT_MS,
        abort: abortIfExited(kwokProc),
      }),
    ]);

    const api = (method: string, path: string, body?: unknown) =>
      http(`${apiServerUrl}${path}`, {
        method,
        ca,
        headers: { ...adminHeaders, "Content-Type": "application/json", Accept: "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const nodeNames = Array.from({ length: options.nodes ?? 3 }, (_, i) => `kwok-node-${i}`);
    for (const name of nodeNames) {
      const res = await api("POST", "/api/v1/nodes", kwokNode(name));
      if (res.status !== 201) throw new Error(`creating Node ${name}: HTTP ${res.status}: ${res.body}`);
    }
    await waitFor(`kwok Nodes ${nodeNames.join(", ")} Ready`, async () => {
      const res = await api("GET", "/api/v1/nodes");
      const list = JSON.parse(res.body) as { items?: NodeLike[] };
      const ready = (list.items ?? []).filter((node) =>
        node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
      );
      return nodeNames.every((name) => ready.some((node) => node.metadata?.name === name));
    }, { timeoutMs: READY_TIMEOUT_MS, abort: abortIfExited(kwokProc) });
    // Pods are only admitted once their namespace's default ServiceAccount exists.
    await waitFor("ServiceAccount default/default", async () =>
      (await api("GET", "/api/v1/namespaces/default/serviceaccounts/default")).status === 200, {
      timeoutMs: READY_TIMEOUT_MS,
      abort: abortIfExited(kcm),
    });

    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    log(`ready: KUBECONFIG=${kubeconfigPath} NATS_URL=${natsUrl}`);
    if (options.stopOnExit === false) removeExitHandlers();
    return {
      stateDir,
      kubeconfigPath,
      apiServerUrl,
      natsUrl,
      kubernetesVersion: binaries.kubernetesVersion,
      restartApiServer: async () => {
        log("restarting kube-apiserver");
        const old = apiserver;
        process.kill(old.pid, "SIGTERM");
        await waitFor("kube-apiserver to exit", async () => old.exit !== undefined, { timeoutMs: READY_TIMEOUT_MS });
        // The old PID stays in the pidfile; stopping skips it, since it no longer runs the binary.
        apiserver = await startApiServer();
      },
      stop: async () => stopNow(),
    };
  } catch (error) {
    stopNow();
    throw error;
  }
}

/** kwok v0.8.0's ClusterLogs CRD (kustomize/crd/bases/kwok.x-k8s.io_clusterlogs.yaml, as JSON). */
const kwokClusterLogsCrd: unknown = JSON.parse(readFileSync(new URL("./kwok-clusterlogs-crd.json", import.meta.url), "utf8"));

async function installKwokClusterLogs(apiServerUrl: string, ca: string, headers: Record<string, string>): Promise<void> {
  const res = await http(`${apiServerUrl}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
    method: "POST",
    ca,
    headers: { ...headers, "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(kwokClusterLogsCrd),
  });
  if (res.status !== 201) throw new Error(`creating kwok's ClusterLogs CRD: HTTP ${res.status}: ${res.body}`);
  await waitFor("kwok's ClusterLogs CRD Established", async () => {
    const crd = await http(`${apiServerUrl}/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterlogs.kwok.x-k8s.io`, { ca, headers });
    const conditions = (JSON.parse(crd.body) as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions ?? [];
    return conditions.some((c) => c.type === "Established" && c.status === "True");
  }, { timeoutMs: READY_TIMEOUT_MS });
}

interface NodeLike {
  metadata?: { name?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

function etcdArgs(stateDir: string, port: number, peerPort: number): string[] {
  const client = `http://127.0.0.1:${port}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  return [
    "--name=local",
    `--data-dir=${join(stateDir, "etcd")}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=local=${peer}`,
    "--initial-cluster-state=new",
    // A test cluster's data is thrown away on every start: durability buys nothing here.
    "--unsafe-no-fsync",
    "--log-level=warn",
  ];
}

function apiserverArgs(stateDir: string, pki: Pki, tokenFile: string, etcdPort: number, port: number): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${etcdPort}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    `--secure-port=${port}`,
    `--cert-dir=${join(stateDir, "certs", "kube-apiserver")}`,
    `--tls-cert-file=${pki.servingCertFile}`,
    `--tls-private-key-file=${pki.servingKeyFile}`,
    `--client-ca-file=${pki.caCertFile}`,
    `--token-auth-file=${tokenFile}`,
    "--authorization-mode=RBAC",
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    `--service-account-key-file=${pki.serviceAccountPublicKeyFile}`,
    `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
    `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
    // The `kubernetes` Service cannot point at a loopback address, so it gets no endpoints.
    "--endpoint-reconciler-type=none",
    // TaintNodesByCondition gives every new Node node.kubernetes.io/not-ready:NoSchedule, and only
    // the node-lifecycle controller takes it off; kwok Nodes are Ready from the start and that
    // controller (eviction, zone health) is not run here, so the taint is never added.
    "--disable-admission-plugins=TaintNodesByCondition",
    // pods/log, exec and port-forward go to the Node's InternalIP (kwok's server on loopback); the
    // Hostname address kwok also writes is the Node's name, which resolves nowhere.
    "--kubelet-preferred-address-types=InternalIP",
    "--allow-privileged=true",
    // On SIGTERM, close open watches (rate-limited) within this grace, as production control planes
    // are configured to; by default they hold the HTTP server's shutdown for its full 60 s.
    "--shutdown-watch-termination-grace-period=5s",
    "--profiling=false",
  ];
}
