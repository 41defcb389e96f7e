// schema/ is the contract other languages generate from: it must be what the code enforces. The
// checked-in files are compared with what scripts/contract generates from the zod schemas (a drift
// fails here; `./dev.sh contract:update` rewrites them), the AsyncAPI document goes through the
// AsyncAPI project's own parser, and the JSON Schemas, run by a JSON Schema validator (Ajv), must
// accept what the code produces and refuse what the code refuses.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DiagnosticSeverity, Parser } from "@asyncapi/parser";
import { Ajv } from "ajv";
import { beforeAll, describe, expect, test } from "vitest";
import { contractFiles } from "../../scripts/contract/files.ts";
import { contractSchemas } from "../../scripts/contract/jsonSchemas.ts";
import { attestationEnvelope, serviceSigner } from "../../src/signing/index.ts";
import { newKey, oldKey } from "../../src/signing/testing/keys.ts";
import { toVerdict } from "../../src/verdicts/index.ts";
import { CancelRequest, GetRequest, KeysReply, ObservationEvent, ObservationRequest, type ObservationVerdict } from "../../src/verdicts/contract/schemas.ts";
import { jsonProgress } from "../../src/cli/views/jsonProgress.ts";
import { observation } from "../fixtures/observation.ts";
import { succeededVerdict } from "../fixtures/verdicts.ts";
import { specExampleRequest } from "../fixtures/observation.js";

const schemaDir = fileURLToPath(new URL("../../schema/", import.meta.url));
const generated = contractFiles();

describe("schema/ is what the code generates", () => {
  test.each([...generated.keys()])("%s", async (path) => {
    await expect(generated.get(path)).toMatchFileSnapshot(`${schemaDir}${path}`);
  });

  test("no file in schema/json/ that the code does not generate", () => {
    const checkedIn = readdirSync(`${schemaDir}json`).map((file) => `json/${file}`);
    expect(checkedIn.sort()).toEqual([...generated.keys()].filter((path) => path.startsWith("json/")).sort());
  });
});

describe("schema/asyncapi.yaml", () => {
  test("the AsyncAPI parser reads it without an error or a warning", async () => {
    const { document, diagnostics } = await new Parser().parse(readFileSync(`${schemaDir}asyncapi.yaml`, "utf8"));
    const problems = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error || d.severity === DiagnosticSeverity.Warning);
    expect(problems.map((d) => `${d.path.join(".")}: ${d.message}`)).toEqual([]);
    expect(document?.version()).toBe("3.0.0");
    expect(document?.channels().all().map((c) => c.address())).toEqual(
      expect.arrayContaining(["{prefix}.observe", "{prefix}.cancel", "{prefix}.get", "{prefix}.events.{deployment}.{observationId}"]),
    );
    const observe = document?.operations().get("observe");
    expect(observe?.action()).toBe("receive");
    expect(observe?.bindings().get("nats")?.value()).toMatchObject({ queue: "stagewatch" });
    expect(observe?.reply()?.messages().all().map((m) => m.name())).toEqual(["ObserveReply"]);
    // The parser (Spectral's rules over the whole document) takes about 1 s of CPU alone, and
    // failed the 5 s default once in a full unit run on a loaded machine.
  }, 60_000);
});

