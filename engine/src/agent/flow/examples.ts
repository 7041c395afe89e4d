/**
 * Realistic call flows, each with the agent it fits and the variables a call would bring. Tests run them, and
 * the documentation shows them, so they must stay valid flows that read well.
 */
import type { FlowDefinition } from '../../protocol/flow-definition.ts';
import type { FlowValidationContext } from './flow-validator.ts';

export interface ExampleFlow {
  title: string;
  flow: FlowDefinition;
  /** The agent the flow is saved on: its tools, knowledge bases and handover number. */
  agent: FlowValidationContext;
  /** A call's variables (customVariables). */
  variables: Record<string, string>;
}

/** An outbound reminder: confirm, or find a new day and rebook through the clinic's scheduling webhook. */
export const appointmentConfirmation: ExampleFlow = {
  title: 'Appointment confirmation',
  agent: { toolKeys: ['reschedule_appointment'], handoverNumber: '+911140001234' },
  variables: {
    customer_name: 'Asha',
    clinic_name: 'Sunrise Dental',
    appointment_date: 'Monday the 14th',
    appointment_time: '10:30',
    appointment_id: 'apt_123',
  },
  flow: {
    version: 1,
    start: 'greet',
    steps: {
      greet: {
        kind: 'say',
        text: 'Hello {{customer_name}}, this is {{clinic_name}} calling about your appointment on {{appointment_date}} at {{appointment_time}}.',
        next: 'confirm',
      },
      confirm: {
        kind: 'ask',
        question: 'Can you make it? Say yes or press 1, or say no or press 2.',
        field: { key: 'confirmed', label: 'Confirmed', type: 'yes_no' },
        retries: 2,
        reprompt: 'Sorry, I did not catch that. Please say yes or no, or press 1 for yes and 2 for no.',
        next: 'is_confirmed',
        fallback: 'no_answer',
      },
      is_confirmed: {
        kind: 'branch',
        conditions: [{ kind: 'value', field: 'confirmed', op: 'equals', value: true, next: 'confirmed' }],
        default: 'new_date',
      },
      new_date: {
        kind: 'ask',
        question: 'No problem. Which day would suit you better?',
        field: { key: 'preferred_date', label: 'Preferred date', type: 'date' },
        next: 'reschedule',
        fallback: 'front_desk',
      },
      reschedule: {
        kind: 'tool',
        tool: 'reschedule_appointment',
        arguments: { appointment_id: '{{appointment_id}}', date: '{{preferred_date}}' },
        say: 'One moment while I check that day.',
        saveAs: 'booking',
        next: 'rescheduled',
        onFailure: 'front_desk',
      },
      rescheduled: {
        kind: 'end',
        outcome: {
          key: 'rescheduled',
          label: 'Rescheduled',
          description: 'The patient picked a new day and it was booked.',
        },
        text: 'You are booked for {{booking.slot}}. Thank you, goodbye.',
      },
      confirmed: {
        kind: 'end',
        outcome: { key: 'confirmed', label: 'Confirmed', description: 'The patient will come as booked.' },
        text: 'Wonderful, we will see you then. Goodbye.',
      },
      front_desk: { kind: 'handover', text: 'Let me connect you with our front desk.', onFailure: 'callback' },
      callback: {
        kind: 'end',
        outcome: { key: 'callback_requested', label: 'Callback requested' },
        text: 'Our team will call you back today to find a new time. Goodbye.',
      },
      no_answer: {
        kind: 'end',
        outcome: { key: 'no_response', label: 'No clear answer' },
        text: 'I will let the clinic know. Goodbye.',
      },
    },
  },
};

