// The cut must read every line (and every list item) exactly as JSON.parse and then deleting
// `object.metadata.managedFields` (an item's `metadata.managedFields`) reads it: the same value with
// its keys in the same order, or a throw for the same bytes. Checked on generated watch lines and items full of what could fool a byte
// scanner (the key's text inside label values, escaped quotes and backslashes, brackets inside
// strings, unicode, \u escapes, managedFields absent, first, last, alone or repeated), on the same
// lines with bytes deleted, inserted or changed (most of them no longer JSON), and on the
// realistic pod line of the fixtures.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { deleteManagedFields, managedFieldsRange, parseListItem, parseWatchLine } from "./managedFieldsCut.js";

type Outcome = { ok: true; json: string; value: unknown } | { ok: false };

/** A watch line's cut and its reference, or a list item's. */
interface Reading {
  parse: (bytes: Buffer) => unknown;
  /** What the reference deletes after JSON.parse. */
  remove: (value: unknown) => void;
  /** A blank input: a watch line is skipped, an item is not JSON. */
  blank: Outcome;
}
const watchLines: Reading = {
  parse: parseWatchLine,
  remove: (value) => deleteManagedFields((value as { object?: unknown } | null)?.object),
  blank: { ok: true, json: "blank", value: undefined },
};
const listItems: Reading = { parse: parseListItem, remove: deleteManagedFields, blank: { ok: false } };

function reference(line: Buffer, reading: Reading): Outcome {
  const text = line.toString("utf8");
  if (text.trim() === "") return reading.blank;
  try {
    const value: unknown = JSON.parse(text);
    reading.remove(value);
    return { ok: true, json: JSON.stringify(value), value };
  } catch {
    return { ok: false };
  }
}

function cut(line: Buffer, reading: Reading): Outcome {
  try {
    const value = reading.parse(line);
    return { ok: true, json: value === undefined ? "blank" : JSON.stringify(value), value };
  } catch {
    return { ok: false };
  }
}

function expectSame(line: Buffer, reading: Reading = watchLines): void {
  const expected = reference(line, reading);
  const actual = cut(line, reading);
  expect(actual.ok, line.toString("utf8")).toBe(expected.ok);
  if (actual.ok && expected.ok) {
    // The JSON text compares key order; toStrictEqual tells -0 from 0, which the text does not.
    expect(actual.json).toBe(expected.json);
    expect(actual.value).toStrictEqual(expected.value);
  }
}

// Pieces that mean something to a scanner, in keys and values alike.
const tricky = fc.constantFrom(
  '"managedFields":',
  '"managedFields":[',
  '\\"managedFields\\":[',
  '"metadata":{',
  '"object":{',
  '\\',
  '\\\\',
  '"',
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  "ü",
  "✓",
  "😀",
  "\u2028",
  "\ufeff",
  "\u0000",
  "\n",
);
const text = fc.array(fc.oneof(tricky, fc.string({ maxLength: 6 }), fc.string({ unit: "binary", maxLength: 4 })), { maxLength: 5 }).map((parts) => parts.join(""));
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(true, false, null, -0, 1e21, 1.5e-7),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(text, tricky), tie("value"), { maxKeys: 4 }),
  ),
})).value;
const managedFields = fc.oneof(
  fc.array(fc.record({ manager: text, operation: fc.constantFrom("Update", "Apply"), fieldsV1: fc.dictionary(text, json, { maxKeys: 4 }) }), { maxLength: 3 }),
  json,
);
/** A metadata object's members, in order, managedFields among them zero, one or two times. */
const metadata = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom("name", "namespace", "uid", "resourceVersion", "labels", "annotations", "ownerReferences", "managedFieldsX", "xmanagedFields"), json), { maxLength: 5 }),
    fc.array(managedFields, { maxLength: 2 }),
    fc.array(fc.nat(), { maxLength: 2 }),
  )
  .map(([members, managed, positions]) => {
    const all: [string, unknown][] = [...members];
    managed.forEach((value, k) => all.splice((positions[k] ?? 0) % (all.length + 1), 0, ["managedFields", value]));
    return all;
  });
/** JSON text already serialized, to go into its parent as it is. */
class Serialized {
  constructor(readonly text: string) {}
}
/** Serialized by hand: JSON.stringify would fold repeated keys, which is the case to test. */
const serialize = (members: readonly [string, unknown][], space: string) =>
  new Serialized(`{${members.map(([key, value]) => `${JSON.stringify(key)}:${space}${value instanceof Serialized ? value.text : JSON.stringify(value)}`).join(",")}}`);
const listItem = fc
  .record({ metadata, spec: json, metadataFirst: fc.boolean(), space: fc.constantFrom("", "", "", " ") })
  .map(({ metadata, spec, metadataFirst, space }) => {
    const members: [string, unknown][] = [["kind", "Pod"], ["metadata", serialize(metadata, space)], ["spec", spec]];
    return serialize(metadataFirst ? members : members.toReversed(), "").text;
  });
