/**
 * The call flow of a FLOW agent (`builderMode: FLOW`, spec: Agent `flowDefinition`): a graph of steps with string
 * keys, run turn by turn by the engine's flow executor. The control plane validates it on every save and serves
 * this schema in its OpenAPI document, so every field says what it does for the person writing a flow.
 *
 * Steps are a union discriminated by `kind`, and the document carries `version`, so new kinds and a version 2 can
 * be added without breaking stored flows. Texts that are spoken may use `{{variable}}` placeholders, filled from
 * the call's variables and from the values captured so far (captured values win).
 */
import { Type, type Static, type TLiteral, type TUnion } from '@sinclair/typebox';

/** The flow document version this schema describes. */
export const FLOW_DEFINITION_VERSION = 1;

/** More steps than this is no longer a phone flow a person can follow; it also bounds validation cost. */
export const MAX_FLOW_STEPS = 200;

/** Longest spoken text of one step, characters: about a minute of speech, already too long on a phone. */
export const MAX_STEP_TEXT_CHARS = 1_000;

/** The most re-prompts of one question: callers hang up on a fourth "sorry, I didn't get that". */
export const MAX_RETRIES = 5;

/** A caller may come back to a menu a few times ("press 9 to hear this again"); ten visits of one step is a loop. */
export const DEFAULT_MAX_STEP_VISITS = 10;

/** The most a flow may raise its loop guard to: beyond this a loop costs minutes of a caller's time. */
export const MAX_STEP_VISITS = 50;

/** Default re-prompts of an ask step: two "sorry, could you repeat" before moving on. */
export const DEFAULT_ASK_RETRIES = 2;

/** Step keys, field keys and outcome keys: readable identifiers that survive URLs, JSON and CSV headers. */
export const KEY_PATTERN = '^[A-Za-z][A-Za-z0-9_-]{0,63}$';

/** Built-in tools that a knowledge step calls; they exist on an agent whose customVariables list the source. */
export const SEARCH_TOOLS = { knowledge: 'knowledge_search', catalogue: 'product_search' } as const;

/** The outcome recorded when a flow ends without reaching an end step (spec: results filter `no_result`). */
export const NO_RESULT_OUTCOME = { key: 'no_result', label: 'No result' } as const;

/** The outcome of a successful handover step that does not name its own. */
export const HANDED_OVER_OUTCOME = { key: 'handed_over', label: 'Handed over to a person' } as const;

const Key = (description: string) => Type.String({ pattern: KEY_PATTERN, description });
const StepRef = (description: string) => Type.String({ minLength: 1, description });
const Spoken = (description: string) => Type.String({ minLength: 1, maxLength: MAX_STEP_TEXT_CHARS, description });
/** A union of string literals (an enum in OpenAPI terms) whose static type keeps the literals. */
const Literals = <const T extends readonly string[]>(values: T, description: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { description },
  ) as TUnion<TLiteral<T[number]>[]>;

