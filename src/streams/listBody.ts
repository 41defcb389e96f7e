// A list answer (`{"kind":"PodList",...,"metadata":{...},"items":[...]}`) taken apart as its bytes
// arrive: each element of the top-level `items` array is handed over as soon as its last byte is
// in, and everything else (the list's envelope, with `items` emptied) is read once the body ends.
//
// Why not JSON.parse the page: a 500-pod page is 3.4 MB, and decoding it, parsing it and building
// every pod's tree (managedFields included, about a third of a pod) is one step of 100 ms and more
// on a loaded core, longer than the API server's patience for a watcher it is dispatching to
// (issue 37). Split, each item is parsed on its own (managedFields cut from its bytes first, as a
// watch line's: managedFieldsCut.ts), the bytes of one network chunk at a time, and the loop is
// free between two chunks.
//
// The scanner follows strings (with escapes) and the nesting of brackets, enough to find where
// each item ends in valid JSON, and checks that brackets match and that items are separated by
// single commas; everything it hands over is then parsed by JSON.parse, which rejects anything
// else. So a body is accepted exactly when JSON.parse would accept it, and read as it reads it,
// with one exception: a body with two `items` keys is refused (JSON.parse keeps the last, and the
// first one's items are handed over by then). An `items` key spelt with escapes
// (`"it\u0065ms"`, which no API server writes) is left in the envelope, whole, and its elements
// are handed over from there.
import { backslash, closeBrace, closeBracket, comma, openBrace, openBracket, quote, whitespace } from "./jsonBytes.js";
import { deleteManagedFields, parseListItem } from "./managedFieldsCut.js";

const itemsKey = Buffer.from('"items"');
/**
 * What stands in the envelope for the items array handed over: a value no list has there, so a
 * later `items` key (JSON.parse keeps the last of repeated keys) shows in the parsed envelope.
 */
const itemsPlaceholder = "0";

/** A list body whose bytes cannot be JSON, found by the scanner before JSON.parse would. */
export class ListBodySyntaxError extends SyntaxError {
  override readonly name = "ListBodySyntaxError";
}

/** Where the scanner is inside the `items` array (only meaningful while `inItems`). */
const enum ItemsState {
  /** After `[` or a comma: an element (or, after `[` only, `]`) comes next. */
  ExpectElement,
  /** After `[`: an element or `]`. */
  ExpectFirstElement,
  /** Inside an element. */
  InElement,
  /** After an element: a comma or `]`. */
  AfterElement,
}

export class ListBodySplitter {
  /** The open brackets, innermost last (`{` or `[` as their bytes). */
  private readonly open: number[] = [];
  private inString = false;
  private escaped = false;
  /** The envelope's bytes so far: the body without the items' elements. */
  private readonly envelope: Buffer[] = [];
  /** The bytes of the string token at depth 1 being read, and the last one complete (a key or a value). */
  private depthOneString: Buffer[] = [];
  private lastDepthOneString: Buffer | undefined;
  private inItems = false;
  private itemsSeen = false;
  private itemsState = ItemsState.ExpectFirstElement;
  /** The current element's bytes from earlier chunks. */
  private element: Buffer[] = [];
  /** A scalar element (not an object or array) is read until the byte that ends it. */
  private scalarElement = false;

