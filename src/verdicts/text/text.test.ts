import { describe, expect, it } from "vitest";
import { formatDuration, withoutControlCharacters } from "./text.js";

describe("formatDuration (Go's time.Duration, to the second)", () => {
  it.each([
    [300_000, "5m0s"],
    [299_600, "5m0s"],
    [45_000, "45s"],
    [90_000, "1m30s"],
    [3_600_000, "1h0m0s"],
    [5_430_000, "1h30m30s"],
    [0, "0s"],
    [-1_000, "0s"],
  ])("%i ms -> %s", (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });
});

describe("withoutControlCharacters: what a terminal acts on or hides text behind", () => {
  it.each([
    ["CR rewriting the line", "pulled\rFAILED", "pulledFAILED"],
    ["ESC colour and cursor sequences, whole, and BEL", "\u001b[1;31mERROR\u001b[0m\u001b[2K\u001b[?25l\u0007 done", "ERROR done"],
    ["a key a logger coloured", "\u001b[36mpassword\u001b[0m=hunter2", "password=hunter2"],
    ["an OSC 8 hyperlink and its hidden target, an OSC title ended by ST", "\u001b]8;;https://evil.example\u0007rotate token\u001b]8;;\u0007 \u001b]0;pwned\u001b\\ok", "rotate token ok"],
    ["charset and keypad escapes", "\u001b(Bx\u001b7y\u001b=z", "xyz"],
    ["an incomplete sequence: its controls, the rest shown", "cut\u001b[3", "cut3"],
    ["NUL, DEL and C1 controls (U+009B is a one-character CSI)", "a\u0000b\u007fc\u009b31md\u0085e", "abcde"],
    ["bidi overrides and embeddings", "\u202eFFOkcaBlluPegamI\u202c \u202aa\u202b\u202d", "FFOkcaBlluPegamI a"],
    ["bidi isolates and marks", "\u2066ok\u2069 \u2067x\u2068\u200e\u200f\u061c", "ok x"],
    ["zero-width space, non-joiner, joiner, word joiner, BOM, soft hyphen", "pass\u200bw\u200co\u200dr\u2060d\ufeff\u00ad=", "password="],
    ["tag characters", "ok\u{e0041}\u{e007f}", "ok"],
    ["line and paragraph separators, as spaces", "first\u2028second\u2029third", "first second third"],
  ])("removes %s", (_what, text, expected) => {
    expect(withoutControlCharacters(text)).toBe(expected);
  });

  it("keeps tab, line feed and every printable character, in any script", () => {
    const text = "line 1\tcol\nline 2: 0/3 nodes — Überprüfung fehlgeschlagen, 节点不可用, ✅ 🚀";
    expect(withoutControlCharacters(text)).toBe(text);
  });
});
