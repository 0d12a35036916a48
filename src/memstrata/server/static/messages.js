// One message as the timeline and the search results show it.

import { h, timeEl } from "./dom.js";

/** A message: sender, role, time and id on top, the text below (kept as typed). */
export function messageItem(m, { extra = null, tag = "li" } = {}) {
  const who = m.sender || m.role;
  return h(tag, { class: `msg role-${m.role}`, "data-id": m.id },
    h("div", { class: "msg-head" },
      h("span", { class: "sender" }, who),
      h("span", { class: "role" }, m.role),
      timeEl(m.at, m.at_iso),
      h("span", { class: "msg-id muted" }, `#${m.id}`),
      extra),
    h("p", { class: "content" }, m.content),
    m.meta ? h("details", { class: "meta" }, h("summary", {}, "meta"),
      h("pre", {}, JSON.stringify(m.meta, null, 2))) : null);
}
