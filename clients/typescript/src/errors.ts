// The service's errors as typed exceptions. Every error answer of the service reads
// {"error": {"type", "message", "field"}}; each exception keeps that body, the HTTP status and
// the fields, and its class says the kind.
import type { components } from "./openapi.js";

/** The one shape of every error answer of the service. */
export type ErrorBody = components["schemas"]["ErrorBody"];

/** Anything the client throws: an error answer of the service, or no answer at all. */
export class MemstrataError extends Error {
  /** The HTTP status (`undefined` when no answer arrived). */
  readonly status: number | undefined;
  /** The service's kind of error: `invalid_input`, `not_found`, `unauthorized` … */
  readonly type: string;
  /** The offending field or parameter, when the service named one (`items[3].role`). */
  readonly field: string | null;
  /** The error answer as the service sent it (`null` when it was not the service's shape). */
  readonly body: ErrorBody | null;
  /** The answer's `X-Request-Id`: the service's log tells the operator more under it. */
  readonly requestId: string | null;
  /** Seconds the service asked to wait before trying again (`Retry-After`), if it did. */
  readonly retryAfter: number | null;

  constructor(message: string, options: { status?: number; type?: string; field?: string | null;
    body?: ErrorBody | null; requestId?: string | null; retryAfter?: number | null;
    cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = options.status;
    this.type = options.type ?? "";
    this.field = options.field ?? null;
    this.body = options.body ?? null;
    this.requestId = options.requestId ?? null;
    this.retryAfter = options.retryAfter ?? null;
  }
}

/** 422: the input is not acceptable; nothing was written. `field` names it. */
export class InvalidInputError extends MemstrataError {}
/** 404: no such session, message or record in this tenant. */
export class NotFoundError extends MemstrataError {}
/** 401: no valid API key (missing, unknown, revoked or expired). */
export class UnauthorizedError extends MemstrataError {}
/** 403: the key is valid but may not do this: a scope it lacks, or a tenant outside its own. */
export class ForbiddenError extends MemstrataError {}
/** 409: an idempotency key already stored a message with other content; nothing was written. */
export class ConflictError extends MemstrataError {}
/** 429: the key's request rate or the tenant's quota is used up; `retryAfter` says when to
 * try again. */
export class RateLimitedError extends MemstrataError {}
/** 413: the body, or a field of it, is larger than the service accepts. */
export class TooLargeError extends MemstrataError {}
/** 502: the service's model provider (embedder or LLM) failed. */
export class ProviderError extends MemstrataError {}
/** 503: the service is starting or stopping; try again shortly. */
export class UnavailableError extends MemstrataError {}
/** 500 `store_error`: the service's database failed (a damaged file, a file removed under it,
 * PostgreSQL gone); the service's log has the details under `requestId`. As the Python
 * library's `StoreError`, it is the parent of the full disk's error. */
export class StoreError extends MemstrataError {}
/** 507: the disk holding the service's database is full; nothing of the request was stored. */
export class DiskFullError extends StoreError {}
/** Any other error answer (500 `internal_error`, 405, 415 …). */
export class ServerError extends MemstrataError {}
/** No answer: connection refused, name not resolved, or the timeout passed. */
export class UnreachableError extends MemstrataError {}

const BY_STATUS: Record<number, typeof MemstrataError> = {
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  413: TooLargeError,
  422: InvalidInputError,
  429: RateLimitedError,
  502: ProviderError,
  503: UnavailableError,
  507: DiskFullError,
};

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== "object" || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return typeof error === "object" && error !== null
    && typeof (error as { type?: unknown }).type === "string"
    && typeof (error as { message?: unknown }).message === "string";
}

function seconds(value: string | null): number | null {
  if (value === null || !/^\s*[0-9]+\s*$/.test(value)) return null;
  return Number(value);
}

/** The exception for an error answer (its body already read as text). */
export function errorFor(status: number, text: string, where: string,
  headers?: Headers): MemstrataError {
  const requestId = headers?.get("x-request-id") ?? null;
  const retryAfter = seconds(headers?.get("retry-after") ?? null);
  const ref = requestId && !text.includes(requestId) ? `, request id ${requestId}` : "";
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch { /* not JSON: a proxy's page, say */ }
  const Kind = isErrorBody(parsed) && parsed.error.type === "store_error" ? StoreError
    : BY_STATUS[status] ?? ServerError;
  if (isErrorBody(parsed)) {
    const { type, message, field } = parsed.error;
    const named = field ? `${field}: ${message}` : message;
    return new Kind(`${named} (${status} ${type} from ${where}${ref})`,
      { status, type, field: field ?? null, body: parsed, requestId, retryAfter });
  }
  const excerpt = text.replace(/\s+/g, " ").trim().slice(0, 300);
  return new Kind(`${where} answered ${status}${excerpt ? `: ${excerpt}` : ""}`,
    { status, requestId, retryAfter });
}
