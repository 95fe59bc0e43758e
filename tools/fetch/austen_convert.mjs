// Converts the unpacked r-cran-janeaustenr package to JSONL (see austen.sh).
// Usage: node austen_convert.mjs PACKAGE_DIR OUT_DIR
//
// The novels are character vectors (one element per line) in R's lazy-load
// database: data/Rdata.rdx (gzip) holds an index of [offset, length] per
// object, data/Rdata.rdb the objects, each a 4-byte length and a zlib stream
// of R's XDR serialization. The reader below handles the few SEXP types
// these two files use.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const [packageDir, outDir] = process.argv.slice(2);
const dataDir = path.join(packageDir, 'usr/lib/R/site-library/janeaustenr/data');
const NOVELS = ['emma', 'mansfieldpark', 'northangerabbey', 'persuasion', 'prideprejudice', 'sensesensibility'];

function unserialize(buf) {
  let p = 0;
  const refs = [];
  const int = () => { const v = buf.readInt32BE(p); p += 4; return v; };
  if (buf.toString('latin1', 0, 2) !== 'X\n') throw new Error('not an XDR serialization');
  p = 2;
  const version = int();
  int(); int();
  if (version === 3) { const n = int(); p += n; }  // native encoding name
  function item() {
    const flags = int();
    const type = flags & 0xff, hasAttr = flags & (1 << 9), hasTag = flags & (1 << 10);
    if (type === 254) return null;  // NILVALUE
    if (type === 255) return refs[(flags >> 8) - 1];  // REFSXP
    if (type === 1) { const name = item(); refs.push(name); return name; }  // SYMSXP
    if (type === 9) {  // CHARSXP
      const n = int();
      if (n === -1) return null;  // NA_character_
      const s = buf.toString('utf8', p, p + n); p += n; return s;
    }
    if (type === 2) {  // LISTSXP: pairlist as [[tag, value], ...]
      if (hasAttr) item();
      const tag = hasTag ? item() : null;
      const car = item();
      return [[tag, car], ...(item() || [])];
    }
    let value;
    if (type === 16 || type === 19) {  // STRSXP, VECSXP
      value = Array.from({ length: int() }, item);
    } else if (type === 10 || type === 13) {  // LGLSXP, INTSXP
      const n = int();
      value = Array.from({ length: n }, int);
    } else {
      throw new Error(`unsupported R type ${type}`);
    }
    if (hasAttr) value.attributes = Object.fromEntries(item());
    return value;
  }
  return item();
}

const index = unserialize(zlib.gunzipSync(fs.readFileSync(path.join(dataDir, 'Rdata.rdx'))));
const variables = index[0];
const names = variables.attributes.names;
const rdb = fs.readFileSync(path.join(dataDir, 'Rdata.rdb'));
const CHAPTER = /^\s*CHAPTER\s+([IVXLC]+|\d+)\.?\s*$/i;

const splits = { train: [], val: [], test: [] };
const counts = [];
for (const novel of NOVELS) {
  const [offset, length] = variables[names.indexOf(novel)];
  const lines = unserialize(zlib.inflateSync(rdb.subarray(offset + 4, offset + length)));
  // Chapters restart in each volume of Emma; n counts them through the novel.
  let n = 0;
  let chapter = null;
  const finish = () => {
    if (chapter === null) return;
    const text = chapter.join('\n').trim();
    const split = n % 10 === 9 ? 'val' : n % 10 === 0 ? 'test' : 'train';
    const id = `${novel}-${String(n).padStart(3, '0')}`;
    splits[split].push(JSON.stringify({ id, novel, chapter: n, text }));
  };
  for (const line of lines) {
    if (CHAPTER.test(line || '')) {
      finish();
      n += 1;
      chapter = [];
    } else if (chapter !== null) {
      chapter.push(line || '');
    }
  }
  finish();
  counts.push(`${novel} ${n}`);
}

fs.mkdirSync(outDir, { recursive: true });
for (const [name, lines] of Object.entries(splits)) {
  fs.writeFileSync(path.join(outDir, `${name}.jsonl`), lines.join('\n') + '\n');
}
console.log(`austen: chapters ${counts.join(', ')}; train ${splits.train.length}, val ${splits.val.length}, ` +
            `test ${splits.test.length}`);
