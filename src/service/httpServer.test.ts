// /metrics in both formats from one set of metric objects: a text scrape after an OpenMetrics one
// (Prometheus asks for OpenMetrics; curl and promtool read text) must still name counters `_total`.
import { afterEach, describe, expect, it } from "vitest";
import { startOperationsServer, type OperationsServer } from "./httpServer.js";
import { createMetrics, engineMetricsOf } from "./metrics.js";

const openMetricsAccept = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5";

describe("/metrics", () => {
  let server: OperationsServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it("serves text with counters named _total before and after an OpenMetrics scrape, and OpenMetrics with its family names and exemplars", async () => {
    const metrics = createMetrics();
    engineMetricsOf(metrics).resourceFailed("apps/Deployment", "ImagePullBackOff", undefined);
    engineMetricsOf(metrics).eventToVerdict(0.004, "4bf92f3577b34da6a3ce929d0e0e4736");
    server = await startOperationsServer({ host: "127.0.0.1", port: 0, registry: metrics.registry, openMetrics: metrics.openMetrics, readiness: { notReadyBecause: () => undefined } });
    const scrape = async (accept?: string) => {
      const response = await fetch(`${server!.url}/metrics`, accept ? { headers: { accept } } : {});
      return { type: response.headers.get("content-type"), body: await response.text() };
    };
    const failures = 'stagewatch_failures_total{kind="apps/Deployment",reason="ImagePullBackOff"} 1';

    expect((await scrape()).body).toContain("# TYPE stagewatch_failures_total counter");
    const open = await scrape(openMetricsAccept);
    expect(open.type).toContain("application/openmetrics-text");
    expect(open.body).toContain("# TYPE stagewatch_failures counter");
    expect(open.body).toContain(failures);
    expect(open.body).toMatch(/stagewatch_event_to_verdict_seconds_bucket\{le="0\.005"\} 1 # \{trace_id="4bf92f3577b34da6a3ce929d0e0e4736"\} 0\.004/);

    const text = await scrape();
    expect(text.type).toContain("text/plain");
    expect(text.body).toContain("# TYPE stagewatch_failures_total counter");
    expect(text.body).toContain(failures);
    expect(text.body).not.toMatch(/^# TYPE stagewatch_\w+(?<!_total) counter$/m);
    expect(text.body).not.toContain("# {trace_id");
  });
});
