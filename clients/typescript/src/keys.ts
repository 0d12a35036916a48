// Key management over the service's /v1/admin/keys routes, with a key that holds the `admin`
// scope. It acts only on keys whose tenants lie within the admin key's own (an admin key for
// `acme/*` manages the keys of `acme/…`; one for `*`, every key).
import type { MemoryClient } from "./client.js";
import { InvalidInputError } from "./errors.js";
import type { components } from "./openapi.js";
import { nsOf, toIsoString } from "./time.js";
import type { ApiKey, KeyOptions, NewApiKey } from "./types.js";

type Schemas = components["schemas"];

const PATH = "/v1/admin/keys";
const KEY_ID = /^[a-z0-9]{8}$/;

function apiKey(k: Schemas["KeyOut"]): ApiKey {
  return { ...k, created_at: nsOf(k.created_at_ns), expires_at: nsOf(k.expires_at_ns),
    revoked_at: nsOf(k.revoked_at_ns) };
}

/** The service's API keys, managed with an admin key (`memstrata keys create --scope admin`). */
export class AdminKeys {
  constructor(private readonly client: MemoryClient) {}

  /** Make a key. Its secret (`key`) is in this answer only: the service keeps just a hash. */
  async create(options: KeyOptions): Promise<NewApiKey> {
    const body: Record<string, unknown> = { tenant: options.tenant, name: options.name,
      scopes: options.scopes, rate_per_second: options.ratePerSecond,
      messages_per_day: options.messagesPerDay, stored_bytes: options.storedBytes };
    if (options.expiresAt !== undefined && options.expiresAt !== null) {
      body.expires_at = toIsoString(options.expiresAt, "expiresAt");
    }
    for (const name of Object.keys(body)) if (body[name] === undefined) delete body[name];
    const made: Schemas["NewKeyOut"] = await this.client.call("POST", PATH, { json: body });
    return { ...apiKey(made), key: made.key };
  }

  /** The keys within the admin key's tenants, oldest first; revoked ones too (`revoked_at`).
   * `tenant`: only the keys of that tenant, or of that prefix (`acme/*`). */
  async list(options: { tenant?: string } = {}): Promise<ApiKey[]> {
    const out: Schemas["KeyListOut"] = await this.client.call("GET", PATH,
      { query: { tenant: options.tenant } });
    return out.keys.map(apiKey);
  }

  /** Revoke a key by its id: requests with it are refused (401) from now on. */
  async revoke(id: string): Promise<ApiKey> {
    if (!KEY_ID.test(id)) {
      throw new InvalidInputError(`id: must be a key id, 8 lower-case letters and digits (as `
        + `list() gives it); got ${JSON.stringify(id)}`, { type: "invalid_input", field: "id" });
    }
    return apiKey(await this.client.call("DELETE", `${PATH}/${id}`));
  }
}