/** An outbound call to a web lead: interest, budget, timeline, questions answered from the knowledge base. */
export const leadQualification: ExampleFlow = {
  title: 'Lead qualification',
  agent: { toolKeys: [], hasKnowledgeBase: true, handoverNumber: '+919800012345' },
  variables: { lead_name: 'Ravi', company: 'BrightSun Solar' },
  flow: {
    version: 1,
    start: 'intro',
    steps: {
      intro: {
        kind: 'say',
        text: 'Hi {{lead_name}}, I am calling from {{company}} about your enquiry for rooftop solar.',
        next: 'interest',
      },
      interest: {
        kind: 'ask',
        question: 'Are you still interested in a free quote?',
        field: { key: 'interested', label: 'Interested', type: 'yes_no' },
        next: 'check_interest',
        fallback: 'no_response',
      },
      check_interest: {
        kind: 'branch',
        conditions: [{ kind: 'value', field: 'interested', op: 'equals', value: false, next: 'not_interested' }],
        default: 'bill',
      },
      bill: {
        kind: 'ask',
        question: 'Roughly how much is your monthly electricity bill, in rupees?',
        field: { key: 'monthly_bill', label: 'Monthly bill (INR)', type: 'number' },
        next: 'timeline',
        fallback: 'timeline',
      },
      timeline: {
        kind: 'ask',
        question: 'When would you like it installed: this month, within three months, or later?',
        field: {
          key: 'timeline',
          label: 'Timeline',
          type: 'choice',
          choices: [
            { value: 'This month', keywords: ['right away', 'immediately', 'as soon as possible', 'asap'] },
            { value: 'Within three months', keywords: ['three months', 'couple of months', 'soon', 'next quarter'] },
            { value: 'Later', keywords: ['next year', 'no rush', 'not yet'] },
          ],
        },
        next: 'qualify',
        fallback: 'qualify',
      },
      qualify: {
        kind: 'branch',
        conditions: [
          { kind: 'value', field: 'monthly_bill', op: 'lt', value: 2000, next: 'nurture' },
          { kind: 'value', field: 'timeline', op: 'equals', value: 'Later', next: 'nurture' },
        ],
        default: 'questions',
      },
      questions: {
        kind: 'branch',
        prompt: 'You sound like a great fit. Do you have any questions before I book a site visit?',
        conditions: [
          {
            kind: 'intent',
            intent: 'talk_to_person',
            description: 'wants to speak to a person',
            examples: ['talk to someone', 'speak to a person', 'human', 'consultant'],
            next: 'consultant',
          },
          {
            kind: 'intent',
            intent: 'question',
            description: 'asks about the product, price, subsidy or installation',
            examples: ['how much', 'what is', 'how long', 'does it', 'warranty', 'subsidy'],
            next: 'answer',
          },
          {
            kind: 'keywords',
            keywords: ['no', 'nope', 'nothing', 'no questions', 'all good'],
            next: 'callback_number',
          },
        ],
        default: 'callback_number',
      },
      answer: { kind: 'knowledge', next: 'more_questions' },
      more_questions: {
        kind: 'branch',
        prompt: 'Anything else you would like to know?',
        conditions: [
          {
            kind: 'intent',
            intent: 'question',
            examples: ['how much', 'what is', 'how long', 'does it', 'warranty', 'subsidy'],
            next: 'answer',
          },
          {
            kind: 'keywords',
            keywords: ['no', 'nope', 'nothing', 'that is all', 'thats all'],
            next: 'callback_number',
          },
        ],
        default: 'callback_number',
      },
      consultant: {
        kind: 'handover',
        text: 'Let me connect you with a consultant.',
        outcome: { key: 'qualified_transferred', label: 'Qualified, transferred' },
        onFailure: 'callback_number',
      },
      callback_number: {
        kind: 'ask',
        question: 'What is the best number for our consultant to call you on?',
        field: { key: 'callback_number', label: 'Callback number', type: 'phone' },
        next: 'qualified',
        fallback: 'qualified',
      },
      qualified: {
        kind: 'end',
        outcome: {
          key: 'qualified',
          label: 'Qualified lead',
          description: 'Interested, with budget and a near timeline.',
        },
        text: 'Thank you {{lead_name}}. A consultant will call you on {{callback_number}} within a day.',
      },
      nurture: {
        kind: 'end',
        outcome: { key: 'nurture', label: 'Not ready yet' },
        text: 'Thanks, we will send you some information and check back later.',
      },
      not_interested: {
        kind: 'end',
        outcome: { key: 'not_interested', label: 'Not interested' },
        text: 'No problem, thank you for your time.',
      },
      no_response: { kind: 'end', outcome: { key: 'no_response', label: 'No clear answer' } },
    },
  },
};

