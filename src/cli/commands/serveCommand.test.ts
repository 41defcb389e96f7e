// serve's signing flags are checked before anything connects: a wrong key file, or verify keys
// that do not match it, is bad input (exit 2) at start, never a service whose verdicts every
// client then rejects. (Against nothing: NATS_URL points nowhere, and the checks come first.)
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { newKey, oldKey, userSeed } from "../../signing/testing/keys.js";
import { runCli } from "../testing/runCli.js";

const dir = mkdtempSync(join(tmpdir(), "stagewatch-serve-"));
const seedFile = (name: string, seed: string) => {
  const path = join(dir, name);
  writeFileSync(path, `${seed}\n`);
  return path;
};
const newSeed = seedFile("new.nk", "SNAGD2BEDG33A6OILBGJWYE3ZVLWLDV7T5ZIJTNX34KEOIFG25D43DEWHI");
const nowhere = { NATS_URL: "nats://127.0.0.1:1" };

describe("serve --signing-key", () => {
  // serve's module brings the whole service, the Kubernetes client and the health library: paid once, here.
  beforeAll(async () => {
    await import("./serveCommand.js");
  }, 120_000);

  it.each([
    ["a missing file", ["--signing-key", join(dir, "missing.nk")], {}, "--signing-key: cannot read"],
    ["a NATS user's seed", ["--signing-key", seedFile("user.nk", userSeed)], {}, "holds an nkeys seed of another kind"],
    ["a missing file named by the variable", [], { STAGEWATCH_SIGNING_KEY_FILE: join(dir, "missing.nk") }, "STAGEWATCH_SIGNING_KEY_FILE: cannot read"],
    ["verify keys without the signing key's", ["--signing-key", newSeed], { STAGEWATCH_VERIFY_KEY: oldKey.publicKey }, `does not list the signing key's public key ${newKey.publicKey}`],
    ["verify keys and no signing key", [], { STAGEWATCH_VERIFY_KEY: newKey.publicKey }, "no signing key is given"],
  ])("refuses %s at start: exit 2", async (_, args, env, message) => {
    const result = await runCli(["serve", ...args], { env: { ...nowhere, ...env } });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe("serve's limits", () => {
  beforeAll(async () => {
    await import("./serveCommand.js");
  }, 120_000);

  it.each([
    [["--records-max-bytes", "12XB"], "--records-max-bytes: '12XB' is not a size"],
    [["--event-stream-max-bytes", "0"], "--event-stream-max-bytes: '0' is not a size"],
    [["--max-in-flight=0"], "--max-in-flight: '0' must be a whole number of at least 1"],
    [["--requests-per-second", "1.5"], "--requests-per-second: '1.5' must be a whole number"],
    [["--replicas=0"], "--replicas: '0' must be a whole number of at least 1"],
    [["--cel-cost-limit", "lots"], "--cel-cost-limit: 'lots' must be a whole number"],
    [["--jetstream-wait", "soon"], "--jetstream-wait"],
  ])("refuses %j at start: exit 2", async (args, message) => {
    const result = await runCli(["serve", ...args], { env: nowhere });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it("lists every limit with its default in --help", async () => {
    const result = await runCli(["serve", "--help"], { env: nowhere });
    expect(result.stdout).toContain("--max-in-flight N       observations in flight on this replica, every caller together (default 2000)");
    expect(result.stdout).toContain("--lists-per-second N    list requests a second for one caller (default 5)");
    expect(result.stdout).toContain("requests of one caller waiting or being handled at once (default 200)");
    expect(result.stdout).toContain("share (default 1; the chart gives its replicaCount)");
    expect(result.stdout).toContain("the records bucket's bytes; when full, new observations are refused (default 256MiB)");
    expect(result.stdout).toContain("the oldest events go first (default 256MiB)");
    expect(result.stdout).toContain("leaders) before exiting 3 (default 1m0s)");
  });
});

describe("serve's OTEL_* trace settings", () => {
  it.each([
    ["an endpoint that is no URL", { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318:x" }, "OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL"],
    ["a protocol it does not speak", { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "stagewatch exports http/protobuf"],
  ])("refuses %s at start: exit 2, naming the variable", async (_, env, message) => {
    const result = await runCli(["serve"], { env: { ...nowhere, ...env } });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
