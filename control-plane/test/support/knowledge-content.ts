/**
 * The content of the knowledge tests: a café's website and papers, in every upload format. Sections compete for
 * the same words on purpose (Sunday is in the opening hours and in the events; "gift" and "card" apart and as the
 * phrase), so a ranking that only counts words would fail the tests.
 */
import { makeDocx, makePdf } from './knowledge-fixtures.ts';

export const WEBSITE_MD = `# Harbour Café

Harbour Café serves breakfast, lunch and cakes on the quay since 2009. Our coffee is roasted two streets away.

## Opening hours

Monday to Friday: 7:30 am to 6 pm.
Saturday: 8 am to 5 pm.
Sunday: 9 am to 3 pm.
We are closed on Christmas Day and New Year's Day.

## Events

Live jazz on Sunday evenings, doors at 7 pm; it is the best time to try our cocktails. Tickets at the counter.

## Gift cards

Gift cards are sold at the counter in any amount from 10 pounds and never expire.

## Hampers

Every hamper comes with a hand-written card; a hamper makes a lovely gift for a birthday.

## Parking

There is no parking at the café. The harbour car park is two minutes away and free after 6 pm.
`;

export const RETURNS_PDF_PAGES = [
  [
    'Returns and refunds',
    '',
    'Unopened beans and merchandise can be returned within 30 days.',
    'Refunds are paid to the card used for the purchase within five working days.',
  ],
  [
    'Allergens',
    '',
    'All cakes are baked in a kitchen that handles nuts, gluten and milk.',
    'Ask the staff for the allergen folder.',
  ],
];

export const ACCESS_DOCX = [
  {
    heading: 'Accessibility',
    paragraphs: ['The café has step-free access from the quay and a wheelchair accessible toilet.'],
  },
  { heading: 'Dogs', paragraphs: ['Well-behaved dogs are welcome on the terrace; water bowls are by the door.'] },
];

export const MENU_CSV = `item,price,description
Flat white,3.20,"Double shot of espresso with steamed milk"
Cappuccino,3.00,"Espresso, steamed milk and foam"
Carrot cake,3.80,"Walnut-free carrot cake with cream cheese icing"
`;

export const FAQ_JSON = JSON.stringify([
  {
    question: 'Do you run a loyalty scheme?',
    answer: 'Yes: collect nine stamps on the loyalty card and the tenth coffee is free.',
  },
  { question: 'Can I book a table?', answer: 'Tables for six or more can be booked by phone.' },
]);

export const returnsPdf = () => makePdf(RETURNS_PDF_PAGES);
export const accessDocx = () => makeDocx(ACCESS_DOCX);
