import fs from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';

/**
 * A long talk of clearly distinct topics, read by espeak-ng with a different voice per topic, so
 * the true topic boundaries are known from how it was built (for find_clips: segmentation,
 * candidates near the boundaries, query mode). Each topic is synthesized on its own, then the
 * parts are joined with a short pause; a boundary is where the next topic's audio starts.
 */

export interface TalkTopic {
  /** Short name (also what a query about it may use). */
  name: string;
  /** espeak-ng voice, e.g. `en-us`, `en-gb`, `en-us+m3`, `en-gb+f3`. */
  voice: string;
  text: string;
}

export const TOPIC_TEXTS: readonly TalkTopic[] = [
  {
    name: 'beekeeping',
    voice: 'en-us',
    text:
      'Why would anyone keep thirty thousand stinging insects in the back garden? ' +
      'Beekeeping is one of the oldest partnerships between people and animals. ' +
      'A healthy colony of honey bees holds one queen, a few hundred drones, and tens of thousands of female worker bees. ' +
      'The queen lays up to two thousand eggs a day during the spring build up. ' +
      'Worker bees live only about six weeks in summer, and they change jobs as they age. ' +
      'Young workers clean the cells and feed the larvae with royal jelly and pollen. ' +
      'Older workers build wax comb, guard the entrance, and finally fly out as foragers. ' +
      'A forager visits hundreds of flowers on a single trip to collect nectar and pollen. ' +
      'Back in the hive, the nectar is passed from bee to bee and fanned with their wings until most of the water evaporates. ' +
      'When the honey is thick enough, the workers cap each cell with a thin layer of beeswax. ' +
      'A strong hive can store more than twenty kilograms of surplus honey in a good season. ' +
      'The beekeeper opens the hive with a smoker, a hive tool, and a veil. ' +
      'Cool smoke makes the bees gorge on honey, and a full bee is a calm bee. ' +
      'Each frame is lifted out slowly and checked for eggs, brood, pollen, and stores. ' +
      'Finding eggs means the queen was present within the last three days. ' +
      'In late spring the colony may prepare to swarm. ' +
      'The workers raise new queens in large peanut shaped cells along the bottom of the frames. ' +
      'Then the old queen leaves with half of the bees to find a new home in a hollow tree or a chimney. ' +
      'Beekeepers prevent swarming by giving the colony more space or by splitting it into two hives. ' +
      'The greatest threat to honey bees today is the varroa mite, a parasite that feeds on the developing bees. ' +
      'Untreated colonies usually collapse within two or three years. ' +
      'Beekeepers count the mites on a sticky board under the mesh floor and treat the hive in late summer. ' +
      'Harvesting honey is the reward for a year of care. ' +
      'The capped frames are uncapped with a hot knife and spun in an extractor. ' +
      'The honey is strained through a fine mesh and poured into jars. ' +
      'Its colour and taste depend on the flowers the bees visited, from pale clover honey to dark heather honey. ' +
      'A careful beekeeper always leaves enough honey in the hive for the bees to survive the winter. ' +
      'In the cold months the bees form a tight cluster around the queen and shiver their flight muscles to stay warm. ' +
      'By the first warm days of spring, the colony is ready to forage again.',
  },
  {
    name: 'the history of the bicycle',
    voice: 'en-gb',
    text:
      'The bicycle is only about two hundred years old, and its history is full of strange machines. ' +
      'In eighteen seventeen, the German inventor Karl Drais built a running machine made of wood. ' +
      'It had two wheels and a steerable front, but no pedals at all. ' +
      'The rider sat on a saddle and pushed along the road with both feet. ' +
      'People called it the dandy horse, and for a few years it was the fashion in European cities. ' +
      'In the eighteen sixties, French mechanics attached cranks and pedals directly to the front wheel. ' +
      'This velocipede had iron tyres on wooden wheels, and riders named it the boneshaker. ' +
      'Because the pedals turned the front wheel directly, a bigger wheel meant a higher speed. ' +
      'So the front wheel grew and grew, until it was taller than a man. ' +
      'The high wheeler, or penny farthing, appeared in the eighteen seventies. ' +
      'It was fast and elegant, but a rider who hit a stone could be thrown over the handlebars head first. ' +
      'Riding one was a sport for brave young men with money. ' +
      'The breakthrough came in eighteen eighty five with the Rover safety bicycle built by John Kemp Starley in Coventry. ' +
      'It had two wheels of equal size and a chain that drove the rear wheel. ' +
      'The chain and sprockets gave the rider the gearing that the giant front wheel had provided before. ' +
      'A few years later, John Boyd Dunlop made the pneumatic tyre practical, and the ride became smooth. ' +
      'The safety bicycle started a cycling boom in the eighteen nineties. ' +
      'Factories in Britain, France and America produced millions of machines. ' +
      'For the first time, ordinary workers could travel many miles without a horse or a train ticket. ' +
      'Women in particular gained a new freedom, and the bicycle changed what they wore. ' +
      'Heavy skirts gave way to bloomers and shorter hems. ' +
      'Cycling clubs lobbied governments for better roads, years before the motor car arrived. ' +
      'Several early aviation pioneers, including the Wright brothers, were bicycle makers by trade. ' +
      'In the twentieth century the bicycle gained derailleur gears, lighter frames, and aluminium rims. ' +
      'Racing events such as the Tour de France, first held in nineteen oh three, made riders into national heroes. ' +
      'After the Second World War, cars pushed bicycles off many roads in Europe and North America. ' +
      'Today cities are building protected bike lanes again, and electric bicycles are selling by the million.',
  },
  {
    name: 'sourdough baking',
    voice: 'en-us+m3',
    text:
      'What makes a loaf of sourdough bread taste so different from a supermarket sandwich loaf? ' +
      'The answer is the starter, a living culture of wild yeast and lactic acid bacteria. ' +
      'You can make a starter with nothing more than flour and water. ' +
      'Mix equal weights of whole wheat flour and lukewarm water in a glass jar and leave it on the kitchen counter. ' +
      'Every day, discard most of the mixture and feed the rest with fresh flour and water. ' +
      'After about a week the starter doubles in size a few hours after each feeding and smells pleasantly sour. ' +
      'The yeast produces carbon dioxide that raises the dough. ' +
      'The bacteria produce lactic and acetic acids that give the bread its tang and help it keep for days. ' +
      'A basic loaf needs five hundred grams of bread flour, three hundred and fifty grams of water, one hundred grams of active starter and ten grams of salt. ' +
      'Mix the flour and water first and let them rest for an hour. ' +
      'Bakers call this rest the autolyse, and it lets the gluten begin to develop on its own. ' +
      'Then add the starter and the salt and squeeze them through the dough with wet hands. ' +
      'During the bulk fermentation, which takes four to six hours at room temperature, the dough is stretched and folded every half hour. ' +
      'Each set of folds builds strength, so the dough can trap the gas from the yeast. ' +
      'When the dough has grown by about half and feels airy and jiggly, it is ready to shape. ' +
      'Shaping creates surface tension, a tight skin that helps the loaf rise upward instead of spreading sideways. ' +
      'The shaped dough goes into a floured proofing basket, called a banneton, and then into the refrigerator overnight. ' +
      'The cold proof slows the yeast down while the bacteria keep building flavour. ' +
      'The next morning, preheat the oven with a heavy cast iron pot inside to two hundred and fifty degrees Celsius. ' +
      'Turn the dough out onto baking paper and score the top with a razor blade. ' +
      'The cut gives the loaf a place to burst open, which bakers call the ear. ' +
      'Bake it with the lid on for twenty minutes, so the steam keeps the crust soft while the loaf springs up. ' +
      'Then remove the lid and bake for another twenty to twenty five minutes, until the crust is deep brown. ' +
      'The hardest step is waiting at least an hour before cutting, because the crumb is still setting as it cools. ' +
      'A good sourdough has an open, glossy crumb, a crackling crust, and a gentle sour flavour.',
  },
  {
    name: 'solar panels',
    voice: 'en-gb+f3',
    text:
      'Every hour, the sun delivers more energy to the earth than humanity uses in a whole year. ' +
      'Solar panels turn a small part of that sunlight directly into electricity. ' +
      'The heart of a panel is the photovoltaic cell, a thin wafer of silicon. ' +
      'The silicon is doped with small amounts of other elements to form a junction between two layers. ' +
      'When a photon of sunlight strikes the cell, it knocks an electron loose. ' +
      'The electric field at the junction pushes the free electrons in one direction, and that flow is a direct current. ' +
      'Metal contacts on the front and back of the cell collect the current. ' +
      'A typical panel wires sixty or seventy two cells together behind a sheet of tempered glass. ' +
      'Commercial panels today convert about twenty to twenty three percent of the incoming light into electricity. ' +
      'The rest is reflected or turns into heat, and hot panels are actually less efficient than cool ones. ' +
      'Because panels produce direct current, a home system needs an inverter. ' +
      'The inverter converts the direct current into the alternating current used by household appliances and the grid. ' +
      'Many systems use microinverters mounted behind each panel, so that shade on one panel does not drag down the others. ' +
      'Orientation matters a great deal. ' +
      'In the northern hemisphere, a roof facing south at an angle close to the local latitude collects the most energy over a year. ' +
      'The price of solar modules has fallen by roughly ninety percent since two thousand ten. ' +
      'In many sunny countries, large solar farms now produce the cheapest electricity ever built. ' +
      'The great weakness of solar power is that it stops at night and drops on cloudy days. ' +
      'Grid operators balance it with batteries, hydropower, wind, and gas plants. ' +
      'Lithium ion battery packs can store the midday surplus and release it in the evening peak. ' +
      'A rooftop system usually pays for itself in seven to twelve years, depending on local electricity prices. ' +
      'Panels are guaranteed to keep at least eighty percent of their output for twenty five years. ' +
      'At the end of their life, the glass, aluminium frames and copper can be recycled, and new processes recover the silicon and silver as well. ' +
      'Researchers are now stacking perovskite layers on top of silicon cells. ' +
      'These tandem cells have passed thirty three percent efficiency in the laboratory.',
  },
  {
    name: 'chess openings',
    voice: 'en-us+f3',
    text:
      'Why do chess players spend years memorizing the first ten moves of a game? ' +
      'The opening decides who controls the centre of the board and how quickly the pieces come into play. ' +
      'There are three classic principles. ' +
      'Control the central squares with your pawns and pieces. ' +
      'Develop your knights and bishops before moving any piece twice. ' +
      'And castle early, so that your king is safe behind a wall of pawns. ' +
      'The most popular first move is king pawn to e four. ' +
      'It opens lines for the queen and the light squared bishop at once. ' +
      'After e four e five, the Ruy Lopez is one of the oldest and deepest openings in the game. ' +
      'White brings the bishop to b five to pressure the knight that defends the pawn on e five. ' +
      'Players have studied the Ruy Lopez for more than four hundred years, and world champions still play it today. ' +
      'Black can avoid these positions with the Sicilian Defence, answering e four with c five. ' +
      'The Sicilian creates an unbalanced fight, where White attacks on the king side and Black counterattacks on the queen side. ' +
      'It is the most successful reply to e four at the top level. ' +
      'Players who prefer slower, strategic games often begin with the queen pawn to d four. ' +
      "The Queen's Gambit offers a pawn on c four to lure the black pawn away from the centre. " +
      'Accepting the gambit is perfectly playable, but Black must not try to keep the extra pawn. ' +
      'A gambit is any opening that sacrifices material for time or space. ' +
      "Sharp gambits like the King's Gambit were the fashion in the romantic era of the nineteenth century. " +
      'Openings also have colourful names, from the Dragon and the Hedgehog to the Fried Liver Attack. ' +
      'Many are named after the players or the cities that made them famous, like the Caro Kann Defence and the London System. ' +
      'Modern engines have shown that many of these attacks are unsound against perfect defence. ' +
      'Still, in a practical game against a human, a surprise gambit can be deadly. ' +
      'Today computers have analysed the main lines more than thirty moves deep. ' +
      'Top grandmasters prepare new ideas at home with engines and spring them on their opponents over the board. ' +
      'For beginners, the best advice is simple. ' +
      'Learn the principles rather than long memorized lines, and play openings that lead to positions you understand.',
  },
];

