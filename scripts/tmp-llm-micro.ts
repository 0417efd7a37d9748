import { getLlama, LlamaChatSession, InputLookupTokenPredictor, LlamaLogLevel } from 'node-llama-cpp';
import { TOPIC_TEXTS } from '../test/harness/media-gen/topic-talk.ts';
import { DEFAULT_LLM_MODEL_PATH } from '../render-agent/src/config.ts';
const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: process.env.MODEL ?? DEFAULT_LLM_MODEL_PATH });
const threads = Number(process.env.THREADS ?? 1);
const schema = {
  type: 'object',
  properties: { title: { type: 'string', maxLength: 90 }, summary: { type: 'string', maxLength: 800 } },
  required: ['title', 'summary'],
} as const;
const grammar = await llama.createGrammarForJsonSchema(schema as never);
const system =
  'You summarize spoken recordings accurately. State what is said as plain facts, reusing the words of the text. Use only what the text says: no names, numbers, places or claims it does not contain. Never write about the text itself ("this part", "the recording", "the speaker", "this section"). Reply in JSON.';
for (const mode of (process.env.MODES ?? 'none,lookup').split(',')) {
  const context = await model.createContext({ contextSize: 4096, threads, sequences: 1 });
  const sequence = context.getSequence(
    mode === 'lookup'
      ? { tokenPredictor: new InputLookupTokenPredictor({ patternLength: { min: 2 }, predictionLength: { max: Number(process.env.PRED ?? 3) } }) }
      : {},
  );
  for (const topic of TOPIC_TEXTS.slice(0, 2)) {
    const prompt = [
      'Below is part 1 of 5 of a spoken recording. Write:',
      '- title: at most 8 words, naming its subject with words from the text',
      '- summary: 1 to 3 sentences stating the most important things it says, in its own words',
      '',
      'Transcript of the part:',
      topic.text,
    ].join('\n');
    const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system });
    const t0 = performance.now();
    await session.prompt(prompt, { maxTokens: 1 });
    const t1 = performance.now();
    session.dispose({ disposeSequence: false });
    await sequence.clearHistory();
    const s2 = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system });
    const t2 = performance.now();
    const answer = await s2.prompt(prompt, { maxTokens: 300, temperature: 0, grammar });
    const t3 = performance.now();
    s2.dispose({ disposeSequence: false });
    await sequence.clearHistory();
    console.log(
      mode,
      topic.name,
      'promptTok',
      model.tokenize(system + prompt).length,
      'prefill ms',
      Math.round(t1 - t0),
      'full ms',
      Math.round(t3 - t2),
      'outTok',
      model.tokenize(answer).length,
      sequence.tokenPredictions ?? '',
      answer.slice(0, 160),
    );
  }
  await context.dispose();
}