/** The types a captured field may have; the same list as the agent's resultsConfig field types. */
export const FIELD_TYPES = ['number', 'phone', 'choice', 'yes_no', 'text', 'date'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** Keys collected for a keypad answer when an ask step does not say: enough for the longest value of the type. */
export const DEFAULT_MAX_DIGITS: Readonly<Record<FieldType, number>> = {
  yes_no: 1,
  choice: 1,
  phone: 15 /* E.164's longest */,
  date: 8 /* DDMMYYYY */,
  number: 10,
  text: 20,
};

export const FieldChoice = Type.Object(
  {
    value: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'What is recorded when this choice is picked, and a phrase that picks it when the caller says it.',
    }),
    keywords: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: 20,
        description: 'Other words or phrases that pick this choice ("premium", "the expensive one").',
      }),
    ),
    dtmf: Type.Optional(
      Type.String({
        pattern: '^[0-9*#]$',
        description: 'The key that picks this choice. Default: its position in the list (1 for the first).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FieldChoice = Static<typeof FieldChoice>;

export const CapturedField = Type.Object(
  {
    key: Key("Field key: the key of this value in the result row's `captured` object and in {{placeholders}}."),
    label: Type.String({ minLength: 1, maxLength: 100, description: 'Human name of the field, shown in results.' }),
    type: Literals(
      FIELD_TYPES,
      'number: a number ("twenty three", "23"); phone: digits, optionally with a leading +; ' +
        "choice: one of `choices`; yes_no: true or false; text: the caller's words; date: an ISO date (YYYY-MM-DD).",
    ),
    choices: Type.Optional(
      Type.Array(FieldChoice, {
        minItems: 1,
        maxItems: 9,
        description: 'Required for type choice: the options, at most 9 so each has a phone key.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CapturedField = Static<typeof CapturedField>;

export const CAPTURE_METHODS = ['dtmf', 'pattern', 'llm'] as const;
export type CaptureMethod = (typeof CAPTURE_METHODS)[number];

const stepBase = {
  title: Type.Optional(
    Type.String({ maxLength: 100, description: 'A name for the step in the flow builder; never spoken.' }),
  ),
};

export const SayStep = Type.Object(
  {
    kind: Type.Literal('say', { description: 'Speak a line, then go on at once.' }),
    ...stepBase,
    text: Spoken('What to say; {{variables}} allowed.'),
    next: StepRef('The step after this one.'),
  },
  { additionalProperties: false },
);

export const AskStep = Type.Object(
  {
    kind: Type.Literal('ask', { description: 'Ask a question and capture the answer into a field.' }),
    ...stepBase,
    question: Spoken('The question; {{variables}} allowed.'),
    field: CapturedField,
    capture: Type.Optional(
      Type.Array(
        Literals(
          CAPTURE_METHODS,
          'dtmf: from keys pressed; pattern: by reading the transcript ' +
            '(numbers, dates, yes/no words, choice phrases and `patterns`), no LLM needed; llm: the language model extracts it.',
        ),
        {
          minItems: 1,
          uniqueItems: true,
          description: 'How the answer may be captured. Default: all three. Without a language model, llm is skipped.',
        },
      ),
    ),
    patterns: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 10,
        description:
          'Regular expressions (case-insensitive) tried on the transcript before the built-in readers; the first ' +
          "capture group, or the whole match, is read as the field's type.",
      }),
    ),
    maxDigits: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 20,
        description: `Keys to collect for a keypad answer ('#' ends early). Default by type: ${Object.entries(
          DEFAULT_MAX_DIGITS,
        )
          .map(([type, n]) => `${type} ${n}`)
          .join(', ')}; a date is keyed DDMMYYYY.`,
      }),
    ),
    retries: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_RETRIES,
        description: `How many times to ask again when the answer cannot be captured. Default ${DEFAULT_ASK_RETRIES}.`,
      }),
    ),
    reprompt: Type.Optional(Spoken('Said when asking again. Default: the question.')),
    next: StepRef('The step after a captured answer.'),
    fallback: Type.Optional(StepRef('The step when the retries are used up. Default: `next`, without the value.')),
  },
  { additionalProperties: false },
);

export const VALUE_OPERATORS = ['equals', 'in', 'gt', 'lt', 'exists'] as const;
const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const ValueCondition = Type.Object(
  {
    kind: Type.Literal('value', { description: 'Compare a captured value (or a call variable).' }),
    field: Type.String({ minLength: 1, description: 'The field key (or, with from: variables, the variable name).' }),
    from: Type.Optional(
      Literals(['captured', 'variables'] as const, 'Where the value is looked up. Default captured.'),
    ),
    op: Literals(
      VALUE_OPERATORS,
      'equals: same value; in: one of `value` (an array); gt / lt: greater / less than `value` ' +
        '(numbers, or ISO dates); exists: a value was captured.',
    ),
    value: Type.Optional(
      Type.Union([Scalar, Type.Array(Scalar)], { description: 'The value to compare with; none for exists.' }),
    ),
    next: StepRef('The step when the condition holds.'),
  },
  { additionalProperties: false },
);

