// Building the page out of elements and text nodes. Data from the API only ever reaches the
// page as text (a Text node or textContent), so nothing stored in memory can become markup.

/**
 * An element: `h("p", {class: "x"}, "text", child)`. Attributes are set with setAttribute
 * (`on*` keys add listeners); children are nodes, strings (as text), arrays, or null (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.append(child);
    else el.append(document.createTextNode(String(child)));
  }
}

/** Replace everything inside `el` with `children`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const pad = (n) => String(n).padStart(2, "0");

/** Nanoseconds since the epoch → a Date (millisecond precision is plenty on a page). */
export function dateOf(ns) {
  return new Date(Number(ns) / 1e6);
}

/** `YYYY-MM-DD HH:MM` in the browser's time zone. */
export function formatTime(ns) {
  if (ns === null || ns === undefined) return "—";
  const d = dateOf(ns);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A `<time>` element showing the local time, with the full ISO time as its tooltip. */
export function timeEl(ns, iso) {
  if (ns === null || ns === undefined) return h("span", { class: "muted" }, "—");
  const full = iso || dateOf(ns).toISOString();
  return h("time", { datetime: full, title: full }, formatTime(ns));
}

/** "in 3 days", "2 hours ago": how far `ns` is from now, roughly. */
export function relative(ns, now = Date.now()) {
  const seconds = Math.round((Number(ns) / 1e6 - now) / 1000);
  const units = [["day", 86400], ["hour", 3600], ["minute", 60]];
  for (const [name, size] of units) {
    if (Math.abs(seconds) < size) continue;
    const n = Math.round(Math.abs(seconds) / size);
    const text = `${n} ${name}${n === 1 ? "" : "s"}`;
    return seconds >= 0 ? `in ${text}` : `${text} ago`;
  }
  return "just now";
}

/** A number with thousands separators. */
export function count(n) {
  return Number(n ?? 0).toLocaleString("en-US");
}

/** `1 thing` / `n things` (`many` when adding an s is wrong). */
export function plural(n, word, many = `${word}s`) {
  return `${count(n)} ${n === 1 ? word : many}`;
}
