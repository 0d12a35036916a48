// The /v1 API as the page uses it: the key from sessionStorage in a Bearer header, errors
// turned into ApiError with what the server said.

const KEY = "memstrata.key";

export class ApiError extends Error {
  constructor(status, type, message, field = null) {
    super(message);
    this.status = status;
    this.type = type;
    this.field = field;
  }

  /** One line for the page: what failed and what the server said. */
  describe() {
    const where = this.field ? ` (field: ${this.field})` : "";
    const code = this.status ? `${this.status} ${this.type}` : this.type;
    return `${code}: ${this.message}${where}`;
  }
}

export function storedKey() {
  return sessionStorage.getItem(KEY);
}

export function storeKey(key) {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY);
}

/** The key's public part (`ms_<id>`), never the secret. */
export function keyLabel(key) {
  const match = /^(ms_[^_]+)_/.exec(key || "");
  return match ? match[1] : "key";
}

// Relative to the page, so the inspector also works when the server sits under a prefix.
function url(path, query) {
  const u = new URL(path.replace(/^\//, ""), document.baseURI);
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== null && value !== undefined && value !== "") u.searchParams.set(name, value);
  }
  return u;
}

async function failure(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's error page, say): the status line is all there is.
  }
  const err = body && typeof body === "object" ? body.error : null;
  if (err && typeof err === "object") {
    return new ApiError(response.status, String(err.type || "error"),
      String(err.message || response.statusText), err.field ?? null);
  }
  const detail = body && typeof body.detail === "string" ? body.detail : response.statusText;
  return new ApiError(response.status, "http_error", detail || "request failed");
}

/** GET `path` (e.g. `/v1/sessions`) with `query`; the parsed JSON body. */
export async function get(path, query, key = storedKey()) {
  let response;
  try {
    response = await fetch(url(path, query), {
      headers: { Authorization: `Bearer ${key}`, Accept: "application/json" },
      cache: "no-store",
    });
  } catch (cause) {
    throw new ApiError(0, "network_error", `the server did not answer (${cause.message})`);
  }
  if (!response.ok) throw await failure(response);
  return response.json();
}

/** A session id as one path segment. */
export function seg(value) {
  return encodeURIComponent(value);
}
