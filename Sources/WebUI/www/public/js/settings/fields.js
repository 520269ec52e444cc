// One preference as a labelled control with the id `pref-<key>`: checkbox, number (with a display unit and scale),
// text, password, textarea, select, or JSON for objects. `read()` gives the value in the server's type.
import { h } from "../dom.js";
import { PROXY_NAMES, PROXY_NUMBERS } from "./schema.js";

function optionList(options, value) {
  const list = options.slice();
  if (value !== undefined && !list.some(([v]) => String(v) === String(value))) list.unshift([value, String(value)]);
  return list;
}

/**
 * A control for `def` (from the schema) with the server's `value`; `meta` = { note: the catalogue's remark,
 * type: the catalogue's type ("int", "double"…) }.
 */
export function field(def, value, meta = {}) {
  const note = meta.note;
  const id = `pref-${def.key}`;
  const helpId = `${id}-help`;
  const helpText = [def.help, note].filter(Boolean).join(" — ");
  const help = helpText ? h("small", { id: helpId, class: "muted st-help" }, helpText) : null;
  const described = help ? helpId : undefined;
  const warning = def.warning ? h("p", { class: "st-warning", role: "note", id: `${id}-warning` }, def.warning) : null;

  if (typeof value === "boolean") {
    const input = h("input", { id, type: "checkbox", checked: value, "aria-describedby": described, dataset: { key: def.key } });
    const row = h("div", { class: "st-check" }, h("label", { for: id }, input, def.label), help, warning);
    if (warning) {
      const sync = () => { warning.hidden = !input.checked; };
      input.addEventListener("change", sync);
      sync();
    }
    return { key: def.key, input, nodes: [row], read: () => input.checked };
  }

  let input;
  let read;
  const control = def.control || (typeof value === "number" ? "number" : value !== null && typeof value === "object" ? "json" : "text");
  if (control === "select" || control === "proxy" || control === "interface" || control === "address") {
    const options = control === "proxy" ? (typeof value === "number" ? PROXY_NUMBERS.filter(([v]) => v !== (value === -1 ? 0 : -1)) : PROXY_NAMES) : def.options;
    const list = optionList(options, value);
    input = h("select", { id, "aria-describedby": described },
      list.map(([v, label]) => h("option", { value: String(v), selected: String(v) === String(value) }, label)));
    read = () => {
      const chosen = list.find(([v]) => String(v) === input.value);
      return chosen ? chosen[0] : input.value;
    };
  } else if (control === "number") {
    const scale = def.scale || 1;
    const shown = value > 0 ? value / scale : value;
    const integer = Number.isInteger(value) && def.step === undefined && meta.type !== "double";
    input = h("input", { id, type: "number", step: def.step || (integer ? "1" : "any"), value: String(shown),
      inputmode: integer ? "numeric" : "decimal", "aria-describedby": described });
    read = () => {
      if (input.value.trim() === "") throw new Error(`${def.label}: a number is needed`);
      const n = Number(input.value);
      if (!Number.isFinite(n)) throw new Error(`${def.label}: not a number`);
      const raw = n > 0 ? n * scale : n;
      return integer || scale !== 1 ? Math.round(raw) : raw;
    };
  } else if (control === "json") {
    input = h("textarea", { id, rows: "3", spellcheck: "false", class: "mono", "aria-describedby": described }, JSON.stringify(value));
    read = () => {
      try { return JSON.parse(input.value); } catch { throw new Error(`${def.label}: not valid JSON`); }
    };
  } else if (control === "textarea") {
    input = h("textarea", { id, rows: "3", spellcheck: "false", "aria-describedby": described }, value ?? "");
    read = () => input.value;
  } else if (control === "password") {
    input = h("input", { id, type: "password", autocomplete: "new-password", value: def.writeOnly ? "" : (value ?? ""),
      placeholder: def.writeOnly ? "unchanged" : "", "aria-describedby": described });
    read = () => input.value;
  } else {
    input = h("input", { id, type: "text", value: value ?? "", spellcheck: "false", "aria-describedby": described });
    read = () => input.value;
  }
  input.dataset.key = def.key;
  const unit = def.unit ? h("span", { class: "muted st-unit" }, def.unit) : null;
  return {
    key: def.key, input, read, writeOnly: Boolean(def.writeOnly),
    nodes: [h("label", { for: id, class: "st-label" }, def.label),
      h("div", { class: "st-control" }, h("div", { class: "st-input" }, input, unit), help, warning)],
  };
}
