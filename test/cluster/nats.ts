/**
 * nats-server processes of a test's own, for the faults the shared server must not suffer: a
 * server stopped and started again on the same port and store (an outage), and a 3-node
 * JetStream cluster on loopback ports joined by cluster routes, one node of which a test kills;
 * and a server with accounts (deploy/nats/accounts.conf), for the tenants' tests.
 * The same binary as the local cluster's (build.sh); each process is killed if the test process
 * exits first.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePorts, http, tcpAccepts, waitFor } from "./probes.ts";
import { logTail } from "./processes.ts";
import { startLogged, type RunningProcess } from "./stagewatch.ts";

export interface NatsNode {
  readonly name: string;
  readonly url: string;
  readonly running: boolean;
  /** Starts it (again) with the same ports, store and routes, and waits until JetStream answers. */
  start(): Promise<void>;
  /**
   * Once started, resolves when it accepts client connections: a lone node of a cluster does long
   * before its start() resolves (it has no JetStream meta leader until its peers join).
   */
  accepting(): Promise<void>;
  /** SIGTERM (or `signal`), and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

interface NodePorts {
  client: number;
  monitor: number;
  cluster?: number;
}

/** More of a node's configuration: lines appended (an `include`), and the environment the server reads `$NAME`s from. */
interface NodeExtras {
  lines?: readonly string[];
  env?: NodeJS.ProcessEnv;
}

function nodeConfig(name: string, dir: string, ports: NodePorts, routes: number[], extras: NodeExtras): string {
  const lines = [
    `server_name: ${name}`,
    `listen: 127.0.0.1:${ports.client}`,
    `http: 127.0.0.1:${ports.monitor}`,
    // stagewatch's own too_large answer needs bodies over 1 MiB to reach it (as the local cluster's server).
    "max_payload: 8MB",
    `jetstream { store_dir: "${join(dir, "store")}" }`,
  ];
  if (ports.cluster !== undefined) {
    lines.push(
      "cluster {",
      "  name: stagewatch-test",
      `  listen: 127.0.0.1:${ports.cluster}`,
      `  routes: [${routes.map((port) => `nats-route://127.0.0.1:${port}`).join(", ")}]`,
      "}",
    );
  }
  lines.push(...(extras.lines ?? []));
  return lines.join("\n") + "\n";
}

function natsNode(binary: string, name: string, dir: string, ports: NodePorts, routes: number[], extras: NodeExtras = {}): NatsNode {
  mkdirSync(dir, { recursive: true });
  const configFile = join(dir, "nats.conf");
  writeFileSync(configFile, nodeConfig(name, dir, ports, routes, extras));
  let process: RunningProcess | undefined;
  const exited = () => (process === undefined ? "not started" : process.exited() ? `exited:\n${logTail(process.logFile)}` : undefined);
  // /healthz answers 200 only once JetStream is current: for a clustered node, once it has a meta leader.
  const healthy = async () => (await http(`http://127.0.0.1:${ports.monitor}/healthz`)).status === 200;
  return {
    name,
    url: `nats://127.0.0.1:${ports.client}`,
    get running() {
      return process !== undefined && !process.exited();
    },
    async start() {
      const started = startLogged(binary, ["-c", configFile], { cwd: dir, env: extras.env ?? {}, logFile: join(dir, "nats.log") });
      process = started;
      await waitFor(`nats-server ${name}`, healthy, { timeoutMs: 30_000, abort: () => (started.exited() ? exited() : undefined) });
    },
    accepting: () => waitFor(`nats-server ${name} accepting clients`, () => tcpAccepts(ports.client), { timeoutMs: 30_000, intervalMs: 50, abort: exited }),
    async stop(signal = "SIGTERM") {
      if (!process) return;
      await (signal === "SIGTERM" ? process.stop(10_000) : process.kill(signal));
      process = undefined;
    },
  };
}

/** One JetStream server that a test may stop and start again: an outage, the store kept. */
export async function startNatsServer(binary: string, dir: string): Promise<NatsNode> {
  const [client, monitor] = await freePorts(2);
  const node = natsNode(binary, "stagewatch-outage", dir, { client: client!, monitor: monitor! }, []);
  await node.start();
  return node;
}

/**
 * One JetStream server with the accounts of `accountsFile` (copied beside its configuration and
 * included), its `$NAME`s (passwords) taken from `env`, on ports of its own.
 */
export async function startNatsWithAccounts(binary: string, dir: string, accountsFile: string, env: NodeJS.ProcessEnv): Promise<NatsNode> {
  const [client, monitor] = await freePorts(2);
  mkdirSync(dir, { recursive: true });
  copyFileSync(accountsFile, join(dir, "accounts.conf"));
  const node = natsNode(binary, "stagewatch-accounts", dir, { client: client!, monitor: monitor! }, [], { lines: ["include ./accounts.conf"], env });
  await node.start();
  return node;
}

export interface NatsCluster {
  readonly nodes: readonly NatsNode[];
  /** Every node's URL, comma-separated, as NATS_URL takes them. */
  readonly urls: string;
  stop(): Promise<void>;
}

/**
 * `size` JetStream servers on loopback, routed to each other, none started: a test starts them
 * when it wants (one alone has no meta leader, so its JetStream is not ready: its start() resolves
 * only once enough peers joined).
 */
export async function natsClusterNodes(binary: string, dir: string, size = 3): Promise<NatsNode[]> {
  const ports = await freePorts(size * 3);
  const nodePorts: NodePorts[] = Array.from({ length: size }, (_, i) => ({ client: ports[i * 3]!, monitor: ports[i * 3 + 1]!, cluster: ports[i * 3 + 2]! }));
  const routes = nodePorts.map((p) => p.cluster!);
  return nodePorts.map((p, i) => natsNode(binary, `stagewatch-${i}`, join(dir, `node-${i}`), p, routes));
}

/** `size` JetStream servers on loopback, routed to each other; resolves once all are up. */
export async function startNatsCluster(binary: string, dir: string, size = 3): Promise<NatsCluster> {
  const nodes = await natsClusterNodes(binary, dir, size);
  // Started together: a clustered server waits for its peers before JetStream is ready.
  await Promise.all(nodes.map((node) => node.start()));
  return {
    nodes,
    urls: nodes.map((node) => node.url).join(","),
    async stop() {
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
}