export const IntentCondition = Type.Object(
  {
    kind: Type.Literal('intent', {
      description: "The caller's words mean this intent, as classified by the language model.",
    }),
    intent: Type.String({ minLength: 1, maxLength: 64, description: 'Intent name, e.g. "reschedule".' }),
    description: Type.Optional(
      Type.String({ maxLength: 300, description: 'What a caller with this intent wants; helps the model.' }),
    ),
    examples: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 20,
        description:
          'Example phrases. They guide the model, and without a language model they are matched as keywords.',
      }),
    ),
    next: StepRef('The step for this intent.'),
  },
  { additionalProperties: false },
);

export const DtmfCondition = Type.Object(
  {
    kind: Type.Literal('dtmf', { description: 'The caller pressed these keys.' }),
    digits: Type.String({ pattern: '^[0-9*#]{1,10}$', description: 'The keys, e.g. "1" or "0#".' }),
    next: StepRef('The step for these keys.'),
  },
  { additionalProperties: false },
);

export const KeywordCondition = Type.Object(
  {
    kind: Type.Literal('keywords', { description: "The caller's words contain one of these words or phrases." }),
    keywords: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1,
      maxItems: 50,
      description: 'Matched whole-word, ignoring case and punctuation.',
    }),
    next: StepRef('The step when one matches.'),
  },
  { additionalProperties: false },
);

export const BranchCondition = Type.Union([ValueCondition, IntentCondition, DtmfCondition, KeywordCondition]);
export type BranchCondition = Static<typeof BranchCondition>;

export const BranchStep = Type.Object(
  {
    kind: Type.Literal('branch', {
      description:
        'Choose the next step by the first condition that holds. A branch with intent, dtmf or keywords ' +
        "conditions waits for the caller's next turn; one with only value conditions decides at once.",
    }),
    ...stepBase,
    prompt: Type.Optional(Spoken('Said before waiting for the caller, e.g. "Press 1 for sales or 2 for support."')),
    conditions: Type.Array(BranchCondition, {
      maxItems: 20,
      description: 'Tried in order; the first that holds wins.',
    }),
    retries: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_RETRIES,
        description: "Times to listen again when nothing matches the caller's turn. Default 0.",
      }),
    ),
    reprompt: Type.Optional(Spoken('Said when listening again. Default: the prompt.')),
    default: StepRef('The step when no condition holds (after any retries).'),
  },
  { additionalProperties: false },
);

export const ToolStep = Type.Object(
  {
    kind: Type.Literal('tool', { description: "Call one of the agent's function tools." }),
    ...stepBase,
    tool: Type.String({
      minLength: 1,
      description: "The tool key, one of the agent's functionTools (or a built-in search tool it has).",
    }),
    arguments: Type.Optional(
      Type.Record(Type.String(), Scalar, {
        description:
          'Arguments by name. A string that is exactly "{{name}}" passes the value with its type; other strings are ' +
          'filled as text.',
      }),
    ),
    say: Type.Optional(Spoken('Said while the tool runs, e.g. "One moment while I check."')),
    saveAs: Type.Optional(
      Key(
        "Variable name for the tool's result, for later {{placeholders}} ({{name}}, {{name.field}}) and value conditions.",
      ),
    ),
    next: StepRef('The step after the tool succeeded.'),
    onFailure: StepRef('The step when the tool failed or timed out.'),
  },
  { additionalProperties: false },
);

