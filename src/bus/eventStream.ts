// The JetStream stream behind `<prefix>.events.>`. Events are kept, not just broadcast, so a client
// that subscribes after the verdict was published still reads it (SPEC section 7), and so every
// replica can publish into the same history. Created or brought up to date at start-up; two
// replicas starting together both succeed.
import { JetStreamApiError, StorageType, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
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
};

const hour = 3_600_000;
export const defaultEventStreamOptions = {
  maxAgeMs: 24 * hour,
  storage: "file",
  replicas: 1,
  duplicateWindowMs: 120_000,
} as const satisfies Required<EventStreamOptions>;

// "stream name already in use with a different configuration": someone (an older version, an
// operator) created it with other limits; stagewatch's settings win through an update.
const streamNameInUse = 10058;

export class EventStreamSetupError extends Error {
  override readonly name = "EventStreamSetupError";
}

export function eventStreamConfig(names: BusNames, options: EventStreamOptions = {}): Partial<StreamConfig> & { name: string } {
  const settings = { ...defaultEventStreamOptions, ...options };
  return {
    name: names.eventStream,
    description: `stagewatch observation events (${names.allEvents})`,
    subjects: [names.allEvents],
    retention: "limits",
    storage: settings.storage === "memory" ? StorageType.Memory : StorageType.File,
    discard: "old",
    max_age: nanos(settings.maxAgeMs),
    duplicate_window: nanos(Math.min(settings.duplicateWindowMs, settings.maxAgeMs)),
    num_replicas: settings.replicas,
  };
}

/** Idempotent: adds the stream, or updates it when it exists with other settings. */
export async function ensureEventStream(jsm: JetStreamManager, names: BusNames, options: EventStreamOptions = {}): Promise<void> {
  const config = eventStreamConfig(names, options);
  try {
    await jsm.streams.add(config);
  } catch (error) {
    if (!(error instanceof JetStreamApiError && error.code === streamNameInUse)) {
      throw new EventStreamSetupError(`cannot create JetStream stream ${config.name}`, { cause: error });
    }
    try {
      const { name: _name, retention: _retention, storage: _storage, ...updatable } = config;
      await jsm.streams.update(config.name, updatable);
    } catch (cause) {
      throw new EventStreamSetupError(`JetStream stream ${config.name} exists with settings stagewatch cannot change (storage?)`, { cause });
    }
  }
}
