// Generates properties/tests/data/encode_uri_component.tsv: strings and what JavaScript's own
// encodeURIComponent makes of them, the independent reference the scope-key tests and the
// scope-key-injective oracle are judged by. Run once with node (not needed by CI or the tests):
//   node tools/gen-uri-table.js > properties/tests/data/encode_uri_component.tsv
// Each line: the input's UTF-8 bytes in lower-case hex, a tab, the encoded string (ASCII only).
// Hex keeps every input (NUL, control characters, tabs, newlines, emoji) safe in a text file.
// Lone surrogates are left out: encodeURIComponent throws on them and UTF-8 cannot hold them.
'use strict';

// A deterministic generator (xorshift32), so the table is the same on every run.
let state = 0x9e3779b9;
function next() {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state;
}
function pick(items) {
  return items[next() % items.length];
}

const cases = new Set();
function add(s) {
  cases.add(s);
}

// Every code point below 0x800 alone (ASCII, controls, NUL, Latin-1, two-byte UTF-8).
for (let c = 0; c < 0x800; c++) add(String.fromCodePoint(c));
// Three-byte and four-byte edges, and the code points around the surrogate gap.
for (const c of [0x800, 0xfff, 0x1000, 0xd7ff, 0xe000, 0xfeff, 0xfffd, 0xfffe, 0xffff, 0x10000,
                 0x1f600, 0x1f4a9, 0x1f9d1, 0x10fffd, 0x10ffff]) {
  add(String.fromCodePoint(c));
}
// Names people and attackers give: reserved characters, separators, escapes, emoji, scripts.
const pieces = ['', 'a', 'Z', '0', '9', '-', '_', '.', '!', '~', '*', "'", '(', ')', ':', '%', '/',
                '?', '#', '[', ']', '@', '$', '&', '+', ',', ';', '=', ' ', '\t', '\n', '\r',
                '\0', '\x7f', '\x1b', '%25', '%3A', '%zz', '%', '::', 'tenant', 'exec-1',
                'order/7', 'a:b', 'é', 'ß', 'ü', 'Ω', 'я', '中', '文', 'ア', '한', 'ع', 'ש',
                'हि', '😀', '💩', '🧑‍💻', '👍🏽', '🇩🇪', '\u200b', '\u00a0', '\ufeff', '\u2028',
                'e\u0301', '123e4567-e89b-12d3-a456-426614174000'];
for (let i = 0; i < 4000; i++) {
  const n = 1 + (next() % 6);
  let s = '';
  for (let j = 0; j < n; j++) s += pick(pieces);
  add(s);
}
// Random code points of every UTF-8 length (never a surrogate).
for (let i = 0; i < 2000; i++) {
  const n = 1 + (next() % 5);
  let s = '';
  for (let j = 0; j < n; j++) {
    const width = next() % 4;
    let c;
    if (width === 0) c = next() % 0x80;
    else if (width === 1) c = 0x80 + (next() % (0x800 - 0x80));
    else if (width === 2) {
      c = 0x800 + (next() % (0x10000 - 0x800));
      if (c >= 0xd800 && c <= 0xdfff) c -= 0x800;
    } else c = 0x10000 + (next() % (0x110000 - 0x10000));
    s += String.fromCodePoint(c);
  }
  add(s);
}
// Long ids.
add('x'.repeat(300));
add('😀'.repeat(100));
add(':'.repeat(64) + '%'.repeat(64));

const lines = [];
for (const s of cases) {
  lines.push(Buffer.from(s, 'utf8').toString('hex') + '\t' + encodeURIComponent(s));
}
lines.sort();
process.stdout.write(lines.join('\n') + '\n');
