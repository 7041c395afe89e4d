/**
 * What a product question asks beyond its words (docs/architecture.md §14): "in stock" / "available" keeps to
 * products in stock; "under 20", "below $20", "less than 20", "up to 20" set a highest price; "over 10", "above",
 * "more than", "at least", "from 10" a lowest; "between 10 and 20" both. The filter words are taken out of the
 * text searched, so "shoes under 50" searches "shoes" among products priced at most 50.
 */
export interface ProductQuery {
  /** The words left to search; may be empty (filters only). */
  text: string;
  inStock?: true;
  minPrice?: number;
  maxPrice?: number;
}

/** A price as said or typed: "£50", "50 dollars", "rs 200", "9.99". The amount is the one group. */
const AMOUNT =
  /(?:[$€£₹]|rs\.?|inr|usd|eur|gbp)?\s*(\d+(?:[.,]\d{1,2})?)\s*(?:dollars?|euros?|pounds?|rupees?|bucks|[$€£₹]|usd|eur|gbp|inr)?/
    .source;
const filter = (words: string, amounts: string) => new RegExp(`\\b${words}\\s+${amounts}`, 'i');
const BETWEEN = filter('between', `${AMOUNT}\\s+(?:and|to|-)\\s+${AMOUNT}`);
const AT_MOST = filter('(?:under|below|less than|cheaper than|up to|at most|max(?:imum)?|no more than)', AMOUNT);
const AT_LEAST = filter('(?:over|above|more than|at least|from|min(?:imum)?)', AMOUNT);
const IN_STOCK = /\b(?:in[\s-]stock|available(?: now)?|in store)\b/i;

/** Words that stand for "a product" in a question and name none: searching them would find nothing. */
const FILLER =
  /\b(?:anything|something|everything|items?|products?|stuff|options?|ones?|cheap(?:er|est)?|expensive)\b/gi;

const amount = (text: string) => Number(text.replace(',', '.'));

export function parseProductQuery(query: string): ProductQuery {
  let text = ` ${query} `;
  const result: ProductQuery = { text: '' };
  const between = BETWEEN.exec(text);
  if (between) {
    const [low, high] = [amount(between[1]!), amount(between[2]!)].sort((a, b) => a - b);
    result.minPrice = low;
    result.maxPrice = high;
    text = text.replace(between[0], ' ');
  }
  const atMost = AT_MOST.exec(text);
  if (atMost) {
    result.maxPrice = amount(atMost[1]!);
    text = text.replace(atMost[0], ' ');
  }
  const atLeast = AT_LEAST.exec(text);
  if (atLeast) {
    result.minPrice = amount(atLeast[1]!);
    text = text.replace(atLeast[0], ' ');
  }
  if (IN_STOCK.test(text)) {
    result.inStock = true;
    text = text.replace(IN_STOCK, ' ');
  }
  result.text = text.replace(FILLER, ' ').replace(/\s+/g, ' ').trim();
  return result;
}
