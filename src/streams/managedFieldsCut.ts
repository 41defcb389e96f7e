// `metadata.managedFields` cut from an object's bytes before JSON.parse builds it: in a watch line
// (`object.metadata.managedFields`) and in an item of a list page (`metadata.managedFields`).
// managedFields is about a third of a pod (one entry per field manager, a trie of every field it
// set) and nothing reads it: the strip drops it at once. Building it costs more than skipping it,
// so the bytes are walked (a few hundred bytes up to the key), the value skipped over, and the rest
// decoded and parsed.
//
// The cut must answer exactly what JSON.parse and then `delete ...metadata.managedFields` answers,
// for every input, so the walk validates what it passes over (grammar, escapes, control
// characters, numbers) and gives up, leaving the bytes whole, on anything it does not recognize:
// whitespace between a key and its colon, a key spelt with escapes, invalid JSON (JSON.parse then
// throws on the whole, as it would have). The delete still runs after the parse: a repeated
// `object`, `metadata` or `managedFields` key (JSON.parse keeps the last) is removed there.
// Cut boundaries are ASCII bytes, so decoding the pieces gives the same characters, replacement
// characters for invalid UTF-8 included, as decoding the whole.
import { backslash, closeBrace, closeBracket, colon, comma, openBrace, openBracket, quote, whitespace } from "./jsonBytes.js";

const minus = 0x2d;
const plus = 0x2b;
const dot = 0x2e;
const invalid = -1;

const objectKey = Buffer.from('"object":');
const metadataKey = Buffer.from('"metadata":');
const managedFieldsKey = Buffer.from('"managedFields":');

// The characters a backslash may escape in JSON, besides `u` (which takes four hex digits).
const simpleEscapes = new Uint8Array(128);
for (const c of '"\\/bfnrt') simpleEscapes[c.charCodeAt(0)] = 1;

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined): boolean =>
  c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));

function skipWhitespace(bytes: Uint8Array, at: number): number {
  let i = at;
  while (whitespace[bytes[i]!] === 1) i++;
  return i;
}

// Bytes a string's characters run on over: all but the quote, the backslash and control
// characters (bytes from 0x80 on are parts of characters, whatever their UTF-8).
const plainInString = new Uint8Array(256).fill(1);
for (let c = 0; c < 0x20; c++) plainInString[c] = 0;
plainInString[quote] = 0;
plainInString[backslash] = 0;

/** The end of the JSON string opening at `at`, or invalid. */
function skipString(bytes: Uint8Array, at: number): number {
  let i = at + 1;
  for (;;) {
    // Past the end, bytes[i] is undefined and the table answers undefined: the loop stops there.
    while (plainInString[bytes[i]!] === 1) i++;
    const c = bytes[i];
    if (c === quote) return i + 1;
    if (c !== backslash) return invalid;
    const escaped = bytes[i + 1];
    if (escaped === 0x75) {
      if (!(isHex(bytes[i + 2]) && isHex(bytes[i + 3]) && isHex(bytes[i + 4]) && isHex(bytes[i + 5]))) return invalid;
      i += 6;
    } else if (escaped !== undefined && simpleEscapes[escaped] === 1) {
      i += 2;
    } else {
      return invalid;
    }
  }
}

/** `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` from `at`. */
function skipNumber(bytes: Uint8Array, at: number): number {
  let i = at;
  if (bytes[i] === minus) i++;
  if (bytes[i] === 0x30) i++;
  else if (isDigit(bytes[i])) while (isDigit(bytes[i])) i++;
  else return invalid;
  if (bytes[i] === dot) {
    i++;
    if (!isDigit(bytes[i])) return invalid;
    while (isDigit(bytes[i])) i++;
  }
  if (bytes[i] === 0x65 || bytes[i] === 0x45) {
    i++;
    if (bytes[i] === plus || bytes[i] === minus) i++;
    if (!isDigit(bytes[i])) return invalid;
    while (isDigit(bytes[i])) i++;
  }
  return i;
}