/**
 * The first `sentences` sentences of a topic, under the same name and voice: a shorter talk for the
 * flows that test money, bundles and products rather than how candidates are found (ten sentences of
 * a TOPIC_TEXTS topic last about 50 s, a third of the whole topic, so its 9:16 clip encodes in a third
 * of the time).
 */
export function openingOf(topic: TalkTopic, sentences: number): TalkTopic {
  const parts = topic.text.match(/[^.?!]+[.?!]+\s*/g) ?? [topic.text];
  return { ...topic, text: parts.slice(0, sentences).join('').trim() };
}

/** A short recording (well under two minutes) for the "too short for a clip" answer. */
export const SHORT_TEXT: TalkTopic = {
  name: 'short note',
  voice: 'en-us',
  text:
    'This is a short voice note about the weekend. ' +
    'We will meet at the train station at nine in the morning. ' +
    'Please bring walking shoes, a rain jacket, and something to eat. ' +
    'The hike takes about three hours, and we should be back by the afternoon.',
};

export interface PlacedTopic extends TalkTopic {
  /** Seconds from the start of the talk: where its audio starts, and where the next topic's starts (the end of the talk for the last). */
  start: number;
  end: number;
}

export interface TopicTalk {
  /** 16 kHz mono WAV of the whole talk. */
  wav: string;
  /** Seconds. */
  duration: number;
  topics: PlacedTopic[];
  /** The true topic boundaries: where each topic after the first starts, seconds. */
  boundaries: number[];
}

