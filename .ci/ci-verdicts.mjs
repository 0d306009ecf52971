// Renders diff's --format markdown as GitHub does (marked, GitHub Flavored Markdown) and checks that
// the table of what failed has one row per failing function, each name whole in its first cell:
//   node .ci/ci-verdicts.mjs MARKED_DIR COMMENT.md NAME...
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const [markedDir, file, ...names] = process.argv.slice(2);
const { marked } = createRequire(`${markedDir}/`)('marked');
const html = marked.parse(readFileSync(file, 'utf8'), { gfm: true });
const table = html.match(/<table>[\s\S]*?<\/table>/);
if (!table) throw new Error(`${file}: no table in GitHub's rendering:\n${html}`);
const decode = (s) => s.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'");
const rows = [...table[0].matchAll(/<tr>([\s\S]*?)<\/tr>/g)].slice(1);
const firstCells = rows.map((row) => decode(row[1].match(/<td[^>]*>([\s\S]*?)<\/td>/)[1].replace(/<\/?code>/g, '')));
const cells = rows.map((row) => [...row[1].matchAll(/<td/g)].length);
if (JSON.stringify(firstCells) !== JSON.stringify(names)) {
  throw new Error(`${file}: the table's functions are ${JSON.stringify(firstCells)}, not ${JSON.stringify(names)}`);
}
if (cells.some((n) => n !== 6)) throw new Error(`${file}: rows of ${cells} cells, not 6 each`);
if (!/<h3>proftool diff: ❌ regression<\/h3>/.test(html)) throw new Error(`${file}: no verdict heading:\n${html}`);
console.log(`GitHub's Markdown renders ${file}: a table of ${names.length} failing function(s), each name whole`);