describe("the JSON Schemas validate what the code sends and refuse what it refuses", () => {
  const ajv = new Ajv({ allErrors: true, strict: false, formats: { "date-time": true } });
  const validate = (name: keyof typeof contractSchemas, body: unknown) => {
    const check = ajv.getSchema(`${name}.json`);
    if (!check) throw new Error(`${name}.json not loaded`);
    return check(body) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };

  beforeAll(() => {
    for (const file of readdirSync(`${schemaDir}json`)) ajv.addSchema(JSON.parse(readFileSync(`${schemaDir}json/${file}`, "utf8")) as object);
  });

  const specRequest = specExampleRequest;


  test("SPEC's example request, with and without the defaulted fields", () => {
    expect(ObservationRequest.safeParse(specRequest).success).toBe(true);
    expect(validate("ObservationRequest", specRequest)).toEqual([]);
    const { failOn: _, ...withoutDefaults } = specRequest;
    expect(validate("ObservationRequest", withoutDefaults)).toEqual([]);
  });

  test.each([
    { name: "an unknown field", body: { ...specRequest, timeoutSecond: 300 } },
    { name: "require: rendered", body: { ...specRequest, require: "rendered" } },
    { name: "a deployment that is not a subject token", body: { ...specRequest, deployment: "Web_1" } },
    { name: "a key holding a control character", body: { ...specRequest, key: "ci-4812\u001b[2J" } },
    { name: "no resources", body: { ...specRequest, resources: [] } },
    { name: "a generation of 0", body: { ...specRequest, resources: [{ apiVersion: "apps/v1", kind: "Deployment", name: "api", generation: 0 }] } },
  ])("refused by both: $name", ({ body }) => {
    expect(ObservationRequest.safeParse(body).success).toBe(false);
    expect(validate("ObservationRequest", body)).not.toEqual([]);
  });

  test.each([
    { name: "an id of 65 characters", observationId: "a".repeat(65) },
    { name: "an id holding a '.'", observationId: "no.such.id" },
  ])("get and cancel refused by both: $name", ({ observationId }) => {
    for (const [name, schema] of [["GetRequest", GetRequest], ["CancelRequest", CancelRequest]] as const) {
      expect(schema.safeParse({ observationId }).success).toBe(false);
      expect(validate(name, { observationId })).not.toEqual([]);
    }
  });

  test("a verdict, its replies and its events as the code builds them", () => {
    const verdict: ObservationVerdict = toVerdict(observation());
    expect(validate("ObservationVerdict", verdict)).toEqual([]);
    expect(validate("GetReply", { ok: true, verdict })).toEqual([]);
    expect(validate("CancelReply", { ok: true, verdict })).toEqual([]);
    expect(validate("ObserveReply", { ok: true, observationId: verdict.observationId, replay: false })).toEqual([]);
    const refused = { ok: false, error: { code: "invalid_request", message: "invalid observation request", issues: [{ path: "resources", message: "at least one resource" }] } };
    expect(validate("ObserveReply", refused)).toEqual([]);
    expect(validate("ErrorReply", refused)).toEqual([]);
    const base = { observationId: verdict.observationId, deployment: verdict.deployment, at: "2026-11-29T10:00:05Z" };
    const events = [
      { type: "progress", ...base, resource: verdict.resources[0] },
      { type: "stage", ...base, stage: "applied" },
      { type: "verdict", ...base, verdict },
    ];
    for (const event of events) {
      expect(ObservationEvent.safeParse(event).success).toBe(true);
      expect(validate("ObservationEvent", event)).toEqual([]);
    }
    expect(validate("ObservationEvent", { ...base, type: "stalled-forever" })).not.toEqual([]);
  });

  test("signed verdicts and events, as a service with a signing key sends them", () => {
    const signer = serviceSigner(newKey);
    const verdict = signer.sign(toVerdict(observation()));
    expect(validate("ObservationVerdict", verdict)).toEqual([]);
    expect(validate("Signature", verdict.signature)).toEqual([]);
    const base = { observationId: verdict.observationId, deployment: verdict.deployment, at: "2026-11-29T10:00:05Z" };
    for (const event of [signer.sign({ type: "stage", ...base, stage: "applied" }), signer.sign({ type: "verdict", ...base, verdict })]) {
      expect(validate("ObservationEvent", event)).toEqual([]);
    }
    expect(validate("Signature", { key: newKey.publicKey, sig: "not base64url!" })).not.toEqual([]);
  });

  test("a decided verdict's attestation, its Statement and the DSSE envelope a reader assembles", () => {
    const verdict = serviceSigner(newKey, [], "prod-eu-1").signVerdict(succeededVerdict);
    expect(validate("ObservationVerdict", verdict)).toEqual([]);
    expect(validate("VerdictAttestation", verdict.attestation)).toEqual([]);
    const envelope = attestationEnvelope(verdict);
    if (typeof envelope === "string") throw new Error(`no envelope: ${envelope}`);
    expect(validate("DsseEnvelope", envelope)).toEqual([]);
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as { predicate: unknown };
    expect(validate("VerdictStatement", statement)).toEqual([]);
    expect(validate("VerdictPredicate", statement.predicate)).toEqual([]);
    expect(validate("VerdictStatement", { ...statement, subject: [] })).not.toEqual([]);
    expect(validate("VerdictAttestation", { sig: "AAAA" })).not.toEqual([]);
  });

  test("observe --progress json: the lines its writer writes, and nothing else", () => {
    const verdict = serviceSigner(newKey).sign(toVerdict(observation()));
    const base = { observationId: verdict.observationId, deployment: verdict.deployment };
    let out = "";
    const progress = jsonProgress((text) => (out += text), { now: () => Date.parse("2026-11-29T10:00:05Z") });
    progress.observing({ ...base, mode: "local", replay: false, resources: 2 });
    progress.view.event({ type: "stage", ...base, at: "2026-11-29T10:00:05Z", stage: "applied" });
    progress.notices.write("stagewatch: decided in this process (local mode: no NATS configured)\n");
    progress.view.finish(verdict);
    const lines = out.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string });
    expect(lines.map((line) => line.type)).toEqual(["observing", "stage", "notice", "verdict"]);
    for (const line of lines) expect(validate("ProgressLine", line)).toEqual([]);
    expect(validate("ProgressLine", { type: "observing", ...base, at: "2026-11-29T10:00:05Z", mode: "cluster", replay: false, resources: 2 })).not.toEqual([]);
    expect(validate("ProgressLine", { type: "notice", at: "2026-11-29T10:00:05Z" })).not.toEqual([]);
  });

  test("the keys a service answers with on <prefix>.keys: its own and a rotation's previous one, or none", () => {
    expect(validate("KeysReply", { ok: true, keys: serviceSigner(newKey, [oldKey.verifyKey]).verifyKeys })).toEqual([]);
    expect(validate("KeysReply", { ok: true, keys: [] })).toEqual([]);
    expect(KeysReply.safeParse({ ok: true, keys: ["SNAGJSASU"] }).success).toBe(false);
    expect(validate("KeysReply", { ok: true, keys: ["SNAGJSASU"] })).not.toEqual([]);
  });
});
