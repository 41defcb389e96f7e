// What the observation records and the leases share: a KV bucket keeping one value a key (the
// latest is all either needs), file storage by default, replicated as the event stream is, and
// compare-and-swap writes whose conflicts are answers, not errors.
//
// Bounded in bytes, so one service cannot fill the JetStream storage every user of that server
// shares. KV buckets discard new (the server refuses a write when the bucket is full, never drops
// another observation's record to make room): a full records bucket refuses new observations,
// and the writes of those in flight are retried until keys expire (their TTL) and free room.
// A value is at most the server's max_payload (max_msg_size), which records are fitted to.
import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";

export type KvBucketOptions = {
  /** How long an untouched key lives. Default 7 days, longer than any budget. */
  ttlMs?: number;
  storage?: "file" | "memory";
  /** Copies in a clustered JetStream. Default 1. */
  replicas?: number;
  /** The most the bucket stores, in bytes (every copy counts on its server). Default 256 MiB. */
  maxBytes?: number;
  /** The largest value, in bytes: the server's max_payload. Default 1 MiB, the server's default. */
  maxValueBytes?: number;
};

export const defaultBucketMaxBytes = 256 * 1024 ** 2;
const defaultMaxValueBytes = 1024 * 1024;

/**
 * Creates the bucket, or opens it with these settings when it exists (two replicas starting
 * together both succeed). A bucket created without these byte limits (an older stagewatch) has
 * them set: the server allows raising and lowering both on a live stream.
 */
export async function openKvBucket(js: JetStreamClient, name: string, options: KvBucketOptions = {}): Promise<KV> {
  const maxBytes = options.maxBytes ?? defaultBucketMaxBytes;
  const maxValueBytes = options.maxValueBytes ?? defaultMaxValueBytes;
  const kv = await new Kvm(js).create(name, {
    history: 1,
    ttl: options.ttlMs ?? 7 * 24 * 3_600_000,
    storage: options.storage === "memory" ? "memory" : "file",
    replicas: options.replicas ?? 1,
    max_bytes: maxBytes,
    maxValueSize: maxValueBytes,
  });
  const jsm = await js.jetstreamManager();
  const stream = `KV_${name}`;
  const { config } = await jsm.streams.info(stream);
  if (config.max_bytes !== maxBytes || config.max_msg_size !== maxValueBytes) {
    await jsm.streams.update(stream, { ...config, max_bytes: maxBytes, max_msg_size: maxValueBytes });
  }
  return kv;
}

/** A create or update that found another revision than the one it expected. */
export function isCompareAndSwapConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** A write the server refused because the stream or bucket is at its max_bytes (or message count): 10077. */
export function isStoreFull(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === 10077;
}