/** An inbound support line that needs no language model: keys and keywords route, a webhook reads the balance. */
export const supportLineIvr: ExampleFlow = {
  title: 'Support line menu (no LLM needed)',
  agent: { toolKeys: ['get_balance'], handoverNumber: '+918000000000' },
  variables: { company: 'Swift Broadband' },
  flow: {
    version: 1,
    start: 'menu',
    steps: {
      menu: {
        kind: 'branch',
        prompt:
          'Welcome to {{company}} support. For billing, press 1 or say billing. For a technical problem, press 2 or say technical. To hear this again, press 9.',
        conditions: [
          { kind: 'dtmf', digits: '1', next: 'account' },
          { kind: 'keywords', keywords: ['billing', 'bill', 'invoice', 'payment'], next: 'account' },
          { kind: 'dtmf', digits: '2', next: 'outage' },
          { kind: 'keywords', keywords: ['technical', 'internet', 'not working', 'outage'], next: 'outage' },
          { kind: 'dtmf', digits: '9', next: 'menu' },
          { kind: 'dtmf', digits: '0', next: 'agent' },
          { kind: 'keywords', keywords: ['agent', 'person', 'human', 'representative'], next: 'agent' },
        ],
        retries: 1,
        reprompt: 'Sorry, I did not get that. Press 1 for billing or 2 for technical support.',
        default: 'agent',
      },
      account: {
        kind: 'ask',
        question: 'Please enter or say your account number.',
        field: { key: 'account_number', label: 'Account number', type: 'number' },
        capture: ['dtmf', 'pattern'],
        maxDigits: 10,
        next: 'lookup',
        fallback: 'agent',
      },
      lookup: {
        kind: 'tool',
        tool: 'get_balance',
        arguments: { account: '{{account_number}}' },
        say: 'Let me look that up.',
        saveAs: 'account',
        next: 'balance',
        onFailure: 'lookup_failed',
      },
      balance: {
        kind: 'say',
        text: 'Your balance is {{account.balance}} rupees, due on {{account.due_date}}.',
        next: 'payment_link',
      },
      payment_link: {
        kind: 'ask',
        question: 'Would you like a payment link by text message? Press 1 for yes or 2 for no.',
        field: { key: 'wants_payment_link', label: 'Wants payment link', type: 'yes_no' },
        retries: 1,
        next: 'billing_done',
        fallback: 'billing_done',
      },
      billing_done: {
        kind: 'end',
        outcome: { key: 'billing_info', label: 'Billing information given' },
        text: 'Thanks for calling {{company}}. Goodbye.',
      },
      lookup_failed: { kind: 'say', text: 'Sorry, I could not find that account.', next: 'agent' },
      outage: {
        kind: 'ask',
        question: 'Is your internet completely down? Press 1 for yes or 2 for no.',
        field: { key: 'outage', label: 'Complete outage', type: 'yes_no' },
        next: 'outage_route',
        fallback: 'agent',
      },
      outage_route: {
        kind: 'branch',
        conditions: [{ kind: 'value', field: 'outage', op: 'equals', value: true, next: 'outage_logged' }],
        default: 'agent',
      },
      outage_logged: {
        kind: 'end',
        outcome: { key: 'outage_reported', label: 'Outage reported' },
        text: 'We have logged the outage and our engineers are on it. Goodbye.',
      },
      agent: { kind: 'handover', text: 'Connecting you to an agent.', onFailure: 'agent_busy' },
      agent_busy: {
        kind: 'end',
        outcome: { key: 'callback_requested', label: 'Callback requested' },
        text: 'All our agents are busy. We will call you back shortly.',
      },
    },
  },
};

export const exampleFlows: readonly ExampleFlow[] = [appointmentConfirmation, leadQualification, supportLineIvr];
