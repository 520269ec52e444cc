// The RSS tree from `rss/items?withData=true`: folders and feeds (paths joined with `\`), flattened for listing,
// and rendered as a list of buttons (the selected one has aria-pressed="true").
import { h } from "../dom.js";

export const SEP = "\\";

export function isFeed(node) {
  return Boolean(node) && typeof node === "object" && typeof node.uid === "string" && typeof node.url === "string";
}

/** [{ path, name, depth, feed: node|null, feeds: [{path, feed}] (every feed at or under it) }], folders first. */
export function flatten(tree) {
  const out = [];
  const walk = (node, prefix, depth) => {
    const names = Object.keys(node).sort((a, b) => Number(isFeed(node[a])) - Number(isFeed(node[b])) || a.localeCompare(b));
    const feeds = [];
    for (const name of names) {
      const child = node[name];
      const path = prefix ? `${prefix}${SEP}${name}` : name;
      if (isFeed(child)) {
        const entry = { path, name, depth, feed: child, feeds: [{ path, feed: child }] };
        out.push(entry);
        feeds.push(...entry.feeds);
      } else if (child && typeof child === "object") {
        const entry = { path, name, depth, feed: null, feeds: [] };
        out.push(entry);
        entry.feeds = walk(child, path, depth + 1);
        feeds.push(...entry.feeds);
      }
    }
    return feeds;
  };
  const all = walk(tree || {}, "", 0);
  return { items: out, feeds: all };
}

export const unread = (feeds) => feeds.reduce((n, { feed }) => n + (feed.articles || []).filter((a) => !a.isRead).length, 0);

/** The tree as buttons; `onSelect(path)`. The root ("" = every feed) comes first. */
export function renderTree(list, { items, feeds }, selected, onSelect) {
  const row = (path, label, depth, count, extra, title) => h("li", {},
    h("button", { type: "button", "aria-pressed": String(path === selected), dataset: { path }, title: title || label,
      style: `padding-left: ${6 + depth * 16}px`, onclick: () => onSelect(path) },
    h("span", { class: "rss-name" }, label), extra, count ? h("span", { class: "badge", "aria-label": `${count} unread` }, String(count)) : null));
  list.replaceChildren(
    row("", "All feeds", 0, unread(feeds)),
    ...items.map((item) => {
      if (!item.feed) {
        const folder = row(item.path, item.name, item.depth, unread(item.feeds), h("span", { class: "sr-only" }, " (folder)"), item.path);
        folder.firstChild.classList.add("rss-folder");
        return folder;
      }
      const f = item.feed;
      const marks = [f.isLoading ? h("span", { class: "muted", title: "Loading" }, "…") : null,
        f.hasError ? h("span", { class: "error", title: "This feed could not be fetched or read" }, "⚠", h("span", { class: "sr-only" }, " error")) : null];
      return row(item.path, item.name, item.depth, unread(item.feeds), marks, `${f.title || item.name}\n${f.url}`);
    }));
}
