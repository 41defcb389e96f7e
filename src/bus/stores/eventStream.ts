// The JetStream streams behind `<prefix>.events.>`. Events are kept, not just broadcast, so a client
// that subscribes after the verdict was published still reads it (SPEC section 7), and so every
// replica can publish into the same history. Created or brought up to date at start-up (a stream
// an older version created without byte limits gets them: the server allows the update); two
// replicas starting together both succeed.
//
// With a tenants file, each tenant's events have a stream of their own (`<PREFIX>_EVENTS-<tenant>`
// on `<prefix>.events.<tenant>.*.*`), and the one stream keeps only events without a tenant
// (`<prefix>.events.*.*`, observations accepted before the tenants file). Why a stream per tenant
// rather than the alternatives (issue 32): the shared stream discards its oldest events when full,
// whoever wrote the newest, so one tenant writing fast evicted every tenant's verdicts, which late
// subscribers and adopting replicas read there.
// - A byte budget per tenant in the publisher cannot promise that: verdicts and stage events must
//   never be dropped, and a tenant's verdicts alone (requests a second times up to a max_payload
//   each) fill 256 MiB in minutes, so another tenant's verdict still goes before its max age. It
//   would also be one replica's count, not the service's.
// - `max_msgs_per_subject` applies to exact subjects, that is per observation (kept: 10,000
//   events an observation), never to a tenant's many observations together.
// - A stream per tenant is enforced by the server, for every event kind, however many replicas
//   publish: a tenant's events evict only its own. What it costs: one stream (a Raft group when
//   replicated) per tenant, created at start-up; the bytes are split, so the reservation against
//   the server's max_file_store stays what `maxBytes` says; a reader of one observation's history
//   in the service's account reads its tenant's stream (hasVerdict does; the admin and the teams
//   follow events by core subscription on their exports, unchanged); nothing here creates consumers.
import { JetStreamApiError, StorageType, type JetStreamManager, type StreamUpdateConfig } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { BusNames } from "../subjects.js";

export type EventStreamOptions = {
  /** How long events are kept; a client following an observation must attach within it. Default 24 h. */
  maxAgeMs?: number;
  /** `file` survives a NATS restart; `memory` only for throw-away set-ups. Default `file`. */
  storage?: "file" | "memory";
  /** Copies in a clustered JetStream. Default 1. */
  replicas?: number;
  /** How long a Nats-Msg-Id is remembered for de-duplication. Default 2 min (the server's default). */
  duplicateWindowMs?: number;
  /**
   * What the event streams store together, in bytes; past a stream's share its oldest events go
   * first. With tenants, split evenly between each tenant's stream and the tenantless one. Default 256 MiB.
   */
  maxBytes?: number;
  /** The largest event, in bytes: the server's max_payload (events are fitted to it). Default 1 MiB. */
  maxMessageBytes?: number;
  /** Events kept per observation (one subject each); past it its oldest go, its verdict (the last) stays. Default 10,000. */
  maxEventsPerObservation?: number;
  /** The tenants (NATS accounts) of the tenants file, each given a stream; none: one stream for every event. */
  tenants?: readonly string[];
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
  tenants: [],
} as const satisfies Required<EventStreamOptions>;

// "stream name already in use with a different configuration": someone (an older version, an
// operator) created it with other limits; stagewatch's settings win through an update.
const streamNameInUse = 10058;

export class EventStreamSetupError extends Error {
  override readonly name = "EventStreamSetupError";
}

/** One stream to create or bring up to date. */
export type PlannedEventStream = { readonly name: string; readonly subjects: readonly string[]; readonly maxBytes: number };

/** What start-up made of the event streams. */
export type EventStreamLayout = {
  readonly streams: readonly PlannedEventStream[];
  /**
   * Tenants' streams found that no tenant of this start has (a tenant gone from the file, or a
   * start without one): left as they are, their events aging out; delete them (`nats stream rm`)
   * to free their reservation.
   */
  readonly otherTenantStreams: readonly string[];
};

/**
 * The streams of this start. Without tenants and without tenants' streams from an earlier start,
 * one stream captures every event; otherwise the one stream keeps to tenantless subjects (a
 * stream's subjects must not overlap another's) and each tenant's stream takes an equal share of
 * the bytes. Pure: `existing` is what the server holds.
 */
