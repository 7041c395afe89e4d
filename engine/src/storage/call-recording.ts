/**
 * A call's recording as the engine role asks storage for it (docs/architecture.md §3): the file is opened under the
 * recordings folder as `<organisationId>/<callId>.ogg` with the recorder that writes it, and once the call is over
 * the session — the recording's only owner — finishes it: the recorder is closed and the file stored (uploaded when
 * a bucket is configured). The storage tracks each finishing so a closing role waits for it.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { FileSink } from '../audio/byte-sink.ts';
import { CallRecorder, RECORDING_FORMAT } from './call-recorder.ts';
import type { RecordingStorage } from './recording-storage.ts';

/** Who the recording is of: it names the file and is written into its tags. */
export interface RecordedCall {
  organisationId: string;
  callId: string;
  agentName: string;
}

/** A finished recording: where it is (recording-location.ts) and how long it lasts. */
export interface StoredRecording {
  path: string;
  format: typeof RECORDING_FORMAT;
  durationMs: number;
}

export class CallRecording {
  /** What the session feeds the caller's and the agent's audio to, on the pacing clock. */
  readonly recorder: CallRecorder;
  readonly #storage: RecordingStorage;
  readonly #key: string;
  #finished: Promise<StoredRecording> | undefined;

  constructor(storage: RecordingStorage, key: string, recorder: CallRecorder) {
    this.#storage = storage;
    this.#key = key;
    this.recorder = recorder;
  }

  /**
   * Closes the recorder and stores the file; resolves with where it is. Idempotent. Rejects only when the file could
   * not be finished (storing never fails: a failed upload leaves the file on the local disk, and says so).
   */
  finish(): Promise<StoredRecording> {
    this.#finished ??= (async () => {
      const durationMs = await this.recorder.close();
      const stored = await this.#storage.finish(this.#key, RECORDING_FORMAT);
      return { path: stored, format: RECORDING_FORMAT, durationMs };
    })();
    this.#storage.track(this.#finished);
    return this.#finished;
  }
}

/**
 * Opens the recording of `call` in `storage`; rejects when its file cannot be opened (the call then goes on
 * unrecorded) or when an id cannot name a file.
 */
export async function openCallRecording(storage: RecordingStorage, call: RecordedCall): Promise<CallRecording> {
  const key = `${pathSegment('organisationId', call.organisationId)}/${pathSegment('callId', call.callId)}.ogg`;
  const file = storage.localFile(key);
  await mkdir(path.dirname(file), { recursive: true });
  const sink = await FileSink.open(file);
  return new CallRecording(storage, key, new CallRecorder(sink, { CALL_ID: call.callId, AGENT: call.agentName }));
}

/** An id as one file-name segment: letters, digits, `-` and `_` only, so a recording's path stays where it belongs. */
function pathSegment(field: string, id: string): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) throw new Error(`${field} "${id.slice(0, 40)}" cannot name a recording file`);
  return id;
}
