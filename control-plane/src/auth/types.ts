import { Type, type Static } from '@sinclair/typebox';
import { Id } from '../http/schemas.ts';

/** Spec document 3: a widget token's name is 3 to 255 characters. */
export const WIDGET_NAME_MIN = 3;

export const WIDGET_NAME_MAX = 255;

export const CreateWidgetBody = Type.Object(
  {
    organisation_id: Id('Own organisation'),
    agent_id: Id('A CHAT agent of the organisation'),
    name: Type.Optional(Type.String({ minLength: WIDGET_NAME_MIN, maxLength: WIDGET_NAME_MAX })),
  },
  {
    additionalProperties: false,
    description: 'Widget tokens always carry only widget:bootstrap; sending `scopes` is refused.',
  },
);

export type CreateWidgetBody = Static<typeof CreateWidgetBody>;

export const RevokeWidgetBody = Type.Object(
  { organisation_id: Id('Own organisation'), agent_id: Id('The chat agent'), key_id: Id('The widget token') },
  { additionalProperties: false },
);

export type RevokeWidgetBody = Static<typeof RevokeWidgetBody>;
