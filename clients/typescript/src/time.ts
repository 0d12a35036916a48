// Nanosecond times. The service's times are UTC Unix nanoseconds, about 1.8e18: past
// Number.MAX_SAFE_INTEGER (2^53), so a JavaScript number cannot hold one exactly. This client
// reads the service's exact decimal strings (`at_ns` …) into bigints and sends `at_ns`.
import { InvalidInputError } from "./errors.js";

/** A time to give the service: nanoseconds as a bigint or a decimal string, or a Date. */
export type TimeInput = bigint | string | Date;

const MAX_NS = 2n ** 63n - 1n;

/** The time as the decimal string of UTC Unix nanoseconds the service takes (`at_ns`). */
export function toNsString(at: TimeInput, field = "at"): string {
  let ns: bigint;
  if (typeof at === "bigint") {
    ns = at;
  } else if (typeof at === "string" && /^[0-9]{1,19}$/.test(at)) {
    ns = BigInt(at);
  } else if (at instanceof Date && !Number.isNaN(at.getTime())) {
    ns = BigInt(at.getTime()) * 1_000_000n;
  } else {
    throw new InvalidInputError(`${field}: must be a bigint or a decimal string of UTC Unix `
      + `nanoseconds, or a valid Date; got ${typeof at === "string" ? JSON.stringify(at) : String(at)}`,
    { type: "invalid_input", field });
  }
  if (ns < 0n || ns > MAX_NS) {
    throw new InvalidInputError(`${field}: must be 0..2^63-1 nanoseconds; got ${ns}`,
      { type: "invalid_input", field });
  }
  return ns.toString();
}

/** A nanosecond time as a Date (millisecond precision: Date holds no more). */
export function nsToDate(ns: bigint): Date {
  return new Date(Number(ns / 1_000_000n));
}

/** The exact value of a nanosecond field from its `…_ns` string. */
export function nsOf(text: string): bigint;
export function nsOf(text: string | null): bigint | null;
export function nsOf(text: string | null): bigint | null {
  return text === null ? null : BigInt(text);
}

/** The time as RFC 3339 in UTC with microseconds (what the service's datetime fields take). */
export function toIsoString(at: TimeInput, field = "at"): string {
  const ns = BigInt(toNsString(at, field));
  const seconds = ns / 1_000_000_000n;
  const micros = ((ns % 1_000_000_000n) / 1_000n).toString().padStart(6, "0");
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${micros}Z`;
}
