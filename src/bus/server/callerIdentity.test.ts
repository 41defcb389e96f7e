// Who a request is from, as the NATS server says: each way a request can arrive, and the answer.
import { describe, expect, it } from "vitest";
import { parseTenantsFile, soleCaller } from "../../tenants/index.js";
import { identifyCaller } from "./callerIdentity.js";

const tenants = parseTenantsFile("tenants: {TEAM_A: {namespaces: [a]}, TEAM_B: {namespaces: [b]}}", "tenants.yaml");
const imported = { tenantToken: "TEAM_A", requestInfo: JSON.stringify({ acc: "TEAM_A", rtt: 1200000 }), reply: "_R_.kzbnEB.T48Nzl" };

describe("identifyCaller", () => {
  it("without a tenants file: the sole caller, whatever arrived", () => {
    expect(identifyCaller(undefined, { tenantToken: undefined, requestInfo: undefined, reply: "_INBOX.x" })).toEqual({ ok: true, caller: soleCaller });
  });

  it("through an import: the tenant the header and the subject both name", () => {
    expect(identifyCaller(tenants, imported)).toEqual({ ok: true, caller: tenants.get("TEAM_A") });
  });

  it.each([
    ["on the plain subject", { ...imported, tenantToken: undefined }, "this service answers tenants only"],
    ["without the header", { ...imported, requestInfo: undefined }, "no Nats-Request-Info header"],
    ["with an empty header", { ...imported, requestInfo: "" }, "no Nats-Request-Info header"],
    ["with the client's own reply subject (no import crossed)", { ...imported, reply: "_INBOX.abc" }, "reply subject"],
    ["without a reply subject", { ...imported, reply: undefined }, "reply subject"],
    ["with a header that is not JSON", { ...imported, requestInfo: "TEAM_A" }, "is not JSON"],
    ["with a header naming no account", { ...imported, requestInfo: "{}" }, "names no account"],
    ["with a header naming another account than the subject", { ...imported, requestInfo: JSON.stringify({ acc: "TEAM_B" }) }, "names account TEAM_B, the subject TEAM_A"],
    ["from an account that is no tenant", { ...imported, tenantToken: "TEAM_C", requestInfo: JSON.stringify({ acc: "TEAM_C" }) }, "account TEAM_C is not a tenant"],
  ])("%s: refused, naming the caller", (_, request, message) => {
    const identified = identifyCaller(tenants, request);
    expect(identified).toMatchObject({ ok: false, issues: [{ path: "(caller)", message: expect.stringContaining(message) }] });
  });
});
