import type { Mail } from './mailer.ts';

export interface InvitationMailInput {
  to: string;
  inviteeName: string;
  inviterName: string;
  organisationName: string;
  role: string;
  acceptUrl: string;
  expiresAt: Date;
}

export function invitationMail(input: InvitationMailInput): Mail {
  const text = [
    `Hello ${input.inviteeName},`,
    '',
    `${input.inviterName} invited you to join ${input.organisationName} on Parley as ${input.role}.`,
    `Accept the invitation here: ${input.acceptUrl}`,
    '',
    `The link works until ${input.expiresAt.toUTCString()}.`,
  ].join('\n');
  return { to: input.to, subject: `Join ${input.organisationName} on Parley`, text };
}
