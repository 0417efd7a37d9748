import { TOPIC_TEXTS } from '../test/harness/media-gen/topic-talk.ts';
import { timedTranscript } from '../render-agent/src/understanding/test-fixtures.ts';
import { splitSentences } from '../render-agent/src/understanding/grounding.ts';
import { DEFAULT_MODELS_DIR, loadLocalEmbedder } from '../render-agent/src/understanding/embedder.ts';
import { summarize } from '../render-agent/src/understanding/summarize.ts';
import { loadLocalGenerator } from '../render-agent/src/understanding/text-generator.ts';
import { DEFAULT_LLM_MODEL_PATH } from '../render-agent/src/config.ts';

const sentences = TOPIC_TEXTS.flatMap((t) => splitSentences(t.text).map((text) => ({ text })));
const transcript = timedTranscript(sentences);
const embedder = await loadLocalEmbedder({ modelsDir: DEFAULT_MODELS_DIR } as never);
const generator = await loadLocalGenerator({ modelPath: process.env.MODEL ?? DEFAULT_LLM_MODEL_PATH, threads: 1 });
const t0 = performance.now();
const s = await summarize({ transcript, embedder, generator, maxCalls: 12 });
console.log(
  JSON.stringify(
    {
      wall: performance.now() - t0,
      timings: s.generator.timings_ms,
      dropped: s.generator.dropped.length,
      chapters: s.chapters.map((c) => [c.title_source, c.summary_source, c.title]),
      overview: s.overview_source,
      kp: s.key_points.map((k) => k.source),
    },
    null,
    1,
  ),
);
await generator.close();
