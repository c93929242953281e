// The Learn page's ranked list (ui/learn/list_component.py): one component, one event per action.
// Every word and every number comes from the Python side (data); user ids are set as text,
// never as HTML. An action is sent as the trigger value "action" = {op, index, seq}; Python
// applies it with the page's edit logic and sends the new list back.

// The label buttons say in words which label a press gives; the others have a sign (and the
// tray button a word too).
const ICONS = {
  up: "\u2191", down: "\u2193", tray: "\u21a7", remove: "\u2715",
  back: "\u2191", tray_remove: "\u2715", add: "+", add_tray: "+",
};

// The keyboard focus to restore after a press, by list (kept on the page's window, which
// outlives a mounting of the list).
const FOCUS = (window.__learnListFocus = window.__learnListFocus || {});

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function chip(row) {
  const node = el("span", row.unjudged ? "ll-chip ll-unjudged" : "ll-chip", row.label);
  if (!row.unjudged) {
    node.style.background = row.bg;
    node.style.color = row.fg;
  }
  return node;
}

function rowText(row) {
  const text = el("span", "ll-text");
  if (row.rank !== undefined) text.append(el("span", "ll-rank", row.rank === null ? "\u2014" : "#" + row.rank));
  text.append(el("span", "ll-item", row.item), chip(row));
  // a later copy of a repeated item says which rank holds the copy that counts
  text.append(el("span", "ll-mark", row.copy ? row.copy : (row.relevant ? "\u2713 " : "") + row.mark));
  if (row.score) text.append(el("span", "ll-score", " \u00b7 " + row.score));
  text.title = row.item;
  return text;
}

function button(op, index, aria, help, content, disabled) {
  const b = el("button", "ll-op-" + op);
  b.type = "button";
  b.dataset.op = op;
  b.dataset.index = String(index);
  b.setAttribute("aria-label", aria);
  if (help) b.title = help;
  const icon = ICONS[op];
  if (icon) {
    const i = el("span", "ll-icon", icon);
    i.setAttribute("aria-hidden", "true");
    b.append(i);
  }
  if (content) b.append(document.createTextNode((icon ? " " : "") + content));
  if (disabled) b.disabled = true;
  return b;
}

function render(root, data) {
  const t = data.text;
  const rows = el("div", "ll-rows");
  rows.setAttribute("role", "list");
  rows.setAttribute("aria-label", t.list);
  const n = data.n;
  const cut = () => {
    const line = el("div", "ll-cut", "\u2702 " + t.cut);
    line.setAttribute("role", "separator");
    return line;
  };
  for (const row of data.rows) {
    const cls = (row.out ? " ll-out" : "") + (row.relevant ? " ll-rel" : "") + (row.copy ? " ll-copy" : "");
    const r = el("div", "ll-row" + cls);
    r.setAttribute("role", "listitem");
    r.dataset.rank = String(row.rank);
    const at = row.index;  // the row's position in the list (a copy included): what a press names
    const ctrls = el("span", "ll-ctrls");
    ctrls.append(button("label", at, row.aria.label, t.label, row.next, false));
    if (data.can_move) {
      ctrls.append(button("up", at, row.aria.up, t.up, "", at === 1));
      ctrls.append(button("down", at, row.aria.down, t.down, "", at === n));
    }
    ctrls.append(button("tray", at, row.aria.tray, t.tray, t.tray_word, false));
    ctrls.append(button("remove", at, row.aria.remove, t.remove, "", false));
    r.append(rowText(row), ctrls);
    rows.append(r);
    if (row.rank === data.k && at < n) rows.append(cut());
  }
  const parts = [rows];
  if (data.more) parts.push(el("div", "ll-note", data.more));
  if (data.k >= data.counted) {
    parts.push(cut());
    if (data.beyond) parts.push(el("div", "ll-note", data.beyond));
  }
  const add = button("add", 0, t.add, t.add_help, t.add, false);
  add.classList.add("ll-wide");
  parts.push(add);

  const tray = el("section", "ll-tray");
  tray.setAttribute("aria-label", t.tray_title);
  tray.append(el("div", "ll-tray-title", t.tray_title), el("div", "ll-note", t.tray_help));
  const trayRows = (rows) => {
    const list = el("div", "ll-rows");
    list.setAttribute("role", "list");
    for (const row of rows) {
      const r = el("div", "ll-row" + (row.relevant ? " ll-rel" : ""));
      r.setAttribute("role", "listitem");
      const ctrls = el("span", "ll-ctrls");
      ctrls.append(button("tray_label", row.index, row.aria.label, t.label, row.next, false));
      ctrls.append(button("back", row.index, row.aria.back, t.back_help, t.back, false));
      ctrls.append(button("tray_remove", row.index, row.aria.remove, t.remove, "", false));
      r.append(rowText(row), ctrls);
      list.append(r);
    }
    return list;
  };
  tray.append(trayRows(data.tray));
  if (data.tray_other.length) {  // judged, not retrieved, but not relevant at the level
    const other = el("section", "ll-tray-other");
    other.setAttribute("aria-label", t.tray_other_title);
    other.append(el("div", "ll-tray-title", t.tray_other_title));
    other.append(el("div", "ll-note", t.tray_other_help), trayRows(data.tray_other));
    tray.append(other);
  }
  const addTray = button("add_tray", 0, t.add_tray, "", t.add_tray, false);
  addTray.classList.add("ll-wide");
  tray.append(addTray);
  parts.push(tray);
  root.replaceChildren(...parts);
}

// Where the keyboard focus goes after the list came back: the same control, following the
// item when it moved; the next row's control when the row left the list.
function refocus(root, intent) {
  if (!intent) return;
  let index = intent.index;
  if (intent.op === "up") index -= 1;
  if (intent.op === "down") index += 1;
  const find = (op, i) => root.querySelector(`button[data-op="${op}"][data-index="${i}"]`);
  let target = find(intent.op, index);
  if (!target || target.disabled) target = find("label", index) || find("label", index - 1);
  if (!target) target = find(intent.op, 0) || root.querySelector("button:not(:disabled)");
  if (target) target.focus();
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let root = parentElement.querySelector(".ll-root");
  if (!root) {
    root = el("div", "ll-root");
    parentElement.append(root);
    root.addEventListener("click", (event) => {
      const b = event.target.closest("button[data-op]");
      if (!b || b.disabled) return;
      const intent = {
        op: b.dataset.op, index: Number(b.dataset.index), at: Date.now(), version: root._version,
      };
      // A keyboard press keeps the focus on the list when it comes back (even when the page
      // above changed and the list was mounted again).
      FOCUS[root._key] = b.matches(":focus-visible") || event.detail === 0 ? intent : null;
      const row = b.closest(".ll-row");
      if (row) row.classList.add("ll-pending");
      root._seq = (root._seq || 0) + 1;
      const { op, index } = intent;
      root._send("action", { op, index, version: root._version, seq: root._seq });
    });
  }
  root._send = setTriggerValue;
  if (!data) return;
  root._key = data.key;
  root._version = data.version;
  root.classList.toggle("ll-present", !!data.present);
  render(root, data);
  const intent = FOCUS[data.key];
  if (intent && intent.version !== data.version) {  // the list came back changed
    delete FOCUS[data.key];
    if (Date.now() - intent.at < 30000) refocus(root, intent);
  }
}
