// Regenerates the recorded verdicts of Mintlify's own checkers on the corpus
// under doccheck/testdata/mintlify (run it as `go tool task mintlify-verdicts`).
//
// Mintlify's packages are Elastic-2.0: they are judges here, run from a cache
// outside the repository (MINTLIFY_JUDGES), and nothing of them is copied
// into Folio. Each case is a txtar file (see doccheck/testdata/mintlify/README.md);
// its verdict is written beside it as <case>.verdict.json.
//
// The judges, as `mint validate` and `mint broken-links` run them:
//   schema   @mintlify/validation validateDocsConfig / validateMintConfig
//   prebuild @mintlify/prebuild prebuild(repo, {strict, skipStaticFiles, disableOpenApi})
//   links    @mintlify/link-rot buildGraph + getBrokenInternalLinks (mint broken-links)
//   anchors  the same with checkAnchors (mint broken-links --check-anchors); advisory
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const judges = process.env.MINTLIFY_JUDGES;
if (!judges) {
  console.error('MINTLIFY_JUDGES must name the directory the judges are installed in');
  process.exit(2);
}
const require = createRequire(path.join(judges, 'package.json'));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const version = (name) => JSON.parse(fs.readFileSync(path.join(judges, 'node_modules', name, 'package.json'), 'utf8')).version;

// parseCase reads a txtar case: header lines ("key: value", "# comment"), then files.
export function parseCase(text) {
  const header = {};
  const files = {};
  let current = null;
  for (const line of text.split('\n')) {
    const m = /^-- (.+) --$/.exec(line);
    if (m) {
      current = m[1];
      files[current] = [];
      continue;
    }
    if (current !== null) {
      files[current].push(line);
      continue;
    }
    const kv = /^([a-z]+):\s*(.*)$/.exec(line);
    if (kv) header[kv[1]] = kv[2].trim();
  }
  for (const name of Object.keys(files)) {
    // txtar: a file's text is the lines up to the next marker, each ending in \n.
    let lines = files[name];
    if (lines.length > 0 && lines[lines.length - 1] === '') lines = lines.slice(0, -1);
    files[name] = lines.map((l) => l + '\n').join('');
  }
  return { header, files };
}

