import { describe, expect, it } from "vitest";
import type { LogTarget } from "./failingContainer.js";
import { logNoteOf, logTailOf } from "./logTail.js";

const target: LogTarget = { namespace: "payments", pod: "schema-migrate-8q2lw", container: "migrate", init: false, previous: false };
const limits = { lines: 3, bytes: 200, lineChars: 60 };
const shown = { pod: target.pod, container: target.container, init: false, previous: false };

describe("logTailOf", () => {
  it("keeps a short log whole, credentials scrubbed", () => {
    const text = "applying 0042_add_invoices\nconnecting as postgres://migrator:hunter2@db:5432/payments\npassword=hunter2\n";
    expect(logTailOf(target, text, limits)).toEqual({
      ...shown,
      lines: ["applying 0042_add_invoices", "connecting as postgres://[redacted]@db:5432/payments", "password=[redacted]"],
      truncated: false,
    });
  });

  it("keeps the newest lines when the read returned one more than kept", () => {
    const tail = logTailOf(target, "one\ntwo\nthree\nfour\n", limits);
    expect(tail.lines).toEqual(["two", "three", "four"]);
    expect(tail.truncated).toBe(true);
  });

  it("marks a body cut by limitBytes inside a line", () => {
    const text = `${"x".repeat(30)}\n`.repeat(6) + "y".repeat(14);
    const tail = logTailOf(target, text, { ...limits, lines: 10 });
    expect(tail.lines.at(-1)).toBe("y".repeat(14));
    expect(tail.truncated).toBe(true);
  });

  it("cuts a long line to its bound, the `…` included, and removes escape sequences and control characters", () => {
    const tail = logTailOf(target, `\u001b[31mERROR\u001b[0m Authorization: Bearer abc.def.ghi ${"z".repeat(50)}\r\n`, limits);
    expect(tail.lines).toEqual([`ERROR Authorization: Bearer [redacted] ${"z".repeat(60 - 39 - 1)}…`]);
    expect(tail.truncated).toBe(true);
  });

  it("a coloured key, bidi overrides and zero-width characters do not hide a credential, nor reach the tail", () => {
    const log = "\u001b[36mINFO\u001b[0m[0001] starting \u001b[36mdb_password\u001b[0m=hunter2\n\u202eyek_ipa\u202c api_key=\u200babc123\n";
    expect(logTailOf(target, log, { ...limits, lineChars: 200 }).lines).toEqual(["INFO[0001] starting db_password=[redacted]", "yek_ipa api_key=[redacted]"]);
  });

  it("redacts a PEM key across its lines, and one whose BEGIN is above the tail", () => {
    const key = ["-----BEGIN PRIVATE KEY-----", "MC4CAQAwBQYDK2VwBCIEIBf1w0EXAMPLE", "KEYDATAxRk9uZW5ldHdvcms=", "-----END PRIVATE KEY-----"];
    expect(logTailOf(target, ["loading key", ...key, "loaded"].join("\n"), { ...limits, lines: 10 }).lines).toEqual([
      "loading key",
      "[redacted]",
      "loaded",
    ]);
    // The read kept only the newest lines: the key's head is gone, its tail still a secret.
    expect(logTailOf(target, ["loading key", ...key, "loaded"].join("\n"), limits)).toEqual({
      ...shown,
      lines: ["[redacted]", "loaded"],
      truncated: true,
    });
  });

  it("a line of megabytes is cut before it is scrubbed, and says so", () => {
    const tail = logTailOf(target, `token=abc123 ${"a-".repeat(512 * 1024)}\n`, { ...limits, bytes: 2 * 1024 * 1024 });
    expect(tail.lines).toEqual([`token=[redacted] ${"a-".repeat(30)}`.slice(0, 59) + "…"]);
    expect(tail.truncated).toBe(true);
  });

  it("an empty log has no lines", () => {
    expect(logTailOf({ ...target, previous: true }, "", limits)).toEqual({ ...shown, previous: true, lines: [], truncated: false });
  });
});

describe("logNoteOf", () => {
  it("cuts the server's words to one sentence's length", () => {
    const note = logNoteOf(target, `InternalError: ${"x".repeat(100_000)}`);
    expect(note.length).toBeLessThanOrEqual(512);
    expect(note.endsWith("…")).toBe(true);
  });

  it("names the container and scrubs the server's words", () => {
    expect(logNoteOf({ ...target, init: true, previous: true }, "Forbidden: token=abc123 cannot get pods/log")).toBe(
      "log of pod schema-migrate-8q2lw init container migrate (previous) not read: Forbidden: token=[redacted] cannot get pods/log",
    );
  });
});