function skipLiteral(bytes: Uint8Array, at: number, literal: string): number {
  for (let k = 0; k < literal.length; k++) if (bytes[at + k] !== literal.charCodeAt(k)) return invalid;
  return at + literal.length;
}

/** Past a member's key and its colon, at the value; invalid when there is no key there. */
function skipKey(bytes: Uint8Array, at: number): number {
  if (bytes[at] !== quote) return invalid;
  const end = skipString(bytes, at);
  if (end === invalid) return invalid;
  const afterKey = skipWhitespace(bytes, end);
  return bytes[afterKey] === colon ? skipWhitespace(bytes, afterKey + 1) : invalid;
}

/**
 * The end of the JSON value starting at `at` (no whitespace before it), or invalid. Iterative, with
 * the open containers on a stack, so no nesting depth overflows it.
 */
export function skipValue(bytes: Uint8Array, at: number): number {
  const open: number[] = [];
  let i = at;
  for (;;) {
    const c = bytes[i];
    if (c === openBrace) {
      i = skipWhitespace(bytes, i + 1);
      if (bytes[i] === closeBrace) {
        i++;
      } else {
        open.push(closeBrace);
        i = skipKey(bytes, i);
        if (i === invalid) return invalid;
        continue;
      }
    } else if (c === openBracket) {
      i = skipWhitespace(bytes, i + 1);
      if (bytes[i] === closeBracket) i++;
      else {
        open.push(closeBracket);
        continue;
      }
    } else if (c === quote) i = skipString(bytes, i);
    else if (c === 0x74) i = skipLiteral(bytes, i, "true");
    else if (c === 0x66) i = skipLiteral(bytes, i, "false");
    else if (c === 0x6e) i = skipLiteral(bytes, i, "null");
    else if (c === minus || isDigit(c)) i = skipNumber(bytes, i);
    else return invalid;
    if (i === invalid) return invalid;
    // After a value: close what ends here, then on to the next member or element.
    for (;;) {
      if (open.length === 0) return i;
      i = skipWhitespace(bytes, i);
      const next = bytes[i];
      if (next === open[open.length - 1]) {
        open.pop();
        i++;
        continue;
      }
      if (next !== comma) return invalid;
      i = skipWhitespace(bytes, i + 1);
      if (open[open.length - 1] === closeBrace) {
        i = skipKey(bytes, i);
        if (i === invalid) return invalid;
      }
      break;
    }
  }
}

function startsWith(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > bytes.length) return false;
  for (let k = 0; k < prefix.length; k++) if (bytes[at + k] !== prefix[k]) return false;
  return true;
}

interface Member {
  /** The `{` or `,` before the key. */
  readonly delimiter: number;
  readonly key: number;
  readonly value: number;
}

/** The member of the object opening at `at` whose key and colon are the bytes `key`, or undefined. */
function findMember(bytes: Uint8Array, at: number, key: Uint8Array): Member | undefined {
  let delimiter = at;
  let i = skipWhitespace(bytes, at + 1);
  if (bytes[i] === closeBrace) return undefined;
  for (;;) {
    if (startsWith(bytes, i, key)) return { delimiter, key: i, value: skipWhitespace(bytes, i + key.length) };
    i = skipKey(bytes, i);
    if (i === invalid) return undefined;
    i = skipValue(bytes, i);
    if (i === invalid) return undefined;
    i = skipWhitespace(bytes, i);
    if (bytes[i] !== comma) return undefined;
    delimiter = i;
    i = skipWhitespace(bytes, i + 1);
  }
}

/** The value of the member `key` of the object opening at `at`, when it is an object itself. */
function objectMember(bytes: Uint8Array, at: number, key: Uint8Array): number | undefined {
  const member = findMember(bytes, at, key);
  return member && bytes[member.value] === openBrace ? member.value : undefined;
}

