// The narrow views of metrics and logging the bus needs. The service plugs in prom-client and pino
// once at start-up; tests and the client use the no-op defaults and need neither.

export const requestResults = ["accepted", "rejected", "replayed"] as const;
export type RequestResult = (typeof requestResults)[number];

export type BusMetrics = {
  /** `stagewatch_requests_total{result}`: one per observe request answered. */
  requestAnswered(result: RequestResult): void;
  /** `stagewatch_nats_publish_failures_total`: one per failed publish attempt, retried or not. */
  publishFailed(): void;
  /** `stagewatch_events_buffered` and `stagewatch_events_buffered_bytes`: events accepted and not yet stored by the stream. */
  eventsBuffered(count: number, bytes: number): void;
  /** `stagewatch_events_dropped_total{tenant}`: a progress event or stall notice the event buffer had no room for (eventBuffer.ts). */
  eventDropped(tenant: string | undefined): void;
  /** `stagewatch_untrusted_verdicts_total{found_in="stream"}`: a verdict on an observation's subject the service did not sign (a forgery, or a key no longer trusted). */
  untrustedVerdictFound(): void;
};

export const noopBusMetrics: BusMetrics = {
  requestAnswered: () => {},
  publishFailed: () => {},
  eventsBuffered: () => {},
  eventDropped: () => {},
  untrustedVerdictFound: () => {},
};
