/**
 * What a call does when its recogniser is lost for good — the STT worker died and no other took the stream back
 * within the failover budget, or the worker reported the stream failed (docs/architecture.md §18): the agent can no
 * longer hear the caller, so it says so and ends the call, rather than going silent or hanging up without a word.
 */
import type { AgentSnapshot } from '../protocol/index.ts';
import { fillTemplate, type Variables } from '../protocol/template.ts';

/** The call's ended reason, stored as the record's metaData.endReason: the recogniser was lost. */
export const STT_UNAVAILABLE = 'stt_unavailable';

/**
 * The apology, by the primary subtag of the agent's BCP-47 language. Short: the caller cannot answer it, and a
 * longer line only keeps them on a call that cannot go on.
 */
export const RECOGNISER_LOST_LINES: Readonly<Record<string, string>> = {
  en: 'I am sorry, I am having trouble hearing you right now, so I have to end our call. Please call back later.',
  es: 'Lo siento, ahora mismo tengo problemas para oírle, así que tengo que terminar la llamada. Por favor, vuelva a llamar más tarde.',
  fr: "Je suis désolé, j'ai du mal à vous entendre en ce moment, je dois donc mettre fin à l'appel. Merci de rappeler plus tard.",
  de: 'Es tut mir leid, ich kann Sie gerade nicht hören und muss das Gespräch deshalb beenden. Bitte rufen Sie später noch einmal an.',
  pt: 'Desculpe, estou com dificuldade para ouvir você agora, por isso preciso encerrar a chamada. Por favor, ligue novamente mais tarde.',
  it: 'Mi dispiace, in questo momento ho difficoltà a sentirla, quindi devo chiudere la chiamata. La prego di richiamare più tardi.',
  hi: 'माफ़ कीजिए, मुझे अभी आपकी आवाज़ सुनने में दिक्कत हो रही है, इसलिए मुझे यह कॉल समाप्त करनी होगी। कृपया बाद में फिर से कॉल करें।',
};

/**
 * The agent's last line when its recogniser is lost: the apology in the agent's language, then the agent's own
 * closing message when it has one. For a language without an apology here the closing message alone (written in the
 * agent's language); with neither, the English apology — a caller hears why the call ends rather than silence.
 */
export function recogniserLostLine(
  agent: Pick<AgentSnapshot, 'language' | 'closingMessage'>,
  variables: Variables,
): string {
  const primary = agent.language.split('-')[0]!.toLowerCase();
  const apology = Object.hasOwn(RECOGNISER_LOST_LINES, primary) ? RECOGNISER_LOST_LINES[primary] : undefined;
  const closing = agent.closingMessage ? fillTemplate(agent.closingMessage, variables) : '';
  if (apology) return closing ? `${apology} ${closing}` : apology;
  return closing || RECOGNISER_LOST_LINES.en!;
}
