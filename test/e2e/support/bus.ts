/**
 * What one subject prefix leaves on NATS (the event stream and the KV buckets), and its removal:
 * every test that runs a service under a prefix of its own removes it afterwards, so a shared
 * nats-server does not fill up with test streams.
 */
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { busNames, type BusNames } from "../../../src/bus/index.js";

type BucketField = Extract<keyof BusNames, `${string}Bucket`>;

/**
 * The event stream and the stream behind every KV bucket the names hold (records with their key
 * claims, leases, and any bucket added to BusNames later: each is a `...Bucket` field).
 */
export function busStreams(names: BusNames): string[] {
  const buckets = (Object.keys(names) as (keyof BusNames)[]).filter((field): field is BucketField => field.endsWith("Bucket"));
  return [names.eventStream, ...buckets.map((field) => `KV_${names[field]}`)];
}

/** Deletes the prefix's streams (its tenants' event streams too) and buckets; `servers` as NATS_URL takes them (comma-separated). */
export async function removeBus(servers: string, prefix: string): Promise<void> {
  const nc = await connect({ servers: servers.split(",") });
  try {
    const jsm = await jetstreamManager(nc);
    const names = busNames(prefix);
    const tenantStreams: string[] = [];
    for await (const stream of jsm.streams.names(names.allEvents)) if (stream.startsWith(`${names.eventStream}-`)) tenantStreams.push(stream);
    for (const stream of [...busStreams(names), ...tenantStreams]) await jsm.streams.delete(stream).catch(() => false);
  } finally {
    await nc.close();
  }
}
