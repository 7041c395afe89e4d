/**
 * Outgoing mail through nodemailer: SMTP when SMTP_URL is set (smtp:// or smtps://, credentials in the URL),
 * otherwise a log-only transport that writes each message to the log instead of sending it, so a laptop install
 * works without a mail server and invitation links can still be read.
 */
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string | null;
}

export interface Mailer {
  readonly description: string;
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** Milliseconds to wait for an SMTP server before a send counts as failed and is retried later. */
const SMTP_TIMEOUT_MS = 15_000;

export function createMailer(options: { smtpUrl: string | undefined; from: string; log: Logger }): Mailer {
  if (!options.smtpUrl) {
    const transport = nodemailer.createTransport({ jsonTransport: true });
    return {
      description: 'log-only',
      async send(mail) {
        await transport.sendMail({ from: options.from, ...mail, html: mail.html ?? undefined });
        options.log.info(
          { to: mail.to, subject: mail.subject, text: mail.text },
          'mail (log-only transport, not sent)',
        );
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({
    url: options.smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  const url = new URL(options.smtpUrl);
  return {
    description: `smtp ${url.hostname}:${url.port || 25}`,
    async send(mail) {
      await transport.sendMail({ from: options.from, ...mail, html: mail.html ?? undefined });
    },
    close: () => transport.close(),
  };
}