export const KnowledgeStep = Type.Object(
  {
    kind: Type.Literal('knowledge', {
      description: "Answer the caller's question from the agent's knowledge bases or catalogues.",
    }),
    ...stepBase,
    source: Type.Optional(
      Literals(
        ['knowledge', 'catalogue'] as const,
        'Search knowledge bases (knowledge_search) or product catalogues (product_search). Default knowledge.',
      ),
    ),
    prompt: Type.Optional(
      Spoken("Said before listening for the question. Without it, the caller's last words are the question."),
    ),
    notFound: Type.Optional(Spoken('Said when nothing useful was found. Default: a short apology.')),
    next: StepRef('The step after answering.'),
  },
  { additionalProperties: false },
);

const OutcomeKey = Key("Outcome key: recorded as the result row's outcomeKey; `no_result` is reserved.");

export const Outcome = Type.Object(
  {
    key: OutcomeKey,
    label: Type.String({ minLength: 1, maxLength: 100, description: 'Human name of the outcome.' }),
    description: Type.Optional(Type.String({ maxLength: 500, description: 'What this outcome means.' })),
  },
  { additionalProperties: false },
);
export type Outcome = Static<typeof Outcome>;

export const HandoverStep = Type.Object(
  {
    kind: Type.Literal('handover', {
      description: "Transfer the call to the agent's handover number; the flow ends when it succeeds.",
    }),
    ...stepBase,
    text: Type.Optional(Spoken('Said before transferring, e.g. "Let me connect you with a colleague."')),
    outcome: Type.Optional(Outcome),
    onFailure: StepRef('The step when the transfer fails.'),
  },
  { additionalProperties: false },
);

export const EndStep = Type.Object(
  {
    kind: Type.Literal('end', { description: 'End the call with an outcome.' }),
    ...stepBase,
    outcome: Outcome,
    text: Type.Optional(Spoken('Closing words before hanging up.')),
  },
  { additionalProperties: false },
);

export const FlowStep = Type.Union([SayStep, AskStep, BranchStep, ToolStep, KnowledgeStep, HandoverStep, EndStep]);
export type FlowStep = Static<typeof FlowStep>;
export type StepKind = FlowStep['kind'];
export type StepOfKind<K extends StepKind> = Extract<FlowStep, { kind: K }>;

/** Each kind's schema, for per-step validation with precise error paths. */
export const STEP_SCHEMAS = {
  say: SayStep,
  ask: AskStep,
  branch: BranchStep,
  tool: ToolStep,
  knowledge: KnowledgeStep,
  handover: HandoverStep,
  end: EndStep,
} as const;

export const FlowDefinition = Type.Object(
  {
    version: Type.Literal(FLOW_DEFINITION_VERSION, { description: 'Flow document version.' }),
    start: StepRef('Key of the first step.'),
    steps: Type.Record(Type.String({ pattern: KEY_PATTERN }), FlowStep, {
      // A key outside the pattern is refused, not silently left unchecked.
      additionalProperties: false,
      minProperties: 1,
      maxProperties: MAX_FLOW_STEPS,
      description: 'The steps by key. Keys are referred to by `start`, `next`, `fallback`, `default` and `onFailure`.',
    }),
    maxStepVisits: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_STEP_VISITS,
        description: `How often one step may be entered in a call before the flow ends with outcome no_result (a loop guard). Default ${DEFAULT_MAX_STEP_VISITS}.`,
      }),
    ),
  },
  { additionalProperties: false, description: "A FLOW agent's call flow." },
);
export type FlowDefinition = Static<typeof FlowDefinition>;

/** An agent's resultsConfig (spec: Agent), as derived from a flow. */
export const ResultsConfig = Type.Object({
  outcomes: Type.Array(Outcome),
  fields: Type.Array(
    Type.Object({
      key: Type.String(),
      label: Type.String(),
      type: Literals(FIELD_TYPES, 'Field type.'),
      choices: Type.Optional(Type.Array(Type.String())),
    }),
  ),
});
export type ResultsConfig = Static<typeof ResultsConfig>;
