// JSON with bigints: written as plain JSON numbers (JSON.stringify refuses bigints).
const MARK = "\u0000bigint:";
const MARKED = /"\\u0000bigint:(-?[0-9]+)"/g;

/** `JSON.stringify`, with each bigint written as its exact integer. */
export function stringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `${MARK}${v}` : v))
    .replace(MARKED, "$1");
}
