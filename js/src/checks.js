// What every part of the package uses to check its arguments and report failures: SweError, the
// description of a bad value, bytes from any buffer, lists of texts. Imports nothing.

/** A failure reported by the core: `code` is its status name ("corrupt", "invalid argument", ...). */
export class SweError extends Error {
  constructor(message, code, status) {
    super(message);
    this.name = 'SweError';
    this.code = code;
    this.status = status;
  }
}

/** Uint8Array view of an ArrayBuffer or any ArrayBufferView (no copy); TypeError otherwise. */
export function toBytes(value, what) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw new TypeError(`${what}: expected a Uint8Array or ArrayBuffer, got ${describe(value)}`);
}

export function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `a ${value.constructor?.name ?? 'object'}`;
  return `a ${typeof value}`;
}

/** The texts as an array of strings; TypeError naming the first bad element otherwise. */
export function checkTexts(texts, what) {
  if (!Array.isArray(texts)) {
    throw new TypeError(`${what}: expected a string or an array of strings, got ${describe(texts)}`);
  }
  for (let i = 0; i < texts.length; ++i) {
    if (typeof texts[i] !== 'string') {
      throw new TypeError(`${what}: texts[${i}] is not a string (${describe(texts[i])})`);
    }
  }
  return texts;
}
