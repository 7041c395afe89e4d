import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INTEGER_BOUND, DEFAULT_NUMBER_BOUND, withDefaultBounds } from './bounded-schema.ts';

describe('withDefaultBounds', () => {
  const schema = Type.Object({
    page: Type.Optional(Type.Integer({ minimum: 1 })),
    limit: Type.Integer({ minimum: 1, maximum: 100 }),
    speed: Type.Number({ exclusiveMinimum: 0 }),
    offsets: Type.Array(Type.Union([Type.Integer(), Type.Null()])),
    name: Type.String(),
  });
  const bounded = withDefaultBounds(schema) as unknown as {
    properties: Record<string, Record<string, unknown> & { items?: { anyOf: Record<string, unknown>[] } }>;
  };

  it('bounds every integer and number left open, wherever it sits, and keeps the bounds a field chose', () => {
    expect(bounded.properties.page).toMatchObject({ minimum: 1, maximum: DEFAULT_INTEGER_BOUND });
    expect(bounded.properties.limit).toMatchObject({ minimum: 1, maximum: 100 });
    expect(bounded.properties.speed).toMatchObject({ exclusiveMinimum: 0, maximum: DEFAULT_NUMBER_BOUND });
    expect(bounded.properties.speed!.minimum).toBeUndefined();
    expect(bounded.properties.offsets!.items!.anyOf[0]).toMatchObject({
      minimum: -DEFAULT_INTEGER_BOUND,
      maximum: DEFAULT_INTEGER_BOUND,
    });
    expect(bounded.properties.name!.maximum).toBeUndefined();
  });

  it("leaves the route's own schema as written (the OpenAPI document shows it), and gives one copy per schema", () => {
    expect((schema.properties.page as { maximum?: number }).maximum).toBeUndefined();
    expect(withDefaultBounds(schema)).toBe(bounded);
  });
});
