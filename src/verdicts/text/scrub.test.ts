import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { adversarialInputs, adversarialText } from "../../../test/fixtures/adversarialText.js";
import { scrubBounded, scrubCredentials, scrubLookahead } from "./scrub.js";

const SecretShapes = z.strictObject({
  about: z.string(),
  secrets: z.array(z.strictObject({ shape: z.string(), text: z.string(), scrubbed: z.string(), secrets: z.array(z.string()).min(1) })),
  ordinary: z.array(z.string()),
});
const corpus = SecretShapes.parse(
  JSON.parse(readFileSync(new URL("../../../test/fixtures/secret-shapes.json", import.meta.url), "utf8")),
);

/** 47 until issue 32, which added the shapes its review found passing (DSNs, env JSON, flags, cookies, vendor tokens, hashes, DER keys, hidden characters). */
const shapesCaught = 80;

describe("scrubCredentials: the corpus of secret shapes", () => {
  it.each(corpus.secrets)("$shape", ({ text, scrubbed, secrets }) => {
    const out = scrubCredentials(text);
    expect(out).toBe(scrubbed);
    for (const secret of secrets) expect(out).not.toContain(secret);
  });

  it(`catches all ${shapesCaught} shapes: none dropped from the corpus, none leaking`, () => {
    const caught = corpus.secrets.filter(({ text, secrets }) => {
      const out = scrubCredentials(text);
      return secrets.every((secret) => !out.includes(secret));
    });
    expect(corpus.secrets).toHaveLength(shapesCaught);
    expect(caught.map(({ shape }) => shape)).toEqual(corpus.secrets.map(({ shape }) => shape));
  });
});

describe("scrubCredentials on shapes a line apart, as a termination message or log holds them", () => {
  // abuse.e2e fails a Job with several shapes in its termination message: a pattern that ran past
  // a line's end took the next line's first word (`for user\ncurl`), and the next pattern, which
  // needs that word, let `-u deploy:hunter2` through.
  const leaked = (text: string, secrets: readonly string[]) => {
    const out = scrubCredentials(text);
    return secrets.filter((secret) => new RegExp(`(?<![A-Za-z0-9])${secret.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![A-Za-z0-9])`).test(out));
  };

  it("every shape followed by the next: no secret of either survives", () => {
    const pairs = corpus.secrets.slice(1).map((next, i) => [corpus.secrets[i]!, next] as const);
    const leaks = pairs.flatMap(([a, b]) => leaked(`${a.text}\n${b.text}`, [...a.secrets, ...b.secrets]).map((secret) => `${a.shape} / ${b.shape}: ${secret}`));
    expect(leaks).toEqual([]);
  });

  it("all of them in one text: no secret survives", () => {
    expect(leaked(corpus.secrets.map(({ text }) => text).join("\n"), corpus.secrets.flatMap(({ secrets }) => secrets))).toEqual([]);
  });
});

describe("scrubCredentials reads the text as a person sees it", () => {
  it("removes control and format characters, and the output keeps none", () => {
    expect(scrubCredentials("\u001b[1mtoken\u001b[0m=\u200babc123\r\nnext line\u2028done")).toBe("token=[redacted]\nnext line done");
  });

  it("NFKC-normalises first: fullwidth and ligature spellings of a credential name are caught", () => {
    expect(scrubCredentials("ＡＰＩ＿ＫＥＹ=abc123 ﬁle=ok")).toBe("API_KEY=[redacted] file=ok");
  });

  it("a NFKC expansion cannot push scrubBounded past its bound", () => {
    // U+FDFA is one character that NFKC writes as 18.
    const out = scrubBounded("\ufdfa".repeat(500), 200);
    expect(out).toHaveLength(200);
    expect(out.endsWith("…")).toBe(true);
  });
});

describe("scrubCredentials: ordinary cluster text is left alone", () => {
  it.each(corpus.ordinary)("%s", (text) => {
    expect(scrubCredentials(text)).toBe(text);
  });
});

describe("scrubCredentials on adversarial text", () => {
  // A backtracking pattern takes minutes on these (bench/scrub.bench.ts measures how long the
  // linear ones take); what is asserted is that a long run is scrubbed as its start is alone.
  it.each(Object.entries(adversarialInputs))("%s", (_name, input) => {
    const long = scrubCredentials(adversarialText(input, 256 * 1024));
    const short = scrubCredentials(adversarialText(input, 4 * 1024));
    expect(long.slice(0, 256)).toBe(short.slice(0, 256));
  });
});

describe("scrubBounded: cut first, then scrubbed", () => {
  const padding = (n: number) => "x".repeat(n);

  it("keeps at most the bound, `…` included, whatever the text's size", () => {
    const out = scrubBounded(`${padding(100)} password=hunter2 ${"y".repeat(4 * 1024 * 1024)}`, 200);
    expect(out).toHaveLength(200);
    expect(out.endsWith("…")).toBe(true);
    expect(out).toContain("password=[redacted]");
  });

  it("leaves a text within its bound as scrubCredentials does", () => {
    const text = "pull failed for https://deploy:s3cr3t@registry.acme.internal/v2/";
    expect(scrubBounded(text, 200)).toBe(scrubCredentials(text));
  });

  it.each([
    ["a URL password", "postgres://migrator:hunter2-and-more@db:5432/app", "hunter2"],
    ["a JWT", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaS1ib3QtdG9rZW4ifQ.c2lnbmF0dXJl", "eyJzdWIiOiJjaS1ib3Q"],
    ["an AWS access key id", "AKIAIOSFODNN7EXAMPLE", "AKIAIOSF"],
    ["a PEM key", "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIBf1w0EXAMPLEKEY\n-----END PRIVATE KEY-----", "MC4CAQAw"],
  ])("redacts %s that straddles the bound, seen whole through the lookahead", (_what, secret, head) => {
    const text = `${padding(100)} ${secret} and more`;
    // The bound falls inside the secret: what a scrubber of the cut text alone would leak.
    const out = scrubBounded(text, 101 + Math.ceil(secret.length / 2));
    expect(out).not.toContain(head);
    expect(out).toContain("[redac");
  });

  it("marks a cut with `…` even when redactions shrank the text below its bound", () => {
    const key = `-----BEGIN PRIVATE KEY-----\n${"A".repeat(scrubLookahead * 2)}\n-----END PRIVATE KEY-----`;
    expect(scrubBounded(`bad key ${key} loaded`, 100)).toBe("bad key [redacted]…");
  });
});
