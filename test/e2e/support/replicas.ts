/**
 * Several `stagewatch serve` processes (the global setup's build) sharing one subject prefix, as
 * replicas of one installation are, so tests can SIGKILL or SIGTERM them, and readers of what they
 * leave on NATS: every event in the stream, the leases, and the adoptions their logs report.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { busNames, isHeartbeatKey, type BusNames } from "../../../src/bus/index.js";
import { ObservationEvent, type ObservationVerdict } from "../../../src/verdicts/contract/schemas.js";
import { scratchDir, startServe, type RunningService } from "../../cluster/stagewatch.ts";
import { removeBus } from "./bus.ts";
import { compiledStagewatch } from "./cli.ts";

export interface Replica {
  readonly id: string;
  readonly service: RunningService;
  readonly logFile: string;
}

export interface FleetOptions {
  kubeconfigPath: string;
  natsUrl: string;
  /** Default 3s: faults are tested with short leases so a test waits seconds, not the production 15. */
  leaseDuration?: string;
  args?: string[];
  /** Added to the environment `stagewatch serve` documents (e.g. NODE_OPTIONS). */
  env?: NodeJS.ProcessEnv;
}

export class ServeFleet {
  readonly prefix = `swd${randomBytes(4).toString("hex")}`;
  readonly names: BusNames = busNames(this.prefix);
  private readonly options: FleetOptions;
  private readonly started: Replica[] = [];

  constructor(options: FleetOptions) {
    this.options = options;
  }

  /** `stagewatch serve` with replica id `id`, waited for until /readyz answers. */
  async start(id: string, natsUrl = this.options.natsUrl): Promise<Replica> {
    const dir = scratchDir(`serve-${id}`);
    const service = await startServe(compiledStagewatch().cli, {
      kubeconfigPath: this.options.kubeconfigPath,
      natsUrl,
      dir,
      args: [
        `--subject-prefix=${this.prefix}`,
        `--replica-id=${id}`,
        `--lease-duration=${this.options.leaseDuration ?? "3s"}`,
        "--log-level=debug",
        ...(this.options.args ?? []),
      ],
      ...(this.options.env && { env: this.options.env }),
    });
    const replica = { id, service, logFile: join(dir, "serve.log") };
    this.started.push(replica);
    return replica;
  }

  /** Every replica's log lines with this message, parsed. */
  logLines(message: string): LogLine[] {
    return this.started.flatMap((replica) => logLines(replica.logFile).filter((line) => line.msg === message));
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.started.map((replica) => replica.service.process.stop(15_000)));
    await removeBus(this.options.natsUrl, this.prefix);
  }
}

export interface LogLine {
  time: number;
  msg: string;
  replica?: string;
  observationId?: string;
  cause?: string;
  [field: string]: unknown;
}

export function logLines(logFile: string): LogLine[] {
  let text: string;
  try {
    text = readFileSync(logFile, "utf8");
  } catch {
    return [];
  }
  return text.split("\n").flatMap((line) => {
    if (!line.startsWith("{")) return [];
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

/**
 * Every event the stream holds, in stream order (read message by message: no consumer left behind);
 * with a tenants file, `tenant`'s stream, read as `auth` (a user of the service's account).
 */
export async function streamEvents(
  natsUrl: string,
  names: BusNames,
  options: { auth?: { user: string; pass: string }; tenant?: string } = {},
): Promise<ObservationEvent[]> {
  const nc = await connect({ servers: natsUrl.split(","), ...options.auth });
  const stream = options.tenant === undefined ? names.eventStream : names.tenantEventStream(options.tenant);
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(stream);
    const events: ObservationEvent[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const message = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
      if (message) events.push(ObservationEvent.parse(message.json()));
    }
    return events;
  } finally {
    await nc.close();
  }
}

/** The verdict events of each observation id, from the stream. */
export function verdictsById(events: readonly ObservationEvent[]): Map<string, ObservationVerdict[]> {
  const byId = new Map<string, ObservationVerdict[]>();
  for (const event of events) {
    if (event.type !== "verdict") continue;
    byId.set(event.observationId, [...(byId.get(event.observationId) ?? []), event.verdict]);
  }
  return byId;
}

/** Holder to the ids of the leases it holds now (the replicas' heartbeats, beside them in the bucket, left out). */
export async function leasesByHolder(nc: NatsConnection, names: BusNames): Promise<Map<string, string[]>> {
  const kv = await new Kvm(nc).open(names.leasesBucket);
  const byHolder = new Map<string, string[]>();
  for await (const key of await kv.keys()) {
    if (isHeartbeatKey(key)) continue;
    const entry = await kv.get(key);
    if (entry?.operation !== "PUT") continue;
    const { holder } = entry.json<{ holder: string }>();
    byHolder.set(holder, [...(byHolder.get(holder) ?? []), key]);
  }
  return byHolder;
}

export function median(values: readonly number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
