import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createSecureServer, type Http2SecureServer } from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { firstValueFrom } from "rxjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPki } from "../../test/cluster/pki.js";
import { kubeHttpTransport } from "./httpTransport.js";

// An API server offers HTTP/2 and HTTP/1.1 (ALPN), as kube-apiserver does; this one answers each
// request with the protocol it arrived over and the version a real one would.
let server: Http2SecureServer;
let kubeConfig: KubeConfig;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "stagewatch-pool-"));
  const pki = createPki(dir);
  server = createSecureServer({ key: readFileSync(pki.servingKeyFile), cert: readFileSync(pki.servingCertFile), allowHTTP1: true }, (request, response) => {
    response.setHeader("Content-Type", "application/json");
    response.end(JSON.stringify({ major: "1", minor: "37", gitVersion: "v1.37.2", httpVersion: request.httpVersion }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "local", server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caData: readFileSync(pki.caCertFile).toString("base64") }],
    users: [{ name: "reader", token: "reader-token" }],
    contexts: [{ name: "local", cluster: "local", user: "reader" }],
    currentContext: "local",
  });
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe("the connection pool's protocol", () => {
  it("speaks HTTP/1.1 to an API server that offers HTTP/2 too", async () => {
    const transport = kubeHttpTransport(kubeConfig);
    const answers = await Promise.all([1, 2].map(() => firstValueFrom(transport.getJson({ path: "/version" }))));
    expect(answers).toEqual([1, 2].map(() => expect.objectContaining({ gitVersion: "v1.37.2", httpVersion: "1.1" })));
  });
});
