// The RSS section: the feeds tree with its actions (add feed or folder, refresh, mark as read, move, remove), the
// articles of the selected item, and the auto-download rules in a second tab. RSS has no event to listen to, so
// `rss/items` is read every 2 s while a feed is loading or just after an action, else every minute, and only while
// this section shows.
import { h, attempt, toast, dialog } from "../dom.js";
import { flatten, renderTree, SEP } from "../rss/tree.js";
import { renderArticles } from "../rss/articles.js";
import { rulesPanel } from "../rss/rules.js";

let selected = "";          // the selected tree path ("" = every feed), kept while the page lives
let activeTab = "feeds";

function folderSelect(id, items, chosen = "") {
  return h("select", { id },
    h("option", { value: "" }, "(top level)"),
    items.filter((i) => !i.feed).map((i) => h("option", { value: i.path, selected: i.path === chosen }, i.path)));
}

export function mount(container, ctx) {
  const { api, mainData } = ctx;
  let tree = {};
  let flat = { items: [], feeds: [] };
  let lastJSON = "";
  let fastUntil = 0;
  let timer = null;
  let alive = true;
  const expanded = new Set();

  const treeList = h("ul", { class: "rss-tree", id: "rss-tree", "aria-label": "Feeds and folders" });
  const articles = h("ul", { class: "rss-articles", id: "rss-articles", "aria-label": "Articles" });
  const articlesTitle = h("h2", { id: "rss-articles-title" }, "Articles");
  const button = (id, label, onclick, extra = {}) => h("button", { type: "button", id, onclick, ...extra }, label);
  const selectedItem = () => flat.items.find((i) => i.path === selected) || null;

  const toolbar = h("div", { class: "toolbar", role: "toolbar", "aria-label": "Feed actions" },
    button("rss-add-feed", "Add feed", () => addFeed(), { class: "primary" }),
    button("rss-add-folder", "Add folder", () => addFolder()),
    button("rss-refresh", "Refresh", () => refresh()),
    button("rss-mark-read", "Mark as read", () => markRead()),
    button("rss-move", "Rename / move", () => move()),
    button("rss-remove", "Remove", () => remove(), { class: "danger" }));

  const feedsPanel = h("div", { class: "rss-layout", id: "rss-panel-feeds", role: "tabpanel", "aria-labelledby": "rss-tab-feeds" },
    h("section", { class: "panel", "aria-labelledby": "rss-feeds-title" }, h("h2", { id: "rss-feeds-title" }, "Feeds"), treeList),
    h("section", { class: "panel", "aria-labelledby": "rss-articles-title" }, articlesTitle, articles));
  const rules = rulesPanel(api, { feeds: () => flat.feeds, categories: () => mainData.categories });
  const rulesBox = h("div", { id: "rss-panel-rules", role: "tabpanel", "aria-labelledby": "rss-tab-rules" }, rules.node);

  const tabButton = (id, label) => h("button", { type: "button", role: "tab", id: `rss-tab-${id}`, "aria-controls": `rss-panel-${id}`,
    dataset: { tab: id }, onclick: () => showTab(id) }, label);
  const tabs = h("div", { class: "tabs", role: "tablist", "aria-label": "RSS" }, tabButton("feeds", "Feeds"), tabButton("rules", "Download rules"));
  tabs.addEventListener("keydown", (event) => {
    if (!["ArrowLeft", "ArrowRight"].includes(event.key)) return;
    event.preventDefault();
    showTab(activeTab === "feeds" ? "rules" : "feeds");
    tabs.querySelector(`[data-tab="${activeTab}"]`).focus();
  });

  function showTab(id) {
    activeTab = id;
    for (const b of tabs.children) { const on = b.dataset.tab === id; b.setAttribute("aria-selected", String(on)); b.tabIndex = on ? 0 : -1; }
    feedsPanel.hidden = id !== "feeds";
    toolbar.hidden = id !== "feeds";
    rulesBox.hidden = id !== "rules";
    if (id === "rules") attempt(rules.load, "Reading the rules");
  }

  const render = () => {
    flat = flatten(tree);
    if (selected && !flat.items.some((i) => i.path === selected)) selected = "";
    const item = selectedItem();
    renderTree(treeList, flat, selected, (path) => { selected = path; render(); });
    articlesTitle.textContent = item ? `Articles of ${item.path}` : "Articles of every feed";
    renderArticles(articles, item ? item.feeds : flat.feeds, { api, expanded, after: () => { soon(); } });
    for (const id of ["rss-move", "rss-remove"]) toolbar.querySelector(`#${id}`).disabled = !item;
  };

  async function load() {
    const data = await api.get("rss/items", { withData: "true" });
    if (!alive) return;
    const text = JSON.stringify(data);
    if (text !== lastJSON) {
      lastJSON = text;
      tree = data;
      // Re-rendering replaces the buttons: give the focus back to the same one.
      const focused = document.activeElement;
      const path = focused && treeList.contains(focused) ? focused.dataset.path : undefined;
      const article = focused && articles.contains(focused) ? focused.closest("[data-key]") : null;
      const role = article ? focused.dataset.role : null;
      render();
      if (path !== undefined) treeList.querySelector(`[data-path="${CSS.escape(path)}"]`)?.focus();
      if (article && role) articles.querySelector(`[data-key="${CSS.escape(article.dataset.key)}"] [data-role="${role}"]`)?.focus();
    }
  }

  function schedule() {
    clearTimeout(timer);
    if (!alive) return;
    const loading = flat.feeds.some(({ feed }) => feed.isLoading);
    const delay = loading || Date.now() < fastUntil ? 2000 : 60000;
    timer = setTimeout(async () => { await load().catch(() => {}); schedule(); }, delay);
  }
  function soon() {
    fastUntil = Date.now() + 20000;
    load().catch((error) => toast(`Reading the feeds failed: ${error.message}`, { error: true })).finally(schedule);
  }

  async function addFeed() {
    const url = h("input", { id: "rss-feed-url", type: "url", required: true, placeholder: "https://…/feed.xml", autocomplete: "off" });
    const name = h("input", { id: "rss-feed-name", placeholder: "the address, if left blank", autocomplete: "off" });
    const parent = folderSelect("rss-feed-folder", flat.items, selectedItem() && !selectedItem().feed ? selected : "");
    const body = h("div", { class: "form-grid" },
      h("label", { for: "rss-feed-url" }, "Feed address"), url,
      h("label", { for: "rss-feed-name" }, "Name"), name,
      h("label", { for: "rss-feed-folder" }, "In folder"), parent);
    const answer = await dialog("Add RSS feed", body, [{ label: "Cancel", value: null }, { label: "Add feed", value: "add", primary: true }], {
      onSubmit: async () => {
        const leaf = (name.value.trim() || url.value.trim()).replaceAll(SEP, "/");
        const path = parent.value ? `${parent.value}${SEP}${leaf}` : leaf;
        const ok = await attempt(() => api.post("rss/addFeed", { url: url.value.trim(), path }), "Adding the feed");
        if (ok === undefined) return false;
        await api.post("rss/refreshItem", { itemPath: path }).catch(() => {});
        selected = path;
        return true;
      },
    });
    if (answer === "add") { toast("Feed added"); soon(); }
  }

  async function addFolder() {
    const name = h("input", { id: "rss-folder-name", required: true, autocomplete: "off" });
    const parent = folderSelect("rss-folder-parent", flat.items);
    const body = h("div", { class: "form-grid" },
      h("label", { for: "rss-folder-name" }, "Folder name"), name,
      h("label", { for: "rss-folder-parent" }, "Inside"), parent);
    const answer = await dialog("Add folder", body, [{ label: "Cancel", value: null }, { label: "Add folder", value: "add", primary: true }], {
      onSubmit: async () => {
        const path = parent.value ? `${parent.value}${SEP}${name.value.trim()}` : name.value.trim();
        return (await attempt(() => api.post("rss/addFolder", { path }), "Adding the folder")) !== undefined;
      },
    });
    if (answer === "add") soon();
  }

  async function refresh() {
    const targets = selected ? [selected] : flat.items.filter((i) => i.depth === 0).map((i) => i.path);
    for (const itemPath of targets) await attempt(() => api.post("rss/refreshItem", { itemPath }), "Refreshing");
    toast(selected ? `Refreshing ${selected}` : "Refreshing every feed");
    soon();
  }

  async function markRead() {
    const targets = selected ? [selected] : flat.items.filter((i) => i.depth === 0).map((i) => i.path);
    for (const itemPath of targets) await attempt(() => api.post("rss/markAsRead", { itemPath }), "Marking as read");
    soon();
  }

  async function move() {
    const item = selectedItem();
    if (!item) return;
    const dest = h("input", { id: "rss-move-dest", required: true, value: item.path, autocomplete: "off", "aria-describedby": "rss-move-help" });
    const body = h("div", {}, h("label", { for: "rss-move-dest", class: "st-dialog-field" }, "New path", dest),
      h("p", { class: "muted", id: "rss-move-help" }, `Folders are separated by ${SEP}, e.g. TV${SEP}My show.`));
    const answer = await dialog(`Rename or move “${item.name}”`, body, [{ label: "Cancel", value: null }, { label: "Move", value: "move", primary: true }], {
      onSubmit: async () => (await attempt(() => api.post("rss/moveItem", { itemPath: item.path, destPath: dest.value.trim() }), "Moving")) !== undefined,
    });
    if (answer === "move") { selected = dest.value.trim(); soon(); }
  }

  async function remove() {
    const item = selectedItem();
    if (!item) return;
    const what = item.feed ? "feed" : "folder and everything in it";
    const answer = await dialog("Remove", h("p", {}, `Remove the ${what} “${item.path}”?`),
      [{ label: "Cancel", value: null }, { label: "Remove", value: "yes", primary: true }]);
    if (answer !== "yes") return;
    if (await attempt(() => api.post("rss/removeItem", { path: item.path }), "Removing") === undefined) return;
    selected = "";
    soon();
  }

  container.append(h("h1", { class: "view-title" }, "RSS"), tabs, toolbar, feedsPanel, rulesBox);
  render();
  showTab(activeTab);
  soon();

  return () => { alive = false; clearTimeout(timer); };
}
