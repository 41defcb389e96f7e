// The splitter must read a list body, however its bytes are cut into chunks, exactly as JSON.parse
// of the whole body and a delete of each item's `metadata.managedFields` reads it: the same items
// in the same order and the same envelope, or a throw for the same bodies. Checked on generated
// bodies (the envelope's members in any order, `items` anywhere among them, empty or null, text
// full of what could fool a scanner), the same bodies broken at random, and a real page the API
// server wrote.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { ListBodySplitter, ListBodySyntaxError } from "./listBody.js";
import { deleteManagedFields } from "./managedFieldsCut.js";

type Outcome = { ok: true; items: string; envelope: string } | { ok: false };

function reference(body: Buffer): Outcome {
  try {
    const list = JSON.parse(body.toString("utf8")) as { items?: unknown };
    const items = Array.isArray(list?.items) ? list.items : [];
    for (const item of items) deleteManagedFields(item);
    const envelope = Array.isArray(list?.items) ? { ...list, items: [] } : list;
    return { ok: true, items: JSON.stringify(items), envelope: JSON.stringify(envelope) };
  } catch {
    return { ok: false };
  }
}

/** The body's bytes in chunks ending at `cuts` (offsets, any order, out of range ones ignored). */
function split(body: Buffer, cuts: readonly number[] = []): Outcome {
  const splitter = new ListBodySplitter();
  const items: unknown[] = [];
  try {
    let from = 0;
    for (const at of [...new Set(cuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b)) {
      splitter.push(body.subarray(from, at), (item) => items.push(item));
      from = at;
    }
    splitter.push(body.subarray(from), (item) => items.push(item));
    const envelope = splitter.end((item) => items.push(item));
    return { ok: true, items: JSON.stringify(items), envelope: JSON.stringify(envelope) };
  } catch {
    return { ok: false };
  }
}

function expectSame(body: Buffer, cuts: readonly number[]): void {
  const expected = reference(body);
  const actual = split(body, cuts);
  expect(actual, body.toString("utf8")).toEqual(expected);
}

const tricky = fc.constantFrom('"items":[', '"items"', "\\", '\\"', '"', "[", "]", "{", "}", ",", ":", "ü", "😀", "\u2028");
const text = fc.array(fc.oneof(tricky, fc.string({ maxLength: 6 })), { maxLength: 4 }).map((parts) => parts.join(""));
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    fc.integer(),
    fc.constantFrom(true, false, null, 1.5e-7),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.oneof(text, tricky), tie("value"), { maxKeys: 3 }),
  ),
})).value;
const item = fc.oneof(
  fc.record({
    metadata: fc.record({ name: text, labels: fc.dictionary(text, text, { maxKeys: 2 }), managedFields: fc.array(json, { maxLength: 2 }) }, { requiredKeys: ["name"] }),
    status: json,
  }),
  json,
);
const space = fc.constantFrom("", "", " ", "\n  ");
const body = fc
  .record({
    items: fc.oneof(fc.array(item, { maxLength: 5 }), fc.constant(null)),
    others: fc.array(fc.tuple(fc.constantFrom("kind", "apiVersion", "metadata", "itemsX", "xitems", "items2"), json), { maxLength: 4 }),
    position: fc.nat(),
    space,
  })
  .map(({ items, others, position, space }) => {
    const members: [string, unknown][] = [...others];
    members.splice(position % (members.length + 1), 0, ["items", items]);
    const value = (v: unknown) => (Array.isArray(v) ? `[${space}${v.map((e) => JSON.stringify(e)).join(`,${space}`)}${space}]` : JSON.stringify(v));
    return `{${space}${members.map(([key, v]) => `${JSON.stringify(key)}:${space}${value(v)}`).join(`,${space}`)}${space}}`;
  });
const cuts = fc.array(fc.nat(), { maxLength: 8 });

describe("ListBodySplitter", () => {
  it("reads generated bodies, cut into chunks anywhere, as JSON.parse of the whole", () => {
    fc.assert(
      fc.property(body, cuts, (text, at) => expectSame(Buffer.from(text), at)),
      { numRuns: 2_000 },
    );
  });

  it("agrees on the same bodies broken at random: a byte deleted, inserted or replaced", () => {
    const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom("delete", "insert", "replace"), byte: fc.constantFrom(...Buffer.from('"\\[]{},: 0tn\u00ff')) });
    fc.assert(
      fc.property(body, fc.array(edit, { minLength: 1, maxLength: 3 }), cuts, (text, edits, at) => {
        const bytes = [...Buffer.from(text)];
        for (const { at: where, kind, byte } of edits) {
          const i = where % (bytes.length + 1);
          if (kind === "delete") bytes.splice(i, 1);
          else if (kind === "insert") bytes.splice(i, 0, byte);
          else bytes[i] = byte;
        }
        const broken = Buffer.from(bytes);
        // Two `items` keys are refused where JSON.parse keeps the last (tested on its own below).
        fc.pre((broken.toString("latin1").match(/"items"\s*:/g) ?? []).length <= 1);
        expectSame(broken, at);
      }),
      { numRuns: 5_000 },
    );
  });

  it("hands over a real page's pods one by one, without their managedFields, and the list's metadata", () => {
    const pod: unknown = JSON.parse(readFileSync(new URL("fixtures/pod-running.json", import.meta.url), "utf8"));
    const page = Buffer.from(
      JSON.stringify({ kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "48213", continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ" }, items: [pod, pod, pod] }),
    );
    const splitter = new ListBodySplitter();
    const seen: unknown[] = [];
    // 1 KB chunks: each pod spans several.
    for (let at = 0; at < page.length; at += 1024) {
      const before = seen.length;
      splitter.push(page.subarray(at, at + 1024), (item) => seen.push(item));
      expect(seen.length - before).toBeLessThanOrEqual(1);
    }
    expect(splitter.end(() => expect.unreachable())).toEqual({ kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: "48213", continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ" }, items: [] });
    expect(seen).toHaveLength(3);
    expect(seen[0]).toHaveProperty("status.containerStatuses");
    expect(seen[0]).not.toHaveProperty("metadata.managedFields");
  });

  it.each([
    { name: "no comma between two items", text: '{"items":[{} {}]}' },
    { name: "a comma before the end of the items", text: '{"items":[{},]}' },
    { name: "a comma where an item should be", text: '{"items":[,{}]}' },
    { name: "brackets that do not match", text: '{"items":[{]}' },
    { name: "two items keys", text: '{"items":[],"items":[{}]}' },
    { name: "two items keys", text: '{"items":[{}],"items":null}' },
    { name: "two items keys", text: '{"items":[{}],"it\\u0065ms":[]}' },
    { name: "the answer ends in the middle", text: '{"items":[{"a":1}' },
  ])("refuses a body with $name, naming it: $text", ({ name, text }) => {
    const read = () => {
      const splitter = new ListBodySplitter();
      splitter.push(Buffer.from(text), () => undefined);
      splitter.end(() => undefined);
    };
    expect(read).toThrow(ListBodySyntaxError);
    expect(read).toThrow(name);
  });
});
