/**
 * Builds the operators' console into dist/ (what the coordinator serves at /admin): one minified
 * bundle and one stylesheet under dist/assets/ (content-hashed names, so a new build is never
 * served from a stale cache), an icon, and dist/index.html that loads them (no inline script or
 * style: the page's CSP allows only its own files). Written to a fresh folder and swapped in.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
// The new build is written beside node_modules (ignored by git and biome), then swapped in.
const work = join(here, 'node_modules/.cache/admin-console-build');
const next = join(work, 'next');
const assets = join(next, 'assets');
rmSync(work, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const started = Date.now();
const result = await build({
  entryPoints: [
    { in: join(here, 'src/main.tsx'), out: 'console' },
    { in: join(here, 'src/styles.css'), out: 'console' },
  ],
  outdir: assets,
  entryNames: '[name]-[hash]',
  bundle: true,
  minify: true,
  sourcemap: 'linked',
  format: 'esm',
  target: ['chrome111', 'firefox115', 'safari16.4'],
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  tsconfig: join(here, 'tsconfig.json'),
});

// The admin router is imported as a type: a server module in the bundle is a mistake.
const serverInputs = Object.keys(result.metafile.inputs).filter((p) => /(^|\/)(coordinator|shared|proto|render-agent)\//.test(p));
if (serverInputs.length) throw new Error(`the console bundle pulled in server code: ${serverInputs.slice(0, 5).join(', ')}`);

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((n) => n.endsWith('.js'));
const css = outputs.find((n) => n.endsWith('.css'));
if (!js || !css) throw new Error(`esbuild wrote no script or stylesheet: ${outputs.join(', ')}`);

writeFileSync(
  join(assets, 'icon.svg'),
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d2330"/><path d="M9 9l14 7-14 7z" fill="#7aa2ff"/></svg>\n',
);
writeFileSync(
  join(next, 'index.html'),
  `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>cutroom · operators</title>
    <link rel="icon" type="image/svg+xml" href="/admin/assets/icon.svg">
    <link rel="stylesheet" href="/admin/assets/${css}">
    <script type="module" src="/admin/assets/${js}"></script>
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>
`,
);

// Swap: the coordinator may be serving the old build right now.
const old = join(work, 'old');
rmSync(old, { recursive: true, force: true });
if (existsSync(dist)) renameSync(dist, old);
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });
const size = (name: string) => result.metafile.outputs[relative(process.cwd(), join(assets, name))]?.bytes ?? 0;
console.log(`admin console built in ${Date.now() - started} ms: ${js} (${Math.round(size(js) / 1024)} KiB), ${css}`);
