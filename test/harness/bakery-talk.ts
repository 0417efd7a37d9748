/**
 * A 322-word monologue (a baker on replacing a paper order book with a shared spreadsheet), rich
 * in checkable facts: numbers spelled out, months and days, a before/after claim. Text models are
 * asked about it, and what they write is grounded against it (test/grounding.test.ts,
 * test/text-generator.test.ts).
 */
export const BAKERY_TALK =
  'So welcome back to the show. ' +
  'Today I want to talk about something that changed how I run my small bakery, and that is switching from a paper order book to a simple shared spreadsheet. ' +
  'For years we wrote every custom cake order by hand. ' +
  'Customers would call, my sister would scribble the details on a notepad, and then someone would copy it into the big red book on the counter. ' +
  'The problem was that about once a month an order got lost. ' +
  'Once we forgot a wedding cake entirely and found out on the Friday night, and I stayed up until four in the morning baking three tiers. ' +
  'That was the moment I decided we had to change. ' +
  'We started with a spreadsheet that everyone can open on their phone. ' +
  'Each row is one order: the customer name, the pickup date, the flavour, the size, the price and whether the deposit has been paid. ' +
  'We added a column that turns red when the pickup date is less than three days away and the order is not yet started. ' +
  'It sounds almost too simple, but in the first six months we did not lose a single order. ' +
  'The second thing it gave us was numbers. ' +
  'For the first time I could see that chocolate orders doubled in December, that Saturday pickups were half of all our work, and that we were undercharging for tiered cakes by about twenty percent. ' +
  'We raised those prices in March and nobody complained. ' +
  'My advice to other small shop owners is to start small. ' +
  'You do not need expensive software. ' +
  'Pick one process that hurts, write down what information it needs, and put it in one shared place that the whole team can see. ' +
  'Then look at the numbers every Monday morning with a cup of coffee. ' +
  'Next week we will talk about hiring your first employee and what I wish I had known before I did.';
