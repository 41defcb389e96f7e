// What the observation records and the leases share: a KV bucket keeping one value a key (the
// latest is all either needs), file storage by default, replicated as the event stream is, and
// compare-and-swap writes whose conflicts are answers, not errors.
import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";

export type KvBucketOptions = {
  /** How long an untouched key lives. Default 7 days, longer than any budget. */
  ttlMs?: number;
  storage?: "file" | "memory";
  /** Copies in a clustered JetStream. Default 1. */
  replicas?: number;
};

/** Creates the bucket, or opens it with these settings when it exists (two replicas starting together both succeed). */
export function openKvBucket(js: JetStreamClient, name: string, options: KvBucketOptions = {}): Promise<KV> {
  return new Kvm(js).create(name, {
    history: 1,
    ttl: options.ttlMs ?? 7 * 24 * 3_600_000,
    storage: options.storage === "memory" ? "memory" : "file",
    replicas: options.replicas ?? 1,
  });
}

/** A create or update that found another revision than the one it expected. */
export function isCompareAndSwapConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}
