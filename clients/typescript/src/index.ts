// memstrata: the TypeScript client of the memstrata service.
export { MemoryClient, ErrorMemory } from "./client.js";
export type { ClientOptions } from "./client.js";
export { Context } from "./context.js";
export {
  ConflictError, DiskFullError, ForbiddenError, InvalidInputError, MemstrataError, NotFoundError,
  ProviderError, RateLimitedError, ServerError, StoreError, TooLargeError, UnauthorizedError,
  UnavailableError, UnreachableError,
} from "./errors.js";
export { AdminKeys } from "./keys.js";
export type { ErrorBody } from "./errors.js";
export { nsToDate, toIsoString, toNsString } from "./time.js";
export type { TimeInput } from "./time.js";
export type * from "./types.js";
export type { components, paths } from "./openapi.js";
