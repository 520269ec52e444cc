// The articles of the selected feed or folder: title, date, description (as plain text: feed HTML is never
// inserted), a Download button (`torrents/add` with the torrent URL or link) and marking as read.
import { h, attempt, toast } from "../dom.js";

function plain(html) {
  if (!html) return "";
  // DOMParser does not run scripts or fetch images; only the text is kept.
  const doc = new DOMParser().parseFromString(html, "text/html");
  for (const node of doc.querySelectorAll("script, style, template, noscript")) node.remove();
  for (const node of doc.querySelectorAll("br, p, div, li, tr, h1, h2, h3, h4")) node.append("\n");
  return (doc.body.textContent || "").replace(/\n{3,}/g, "\n\n").trim();
}

function when(value) {
  if (!value) return "";
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? String(value) : parsed.toLocaleString();
}

const stamp = (a) => { const t = new Date(a.date).getTime(); return Number.isNaN(t) ? 0 : t; };

/** Renders the articles of `feeds` ([{path, feed}]) into `list`; `after()` when the server state changed. */
export function renderArticles(list, feeds, { api, after, expanded }) {
  const articles = feeds.flatMap(({ path, feed }) => (feed.articles || []).map((a) => ({ ...a, feedPath: path, feedName: feed.title || path })));
  articles.sort((a, b) => stamp(b) - stamp(a));
  if (!articles.length) {
    list.replaceChildren(h("li", { class: "muted" }, feeds.length ? "No articles yet. Refresh the feed to fetch it." : "No feeds yet: add one."));
    return;
  }
  const markRead = (a) => (a.isRead ? Promise.resolve() : api.post("rss/markAsRead", { itemPath: a.feedPath, articleId: a.id }));
  list.replaceChildren(...articles.map((a, i) => {
    const key = `${a.feedPath}\u0000${a.id}`;
    const open = expanded.has(key);
    const url = a.torrentURL || a.link || "";
    const link = /^https?:\/\//i.test(a.link || "") ? a.link : null;
    const desc = h("p", { class: "rss-desc", id: `rss-desc-${i}`, hidden: !open }, plain(a.description) || "No description.");
    const title = h("button", { type: "button", class: "rss-title-button", "data-role": "toggle", "aria-expanded": String(open), "aria-controls": desc.id,
      onclick: async () => {
        const now = !expanded.has(key);
        if (now) expanded.add(key); else expanded.delete(key);
        desc.hidden = !now;
        title.setAttribute("aria-expanded", String(now));
        title.textContent = now ? "▾" : "▸";
        if (now && !a.isRead) { await attempt(() => markRead(a), "Marking as read"); a.isRead = true; item.classList.remove("unread"); after(); }
      } }, open ? "▾" : "▸");
    const download = h("button", { type: "button", "data-testid": `rss-download-${i}`, "data-role": "download", disabled: !url, "aria-label": `Download ${a.title}`,
      onclick: async () => {
        download.disabled = true;
        const ok = await attempt(() => api.post("torrents/add", { urls: url }), "Adding the torrent");
        download.disabled = false;
        if (ok === undefined) return;
        toast(`Added ${a.title}`);
        await markRead(a).catch(() => {});
        after();
      } }, "Download");
    const item = h("li", { class: a.isRead ? "rss-article" : "rss-article unread", dataset: { id: a.id, key } },
      h("header", {}, title,
        h("span", { class: "rss-title" }, a.title || "(untitled)"),
        h("time", { class: "muted", datetime: a.date || "" }, when(a.date)),
        link ? h("a", { href: link, target: "_blank", rel: "noopener noreferrer" }, "Open") : null,
        download),
      feeds.length > 1 ? h("small", { class: "muted" }, a.feedName) : null,
      desc);
    title.setAttribute("aria-label", `Show the description of ${a.title}`);
    return item;
  }));
}