const watchLine = fc
  .record({
    type: fc.constantFrom("ADDED", "MODIFIED", "DELETED", "BOOKMARK"),
    metadata,
    spec: json,
    objectFirst: fc.boolean(),
    space: fc.constantFrom("", "", "", " "),
  })
  .map(({ type, metadata, spec, objectFirst, space }) => {
    const object = serialize([["kind", "Pod"], ["metadata", serialize(metadata, space)], ["spec", spec]], "");
    const members: [string, unknown][] = [["type", type], ["object", object]];
    return serialize(objectFirst ? members.toReversed() : members, "").text;
  });

const edits = fc.array(
  fc.record({ at: fc.nat(), kind: fc.constantFrom("delete", "insert", "replace"), byte: fc.constantFrom(...Buffer.from('"\\[]{},: 0e-.tnu\u00ff')) }),
  { minLength: 1, maxLength: 3 },
);
/** `text`'s bytes with `changes` made, one after another. */
function broken(text: string, changes: readonly { at: number; kind: string; byte: number }[]): Buffer {
  const bytes = [...Buffer.from(text)];
  for (const { at, kind, byte } of changes) {
    const i = at % (bytes.length + 1);
    if (kind === "delete") bytes.splice(i, 1);
    else if (kind === "insert") bytes.splice(i, 0, byte);
    else bytes[i] = byte;
  }
  return Buffer.from(bytes);
}

describe("parseListItem", () => {
  it("reads generated items exactly as JSON.parse and a delete of the managedFields", () => {
    fc.assert(
      fc.property(listItem, (item) => expectSame(Buffer.from(item), listItems)),
      { numRuns: 2_000 },
    );
  });

  it("agrees on the same items broken at random", () => {
    fc.assert(
      fc.property(listItem, edits, (item, changes) => expectSame(broken(item, changes), listItems)),
      { numRuns: 3_000 },
    );
  });

  it("cuts the realistic pod's managedFields, and only them", () => {
    const bytes = readFileSync(new URL("fixtures/pod-running.json", import.meta.url));
    expect(managedFieldsRange(bytes, true)).toBeDefined();
    expectSame(bytes, listItems);
    expect(parseListItem(bytes)).toHaveProperty("metadata.ownerReferences");
    expect(parseListItem(bytes)).not.toHaveProperty("metadata.managedFields");
  });
});

describe("parseWatchLine", () => {
  it("reads generated watch lines exactly as JSON.parse and a delete of the managedFields", () => {
    fc.assert(
      fc.property(watchLine, (line) => expectSame(Buffer.from(line))),
      { numRuns: 2_000 },
    );
  });

  it("agrees on the same lines broken at random: a byte deleted, inserted or replaced", () => {
    fc.assert(
      fc.property(watchLine, edits, (line, changes) => expectSame(broken(line, changes))),
      { numRuns: 3_000 },
    );
  });

  it("cuts the realistic pod line's managedFields, and only them", () => {
    const pod: unknown = JSON.parse(readFileSync(new URL("fixtures/pod-running.json", import.meta.url), "utf8"));
    const bytes = Buffer.from(JSON.stringify({ type: "MODIFIED", object: pod }));
    expect(managedFieldsRange(bytes)).toBeDefined();
    expectSame(bytes);
    expect(parseWatchLine(bytes)).toHaveProperty("object.metadata.ownerReferences");
    expect(parseWatchLine(bytes)).not.toHaveProperty("object.metadata.managedFields");
  });

  it.each([
    { name: "the first member, others after it", line: '{"object":{"metadata":{"managedFields":[1],"name":"a"}}}', cut: true },
    { name: "the last member", line: '{"object":{"metadata":{"name":"a","managedFields":[{"f:x":{}}]}}}', cut: true },
    { name: "alone", line: '{"object":{"metadata":{"managedFields":[]}}}', cut: true },
    { name: "a trailing comma after it (not JSON)", line: '{"object":{"metadata":{"managedFields":[],}}}', cut: false },
    { name: "no comma before the next key (not JSON)", line: '{"object":{"metadata":{"managedFields":[] "name":"a"}}}', cut: false },
    { name: "invalid inside its value (not JSON)", line: '{"object":{"metadata":{"name":"a","managedFields":[tru]}}}', cut: false },
    { name: "a space before the colon", line: '{"object":{"metadata":{"managedFields" :[1]}}}', cut: false },
    { name: "its key spelt with an escape", line: '{"object":{"metadata":{"\\u006danagedFields":[1]}}}', cut: false },
    { name: "the key's text in a label value", line: '{"object":{"metadata":{"labels":{"a":"\\"managedFields\\":[1]"}}}}', cut: false },
    { name: "outside metadata", line: '{"object":{"spec":{"managedFields":[1]}},"managedFields":[2]}', cut: false },
    { name: "a line that is not an object", line: '["managedFields":[1]]', cut: false },
  ])("$name", ({ line, cut: cuts }) => {
    const bytes = Buffer.from(line);
    expect(managedFieldsRange(bytes) !== undefined).toBe(cuts);
    expectSame(bytes);
  });
});
