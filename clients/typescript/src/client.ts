// The client of the memstrata service's /v1 API, over fetch.
import { Context } from "./context.js";
import { errorFor, UnreachableError } from "./errors.js";
import { stringify } from "./json.js";
import { AdminKeys } from "./keys.js";
import type { components } from "./openapi.js";
import { nsOf, toNsString } from "./time.js";
import type {
  AddOptions, ErrorInput, ErrorRecord, Hit, ListOptions, Message, MessageInput, MessagePage,
  ReadResult, SearchOptions, SearchResult, Session, SessionStats, Summary, TenantStats,
} from "./types.js";

type Schemas = components["schemas"];
type Query = Record<string, string | number | boolean | undefined | null>;

export type ClientOptions = {
  /** Where the service listens, e.g. `http://127.0.0.1:8765`. */
  baseUrl: string;
  /** An API key (`memstrata keys create --tenant NAME`); it chooses the tenant. */
  apiKey: string;
  /** The tenant to act for, with a key made for a tenant prefix (`acme/*`): `acme/user-42`.
   * Sent as `X-Memstrata-Tenant`; leave it out with a key of one tenant. */
  tenant?: string;
  /** Milliseconds to wait for each answer (default 30,000). */
  timeoutMs?: number;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
};

const JSON_TYPE = "application/json";
const NDJSON_TYPE = "application/x-ndjson";

function message(m: Schemas["MessageOut"]): Message {
  return { ...m, at: nsOf(m.at_ns) };
}

function hit(h: Schemas["HitOut"]): Hit {
  return { ...h, message: message(h.message) };
}

function session(s: Schemas["SessionOut"]): Session {
  return { ...s, first_at: nsOf(s.first_at_ns), last_at: nsOf(s.last_at_ns) };
}

function record(r: Schemas["ErrorRecordOut"]): ErrorRecord {
  return { ...r, created_at: nsOf(r.created_at_ns), expires_at: nsOf(r.expires_at_ns) };
}

function messageBody(item: MessageInput, field = ""): Record<string, unknown> {
  const { at, ...rest } = item;
  const body: Record<string, unknown> = { ...rest };
  if (at !== undefined) body.at_ns = toNsString(at, `${field}at`);
  return body;
}

const seg = encodeURIComponent;

/** The error memory of the tenant: tool failures and what was done about them. */
export class ErrorMemory {
  constructor(private readonly client: MemoryClient) {}

  /** Remember a tool error and its fix; searchable at once. */
  async write(input: ErrorInput): Promise<ErrorRecord> {
    return record(await this.client.call("POST", "/v1/errors", { json: input }));
  }

  /** The tenant's records, newest first (not counted as hits). */
  async list(options: { tool?: string; limit?: number } = {}): Promise<ErrorRecord[]> {
    const out: Schemas["ErrorListOut"] = await this.client.call("GET", "/v1/errors",
      { query: options });
    return out.errors.map(record);
  }

  /** Records related to a failure, best first (each counts as a hit). */
  async search(q: string, options: { tool?: string; limit?: number } = {}): Promise<ErrorRecord[]> {
    const out: Schemas["ErrorListOut"] = await this.client.call("GET", "/v1/errors/search",
      { query: { q, ...options } });
    return out.errors.map(record);
  }

  /** What past records say about a failure of `tool`, ready for a model; `null` if nothing. */
  async hint(tool: string, error: string): Promise<string | null> {
    const out: Schemas["HintOut"] = await this.client.call("GET", "/v1/errors/hint",
      { query: { tool, error } });
    return out.hint;
  }

  /** One record by id or unique prefix (8+ characters). */
  async get(id: string): Promise<ErrorRecord> {
    return record(await this.client.call("GET", `/v1/errors/${seg(id)}`));
  }

  /** Delete one record. */
  async delete(id: string): Promise<void> {
    await this.client.call("DELETE", `/v1/errors/${seg(id)}`);
  }
}

const TENANT_HEADER = "X-Memstrata-Tenant";

/** One tenant's memory on a memstrata service: every call is one request. */
export class MemoryClient {
  readonly baseUrl: string;
  /** The tenant named in each request (`undefined`: the key's own tenant). */
  readonly tenant: string | undefined;
  readonly errors: ErrorMemory;
  /** The service's API keys (needs a key with the `admin` scope). */
  readonly keys: AdminKeys;
  private readonly options: ClientOptions;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly fetcher: typeof fetch;

