/**
 * `npm run eval:understanding [-- name=model.gguf …] [--talks=a,b] [--no-clips] [--json=out.json]`:
 * the text models this machine can load offline, compared on talks written for evaluation
 * (scripts/eval/understanding-set.ts: three medium topics, five short news items, one long topic
 * dense with names and numbers), through the agent's own summarize and find_clips, scored against
 * hand-written reference claims (scripts/eval/understanding-score.ts, never the production judge).
 *
 * Models: `extractive` (no text model: the floor), the installed default, and every `name=path`
 * argument. Prints one table row per model and the generated texts of the first talk, so they can
 * be read, not only counted.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { DEFAULT_LLM_MODEL_PATH } from '../render-agent/src/config.ts';
import { sharedEmbedder } from '../render-agent/src/understanding/shared-embedder.ts';
import type { TextGenerator } from '../render-agent/src/understanding/text-generator.ts';
import { evaluateTalk, openModel, prepareTalk, type TalkResult } from './eval/run-understanding.ts';
import { UNDERSTANDING_SET } from './eval/understanding-set.ts';

const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const withClips = !args.includes('--no-clips');
const talkNames = flag('talks')?.split(',');
const models: [string, string | null][] = [
  ['extractive', null],
  ['default', DEFAULT_LLM_MODEL_PATH],
  ...args.filter((a) => !a.startsWith('--')).map((a) => a.split('=') as [string, string]),
];
const talks = UNDERSTANDING_SET.filter((t) => !talkNames || talkNames.includes(t.name));

const embedder = await sharedEmbedder();
const prepared = [];
for (const talk of talks) prepared.push(await prepareTalk(talk, (m) => console.log(m)));
const minutes = prepared.reduce((s, p) => s + p.duration / 60, 0);
console.log(
  `talks: ${prepared.map((p) => `${p.talk.name} (${(p.duration / 60).toFixed(1)} min)`).join(', ')}; ${availableParallelism()} cores; transcripts: tiny.en (cached)\n`,
);

const pct = (x: number) => `${Math.round(x * 100)} %`;
const rows: string[] = [];
const all: Record<string, TalkResult[]> = {};
for (const [name, path] of models) {
  let generator: TextGenerator | null = null;
  const loadStart = performance.now();
  if (path) generator = await openModel(path);
  const load = (performance.now() - loadStart) / 1000;
  const results: TalkResult[] = [];
  for (const p of prepared) {
    process.stdout.write(`  ${name}: ${p.talk.name} …\n`);
    results.push(await evaluateTalk(p, embedder, generator, { clips: withClips }));
  }
  await generator?.close();
  all[name] = results;
  const sum = (f: (r: TalkResult) => number) => results.reduce((s, r) => s + f(r), 0);
  const gen = results.flatMap((r) => r.summary.generated);
  const clipGen = results.flatMap((r) => r.clips?.generated ?? []);
  const b = results.map((r) => r.summary.boundaries);
  const found = b.reduce((s, x) => s + x.found, 0);
  const of = b.reduce((s, x) => s + x.of, 0);
  const errs = b.filter((x) => x.meanError !== null).map((x) => x.meanError! * x.found);
  const clipCands = sum((r) => r.clips?.generatedCandidates ?? 0);
  rows.push(
    [
      name,
      generator ? generator.id.replace(/ \(node-llama-cpp.*$/, '') : 'none',
      pct(sum((r) => r.summary.topicCoverage) / results.length),
      pct(sum((r) => r.summary.claimCoverage) / results.length),
      gen.length ? `${pct(gen.filter((v) => v.isFaithful).length / gen.length)} of ${gen.length}` : '-',
      `${found}/${of}${errs.length ? `, ${(errs.reduce((a, c) => a + c, 0) / found).toFixed(1)} s` : ''}, ${b.reduce((s, x) => s + x.spurious, 0)} spurious`,
      String(sum((r) => r.summary.orphaned.length)),
      (sum((r) => r.summary.seconds) / minutes).toFixed(1),
      withClips ? (clipGen.length ? `${pct(clipGen.filter((v) => v.isFaithful).length / clipGen.length)} of ${clipGen.length}` : '-') : 'n/a',
      withClips ? `${sum((r) => r.clips!.crossing)}/${sum((r) => r.clips!.candidates)}` : 'n/a',
      withClips ? String(sum((r) => r.clips!.orphaned.length + r.clips!.unsure.length)) : 'n/a',
      withClips && clipCands ? (sum((r) => r.clips!.generationSeconds) / clipCands).toFixed(1) : '-',
      generator ? load.toFixed(1) : '-',
    ].join(' | '),
  );
  for (const r of results) {
    const bad = [...r.summary.generated, ...(r.clips?.generated ?? [])].filter((v) => !v.isFaithful);
    for (const v of bad) console.log(`    unfaithful (${r.talk}): "${v.sentence}" — ${v.reason}`);
  }
  const first = results[0];
  if (first) {
    console.log(`\n  ${name} on ${first.talk}: overview (${first.summary.doc.overview_source}): ${first.summary.doc.overview}`);
    for (const c of first.summary.doc.chapters) console.log(`    chapter ${c.index} [${c.title_source}/${c.summary_source}] ${c.title}: ${c.summary}`);
    for (const k of first.summary.doc.key_points) console.log(`    key point [${k.source}] ${k.text}`);
    for (const c of first.clips?.doc.candidates ?? [])
      console.log(`    clip ${c.start.toFixed(0)}-${c.end.toFixed(0)} s [${Object.values(c.texts_source).join('/')}] ${c.title} | hook: ${c.hook}`);
    console.log('');
  }
}
console.log(
  [
    `| run | text model | topics covered | claims conveyed | summary sentences faithful | chapter boundaries found (±10 s), mean error | orphaned openings | summarize analysis s per audio min | clip texts faithful | clips crossing a topic | clip titles/hooks with orphans or unsure words | clip text s per candidate | model load s |`,
    `| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |`,
    ...rows.map((r) => `| ${r} |`),
  ].join('\n'),
);
const out = flag('json');
if (out) writeFileSync(out, JSON.stringify(all, null, 1));