export interface TopicTalkOptions {
  /** @default TOPIC_TEXTS */
  topics?: readonly TalkTopic[];
  /** Silence between topics, seconds. @default 1 */
  pauseSeconds?: number;
  /**
   * espeak-ng words per minute. At 150 the five topics of TOPIC_TEXTS last 148-160 s each (12.8
   * min in all): every topic is long enough to be a 120-300 s clip on its own. @default 150
   */
  wordsPerMinute?: number;
  /** File name of the WAV inside the folder. @default talk.wav */
  name?: string;
}

/** Seconds of a WAV file, from ffprobe. */
async function wavSeconds(file: string): Promise<number> {
  const r = await execa('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=nw=1:nk=1', file]);
  return Number(String(r.stdout).trim());
}

/**
 * Synthesizes every topic with its voice (in parallel; about 3 s for the whole talk on two
 * cores), resamples each to 16 kHz mono, and joins them with `pauseSeconds` of silence between
 * topics into `<dir>/<name>`. The boundaries come from the measured part lengths. For a video,
 * give the WAV to `makeVideo` (harness/media.ts).
 */
export async function makeTopicTalk(dir: string, o: TopicTalkOptions = {}): Promise<TopicTalk> {
  const topics = o.topics ?? TOPIC_TEXTS;
  const pause = o.pauseSeconds ?? 1;
  const wpm = o.wordsPerMinute ?? 150;
  const stem = (o.name ?? 'talk.wav').replace(/\.wav$/, '');
  await fs.mkdir(dir, { recursive: true });
  const parts = await Promise.all(
    topics.map(async (t, i) => {
      const raw = path.join(dir, `${stem}-part${i}-raw.wav`);
      const part = path.join(dir, `${stem}-part${i}.wav`);
      await execa('espeak-ng', ['-v', t.voice, '-s', String(wpm), '-w', raw, t.text]);
      // The last part gets no trailing pause.
      const pad = i + 1 < topics.length ? `,apad=pad_dur=${pause}` : '';
      await execa('ffmpeg', ['-v', 'error', '-nostdin', '-y', '-i', raw, '-af', `aresample=16000${pad}`, '-ac', '1', '-ar', '16000', part]);
      await fs.rm(raw, { force: true });
      return part;
    }),
  );
  const lengths = await Promise.all(parts.map(wavSeconds));
  const wav = path.join(dir, `${stem}.wav`);
  const list = path.join(dir, `${stem}-parts.txt`);
  await fs.writeFile(list, parts.map((p) => `file '${p.replaceAll("'", "'\\''")}'`).join('\n'));
  await execa('ffmpeg', ['-v', 'error', '-nostdin', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', wav]);
  await Promise.all([...parts, list].map((p) => fs.rm(p, { force: true })));

  let t = 0;
  const placed: PlacedTopic[] = topics.map((topic, i) => {
    const start = t;
    t += lengths[i]!;
    return { ...topic, start, end: t };
  });
  return { wav, duration: await wavSeconds(wav), topics: placed, boundaries: placed.slice(1).map((p) => p.start) };
}
