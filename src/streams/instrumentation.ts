// What the streams report about themselves, behind interfaces narrow enough that unit tests need
// no Prometheus registry and no log sink. The service plugs prom-client and pino in once at
// start-up; everything here defaults to doing nothing.

/**
 * Why a reflector started its list or watch again:
 * - `error`: the request failed (network, HTTP status, a watch ERROR other than 410, bad JSON);
 * - `gone`: the resourceVersion is too old (410 Gone), so the cache is rebuilt by a relist;
 * - `watchdog`: the watch delivered nothing, not even a bookmark, for too long (half-open TCP);
 * - `closed`: the server ended the watch (its `timeoutSeconds`, an API server restart).
 */
export const restartCauses = ["error", "gone", "watchdog", "closed"] as const;
export type RestartCause = (typeof restartCauses)[number];

export interface StreamMetrics {
  /** One watch event received; `type` is the server's event type in lower case (added, modified, deleted, bookmark, error). */
  watchEvent(kind: string, type: string): void;
  watchRestart(kind: string, cause: RestartCause): void;
  /** Objects currently held in the cache of one kind. */
  objects(kind: string, count: number): void;
}

export const noopStreamMetrics: StreamMetrics = {
  watchEvent() {},
  watchRestart() {},
  objects() {},
};
