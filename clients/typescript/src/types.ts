// What the client returns: the service's answers (types generated from its OpenAPI document),
// with every nanosecond time as an exact bigint instead of the rounded JSON number.
import type { components } from "./openapi.js";
import type { TimeInput } from "./time.js";

type Schemas = components["schemas"];

/** A stored message. `at` is exact (from `at_ns`); ids are numbers. */
export type Message = Omit<Schemas["MessageOut"], "at"> & { at: bigint };

/** A search hit: the message, its score, and whether it matched or came as a neighbour. */
export type Hit = Omit<Schemas["HitOut"], "message"> & { message: Message };

/** Search hits, oldest first, and why there are none (`no_match`, `indexing_pending`). */
export type SearchResult = { hits: Hit[]; status: Schemas["SearchOut"]["status"] };

/** One page of a session's messages, newest first; `nextBeforeId` asks for the next one. */
export type MessagePage = { messages: Message[]; nextBeforeId: number | null };

/** A message with its neighbours. */
export type ReadResult = { message: Message; before: Message[]; after: Message[] };

/** A session of the tenant, with exact first and last times. */
export type Session = Omit<Schemas["SessionOut"], "first_at" | "last_at">
  & { first_at: bigint | null; last_at: bigint | null };

/** Counts, hot tier, cursor and summary cost of one session. */
export type SessionStats = Schemas["StatsOut"];

/** How much the tenant holds. */
export type TenantStats = Schemas["TenantStatsOut"];

/** The stored summary of a session (all `null` when there is none yet). */
export type Summary = Omit<Schemas["SummaryOut"], "created_at"> & { created_at: bigint | null };

/** A record of the error memory: a tool failure and what was done about it. */
export type ErrorRecord = Omit<Schemas["ErrorRecordOut"], "created_at" | "expires_at">
  & { created_at: bigint; expires_at: bigint };

/** What to remember about a tool failure. */
export type ErrorInput = Schemas["ErrorIn"];

/** A message as a model API takes it. */
export type WireMessage = { role: "user" | "assistant"; content: string };

/** A message as the OpenAI Chat Completions API takes it. */
export type OpenAIMessage = { role: "system" | "user" | "assistant"; content: string };

/** Optional fields of a message to add. */
export type AddOptions = {
  /** Display name of who said it. */
  sender?: string | null;
  /** When it was said (default: now): nanoseconds as bigint or decimal string, or a Date. */
  at?: TimeInput;
  /** Any JSON object kept with the message. */
  meta?: Record<string, unknown> | null;
  /** Idempotency key: the same message stored under it before is returned instead of stored
   * again; other content under a used key is a `ConflictError` (409). */
  key?: string | null;
};

/** A message to add (with `addMany`). */
export type MessageInput = AddOptions & {
  role: "user" | "assistant";
  /** Text, or content parts whose text parts are kept. */
  content: string | unknown[];
};

/** `time_range` of searches and listings: how far back. */
export type TimeRange = "1d" | "7d" | "1m" | "1y" | "all";

export type SearchOptions = {
  /** Search this session only (default: every session of the tenant). */
  session?: string;
  /** `keyword`, `semantic` or `hybrid` (default: hybrid with an embedder, else keyword). */
  match?: "keyword" | "semantic" | "hybrid";
  timeRange?: TimeRange;
  limit?: number;
  /** Score floor of every semantic or hybrid hit (-1: none). Unset, the best hit needs the
   * default floor and the others a share of its score. */
  minScore?: number;
  /** Leave out what the context window shows (default: true). */
  excludeWindow?: boolean;
};

export type ListOptions = { beforeId?: number; limit?: number; timeRange?: TimeRange };

/** What a key may do: `read` memory, `write` it, or manage keys (`admin`). */
export type Scope = "read" | "write" | "admin";

/** An API key as the service lists it (never its secret), with exact bigint times. */
export type ApiKey = Omit<Schemas["KeyOut"], "created_at" | "expires_at" | "revoked_at">
  & { created_at: bigint; expires_at: bigint | null; revoked_at: bigint | null };

/** A key just made: its record and the secret itself (`key`), shown this once only. */
export type NewApiKey = ApiKey & { key: string };

/** A key to make (`keys.create`). */
export type KeyOptions = {
  /** The tenant the key opens, or a prefix ending in `*` (`acme/*`): requests then name their
   * tenant (`new MemoryClient({ tenant })`), each a tenant of its own. */
  tenant: string;
  /** A label to recognise the key by. */
  name?: string | null;
  /** What it may do (default: read and write). */
  scopes?: Scope[];
  /** When it stops working: nanoseconds (bigint or decimal string) or a Date (default: never). */
  expiresAt?: TimeInput | null;
  /** Requests per second it may make (default: the service's setting). */
  ratePerSecond?: number | null;
  /** Messages each of its tenants may add per UTC day. */
  messagesPerDay?: number | null;
  /** Bytes of message text each of its tenants may keep. */
  storedBytes?: number | null;
};
