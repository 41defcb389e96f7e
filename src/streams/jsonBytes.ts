// The bytes of JSON's structure, for the scanners that read JSON as bytes before (or instead of)
// JSON.parse: the managedFields cut and the list body's splitter.
export const quote = 0x22;
export const backslash = 0x5c;
export const comma = 0x2c;
export const colon = 0x3a;
export const openBrace = 0x7b;
export const closeBrace = 0x7d;
export const openBracket = 0x5b;
export const closeBracket = 0x5d;

/** 1 for JSON's four whitespace bytes (space, tab, line feed, carriage return), 0 for every other byte. */
export const whitespace = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) whitespace[c] = 1;
