// The session list: every session of the tenant, newest activity first.

import { get, seg } from "./api.js";
import { fill, h, plural, relative, timeEl } from "./dom.js";

function row(s) {
  return h("li", { class: "session", "data-session": s.id },
    h("a", { class: "session-id", href: `#/s/${seg(s.id)}` }, s.id),
    h("span", { class: "count" }, plural(s.messages, "message")),
    h("span", { class: "last" }, "last ", timeEl(s.last_at),
      s.last_at ? h("span", { class: "muted" }, ` (${relative(s.last_at)})`) : null),
    s.has_summary ? h("span", { class: "tag" }, "summary") : null);
}

export async function showSessions(ctx) {
  const list = h("ul", { class: "sessions", "aria-busy": "true" });
  fill(ctx.view, h("h1", {}, "Sessions"), list);
  try {
    const [{ sessions }, tenant] = await Promise.all([get("/v1/sessions"), get("/v1/stats")]);
    if (!ctx.alive()) return;
    list.removeAttribute("aria-busy");
    if (!sessions.length) {
      fill(list, h("li", { class: "empty" },
        "No sessions yet: nothing has been written for this key's tenant."));
      return;
    }
    fill(list, sessions.map(row));
    const waiting = tenant.index_backlog
      ? ` · ${plural(tenant.index_backlog, "message")} waiting to be indexed` : "";
    ctx.view.insertBefore(h("p", { class: "muted tenant-stats" },
      plural(sessions.length, "session") + waiting), list);
  } catch (err) {
    list.removeAttribute("aria-busy");
    ctx.fail(err);
  }
}
