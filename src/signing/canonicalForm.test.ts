import { describe, expect, it } from "vitest";
import { canonicalJson, signedContent } from "./canonicalForm.js";

describe("canonicalJson", () => {
  it("sorts keys at every level and leaves out undefined members", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: undefined }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"f":1}]},"b":1}');
  });

  it("does not depend on how the body was written: member order and white space", () => {
    const written = '{\n  "outcome": "failed",\n  "resources": [ {"state":"failed","identity":{"name":"api","kind":"Deployment"}} ],\n  "at": "2026-11-29T10:00:41Z"\n}';
    const other = '{"at":"2026-11-29T10:00:41Z","resources":[{"identity":{"kind":"Deployment","name":"api"},"state":"failed"}],"outcome":"failed"}';
    expect(canonicalJson(JSON.parse(written))).toBe(canonicalJson(JSON.parse(other)));
  });

  // RFC 8785 section 3.2.3: keys sorted by UTF-16 code units, so a reader in Go or Java sorting
  // the same way gets the same bytes; integer-like keys are not moved first, as JS objects order them.
  it("sorts keys by UTF-16 code units, integer-like keys included", () => {
    expect(canonicalJson({ "€": 1, "10": 2, "9": 3, a: 4, B: 5, "\u00e9": 6 })).toBe('{"10":2,"9":3,"B":5,"a":4,"é":6,"€":1}');
  });

  it("writes strings and numbers as JSON.stringify does (RFC 8785's serialisation)", () => {
    expect(canonicalJson({ s: 'line\n"quoted" \\ \u0001 <&> é', n: [1, 1.5, -0, 1e21, 0.000001, 120] })).toBe(
      '{"n":[1,1.5,0,1e+21,0.000001,120],"s":"line\\n\\"quoted\\" \\\\ \\u0001 <&> é"}',
    );
  });
});

describe("signedContent", () => {
  it("is the canonical JSON without the top-level signature, as UTF-8", () => {
    const body = { type: "verdict", signature: { key: "N", sig: "x" }, verdict: { outcome: "failed", signature: { key: "N", sig: "y" } } };
    expect(signedContent(body).toString("utf8")).toBe('{"type":"verdict","verdict":{"outcome":"failed","signature":{"key":"N","sig":"y"}}}');
  });

  it("is the same with or without a signature, so signing again gives the same signature", () => {
    expect(signedContent({ a: 1, signature: { key: "N", sig: "x" } })).toEqual(signedContent({ a: 1 }));
  });
});