  constructor(options: ClientOptions) {
    this.options = { ...options };
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.tenant = options.tenant;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetcher = options.fetch ?? globalThis.fetch;
    this.errors = new ErrorMemory(this);
    this.keys = new AdminKeys(this);
  }

  /** The same service and key acting for another tenant under the key's prefix: one
   * application key (`acme/*`) serves each end user as a tenant of its own. */
  forTenant(tenant: string): MemoryClient {
    return new MemoryClient({ ...this.options, tenant });
  }

  /** One request; the parsed JSON answer, or the typed exception of an error answer. */
  async call<T>(method: string, path: string, options: { query?: Query; json?: unknown } = {}
  ): Promise<T> {
    const text = await this.send(method, path, { ...options, accept: JSON_TYPE,
      ...(options.json === undefined ? {} : { body: stringify(options.json), type: JSON_TYPE }) });
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** One request; the answer's text. */
  async send(method: string, path: string, options: { query?: Query; body?: string;
    type?: string; accept?: string } = {}): Promise<string> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { Authorization: `Bearer ${this.apiKey}`,
      Accept: options.accept ?? JSON_TYPE };
    if (options.type) headers["Content-Type"] = options.type;
    if (this.tenant !== undefined) headers[TENANT_HEADER] = this.tenant;
    let response: Response;
    try {
      response = await this.fetcher(url, { method, headers, body: options.body,
        signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (cause) {
      throw new UnreachableError(`no answer from ${this.baseUrl} (${method} ${path}): `
        + `${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    }
    const text = await response.text();
    if (!response.ok) throw errorFor(response.status, text, `${method} ${path}`, response.headers);
    return text;
  }

  // -- messages ---------------------------------------------------------------------------

  /** Store one message; when the promise resolves it is committed. */
  async add(session: string, role: "user" | "assistant", content: string | unknown[],
    options: AddOptions = {}): Promise<Message> {
    return message(await this.call("POST", `/v1/sessions/${seg(session)}/messages`,
      { json: messageBody({ role, content, ...options }) }));
  }

  /** Store every item, or none when one is invalid (the error names it: `items[3].role`). */
  async addMany(session: string, items: MessageInput[]): Promise<Message[]> {
    const out: Schemas["MessageListOut"] = await this.call("POST",
      `/v1/sessions/${seg(session)}/messages/batch`,
      { json: { items: items.map((item, i) => messageBody(item, `items[${i}].`)) } });
    return out.messages.map(message);
  }

  /** A page of a session's messages, newest first (an unknown session has none). */
  async messages(session: string, options: ListOptions = {}): Promise<MessagePage> {
    const out: Schemas["MessagePageOut"] = await this.call("GET",
      `/v1/sessions/${seg(session)}/messages`, { query: { before_id: options.beforeId,
        limit: options.limit, time_range: options.timeRange } });
    return { messages: out.messages.map(message), nextBeforeId: out.next_before_id };
  }

  /** What to send before the new user input (`query`: that input, to pick summary parts). */
  async context(session: string, options: { query?: string } = {}): Promise<Context> {
    return new Context(await this.call("GET", `/v1/sessions/${seg(session)}/context`,
      { query: { query: options.query, format: "anthropic" } }));
  }

  /** The messages of the context window as stored (ids, times, senders). */
  async window(session: string): Promise<Message[]> {
    const out: Schemas["ContextOut"] = await this.call("GET",
      `/v1/sessions/${seg(session)}/context`, { query: { format: "plain" } });
    return (out.messages as Schemas["MessageOut"][]).map(message);
  }

  /** Search one session (`options.session`) or every session of the tenant. */
  async search(q: string, options: SearchOptions = {}): Promise<SearchResult> {
    const path = options.session === undefined ? "/v1/search"
      : `/v1/sessions/${seg(options.session)}/search`;
    const out: Schemas["SearchOut"] = await this.call("GET", path, { query: { q,
      match: options.match, time_range: options.timeRange, limit: options.limit,
      min_score: options.minScore, exclude_window: options.excludeWindow } });
    return { hits: out.hits.map(hit), status: out.status };
  }

  /** A message with up to `before` earlier and `after` later neighbours (0-50 each). */
  async read(id: number, options: { before?: number; after?: number } = {}): Promise<ReadResult> {
    const out: Schemas["ReadOut"] = await this.call("GET", `/v1/messages/${id}`,
      { query: options });
    return { message: message(out.message), before: out.before.map(message),
      after: out.after.map(message) };
  }

  /** Forget one message everywhere (a summary that absorbed it is kept). */
  async forget(id: number): Promise<void> {
    await this.call("DELETE", `/v1/messages/${id}`);
  }

  // -- sessions ---------------------------------------------------------------------------

  /** The tenant's sessions, newest activity first. */
  async sessions(): Promise<Session[]> {
    const out: Schemas["SessionListOut"] = await this.call("GET", "/v1/sessions");
    return out.sessions.map(session);
  }

  /** How much the tenant holds. */
  async tenantStats(): Promise<TenantStats> {
    return this.call("GET", "/v1/stats");
  }

  /** Counts, hot tier, cursor and summary cost of one session. */
  async stats(session: string): Promise<SessionStats> {
    return this.call("GET", `/v1/sessions/${seg(session)}`);
  }

  /** The stored summary, as it is. */
  async summary(session: string): Promise<Summary> {
    const out: Schemas["SummaryOut"] = await this.call("GET",
      `/v1/sessions/${seg(session)}/summary`);
    return { ...out, created_at: nsOf(out.created_at_ns) };
  }

  /** Bring the summary up to date (with the service's summary model, or a digest). */
  async summarize(session: string): Promise<Record<string, unknown> | null> {
    const out: Schemas["SummarizeOut"] = await this.call("POST",
      `/v1/sessions/${seg(session)}/summarize`);
    return out.summary;
  }

  /** Delete the messages: `summary` summarises them first and keeps it; `all` drops it too. */
  async reset(session: string, mode: "summary" | "all" = "summary"): Promise<void> {
    await this.call("POST", `/v1/sessions/${seg(session)}/reset`, { json: { mode } });
  }

  /** Delete a session from every stratum. */
  async remove(session: string): Promise<void> {
    await this.call("DELETE", `/v1/sessions/${seg(session)}`);
  }

  // -- import and export ------------------------------------------------------------------

  /** The session as JSONL text: its messages, oldest first, then its summary. Exact: keep the
   * text as it is (JSON.parse would round the times) and give it back to `importJsonl`. */
  async exportJsonl(session: string): Promise<string> {
    return this.send("GET", `/v1/sessions/${seg(session)}/export`, { accept: NDJSON_TYPE });
  }

  /** Import JSONL (text, lines or records; bigints are written exactly); all or nothing. */
  async importJsonl(session: string, data: string | Iterable<string | object>): Promise<number> {
    const text = typeof data === "string" ? data : Array.from(data,
      (line) => (typeof line === "string" ? line.replace(/[\r\n]+/g, " ") : stringify(line)))
      .join("\n");
    return this.importBody(session, text);
  }

  /** Import a `[{role, content, sendAt, sender}]` history array; all or nothing. */
  async importHistory(session: string, history: object[]): Promise<number> {
    return this.importBody(session, stringify(history));
  }

  private async importBody(session: string, body: string): Promise<number> {
    const text = await this.send("POST", `/v1/sessions/${seg(session)}/import`,
      { body, type: NDJSON_TYPE });
    return (JSON.parse(text) as Schemas["ImportOut"]).imported;
  }

  // -- health -----------------------------------------------------------------------------

  /** Whether the service is ready: its database answers a read and requests are served. */
  async ready(): Promise<boolean> {
    return this.probe("/readyz");
  }

  /** Whether the service's process is up (it may still be starting; see `ready()`). */
  async healthy(): Promise<boolean> {
    return this.probe("/healthz");
  }

  private async probe(path: string): Promise<boolean> {
    try {
      await this.call("GET", path);
      return true;
    } catch {
      return false;
    }
  }

  /** The service's metrics in Prometheus text format (needs a key with the `admin` scope). */
  async metrics(): Promise<string> {
    return this.send("GET", "/metrics", { accept: "text/plain" });
  }
}