/** Where `metadata` is: the members leading to it, outermost first, as bytes (`"object":`) and as names. */
interface ManagedFieldsPath {
  readonly keys: readonly Uint8Array[];
  readonly names: readonly string[];
}
const inWatchEvent: ManagedFieldsPath = { keys: [objectKey, metadataKey], names: ["object", "metadata"] };
const inListItem: ManagedFieldsPath = { keys: [metadataKey], names: ["metadata"] };

/**
 * The byte range to cut so that the bytes read as they would with `metadata.managedFields` deleted
 * (a watch event's, or with `inItem` a list item's), or undefined when they have none at that place
 * or the walk gives up.
 */
export function managedFieldsRange(bytes: Uint8Array, inItem = false): { start: number; end: number } | undefined {
  const root = skipWhitespace(bytes, 0);
  if (bytes[root] !== openBrace) return undefined;
  let container: number | undefined = root;
  for (const key of (inItem ? inListItem : inWatchEvent).keys) container = container === undefined ? undefined : objectMember(bytes, container, key);
  const member = container === undefined ? undefined : findMember(bytes, container, managedFieldsKey);
  if (member === undefined) return undefined;
  const valueEnd = skipValue(bytes, member.value);
  if (valueEnd === invalid) return undefined;
  const after = skipWhitespace(bytes, valueEnd);
  // With the comma before it: `,"managedFields":[...]` goes, whatever followed reads as before.
  if (bytes[member.delimiter] === comma) {
    return bytes[after] === comma || bytes[after] === closeBrace ? { start: member.delimiter, end: valueEnd } : undefined;
  }
  // The first member: alone, or with the comma after it when another member follows.
  if (bytes[after] === closeBrace) return { start: member.key, end: valueEnd };
  if (bytes[after] === comma && bytes[skipWhitespace(bytes, after + 1)] === quote) return { start: member.key, end: after + 1 };
  return undefined;
}

/** JSON.parse of `bytes` with `metadata.managedFields` (a watch event's, or a list item's) deleted; undefined when they are blank. */
function parseWithoutManagedFields(bytes: Buffer, inItem: boolean): unknown {
  // Most objects of most kinds have managedFields; bytes without the key are not walked at all.
  const range = bytes.indexOf(managedFieldsKey) < 0 ? undefined : managedFieldsRange(bytes, inItem);
  let text: string;
  if (range === undefined) {
    text = bytes.toString("utf8");
    if (text.trim() === "") return undefined;
  } else {
    text = bytes.toString("utf8", 0, range.start) + bytes.toString("utf8", range.end);
  }
  const value: unknown = JSON.parse(text);
  let metadata: unknown = value;
  for (const name of (inItem ? inListItem : inWatchEvent).names) metadata = (metadata as Record<string, unknown> | null)?.[name];
  if (typeof metadata === "object" && metadata !== null) delete (metadata as { managedFields?: unknown }).managedFields;
  return value;
}

/**
 * One watch line as JSON.parse reads it, `object.metadata.managedFields` deleted; undefined for a
 * blank line. Throws JSON.parse's SyntaxError for a line that is not JSON.
 */
export function parseWatchLine(line: Buffer): unknown {
  return parseWithoutManagedFields(line, false);
}

/** One item of a list page as JSON.parse reads it, `metadata.managedFields` deleted. Throws JSON.parse's SyntaxError. */
export function parseListItem(bytes: Buffer): unknown {
  const value = parseWithoutManagedFields(bytes, true);
  // Blank bytes are never an item (the list scanner hands over none), but JSON.parse says so.
  return value === undefined ? JSON.parse("") : value;
}

/** `delete item.metadata.managedFields`, wherever that path exists (an item parsed whole). */
export function deleteManagedFields(item: unknown): void {
  const metadata = (item as { metadata?: unknown } | null)?.metadata;
  if (typeof metadata === "object" && metadata !== null) delete (metadata as { managedFields?: unknown }).managedFields;
}
