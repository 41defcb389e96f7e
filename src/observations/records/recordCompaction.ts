// Records and events under the NATS server's max_payload, by construction. A message past it is
// refused by the server ("maximum payload exceeded") however often it is sent, so a record that
// outgrew it would be retried for ever and its observation never decided. Two halves:
// - acceptance: a request is refused `too_large` when its record at its most compact (every
//   resource failed with the longest reason a reading keeps, a failure, a verdict message, a
//   signature) could not fit: what the request itself fixes (its resources, their identities
//   twice more in the record and the verdict) is most of a record and never shrinks;
// - every write: a record or event over the budget is compacted, step by step, until it fits:
//   messages cut shorter, then the oldest detail dropped (Warning events, the log tail's oldest
//   lines), then messages dropped, reasons cut. The last step is the form acceptance measured,
//   so it always fits. A verdict changed here is signed again: it is still the service's word,
//   only shorter.
import type { ObservationRecord } from "../../bus/index.js";
import type { ObservationEvent, ObservationVerdict, ResourceVerdict } from "../../verdicts/index.js";
import { cut } from "../../verdicts/text/text.js";
import type { EventStore } from "../ports.js";

/** What the server's max_payload leaves for a record or event: headers (message id, KV) and the reply subject take some. */
export const payloadReserveBytes = 4 * 1024;

/** Reasons are the cluster's CamelCase words; a custom resource's status can hold a longer one. */
const minimalReasonChars = 64;

type Sign = (verdict: ObservationVerdict) => ObservationVerdict;

type Step = {
  /** Each resource's message (and its warning's), characters; 0 drops it. */
  readonly resourceMessage: number;
  readonly warnings: boolean;
  /** Log lines kept, newest last; 0 drops the tail. */
  readonly logLines: number;
  readonly failureMessage: number;
  readonly verdictMessage: number;
  readonly reason: number;
};

const steps: readonly Step[] = [
  { resourceMessage: 256, warnings: true, logLines: 50, failureMessage: 1024, verdictMessage: 16 * 1024, reason: 256 },
  { resourceMessage: 64, warnings: false, logLines: 10, failureMessage: 512, verdictMessage: 4 * 1024, reason: 128 },
  { resourceMessage: 0, warnings: false, logLines: 0, failureMessage: 256, verdictMessage: 1024, reason: minimalReasonChars },
];
const tightest = steps[steps.length - 1]!;

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

function compactResource(resource: ResourceVerdict, step: Step): ResourceVerdict {
  const { message, warning, reason, ...rest } = resource;
  return {
    ...rest,
    ...(reason !== undefined && { reason: cut(reason, step.reason) }),
    ...(message !== undefined && step.resourceMessage > 0 && { message: cut(message, step.resourceMessage) }),
    ...(warning !== undefined && step.warnings && { warning: { ...warning, message: cut(warning.message, step.resourceMessage) } }),
  };
}

function compactVerdict(verdict: ObservationVerdict, step: Step): ObservationVerdict {
  const { signature: _signature, failure, ...rest } = verdict;
  let compactFailure = failure;
  if (failure) {
    const { logTail, ...failureRest } = failure;
    const lines = logTail?.lines.slice(Math.max(0, logTail.lines.length - step.logLines));
    compactFailure = {
      ...failureRest,
      reason: cut(failure.reason, step.reason),
      message: cut(failure.message, step.failureMessage),
      ...(logTail && lines && lines.length > 0 && { logTail: { ...logTail, lines, truncated: logTail.truncated || lines.length < logTail.lines.length } }),
      ...(logTail && step.logLines === 0 && { logNote: "log tail left out: the verdict was at the NATS server's max_payload" }),
    };
  }
  return {
    ...rest,
    message: cut(verdict.message, step.verdictMessage),
    resources: verdict.resources.map((resource) => compactResource(resource, step)),
    ...(compactFailure && { failure: compactFailure }),
  };
}

