import { describe, expect, it } from 'vitest';
import { SessionChildren } from './session-children.ts';

describe('a session’s children', () => {
  it('close once, in adoption order, each told why, even when one throws', () => {
    const logged: object[] = [];
    const children = new SessionChildren((_event, detail) => logged.push(detail ?? {}));
    const closed: string[] = [];
    children.adopt('first', (reason) => closed.push(`first:${reason}`));
    children.adopt('broken', () => {
      throw new Error('stuck');
    });
    children.adopt('last', (reason) => closed.push(`last:${reason}`));
    children.closeAll('caller_hangup');
    children.closeAll('engine_shutdown');
    expect(closed).toEqual(['first:caller_hangup', 'last:caller_hangup']);
    expect(logged).toEqual([{ child: 'broken', error: 'Error: stuck' }]);
    expect(children.closed).toBe(true);
  });

  it('close a child adopted after the parent closed at once', () => {
    const children = new SessionChildren(() => {});
    children.closeAll('error');
    const closed: string[] = [];
    children.adopt('late timer', (reason) => closed.push(reason));
    expect(closed).toEqual(['error']);
  });
});
