// The JetStream stream behind `<prefix>.events.>`. Events are kept, not just broadcast, so a client
// that subscribes after the verdict was published still reads it (SPEC section 7), and so every
// replica can publish into the same history. Created or brought up to date at start-up (a stream
// an older version created without byte limits gets them: the server allows the update); two
// replicas starting together both succeed.
import { JetStreamApiError, StorageType, type JetStreamManager, type StreamUpdateConfig } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { BusNames } from "./subjects.js";

export type EventStreamOptions = {
  /** How long events are kept; a client following an observation must attach within it. Default 24 h. */
  maxAgeMs?: number;
  /** `file` survives a NATS restart; `memory` only for throw-away set-ups. Default `file`. */
  storage?: "file" | "memory";
  /** Copies in a clustered JetStream. Default 1. */
  replicas?: number;
  /** How long a Nats-Msg-Id is remembered for de-duplication. Default 2 min (the server's default). */
  duplicateWindowMs?: number;
  /** The most the stream stores, in bytes; past it the oldest events go first. Default 256 MiB. */
  maxBytes?: number;
  /** The largest event, in bytes: the server's max_payload (events are fitted to it). Default 1 MiB. */
  maxMessageBytes?: number;
  /** Events kept per observation (one subject each); past it its oldest go, its verdict (the last) stays. Default 10,000. */
  maxEventsPerObservation?: number;
};

const hour = 3_600_000;
export const defaultEventStreamOptions = {
  maxAgeMs: 24 * hour,
  storage: "file",
  replicas: 1,
  duplicateWindowMs: 120_000,
  maxBytes: 256 * 1024 ** 2,
  maxMessageBytes: 1024 * 1024,
  maxEventsPerObservation: 10_000,
} as const satisfies Required<EventStreamOptions>;

// "stream name already in use with a different configuration": someone (an older version, an
// operator) created it with other limits; stagewatch's settings win through an update.
const streamNameInUse = 10058;

export class EventStreamSetupError extends Error {
  override readonly name = "EventStreamSetupError";
}

/** The stream's limits: what an update may change on an existing stream. */
function eventStreamLimits(names: BusNames, options: EventStreamOptions): Partial<StreamUpdateConfig> {
  const maxAgeMs = options.maxAgeMs ?? defaultEventStreamOptions.maxAgeMs;
  const duplicateWindowMs = options.duplicateWindowMs ?? defaultEventStreamOptions.duplicateWindowMs;
  return {
    description: `stagewatch observation events (${names.allEvents})`,
    subjects: [names.allEvents],
    // Discard old: a full stream drops its oldest events (observations decided a day ago) rather
    // than refusing the verdicts of those in flight; per subject, an observation's oldest progress
    // events go before its verdict, which is its last.
    discard: "old",
    max_age: nanos(maxAgeMs),
    max_bytes: options.maxBytes ?? defaultEventStreamOptions.maxBytes,
    max_msg_size: options.maxMessageBytes ?? defaultEventStreamOptions.maxMessageBytes,
    max_msgs_per_subject: options.maxEventsPerObservation ?? defaultEventStreamOptions.maxEventsPerObservation,
    // The server refuses a de-duplication window longer than the stream keeps messages.
    duplicate_window: nanos(Math.min(duplicateWindowMs, maxAgeMs)),
    num_replicas: options.replicas ?? defaultEventStreamOptions.replicas,
  };
}

/** Idempotent: adds the stream, or updates its limits when it exists with others. */
export async function ensureEventStream(jsm: JetStreamManager, names: BusNames, options: EventStreamOptions = {}): Promise<void> {
  const name = names.eventStream;
  const limits = eventStreamLimits(names, options);
  // Storage and retention are fixed at creation: a stream created with others needs an operator.
  const storage = (options.storage ?? defaultEventStreamOptions.storage) === "memory" ? StorageType.Memory : StorageType.File;
  try {
    await jsm.streams.add({ name, retention: "limits", storage, ...limits });
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === streamNameInUse)) {
      throw new EventStreamSetupError(`cannot create JetStream stream ${name}`, { cause: error });
    }
    try {
      await jsm.streams.update(name, limits);
    } catch (cause) {
      throw new EventStreamSetupError(`JetStream stream ${name} exists with settings stagewatch cannot change (storage?)`, { cause });
    }
  }
}
