import type { TextGenerator, TextRequest } from './text-generator.ts';
import { splitSentences } from './grounding.ts';

/**
 * Test helpers for summarize and candidate texts: a three-topic talk (ten sentences a topic, so
 * each topic is about a minute with the test transcripts' timing) and a deterministic stand-in
 * for the text model that copies transcript sentences (which grounding must keep) and, when asked,
 * adds an invented fact (which grounding must drop).
 */

export const THREE_TOPICS: readonly (readonly string[])[] = [
  [
    'Beekeeping is one of the oldest partnerships between people and animals.',
    'A healthy colony of honey bees holds one queen, a few hundred drones, and thousands of worker bees.',
    'The queen lays up to two thousand eggs a day during the spring build up.',
    'Young workers clean the cells and feed the larvae with royal jelly and pollen.',
    'Older workers build wax comb, guard the entrance, and fly out as foragers.',
    'A forager visits hundreds of flowers on a single trip to collect nectar and pollen.',
    'Back in the hive, the nectar is fanned with their wings until most of the water evaporates.',
    'When the honey is thick enough, the workers cap each cell with a thin layer of beeswax.',
    'The beekeeper opens the hive with a smoker, a hive tool, and a veil.',
    'The greatest threat to honey bees today is the varroa mite, a parasite that feeds on the developing bees.',
  ],
  [
    'The bicycle is only about two hundred years old, and its history is full of strange machines.',
    'The first running machine was built of wood and had two wheels and no pedals at all.',
    'The rider sat on a saddle and pushed along the road with both feet.',
    'Later, mechanics attached cranks and pedals directly to the front wheel.',
    'Because the pedals turned the front wheel directly, a bigger wheel meant a higher speed.',
    'The high wheeler was fast and elegant, but a rider who hit a stone could be thrown over the handlebars.',
    'The safety bicycle had two wheels of equal size and a chain that drove the rear wheel.',
    'The pneumatic tyre made the ride smooth, and a cycling boom followed.',
    'For the first time, ordinary workers could travel many miles without a horse or a train ticket.',
    'Today cities are building protected bike lanes again, and electric bicycles are selling fast.',
  ],
  [
    'What makes a loaf of sourdough bread taste so different from a supermarket sandwich loaf?',
    'The answer is the starter, a living culture of wild yeast and lactic acid bacteria.',
    'You can make a starter with nothing more than flour and water in a glass jar.',
    'Every day, discard most of the mixture and feed the rest with fresh flour and water.',
    'The yeast produces carbon dioxide that raises the dough.',
    'The bacteria produce acids that give the bread its tang and help it keep for days.',
    'During the bulk fermentation the dough is stretched and folded every half hour.',
    'The shaped dough goes into a floured proofing basket and then into the refrigerator overnight.',
    'Bake it in a heavy cast iron pot with the lid on, so the steam keeps the crust soft.',
    'The hardest step is waiting an hour before cutting, because the crumb is still setting as it cools.',
  ],
];

/** What the fake writes that no transcript here says (a name and a number). */
export const INVENTED = 'Professor Hartmann proved this in 1987 with a study of 4000 farms.';

export interface FakeGenerator extends TextGenerator {
  readonly requests: TextRequest[];
}

export interface FakeGeneratorOptions {
  /** Add INVENTED to every summary and clip summary. */
  invent?: boolean;
  /** Throw for requests whose prompt matches. */
  failOn?: RegExp;
  /** Wait this long per request (honours the request's signal). */
  delayMs?: number;
}

/**
 * Answers the JSON the prompts of summarize.ts and candidate-texts.ts ask for, from the
 * transcript text in the prompt: titles are a sentence's first words, summaries and key points
 * are sentences copied verbatim.
 */
export function fakeGenerator(o: FakeGeneratorOptions = {}): FakeGenerator {
  const requests: TextRequest[] = [];
  const invented = o.invent ? ` ${INVENTED}` : '';
  return {
    id: 'fake-model (test)',
    requests,
    async complete(req) {
      requests.push(req);
      if (o.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, o.delayMs);
          req.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(req.signal!.reason);
          });
        });
      }
      req.signal?.throwIfAborted();
      if (o.failOn?.test(req.prompt)) throw new Error('fake model failure');
      // summarize's batch: "Part N: <key sentences>" a line; a title and a summary each.
      const parts = req.prompt
        .split('\n')
        .filter((l) => /^Part \d+: /.test(l))
        .map((l) => splitSentences(l.slice(l.indexOf(': ') + 2)));
      if (parts.length > 0) {
        const first = Number(/^Part (\d+): /m.exec(req.prompt)![1]);
        return parts.flatMap((s, i) => [`Title ${first + i}: ${titleOf(s[0]!)}`, `Summary ${first + i}: ${s[1] ?? s[0]}${invented}`]).join('\n');
      }
      if (req.prompt.startsWith('Key sentences of a clip')) {
        const s = splitSentences(req.prompt.split('\n')[1]!);
        return `Title: ${titleOf(s[0]!)}\nSummary: ${s[1] ?? s[0]}${invented}`;
      }
      throw new Error(`the fake model was asked something it does not answer: ${req.prompt.slice(0, 80)}`);
    },
    async close() {},
  };
}

const titleOf = (sentence: string): string =>
  sentence
    .split(/\s+/)
    .slice(0, 5)
    .join(' ')
    .replace(/[,.?!]+$/, '');
