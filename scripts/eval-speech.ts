/**
 * `npm run eval:speech [-- name=folder …]`: the Whisper models this machine can load offline,
 * compared on the same inputs by word error rate and real-time factor, through the agent's own
 * runner (render-agent/python/transcribe.py: VAD, beam 5, word timestamps, int8 on CPU), one
 * child per input as the agent runs one per job (model load included).
 *
 * Inputs: the five LibriVox utterances Debian ships with their reference text (real read speech),
 * and two passages read by espeak-ng (plain narration; names and numbers, the control where small
 * models fail). Models: tiny.en (the bundled default) and every `name=folder` argument, e.g.
 * `base=/path/to/faster-whisper-base` (docs/benchmarks.md says where one installs from).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { librivoxUtterances } from '../test/harness/media.ts';
import { normalizeWords, wordErrorRate } from '../test/harness/wer.ts';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'cutroom-eval-speech-'));

const PASSAGES = [
  {
    name: 'narration (espeak en-us)',
    voice: 'en-us',
    text: 'When the first settlers came to the valley, they found the river full of salmon, and for many years they fished it every autumn. Then the mill was built upstream. The water turned brown, and the salmon were gone. Today a group of volunteers is restoring the banks, planting willows along the water, and last October a salmon was seen below the old mill for the first time in a century.',
  },
  {
    name: 'names and numbers (espeak en-gb+f3)',
    voice: 'en-gb+f3',
    text: 'Doctor Amara Okafor met Lars Lindqvist in Rotterdam on the 14th of March 2019. Their company, Veldhoven Logistics, now runs 37 warehouses and employs 1,250 people. Revenue rose by 18 percent to 42 million euros, and the board, chaired by Ingrid Haugen, approved a second site in Gdansk.',
  },
];

interface Item {
  name: string;
  file: string;
  reference: string;
}

async function items(): Promise<Item[]> {
  const out: Item[] = librivoxUtterances().map((u, i) => ({ name: `LibriVox utterance ${i + 1}`, file: u.file, reference: u.reference }));
  for (const [i, p] of PASSAGES.entries()) {
    const raw = join(work, `p${i}.raw.wav`);
    const file = join(work, `p${i}.wav`);
    await execa('espeak-ng', ['-v', p.voice, '-s', '150', '-w', raw, p.text]);
    await execa('ffmpeg', ['-v', 'error', '-y', '-i', raw, '-ar', '16000', '-ac', '1', file]);
    out.push({ name: p.name, file, reference: p.text });
  }
  return out;
}

async function duration(file: string): Promise<number> {
  const { stdout } = await execa('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
  return Number(stdout);
}

async function transcribe(model: string, file: string): Promise<{ text: string; seconds: number }> {
  const t0 = performance.now();
  const { stdout } = await execa(
    join(root, '.venv/bin/python'),
    [join(root, 'render-agent/python/transcribe.py'), '--audio', file, '--model', model, '--device', 'cpu'],
    {
      env: { HF_HUB_OFFLINE: '1' },
    },
  );
  const seconds = (performance.now() - t0) / 1000;
  const text = stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; text?: string })
    .filter((e) => e.type === 'segment')
    .map((e) => e.text)
    .join(' ');
  return { text, seconds };
}

const models: [string, string][] = [['tiny.en', 'tiny.en'], ...process.argv.slice(2).map((a) => a.split('=') as [string, string])];
const inputs = await items();
const durations = await Promise.all(inputs.map((i) => duration(i.file)));
const total = durations.reduce((a, b) => a + b, 0);
console.log(`inputs: ${inputs.length} (${total.toFixed(1)} s of speech); models: ${models.map((m) => m[0]).join(', ')}; 2-core CPU, int8\n`);

const rows: string[] = [];
for (const [name, model] of models) {
  let errors = 0;
  let words = 0;
  let seconds = 0;
  const perItem: string[] = [];
  for (const [k, item] of inputs.entries()) {
    if (process.stdout.isTTY) process.stdout.write(`  ${name}: ${item.name} …\r`);
    const r = await transcribe(model, item.file);
    const n = normalizeWords(item.reference).length;
    const wer = wordErrorRate(item.reference, r.text);
    errors += wer * n;
    words += n;
    seconds += r.seconds;
    perItem.push(
      `${item.name}: WER ${(wer * 100).toFixed(1)} %, ${r.seconds.toFixed(1)} s for ${durations[k]!.toFixed(1)} s${wer > 0 ? ` — "${r.text.trim()}"` : ''}`,
    );
  }
  if (process.stdout.isTTY) process.stdout.write(`${' '.repeat(80)}\r`);
  console.log(`${name}\n${perItem.map((l) => `  ${l}`).join('\n')}\n`);
  rows.push(`| ${name} | ${((errors / words) * 100).toFixed(1)} % | ${seconds.toFixed(1)} s | ${(seconds / total).toFixed(2)} |`);
}
console.log(['| model | WER (all inputs) | wall, one child per input | real-time factor |', '| --- | --- | --- | --- |', ...rows].join('\n'));
rmSync(work, { recursive: true, force: true });