export function planEventStreams(names: BusNames, options: EventStreamOptions, existing: readonly string[]): EventStreamLayout {
  const tenants = [...new Set(options.tenants ?? [])];
  const total = options.maxBytes ?? defaultEventStreamOptions.maxBytes;
  const maxMessageBytes = options.maxMessageBytes ?? defaultEventStreamOptions.maxMessageBytes;
  const tenantStreams = new Map(tenants.map((tenant) => [names.tenantEventStream(tenant), tenant]));
  const tenantStreamPrefix = `${names.eventStream}-`;
  const otherTenantStreams = existing.filter((name) => name.startsWith(tenantStreamPrefix) && !tenantStreams.has(name)).sort();
  if (tenants.length === 0 && otherTenantStreams.length === 0) {
    return { streams: [{ name: names.eventStream, subjects: [names.allEvents], maxBytes: total }], otherTenantStreams };
  }
  const share = Math.floor(total / (tenants.length + 1));
  // An event larger than its stream could hold would be refused, and a verdict retried forever.
  if (share < maxMessageBytes) {
    throw new EventStreamSetupError(
      `event streams' ${total} bytes split among ${tenants.length} tenants and the tenantless events leave ${share} bytes a stream, less than one event (${maxMessageBytes} bytes, the server's max_payload): raise the event streams' max bytes (--event-stream-max-bytes)`,
    );
  }
  return {
    streams: [
      { name: names.eventStream, subjects: [names.tenantlessEvents], maxBytes: share },
      ...tenants.map((tenant) => ({ name: names.tenantEventStream(tenant), subjects: [names.tenantEventSubjects(tenant)], maxBytes: share })),
    ],
    otherTenantStreams,
  };
}

/** A stream's limits: what an update may change on an existing stream. */
function eventStreamLimits(stream: PlannedEventStream, options: EventStreamOptions): Partial<StreamUpdateConfig> {
  const maxAgeMs = options.maxAgeMs ?? defaultEventStreamOptions.maxAgeMs;
  const duplicateWindowMs = options.duplicateWindowMs ?? defaultEventStreamOptions.duplicateWindowMs;
  return {
    description: `stagewatch observation events (${stream.subjects.join(", ")})`,
    subjects: [...stream.subjects],
    // Discard old: a full stream drops its oldest events (observations decided a day ago) rather
    // than refusing the verdicts of those in flight; per subject, an observation's oldest progress
    // events go before its verdict, which is its last.
    discard: "old",
    max_age: nanos(maxAgeMs),
    max_bytes: stream.maxBytes,
    max_msg_size: options.maxMessageBytes ?? defaultEventStreamOptions.maxMessageBytes,
    max_msgs_per_subject: options.maxEventsPerObservation ?? defaultEventStreamOptions.maxEventsPerObservation,
    // The server refuses a de-duplication window longer than the stream keeps messages.
    duplicate_window: nanos(Math.min(duplicateWindowMs, maxAgeMs)),
    num_replicas: options.replicas ?? defaultEventStreamOptions.replicas,
  };
}

async function existingStreams(jsm: JetStreamManager, names: BusNames): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const name of jsm.streams.names(names.allEvents)) found.push(name);
  } catch (cause) {
    throw new EventStreamSetupError(`cannot list the JetStream streams of ${names.allEvents}`, { cause });
  }
  return found;
}

/**
 * Idempotent: adds each stream, or updates its limits when it exists with others. The tenantless
 * stream goes first: an older start's one stream captured every tenant's subjects, which the
 * tenants' streams would overlap (its events stay where they are, aging out).
 */
export async function ensureEventStream(jsm: JetStreamManager, names: BusNames, options: EventStreamOptions = {}): Promise<EventStreamLayout> {
  const layout = planEventStreams(names, options, await existingStreams(jsm, names));
  // Storage and retention are fixed at creation: a stream created with others needs an operator.
  const storage = (options.storage ?? defaultEventStreamOptions.storage) === "memory" ? StorageType.Memory : StorageType.File;
  for (const stream of layout.streams) {
    const limits = eventStreamLimits(stream, options);
    try {
      await jsm.streams.add({ name: stream.name, retention: "limits", storage, ...limits });
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === streamNameInUse)) {
        throw new EventStreamSetupError(`cannot create JetStream stream ${stream.name}`, { cause: error });
      }
      try {
        await jsm.streams.update(stream.name, limits);
      } catch (cause) {
        throw new EventStreamSetupError(`JetStream stream ${stream.name} exists with settings stagewatch cannot change (storage? subjects another stream holds?)`, { cause });
      }
    }
  }
  return layout;
}