// materialize writes the case's repository (the base's files, then the case's,
// less what the case deletes) into dir.
function materialize(corpus, c, dir) {
  const all = {};
  const base = c.header.base ?? 'base';
  if (base !== 'none') Object.assign(all, parseCase(fs.readFileSync(path.join(corpus, `_${base}.txtar`), 'utf8')).files);
  Object.assign(all, c.files);
  for (const del of (c.header.delete ?? '').split(/\s+/).filter(Boolean)) delete all[del];
  for (const [name, content] of Object.entries(all)) {
    const p = path.join(dir, name);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
}

const stripAnsi = (s) => s.replace(/\u001b\[[0-9;]*m/g, '');

// judgeOne runs every judge on one materialized repository, in this process.
async function judgeOne(repo, work, { openApi }) {
  const verdict = {};

  const { validateDocsConfig, validateMintConfig } = await load('@mintlify/validation');
  const docs = path.join(repo, 'docs.json');
  const mint = path.join(repo, 'mint.json');
  const configPath = fs.existsSync(docs) ? docs : fs.existsSync(mint) ? mint : null;
  if (configPath === null) {
    verdict.schema = { pass: false, messages: ['no docs.json or mint.json'] };
  } else {
    let value;
    try {
      value = JSON.parse(fs.readFileSync(configPath, 'utf8'));
    } catch (e) {
      verdict.schema = { pass: false, messages: [`${path.basename(configPath)}: ${e.message}`] };
    }
    if (!verdict.schema) {
      const r = configPath === docs ? validateDocsConfig(value) : validateMintConfig(value);
      verdict.schema = r.success
        ? { pass: true }
        : { pass: false, messages: r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`) };
    }
  }

  const { prebuild } = await load('@mintlify/prebuild');
  const logged = [];
  const keep = (...args) => logged.push(stripAnsi(args.map(String).join(' ')).trim());
  const saved = { log: console.log, warn: console.warn, error: console.error, info: console.info };
  Object.assign(console, { log: keep, warn: keep, error: keep, info: keep });
  const cwd = process.cwd(); // a scratch directory: see main
  process.chdir(work); // prebuild writes its output into the working directory
  try {
    await prebuild(repo, { strict: true, skipStaticFiles: true, disableOpenApi: !openApi });
    verdict.prebuild = { pass: true };
  } catch (e) {
    verdict.prebuild = { pass: false, messages: [...logged.filter(Boolean), stripAnsi(String(e?.message ?? e))] };
  } finally {
    process.chdir(cwd);
    Object.assign(console, saved);
  }
  if (verdict.prebuild.pass && logged.some((l) => /^warning/.test(l))) verdict.prebuild.messages = logged.filter((l) => /^warning/.test(l));

  const { buildGraph } = await load('@mintlify/link-rot');
  const links = async (checkAnchors) => {
    try {
      const graph = await buildGraph(repo, { checkSnippets: false });
      graph.precomputeFileResolutions();
      const broken = graph.getBrokenInternalLinks({ checkAnchors });
      const messages = broken.map((p) => `${path.join(p.relativeDir, p.filename)}: ${p.originalPath}`);
      return messages.length === 0 ? { pass: true } : { pass: false, messages };
    } catch (e) {
      return { pass: false, messages: [String(e?.message ?? e)] };
    }
  };
  Object.assign(console, { log: () => {}, warn: () => {}, info: () => {} });
  try {
    verdict.links = await links(false);
    verdict.anchors = await links(true);
  } finally {
    Object.assign(console, saved);
  }
  return verdict;
}

async function judgeCase(corpus, file) {
  const c = parseCase(fs.readFileSync(path.join(corpus, file), 'utf8'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mintlify-judge-'));
  const repo = path.join(tmp, 'repo');
  const work = path.join(tmp, 'work');
  fs.mkdirSync(repo);
  fs.mkdirSync(work);
  try {
    materialize(corpus, c, repo);
    // "openapi: enabled" cases need the spec read, as the real build does;
    // every other case is judged as `mint validate` runs offline.
    const v = await judgeOne(repo, work, { openApi: c.header.openapi === 'enabled' });
    const clean = (m) => m.split(repo + path.sep).join('').split(repo).join('');
    for (const j of Object.values(v)) if (j.messages) j.messages = j.messages.map(clean);
    return v;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main() {
  const corpus = path.resolve(process.argv[2]);
  const only = process.argv.slice(3);
  // prebuild writes output (src/_props/...) relative to the working
  // directory, some of it after its promise settles: work from scratch.
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'mintlify-judges-'));
  process.chdir(scratch);
  const cases = fs.readdirSync(corpus).filter((f) => f.endsWith('.txtar') && !f.startsWith('_'))
    .filter((f) => only.length === 0 || only.includes(f.replace(/\.txtar$/, '')))
    .sort();
  const versions = {
    node: process.version,
    '@mintlify/cli': version('@mintlify/cli'),
    '@mintlify/prebuild': version('@mintlify/prebuild'),
    '@mintlify/validation': version('@mintlify/validation'),
    '@mintlify/link-rot': version('@mintlify/link-rot'),
    '@mintlify/common': version('@mintlify/common'),
  };
  let failed = 0;
  // One process for every case: loading the judges takes far longer than judging.
  for (const f of cases) {
    const j = await judgeCase(corpus, f);
    const pass = j.schema.pass && j.prebuild.pass && j.links.pass;
    if (!pass) failed++;
    const verdict = { pass, judges: { schema: j.schema, prebuild: j.prebuild, links: j.links }, anchors: j.anchors };
    fs.writeFileSync(path.join(corpus, f.replace(/\.txtar$/, '.verdict.json')), JSON.stringify(verdict, null, 2) + '\n');
    console.log(`${pass ? 'pass' : 'FAIL'}${j.anchors.pass ? '' : ' (anchors)'}  ${f}`);
  }
  if (only.length === 0) {
    fs.writeFileSync(path.join(corpus, 'versions.json'), JSON.stringify({ ...versions, generated: new Date().toISOString().slice(0, 10) }, null, 2) + '\n');
  }
  console.log(`${cases.length} cases, ${failed} failed by the judges; versions: ${JSON.stringify(versions)}`);
  fs.rmSync(scratch, { recursive: true, force: true });
  process.exit(0);
}

await main();