/** `record` if it fits in `maxBytes`, else with its verdict compacted (and signed again) until it does. */
export function fitRecord(record: ObservationRecord, maxBytes: number, sign: Sign): ObservationRecord {
  if (record.verdict === undefined || jsonBytes(record) <= maxBytes) return record;
  let fitted = record;
  for (const step of steps) {
    fitted = { ...record, verdict: sign(compactVerdict(record.verdict, step)) };
    if (jsonBytes(fitted) <= maxBytes) return fitted;
  }
  // Acceptance refused every record whose tightest form does not fit; one written by another
  // version may still be over: the server refuses it and the writer reports it.
  return fitted;
}

/**
 * The bytes of `record` at its tightest with everything a reading can still add: every resource
 * failed with the longest reason kept, a failure naming the longest identity, a verdict message,
 * a decision time, an attestation and a signature. Characters are counted at three bytes (UTF-8 of the BMP).
 */
export function worstCaseRecordBytes(record: ObservationRecord): number {
  const wide = (chars: number) => "…".repeat(chars);
  const verdict = record.verdict;
  if (verdict === undefined) return jsonBytes(record);
  const longest = verdict.resources.reduce((a, b) => (jsonBytes(b.identity) > jsonBytes(a.identity) ? b : a), verdict.resources[0]!);
  const worst: ObservationVerdict = {
    ...verdict,
    outcome: "in_progress",
    reached: "bootstrapped",
    message: wide(tightest.verdictMessage),
    resources: verdict.resources.map(({ identity }) => ({ identity, state: "pending", reason: wide(tightest.reason) })),
    failure: { stage: "bootstrapped", resource: longest.identity, reason: wide(tightest.reason), message: wide(tightest.failureMessage), logNote: wide(128) },
    decidedAt: new Date(0).toISOString(),
    attestation: { cluster: "x".repeat(63), sig: `${"A".repeat(86)}==` },
    signature: { key: "A".repeat(56), sig: "A".repeat(86) },
  };
  return jsonBytes({ ...record, outcome: "in_progress", verdict: worst, labelledBootstrap: verdict.resources.map(({ identity }) => "x".repeat(jsonBytes(identity))) });
}

/** `event` if it fits in `maxBytes`, else compacted as records are (a stall notice also names fewer resources). */
export function fitEvent(event: ObservationEvent, maxBytes: number, sign: Sign): ObservationEvent {
  if (jsonBytes(event) <= maxBytes) return event;
  for (const step of steps) {
    const fitted = compactEvent(event, step, sign);
    if (jsonBytes(fitted) <= maxBytes) return fitted;
  }
  if (event.type !== "stalled") return compactEvent(event, tightest, sign);
  // A stall notice names what is waiting; past the budget it names the first ones and counts the rest.
  const compact = compactEvent(event, tightest, sign) as typeof event;
  let kept = compact.waitingFor.length;
  let fitted = compact;
  while (kept > 0 && jsonBytes(fitted) > maxBytes) {
    kept = Math.floor(kept / 2);
    fitted = { ...compact, waitingFor: compact.waitingFor.slice(0, kept), message: cut(`${compact.message} (${compact.waitingFor.length - kept} more resources not listed)`, tightest.verdictMessage) };
  }
  return fitted;
}

function compactEvent(event: ObservationEvent, step: Step, sign: Sign): ObservationEvent {
  switch (event.type) {
    case "progress":
      return { ...event, resource: compactResource(event.resource, step) };
    case "stalled":
      return { ...event, message: cut(event.message, step.verdictMessage), waitingFor: event.waitingFor.map((resource) => compactResource(resource, step)) };
    case "verdict":
      return { ...event, verdict: sign(compactVerdict(event.verdict, step)) };
    case "stage":
      return event;
  }
}

/** The engine's event store with every event fitted to `maxBytes` on its way out. */
export function eventsWithin(store: EventStore, maxBytes: number, sign: Sign): EventStore {
  return {
    publish: (event) => store.publish(fitEvent(event, maxBytes, sign)),
    hasVerdict: (deployment, observationId, tenant) => store.hasVerdict(deployment, observationId, tenant),
    discard: (observationId) => store.discard(observationId),
  };
}