  /**
   * Reads one chunk; each item it completes is parsed and handed to `onItem`, in order. Throws
   * ListBodySyntaxError when the bytes cannot be JSON, SyntaxError from JSON.parse for an item
   * that is not.
   */
  push(chunk: Uint8Array, onItem: (item: unknown) => void): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const open = this.open;
    let envelopeFrom = this.inItems ? -1 : 0;
    let elementFrom = this.itemsState === ItemsState.InElement ? 0 : -1;
    let stringFrom = this.inString && open.length === 1 ? 0 : -1;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === backslash) this.escaped = true;
        else if (c === quote) {
          this.inString = false;
          if (stringFrom >= 0) {
            this.depthOneString.push(bytes.subarray(stringFrom, i + 1));
            this.lastDepthOneString = Buffer.concat(this.depthOneString);
            this.depthOneString = [];
            stringFrom = -1;
          }
        }
        continue;
      }
      if (this.inItems && open.length === 2 && this.itemsState !== ItemsState.InElement) {
        // Between two elements of `items`, or at its end.
        if (whitespace[c] === 1) continue;
        if (c === closeBracket) {
          if (this.itemsState === ItemsState.ExpectElement) this.fail("a comma before the end of the items");
          open.pop();
          this.inItems = false;
          this.envelope.push(Buffer.from(itemsPlaceholder));
          envelopeFrom = i + 1;
          continue;
        }
        if (this.itemsState === ItemsState.AfterElement) {
          if (c !== comma) this.fail("no comma between two items");
          this.itemsState = ItemsState.ExpectElement;
          continue;
        }
        if (c === comma) this.fail("a comma where an item should be");
        this.itemsState = ItemsState.InElement;
        elementFrom = i;
        if (c !== openBrace && c !== openBracket) {
          // A scalar: JSON.parse of the envelope-less element will judge it; it ends before a
          // comma, a bracket or whitespace.
          this.scalarElement = true;
          if (c === quote) this.inString = true;
          continue;
        }
      }
      if (this.scalarElement) {
        if (whitespace[c] === 1 || c === comma || c === closeBracket) {
          this.finishElement(bytes.subarray(elementFrom, i), onItem);
          elementFrom = -1;
          this.scalarElement = false;
          i--; // the byte is read again, between elements
        }
        continue;
      }
      switch (c) {
        case quote:
          this.inString = true;
          if (open.length === 1) stringFrom = i;
          break;
        case openBrace:
        case openBracket:
          if (open.length === 0 && c !== openBrace) this.fail("the answer is not an object");
          open.push(c);
          // At depth 1 the last string read before a value opens is that value's key: a string
          // value is followed by a comma and another key. (A missing colon leaves the envelope
          // invalid, and its JSON.parse says so.)
          if (c === openBracket && open.length === 2 && this.lastDepthOneString?.equals(itemsKey)) {
            if (this.itemsSeen) this.fail("two items keys");
            this.itemsSeen = true;
            this.inItems = true;
            this.itemsState = ItemsState.ExpectFirstElement;
            this.envelope.push(Buffer.from(bytes.subarray(envelopeFrom, i)));
            envelopeFrom = -1;
          }
          break;
        case closeBrace:
        case closeBracket: {
          const opened = open.pop();
          if (opened !== (c === closeBrace ? openBrace : openBracket)) this.fail("brackets that do not match");
          if (this.inItems && open.length === 2 && this.itemsState === ItemsState.InElement) {
            this.finishElement(bytes.subarray(elementFrom, i + 1), onItem);
            elementFrom = -1;
          }
          break;
        }
        default:
          if (open.length === 0 && whitespace[c] !== 1) this.fail("the answer is not an object");
      }
    }
    if (envelopeFrom >= 0) this.envelope.push(Buffer.from(bytes.subarray(envelopeFrom)));
    // Copied: what outlives its chunk must not share memory the stream may hand out again.
    if (elementFrom >= 0) this.element.push(Buffer.from(bytes.subarray(elementFrom)));
    if (stringFrom >= 0) this.depthOneString.push(Buffer.from(bytes.subarray(stringFrom)));
  }

  /**
   * The envelope (the list without its items: `items` is `[]`, or null as sent), once the body has
   * ended. Items the scanner did not see as such (an escaped key) are handed to `onItem` from it.
   */
  end(onItem: (item: unknown) => void): unknown {
    if (this.scalarElement || this.inString || this.open.length > 0) this.fail("the answer ends in the middle");
    const envelope: unknown = JSON.parse(Buffer.concat(this.envelope).toString("utf8"));
    if (typeof envelope !== "object" || envelope === null) return envelope;
    const list = envelope as { items?: unknown };
    if (this.itemsSeen) {
      if (list.items !== 0) this.fail("two items keys");
      list.items = [];
    } else if (Array.isArray(list.items)) {
      for (const item of list.items) {
        deleteManagedFields(item);
        onItem(item);
      }
      list.items = [];
    }
    return envelope;
  }

  private finishElement(last: Buffer, onItem: (item: unknown) => void): void {
    const bytes = this.element.length === 0 ? last : Buffer.concat([...this.element, last]);
    this.element = [];
    this.itemsState = ItemsState.AfterElement;
    onItem(parseListItem(bytes));
  }

  private fail(what: string): never {
    throw new ListBodySyntaxError(`a list body that is not JSON: ${what}`);
  }
}
