/**
 * Answering machines announce themselves. When the carrier's detection is not available, the first words heard
 * on an outbound call tell: greetings that ask for a message, mention a tone, or say nobody can answer.
 */
const VOICEMAIL_PHRASES = [
  /leave (me |us )?(a |your )?(brief |short )?message/,
  /after the (tone|beep)/,
  /(is|are) not available/,
  /(can't|cannot|can not) (take|come to|answer)/,
  /(reached|you have reached) the voice ?mail/,
  /voice ?mail/,
  /mailbox/,
  /record your message/,
];

/** Only the start of a call is listened to: later, a caller saying "voicemail" is just talking about one. */
export const VOICEMAIL_LISTEN_MS = 15_000;

export function soundsLikeVoicemail(text: string): boolean {
  const normalised = text.toLowerCase().replace(/[’]/g, "'");
  return VOICEMAIL_PHRASES.some((phrase) => phrase.test(normalised));
}
