/**
 * A call's control subject (`v1.call.<id>.control`): the control plane's commands to a running call — end it, say
 * a line, add context, transfer it. The session listens while it runs and stops when it closes; a message that is
 * not a command is logged and dropped.
 */
import type { Bus, Subscription } from '../bus/index.ts';
import { callCodecs, subjects } from '../protocol/index.ts';

/** What the commands act on (CallSession). */
export interface ControlledCall {
  end(reason: string): unknown;
  say(text: string): Promise<void>;
  inject(text: string): void;
  transfer(to: string): Promise<boolean>;
}

export function listenForControl(
  bus: Bus,
  callId: string,
  call: ControlledCall,
  log: (event: string, detail?: object, level?: 'info' | 'warn' | 'error') => void,
): Subscription {
  const control = bus.subscribe(subjects.callControl(callId));
  void (async () => {
    for await (const message of control) {
      try {
        const command = callCodecs.control.decode(message.data);
        if (command.type === 'end') void call.end(command.reason);
        else if (command.type === 'say') void call.say(command.text);
        else if (command.type === 'inject') call.inject(command.text);
        else void call.transfer(command.to);
      } catch (error) {
        log('bad control message', { callId, error: String(error) }, 'warn');
      }
    }
  })();
  return control;
}
