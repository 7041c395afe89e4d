/**
 * What the gateway's tests share with the bench (sip-gateway/package.json `exports` "./testing"; never from `src/`):
 * the pcap writer for SIPp's caller audio and the SIPp runner with this folder's scenarios.
 */
export { fliteSpeech8k, rtpPackets, writePcap, TELEPHONE_EVENT_PT } from './pcap.ts';
export { freeMediaPort, freePort, runSipp, type SippResult, type SippRun } from './sipp.ts';
