// The error memory: tool errors and how they were handled, shared by every session of the
// tenant. Each record expires unless a search finds it again (a hit renews it).

import { get } from "./api.js";
import { fill, h, plural, relative, timeEl } from "./dom.js";

const LIMIT = 100;

function field(label, value) {
  if (!value) return null;
  return [h("dt", {}, label), h("dd", {}, value)];
}

function record(r) {
  const keywords = Array.isArray(r.keywords) ? r.keywords : [];
  return h("li", { class: `record outcome-${r.outcome}`, "data-id": r.id },
    h("div", { class: "record-head" },
      h("span", { class: "tool" }, r.tool_name),
      h("span", { class: `tag outcome` }, r.outcome),
      h("span", { class: "muted record-id", title: r.id }, String(r.id).slice(0, 8))),
    keywords.length
      ? h("ul", { class: "keywords", "aria-label": "keywords" },
        keywords.map((k) => h("li", {}, k))) : null,
    h("dl", {},
      field("Symptom", r.symptom),
      field("Cause", r.cause),
      field("Action", r.action)),
    h("p", { class: "record-times muted" },
      "created ", timeEl(r.created_at, r.created_at_iso),
      " · ", h("span", { class: "expiry" }, "expires ", timeEl(r.expires_at, r.expires_at_iso),
        ` (${relative(r.expires_at)})`),
      " · ", plural(r.hits ?? 0, "hit")));
}

function searchForm(onSearch) {
  const el = h("form", { class: "search-form", role: "search" },
    h("div", { class: "control grow" }, h("label", { for: "errors-q" }, "Find"),
      h("input", { id: "errors-q", name: "q", type: "search",
        placeholder: "symptom, keyword or error text" })),
    h("div", { class: "control" }, h("label", { for: "errors-tool" }, "Tool"),
      h("input", { id: "errors-tool", name: "tool", type: "text", placeholder: "any" })),
    h("div", { class: "control" }, h("button", { type: "submit" }, "Find")),
    h("div", { class: "control" }, h("button", { type: "reset", class: "secondary" }, "Show all")));
  el.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(el);
    onSearch(String(data.get("q") || "").trim(), String(data.get("tool") || "").trim());
  });
  el.addEventListener("reset", () => onSearch("", ""));
  return el;
}

async function load(ctx, list, note, q, tool) {
  ctx.clear();
  list.setAttribute("aria-busy", "true");
  try {
    // Searching renews the expiry of what it finds, as any search of the error memory does;
    // the plain list does not.
    const { errors } = q
      ? await get("/v1/errors/search", { q, tool, limit: 16 })
      : await get("/v1/errors", { limit: LIMIT, tool });
    if (!ctx.alive()) return;
    const shown = tool && !q ? errors.filter((r) => r.tool_name === tool) : errors;
    note.textContent = q ? `${plural(shown.length, "record")} found for “${q}”`
      : `${plural(shown.length, "record")}, newest first`;
    fill(list, shown.length ? shown.map(record)
      : h("li", { class: "empty" }, q ? "No record matches." : "No error records."));
  } catch (err) {
    ctx.fail(err);
  } finally {
    list.removeAttribute("aria-busy");
  }
}

export function showErrors(ctx) {
  const list = h("ul", { class: "records" });
  const note = h("p", { class: "muted", role: "status" });
  const form = searchForm((q, tool) => load(ctx, list, note, q, tool));
  fill(ctx.view, h("h1", {}, "Error memory"),
    h("p", { class: "muted" }, "What went wrong with a tool and what was done about it, " +
      "shared by every session. A record expires unless a search finds it again."),
    form, note, list);
  load(ctx, list, note, "", "");
}
