import type { TalkTopic } from '../../test/harness/media-gen/topic-talk.ts';

/**
 * The evaluation set of `npm run eval:understanding`: talks written for evaluation only (the
 * tests' five-topic talk, on which the prompts and thresholds were tuned, is not among them), read
 * by espeak-ng with a voice per topic, each with hand-written reference claims. A claim is what
 * the talk states; `terms` are the words a summary must use to convey it (each entry one word,
 * or alternatives separated by `|`, matched on word stems), so coverage never asks the production
 * judge. Controls: a talk of short topics (news items of ~25 s, below a chapter's length), one
 * long topic full of names and numbers (where small models invent), and three medium topics.
 */

export interface EvalTopic extends TalkTopic {
  /** What the topic states: the claims a faithful summary may make about it. */
  claims: { text: string; terms: string[] }[];
}

export interface EvalTalk {
  name: string;
  /** What the talk tests. */
  control: string;
  topics: EvalTopic[];
}

export const UNDERSTANDING_SET: readonly EvalTalk[] = [
  {
    name: 'three-topics',
    control: 'three topics of about 70 s each, three voices',
    topics: [
      {
        name: 'tomatoes on a balcony',
        voice: 'en-us',
        text:
          'You do not need a garden to grow tomatoes, a sunny balcony is enough. ' +
          'Choose a bush variety or a cherry tomato, because tall vines need a lot of support. ' +
          'Each plant needs a pot of at least twenty litres filled with good compost. ' +
          'Tomatoes want six to eight hours of direct sun every day, so a balcony facing south is best. ' +
          'Water deeply in the morning, and water the soil, not the leaves, to prevent blight. ' +
          'In hot weather a pot can dry out twice a day. ' +
          'Uneven watering causes blossom end rot, a black patch at the bottom of the fruit. ' +
          'Once the first flowers open, feed the plants every week with a liquid tomato food rich in potassium. ' +
          'Tie the main stem to a cane as it grows. ' +
          'On a balcony there are fewer bees, so gently shake the flowering stems to spread the pollen. ' +
          'Pick the fruit when it is fully coloured and still firm. ' +
          'Green tomatoes left at the end of the season will ripen indoors next to a banana.',
        claims: [
          { text: 'A sunny balcony is enough to grow tomatoes.', terms: ['tomato', 'balcony'] },
          { text: 'Bush or cherry varieties suit a balcony.', terms: ['cherry|bush', 'variety|varieties|tomato'] },
          { text: 'Each plant needs a pot of at least 20 litres of compost.', terms: ['pot', 'litre|liter|20|twenty'] },
          { text: 'Tomatoes need six to eight hours of direct sun.', terms: ['sun', 'hour'] },
          { text: 'Water the soil in the morning, not the leaves, to prevent blight.', terms: ['water', 'soil|leaves|blight|morning'] },
          { text: 'Uneven watering causes blossom end rot.', terms: ['rot|blossom'] },
          { text: 'Feed weekly with potassium-rich tomato food once flowers open.', terms: ['feed|food|potassium'] },
          { text: 'Shake the flowering stems to spread pollen, as there are few bees.', terms: ['pollen|bee|shake'] },
          { text: 'Green tomatoes ripen indoors next to a banana.', terms: ['ripen|banana|green'] },
        ],
      },
      {
        name: 'the story of coffee',
        voice: 'en-gb+m3',
        text:
          'Coffee comes from the highlands of Ethiopia, where the plant still grows wild in the forest. ' +
          'A popular legend tells of a goat herder named Kaldi, who saw his goats dancing after they ate red berries from a bush. ' +
          'The first reliable records of coffee drinking come from Sufi monasteries in Yemen in the fifteenth century. ' +
          'The monks drank it to stay awake during long night prayers. ' +
          'Coffee was shipped from the port of Mocha, which gave its name to a style of coffee. ' +
          'By the sixteenth century coffee houses had opened in Cairo and Istanbul. ' +
          'European traders brought coffee to Venice, and the first coffee house in England opened in Oxford in sixteen fifty. ' +
          'In London, coffee houses became places to read the news and make business deals, and one of them grew into the insurance market Lloyds. ' +
          'The Dutch grew coffee in their colony on Java, and a single plant given to the French king became the ancestor of many plantations in the Caribbean. ' +
          "Today Brazil grows about a third of the world's coffee.",
        claims: [
          { text: 'Coffee comes from the highlands of Ethiopia.', terms: ['ethiopia'] },
          { text: 'The legend of the goat herder Kaldi and his dancing goats.', terms: ['kaldi|goat'] },
          { text: 'The first records of coffee drinking are from Sufi monasteries in Yemen in the 15th century.', terms: ['yemen|sufi|monk|monaster'] },
          { text: 'Monks drank it to stay awake during night prayers.', terms: ['awake|prayer'] },
          { text: 'Coffee was shipped from the port of Mocha.', terms: ['mocha'] },
          { text: 'Coffee houses opened in Cairo and Istanbul in the 16th century.', terms: ['cairo|istanbul'] },
          { text: "England's first coffee house opened in Oxford in 1650.", terms: ['oxford|england'] },
          { text: 'A London coffee house grew into Lloyds.', terms: ['london|lloyd'] },
          { text: 'The Dutch grew coffee on Java.', terms: ['dutch|java'] },
          { text: "Brazil grows about a third of the world's coffee.", terms: ['brazil'] },
        ],
      },
      {
        name: 'heat pumps',
        voice: 'en-us+f2',
        text:
          'A heat pump heats a house by moving heat rather than making it. ' +
          'It works like a refrigerator running in reverse. ' +
          'Outside, a fan blows air over a coil filled with a cold refrigerant, which absorbs heat even when the air is below freezing. ' +
          'A compressor squeezes the refrigerant gas, and that makes it much hotter. ' +
          'Inside, the hot gas gives its heat to the water of the radiators or to the air of the rooms. ' +
          'For every unit of electricity it uses, a good heat pump delivers three to four units of heat. ' +
          'Engineers call this ratio the coefficient of performance. ' +
          'The colder it is outside, the harder the pump must work, so the ratio falls on frosty days. ' +
          'Heat pumps work best in well insulated homes with large radiators or underfloor heating, because they heat water to a lower temperature than a gas boiler. ' +
          'In summer many of them can run backwards and cool the house. ' +
          'They cost more to install than a boiler, but running costs are usually lower.',
        claims: [
          { text: 'A heat pump moves heat rather than making it.', terms: ['heat', 'mov|pump'] },
          { text: 'It works like a refrigerator in reverse.', terms: ['refrigerator|fridge'] },
          { text: 'Its outdoor coil absorbs heat even below freezing.', terms: ['freez|outside|coil'] },
          { text: 'A compressor squeezes the refrigerant, making it hotter.', terms: ['compressor|compress|squeez'] },
          { text: 'It delivers three to four units of heat per unit of electricity.', terms: ['electric', 'three|four|3|4|unit'] },
          { text: 'This ratio is the coefficient of performance.', terms: ['coefficient|performance|ratio'] },
          { text: 'It works harder and less efficiently in the cold.', terms: ['cold|frost'] },
          { text: 'Best in well-insulated homes with large radiators or underfloor heating.', terms: ['insulat|radiator|underfloor'] },
          { text: 'Many can cool the house in summer.', terms: ['cool|summer'] },
          { text: 'More expensive to install than a boiler, cheaper to run.', terms: ['install|cost|boiler'] },
        ],
      },
    ],
  },
  {
    name: 'news-roundup',
    control: 'five short items of about 25 s (shorter than a chapter), names and numbers',
    topics: [
      {
        name: 'the city marathon',
        voice: 'en-gb',
        text:
          'The city marathon on Sunday drew eighteen thousand runners. ' +
          "Grace Mwangi won the women's race in two hours and twenty one minutes, a new course record. " +
          "The men's race went to Tomas Berg after a sprint finish on the bridge. " +
          'Organisers handed out forty thousand bottles of water along the route.',
        claims: [
          { text: 'The marathon drew 18,000 runners.', terms: ['marathon|runner'] },
          { text: "Grace Mwangi won the women's race in a course record.", terms: ['mwangi|grace'] },
          { text: "Tomas Berg won the men's race in a sprint finish.", terms: ['berg|tomas'] },
        ],
      },
      {
        name: 'the library reopens',
        voice: 'en-us+m2',
        text:
          'The Harbour Street library reopens on Monday after two years of repairs. ' +
          'The building dates from nineteen oh four, and the roof had been leaking for a decade. ' +
          'The repairs cost four million pounds, most of it from a national heritage fund. ' +
          "The library now has a children's floor and a recording studio that anyone can book for free.",
        claims: [
          { text: 'The Harbour Street library reopens after two years of repairs.', terms: ['library'] },
          { text: 'The building dates from 1904 and its roof leaked.', terms: ['roof|1904|building'] },
          { text: 'The repairs cost four million pounds.', terms: ['million|repair'] },
          { text: "It has a children's floor and a free recording studio.", terms: ['children|studio'] },
        ],
      },
      {
        name: 'the storm warning',
        voice: 'en-us+f4',
        text:
          'Forecasters have issued a wind warning for Thursday. ' +
          'Gusts of up to eighty kilometres an hour are expected along the coast, with heavy rain in the hills. ' +
          'The ferry to the islands will not sail, and drivers are asked to avoid the coast road. ' +
          'The weather should calm down by Friday afternoon.',
        claims: [
          { text: 'A wind warning for Thursday.', terms: ['wind|storm|gust'] },
          { text: 'Gusts up to 80 km/h on the coast, rain in the hills.', terms: ['coast|rain|gust'] },
          { text: 'The island ferry will not sail.', terms: ['ferry'] },
          { text: 'Calmer by Friday afternoon.', terms: ['friday|calm'] },
        ],
      },
      {
        name: 'the football result',
        voice: 'en-gb+m4',
        text:
          'In football, Riverside United beat Northgate three goals to one on Saturday. ' +
          'Their young striker Ali Hassan scored twice in the second half. ' +
          'The win lifts Riverside to second place in the league, two points behind the leaders. ' +
          'Northgate have now lost four games in a row.',
        claims: [
          { text: 'Riverside United beat Northgate 3-1.', terms: ['riverside|northgate'] },
          { text: 'Ali Hassan scored twice.', terms: ['hassan|striker|scor'] },
          { text: 'Riverside are second, two points behind the leaders.', terms: ['second|league|leader'] },
          { text: 'Northgate lost four games in a row.', terms: ['northgate|lost|row'] },
        ],
      },
      {
        name: 'a kitchen tip',
        voice: 'en-us',
        text:
          'And finally, a kitchen tip from our listeners. ' +
          'To keep cut avocado from turning brown, brush it with lemon juice and press cling film onto the surface. ' +
          'Stored in the fridge, it stays green for two days. ' +
          'The acid in the lemon slows the reaction with the air.',
        claims: [
          { text: 'Lemon juice and cling film keep cut avocado from browning.', terms: ['avocado|lemon'] },
          { text: 'In the fridge it stays green for two days.', terms: ['fridge|green'] },
          { text: 'The acid slows the reaction with air.', terms: ['acid|air|reaction'] },
        ],
      },
    ],
  },
  {
    name: 'one-long-topic',
    control: 'one topic of about 2.5 minutes, dense with names, dates and numbers',
    topics: [
      {
        name: 'the first moon landing',
        voice: 'en-gb+f3',
        text:
          'On the sixteenth of July nineteen sixty nine, a Saturn five rocket lifted off from Florida carrying three astronauts. ' +
          'Neil Armstrong was the commander, Buzz Aldrin flew the lunar module, and Michael Collins piloted the command module. ' +
          'The journey to the moon took about three days. ' +
          'On the twentieth of July, Armstrong and Aldrin climbed into the lunar module, called Eagle, and separated from Collins. ' +
          'During the descent the guidance computer raised several alarms, because it was overloaded with data. ' +
          'Engineers in Houston decided within seconds that it was safe to continue. ' +
          'Near the surface Armstrong saw that the computer was steering them towards a field of boulders. ' +
          'He took manual control and flew on until he found a flat place to land. ' +
          'When Eagle touched down in the Sea of Tranquility, only about twenty five seconds of fuel were left before the abort limit. ' +
          'About six and a half hours later Armstrong stepped onto the surface and spoke the famous words about one small step. ' +
          'Aldrin joined him twenty minutes later. ' +
          'The two men spent about two and a half hours outside. ' +
          'They planted a flag, set up a seismometer and a laser reflector, and collected twenty one kilograms of rock and soil. ' +
          'The laser reflector is still used today to measure the distance to the moon. ' +
          'Meanwhile Collins orbited alone, losing radio contact every time he passed behind the moon. ' +
          'After twenty one hours on the surface, Eagle lifted off and docked with the command module, named Columbia. ' +
          'On the twenty fourth of July the crew splashed down in the Pacific Ocean and spent three weeks in quarantine. ' +
          'About six hundred million people had watched the first steps on television.',
        claims: [
          { text: 'Apollo 11 launched on 16 July 1969 on a Saturn V from Florida.', terms: ['saturn|florida|launch|rocket'] },
          { text: 'Armstrong commanded; Aldrin flew the lunar module; Collins the command module.', terms: ['armstrong', 'aldrin|collins'] },
          { text: 'The computer raised alarms during the descent.', terms: ['computer|alarm'] },
          { text: 'Armstrong took manual control to avoid boulders.', terms: ['manual|boulder'] },
          { text: 'Eagle landed in the Sea of Tranquility with little fuel left.', terms: ['tranquility|fuel|eagle|land'] },
          { text: 'Armstrong stepped onto the surface; Aldrin followed.', terms: ['step|surface'] },
          { text: 'They planted a flag, set up experiments and collected 21 kg of rock.', terms: ['flag|rock|seismometer|reflector'] },
          { text: 'The laser reflector still measures the distance to the moon.', terms: ['laser|reflector|distance'] },
          { text: 'Collins orbited alone.', terms: ['collins', 'orbit|alone'] },
          { text: 'The crew splashed down in the Pacific on 24 July.', terms: ['pacific|splash|quarantine'] },
          { text: 'About 600 million people watched on television.', terms: ['television|watch'] },
        ],
      },
    ],
  },
];
