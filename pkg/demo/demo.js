// The chat demo: skills fetched from a folder served beside the page (its index.json
// lists the SKILL.md paths), a message box, live decisions, the injected text, the
// budget, @-autocomplete of skill names, and the injected skills' own files, opened as
// the model's read-file tool would. All skill logic runs in the package.
import { Skillwire } from '../lib/browser.js';

const params = new URLSearchParams(location.search);
const folder = new URL(params.get('skills') ?? './skills/', location.href);
const budget = Number(params.get('budget') ?? 8192);
const $ = (id) => document.getElementById(id);

// An async source: list from index.json, read with fetch; a skill's files from the
// files.json beside its SKILL.md (paths reach it already checked by the package).
const source = {
  list: async () => (await fetch(new URL('index.json', folder))).json(),
  read: async (path) => {
    const response = await fetch(new URL(path, folder));
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return response.text();
  },
  listFiles: async (location) => (await fetch(new URL('files.json', new URL(location, folder)))).json(),
  readFile: async (location, path) => {
    // Each segment encoded, so that a file name is never read as URL syntax.
    const relative = path.split('/').map(encodeURIComponent).join('/');
    const response = await fetch(new URL(relative, new URL(location, folder)));
    if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
    return new Uint8Array(await response.arrayBuffer());
  },
};

const sw = await Skillwire.create({ sources: [source], budget });
$('catalog').textContent = sw.catalogSync({ format: 'agent-skills' }).text;
$('status').textContent = `${sw.report().loaded} skills loaded from ${folder.pathname}`;
document.body.dataset.ready = 'true';

let pending = 0;
async function update() {
  const ticket = ++pending;
  const turn = await sw.inject($('message').value);
  if (ticket !== pending) return; // a newer keystroke won
  $('decisions').replaceChildren(...turn.decisions.map((d) => {
    const row = document.createElement('tr');
    row.dataset.skill = d.skill;
    const outcome = d.skipped ?? (d.truncated ? 'truncated' : 'injected');
    for (const cell of [d.skill, d.reason, String(d.injectedBytes), outcome]) {
      const td = document.createElement('td');
      td.textContent = cell;
      row.append(td);
    }
    return row;
  }));
  $('injected').textContent = turn.text;
  await showFiles(turn.decisions.filter((d) => d.injectedBytes > 0).map((d) => d.skill), ticket);
  $('budget-meter').max = budget;
  $('budget-meter').value = turn.summary.injectedBytes;
  $('budget').textContent = `${turn.summary.injectedBytes} of ${budget} bytes`;
  document.body.dataset.turns = String(Number(document.body.dataset.turns ?? 0) + 1);
}

// The injected skills' own files, as the model could open them with the read-file tool.
async function showFiles(skills, ticket) {
  const items = [];
  for (const skill of skills) {
    const { files } = await sw.files(skill);
    for (const file of files.filter((f) => f.kind !== 'skill')) {
      const li = document.createElement('li');
      li.dataset.skill = skill;
      li.dataset.path = file.path;
      const button = document.createElement('button');
      button.textContent = `${skill}/${file.path}`;
      button.addEventListener('click', () => openFile(skill, file.path));
      li.append(button, ` ${file.kind}, ${file.size} bytes`);
      items.push(li);
    }
  }
  if (ticket !== pending) return;
  $('files').replaceChildren(...items);
}

// What the model would get back from calling the read-file tool on that file.
async function openFile(skill, path) {
  const answer = await sw.answerReadFile({ skill, path });
  $('file').textContent = answer.content;
  $('file').dataset.error = String(answer.isError);
}

// @-autocomplete: the word being typed after an @ (not inside an e-mail address).
function mentionAtCaret() {
  const box = $('message');
  const before = box.value.slice(0, box.selectionStart);
  const m = /(^|[^\p{L}\p{N}.])@([\p{L}\p{N}_-]*)$/u.exec(before);
  return m ? { start: before.length - m[2].length, prefix: m[2] } : null;
}

let selected = 0;
function showSuggestions() {
  const list = $('suggestions');
  const at = mentionAtCaret();
  // The package decides what to offer: prefix matches, then fuzzy ones.
  const found = at ? sw.complete(at.prefix, 8) : [];
  list.hidden = found.length === 0;
  selected = Math.min(selected, Math.max(found.length - 1, 0));
  list.replaceChildren(...found.map((s, i) => {
    const li = document.createElement('li');
    li.role = 'option';
    li.dataset.name = s.name;
    li.dataset.match = s.match;
    li.setAttribute('aria-selected', String(i === selected));
    li.append(s.name);
    const small = document.createElement('small');
    small.textContent = s.description;
    li.append(small);
    li.addEventListener('mousedown', (e) => { e.preventDefault(); complete(s.name); });
    return li;
  }));
}

function complete(name) {
  const box = $('message');
  const at = mentionAtCaret();
  if (!at) return;
  const end = box.selectionStart;
  box.value = box.value.slice(0, at.start) + name + ' ' + box.value.slice(end);
  box.selectionStart = box.selectionEnd = at.start + name.length + 1;
  $('suggestions').hidden = true;
  update();
}

$('message').addEventListener('input', () => { selected = 0; showSuggestions(); update(); });
$('message').addEventListener('keydown', (e) => {
  const items = [...$('suggestions').children];
  if ($('suggestions').hidden || items.length === 0) return;
  if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
    e.preventDefault();
    selected = (selected + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
    showSuggestions();
  } else if (e.key === 'Tab' || e.key === 'Enter') {
    e.preventDefault();
    complete(items[selected].dataset.name);
  } else if (e.key === 'Escape') {
    $('suggestions').hidden = true;
  }
});
update();
