import { Type } from '@sinclair/typebox';
import { Envelope, Id, authErrors, errors } from '../../../http/schemas.ts';
import { UpdateOrganisationBody } from '../../../accounts/types.ts';
export { UpdateOrganisationBody } from '../../../accounts/types.ts';

const OrganisationList = Envelope(Type.Array(Type.Ref('Organisation')));
const OneOrganisation = Envelope(Type.Ref('Organisation'));

export const listOrganisations = {
  tags: ['organisations'],
  summary: "The key's organisation, with owner and members, as a one-element array",
  response: { 200: OrganisationList, ...authErrors },
};

export const getOrganisation = {
  tags: ['organisations'],
  summary: 'One organisation with owner and members; the id must be the key’s own',
  params: Type.Object({ id: Id('Organisation id') }),
  response: { 200: OneOrganisation, ...authErrors, ...errors(404) },
};

export const updateOrganisation = {
  tags: ['organisations'],
  summary: 'Update name, description, type or visibility',
  params: Type.Object({ id: Id('Organisation id') }),
  body: UpdateOrganisationBody,
  response: { 200: OneOrganisation, ...authErrors, ...errors(404) },
};

export const organisationsOfUser = {
  tags: ['organisations'],
  summary: "Organisations of the key owner, filtered to the key's organisation",
  params: Type.Object({ userId: Id('Must be the key owner’s user id') }),
  response: { 200: OrganisationList, ...authErrors },
};
