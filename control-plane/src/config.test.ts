import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_ROLES, ConfigError, loadConfig, readRoles } from './config.ts';
import { RATE_LIMIT_DEFAULTS } from './rate-limits.ts';

describe('configuration', () => {
  it('defaults to embedded mode on port 3000 with every role', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      enginePort: 3100,
      sipPort: 5060,
      sipHealthPort: 5070,
      rtpPortMin: 40000,
      rtpPortMax: 40999,
      databaseUrl: undefined,
      natsUrl: undefined,
      databaseSchema: 'public',
      publicUrl: 'http://127.0.0.1:3000',
      mediaUrl: 'ws://127.0.0.1:3100',
      requireAll: false,
      bootstrapCreditMinor: 1000,
    });
    expect(config.dataDir).toBe(path.resolve('.parley'));
    expect(config.roles).toEqual([...ALL_ROLES]);
    expect(config.rateLimits).toEqual(RATE_LIMIT_DEFAULTS);
  });

  it('reads the bootstrap credit in dollars and refuses amounts it would have to round', () => {
    expect(loadConfig({ PARLEY_BOOTSTRAP_CREDIT_USD: '2.5' }).bootstrapCreditMinor).toBe(250);
    expect(loadConfig({ PARLEY_BOOTSTRAP_CREDIT_USD: '0' }).bootstrapCreditMinor).toBe(0);
    for (const bad of ['-1', '1.001', 'ten', '1e3']) {
      expect(() => loadConfig({ PARLEY_BOOTSTRAP_CREDIT_USD: bad })).toThrow(/PARLEY_BOOTSTRAP_CREDIT_USD/);
    }
  });

  it('reads the product variables', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'postgres://db/x',
      NATS_URL: 'nats://n:4222',
      PARLEY_ROLES: 'control-plane, engine',
      PARLEY_PUBLIC_URL: 'https://voice.example.com/',
      PARLEY_RATE_LIMITS: 'widget=60,telephony=5',
      PARLEY_REQUIRE_ALL: '1',
    });
    expect(config.port).toBe(8080);
    expect(config.databaseUrl).toBe('postgres://db/x');
    expect(config.natsUrl).toBe('nats://n:4222');
    expect(config.roles).toEqual(['control-plane', 'engine']);
    expect(config.publicUrl).toBe('https://voice.example.com');
    expect(config.rateLimits.widget).toBe(60);
    expect(config.rateLimits.telephony).toBe(5);
    expect(config.requireAll).toBe(true);
  });

  it('reads the payment processor and the exchange rate, set together or not at all', () => {
    const none = loadConfig({}).payments;
    expect(none).toEqual({ apiUrl: 'https://api.razorpay.com', credentials: undefined, usdInrRateE4: undefined });
    const set = loadConfig({
      PARLEY_PAYMENTS_API_URL: 'http://127.0.0.1:9999/',
      PARLEY_PAYMENTS_KEY_ID: 'rzp_test_1',
      PARLEY_PAYMENTS_KEY_SECRET: 'secret',
      PARLEY_PAYMENTS_WEBHOOK_SECRET: 'whsec',
      PARLEY_FX_USD_INR: '83.25',
    }).payments;
    expect(set).toEqual({
      apiUrl: 'http://127.0.0.1:9999',
      credentials: { keyId: 'rzp_test_1', keySecret: 'secret', webhookSecret: 'whsec' },
      usdInrRateE4: 832_500,
    });
    expect(() => loadConfig({ PARLEY_PAYMENTS_KEY_ID: 'rzp_test_1' })).toThrow(/set together/);
    expect(() => loadConfig({ PARLEY_PAYMENTS_API_URL: 'ftp://x' })).toThrow(/PARLEY_PAYMENTS_API_URL/);
    for (const rate of ['0', '83.12345', 'abc', '-1'])
      expect(() => loadConfig({ PARLEY_FX_USD_INR: rate })).toThrow(/PARLEY_FX_USD_INR/);
  });

  it('reads the extra WebRTC host addresses', () => {
    expect(loadConfig({}).engine.media?.webrtcHosts).toBeUndefined();
    expect(loadConfig({ PARLEY_WEBRTC_HOSTS: '203.0.113.7, 127.0.0.1' }).engine.media?.webrtcHosts).toEqual([
      '203.0.113.7',
      '127.0.0.1',
    ]);
    expect(() => loadConfig({ PARLEY_WEBRTC_HOSTS: 'media.example.com' })).toThrow(/PARLEY_WEBRTC_HOSTS/);
    expect(() => loadConfig({ PARLEY_WEBRTC_HOSTS: '300.1.1.1' })).toThrow(/PARLEY_WEBRTC_HOSTS/);
  });

  it('reads LiveKit mode, set together or not at all', () => {
    expect(loadConfig({}).livekit).toBeUndefined();
    expect(
      loadConfig({ LIVEKIT_URL: 'wss://lk.example.com/', LIVEKIT_API_KEY: 'API1', LIVEKIT_API_SECRET: 's3cret' })
        .livekit,
    ).toEqual({ url: 'wss://lk.example.com', apiKey: 'API1', apiSecret: 's3cret' });
    expect(() => loadConfig({ LIVEKIT_URL: 'wss://lk.example.com' })).toThrow(/set together/);
    expect(() => loadConfig({ LIVEKIT_URL: 'lk', LIVEKIT_API_KEY: 'k', LIVEKIT_API_SECRET: 's' })).toThrow(
      /LIVEKIT_URL/,
    );
  });

  it('reads how long an engine drains on SIGTERM, 25 s by default', () => {
    expect(loadConfig({}).drainTimeoutMs).toBe(25_000);
    expect(loadConfig({ PARLEY_DRAIN_SECONDS: '0' }).drainTimeoutMs).toBe(0);
    expect(loadConfig({ PARLEY_DRAIN_SECONDS: '2.5' }).drainTimeoutMs).toBe(2_500);
    for (const bad of ['-1', 'soon', '3601']) {
      expect(() => loadConfig({ PARLEY_DRAIN_SECONDS: bad })).toThrow(/PARLEY_DRAIN_SECONDS/);
    }
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_VAD: 'webrtc' })).toThrow(
      /PARLEY_VAD: "webrtc" is not one of auto, silero, energy/,
    );
    expect(() => loadConfig({ RTP_PORT_MIN: '5000', RTP_PORT_MAX: '4000' })).toThrow(/RTP_PORT_MIN/);
    expect(() => loadConfig({ PARLEY_RATE_LIMITS: 'nope=3' })).toThrow(/unknown limit "nope"/);
    expect(() => loadConfig({ PARLEY_RATE_LIMITS: 'widget=0' })).toThrow(/widget/);
    expect(() => loadConfig({ PARLEY_DB_SCHEMA: 'Robert"); drop' })).toThrow(/PARLEY_DB_SCHEMA/);
    expect(() => readRoles('control-plane,dialer')).toThrow(/unknown role "dialer"/);
  });

  it('keeps recordings in the data folder unless a bucket is configured, and then reads it for the engine and the control plane', () => {
    expect(loadConfig({ PARLEY_DATA_DIR: '/srv/parley' }).engine).toMatchObject({
      recordingsDir: '/srv/parley/recordings',
      recordingsBucket: undefined,
    });
    const config = loadConfig({
      PARLEY_RECORDINGS_BUCKET: 's3://call-audio/parley',
      PARLEY_S3_ENDPOINT: 'http://127.0.0.1:9000',
      PARLEY_S3_ACCESS_KEY_ID: 'minio',
      PARLEY_S3_SECRET_ACCESS_KEY: 'minio-secret',
    });
    expect(config.engine.recordingsBucket).toEqual({
      bucket: 'call-audio',
      prefix: 'parley',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: 'minio',
      secretAccessKey: 'minio-secret',
      forcePathStyle: true,
    });
  });

  it('refuses a half-configured recordings bucket, naming the variable', () => {
    expect(() => loadConfig({ PARLEY_RECORDINGS_BUCKET: 's3://call-audio' })).toThrow(ConfigError);
    expect(() => loadConfig({ PARLEY_RECORDINGS_BUCKET: 's3://call-audio' })).toThrow(
      /^PARLEY_S3_ACCESS_KEY_ID is required with PARLEY_RECORDINGS_BUCKET/,
    );
    expect(() => loadConfig({ PARLEY_RECORDINGS_BUCKET: 's3://call-audio', PARLEY_S3_ACCESS_KEY_ID: 'minio' })).toThrow(
      /^PARLEY_S3_SECRET_ACCESS_KEY/,
    );
    expect(() => loadConfig({ PARLEY_S3_ACCESS_KEY_ID: 'minio', PARLEY_S3_SECRET_ACCESS_KEY: 'x' })).toThrow(
      /^PARLEY_RECORDINGS_BUCKET is required/,
    );
    expect(() => loadConfig({ PARLEY_RECORDINGS_BUCKET: 'call-audio' })).toThrow(/^PARLEY_RECORDINGS_BUCKET/);
  });
});
