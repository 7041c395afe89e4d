/**
 * The low-pass filter a rational resampler needs, designed once per pair of rates and shared by every resampler of
 * that pair in the process: a windowed sinc (Kaiser window), cut into L polyphase branches so that each output
 * sample costs one short dot product and no zero-stuffed samples are ever computed.
 *
 * The band edges are relative to the lower of the two Nyquist frequencies: flat up to 85 % of it (3.4 kHz at 8 kHz,
 * the telephone band; 6.8 kHz at 16 kHz), fully attenuated from 100 % of it. Nothing above the target's Nyquist
 * folds back (no aliasing anywhere) and nothing of the images of upsampling survives above the source's.
 *
 * One exception, asked for explicitly: upsampling a source known to carry nothing above `sourceBandHz` (PSTN audio
 * is band-limited to 3.4 kHz by ITU-T G.712) only has to reject the images of that band, which land at or above
 * inRate − sourceBandHz. That transition band is twice as wide, so the filter is half as long, and for 8 → 16 kHz
 * it is a half-band filter: every other output is an input sample as it is, which the trimmed branches skip.
 */

/** Passband edge as a share of the lower Nyquist frequency: keeps the whole 300–3400 Hz telephone band flat. */
export const PASSBAND_EDGE = 0.85;
/** Stopband edge as a share of the lower Nyquist frequency: at the Nyquist itself, so no tone above it can alias. */
export const STOPBAND_EDGE = 1.0;
/**
 * Stopband attenuation, in dB. 70 dB puts aliases below μ-law's own noise (~38 dB SNR) and below what any STT
 * engine hears, with a wide margin over the 40 dB our tests demand, for ~20 % fewer taps than 80 dB would cost.
 */
export const STOPBAND_ATTENUATION_DB = 70;
/**
 * Most polyphase branches (L, the reduced upsampling factor) a filter may have. 1024 covers every pair of the usual
 * rates (8–48 kHz and the 11.025 kHz family: 22050→16000 needs 320, 16000→22050 needs 441) while keeping one
 * table to a few MB at worst (200 kB for 22050→16000); an exotic pair above it is refused rather than silently given
 * a huge table.
 */
export const MAX_PHASES = 1024;
/** The band PSTN audio carries at most (ITU-T G.712's channel filter), in Hz: G.711 and L16 carrier audio at 8 kHz. */
export const TELEPHONE_BAND_HZ = 3400;
/** Coefficients smaller than this share of the largest are zeros of the sinc blurred by rounding: they are trimmed. */
const NEGLIGIBLE_COEFFICIENT = 1e-9;

/** A polyphase low-pass filter for resampling `inRate` to `outRate` (L = up, M = down, L/M = outRate/inRate). */
export interface PolyphaseFilter {
  readonly inRate: number;
  readonly outRate: number;
  /** L: output samples per `down` input samples. */
  readonly up: number;
  /** M: input samples per `up` output samples. */
  readonly down: number;
  /**
   * Half the filter's span, in input samples: output n at input time t reads inputs floor(t) - half + 1 …
   * floor(t) + half. It is also the resampler's lookahead: the last `half` inputs wait for more input or a flush.
   */
  readonly half: number;
  /** Taps per branch (2 × half), a multiple of 4. */
  readonly taps: number;
  /**
   * Per branch, the first tap and the count (a multiple of 4) worth computing: the rest are zeros. Equal to 0 and
   * `taps` except where the sinc's zeros fall on the taps (half-band filters).
   */
  readonly branchStart: Uint16Array;
  readonly branchTaps: Uint16Array;
  /**
   * `up` branches of `taps` coefficients each; branch p serves outputs that fall p/up of the way between inputs.
   * Doubles, not floats: V8 reads them without a conversion, which measured ~5 % faster in the resampler's loop.
   */
  readonly coefficients: Float64Array;
}

const designs = new Map<string, PolyphaseFilter>();

/**
 * The filter for `inRate` → `outRate`, designed on first request and cached for the life of the process.
 * @param sourceBandHz when upsampling, the highest frequency the source carries (see the module comment); ignored
 *   when it is not below the source's Nyquist, and when downsampling, where aliasing must be stopped whatever the
 *   source claims
 */
export function polyphaseFilter(inRate: number, outRate: number, sourceBandHz?: number): PolyphaseFilter {
  checkRate(inRate, 'input');
  checkRate(outRate, 'output');
  const band =
    sourceBandHz !== undefined && outRate > inRate && sourceBandHz > 0 && sourceBandHz < inRate / 2
      ? sourceBandHz
      : undefined;
  const key = `${inRate}:${outRate}:${band ?? 'full'}`;
  let filter = designs.get(key);
  if (!filter) {
    filter = design(inRate, outRate, band);
    designs.set(key, filter);
  }
  return filter;
}

function design(inRate: number, outRate: number, sourceBandHz: number | undefined): PolyphaseFilter {
  const divisor = gcd(inRate, outRate);
  const up = outRate / divisor;
  const down = inRate / divisor;
  if (up > MAX_PHASES) {
    throw new RangeError(
      `resampling ${inRate} Hz to ${outRate} Hz needs ${up} filter phases; at most ${MAX_PHASES} are supported`,
    );
  }
  const nyquist = Math.min(inRate, outRate) / 2;
  const passband = sourceBandHz ?? PASSBAND_EDGE * nyquist;
  const stopband = sourceBandHz !== undefined ? inRate - sourceBandHz : STOPBAND_EDGE * nyquist;
  const cutoff = (passband + stopband) / 2;
  const transition = stopband - passband;
  // Kaiser's estimates (Oppenheim & Schafer §7.5.3): the window's β for the attenuation, and the length, here in
  // input samples, for a transition band of `transition` Hz at the input rate.
  const beta = kaiserBeta(STOPBAND_ATTENUATION_DB);
  const span = (STOPBAND_ATTENUATION_DB - 7.95) / (14.36 * (transition / inRate));
  // Even, so that the taps (2 × half) come in fours for the resampler's unrolled loop.
  const half = 2 * Math.max(1, Math.ceil(span / 4));
  const taps = 2 * half;
  // The sinc's argument in input samples: cutoff relative to the input rate, doubled because sinc(x) has its
  // first zero at x = 1, i.e. it is band-limited to half a cycle per unit.
  const scale = (2 * cutoff) / inRate;
  const windowNorm = besselI0(beta);
  const coefficients = new Float64Array(up * taps);
  const branch = new Float64Array(taps);
  for (let phase = 0; phase < up; phase++) {
    const fraction = phase / up;
    let sum = 0;
    for (let j = 0; j < taps; j++) {
      // Tap j multiplies input floor(t) - half + 1 + j; its distance from the output instant t, in input samples.
      const distance = j - half + 1 - fraction;
      const ratio = distance / half;
      const window = ratio * ratio >= 1 ? 0 : besselI0(beta * Math.sqrt(1 - ratio * ratio)) / windowNorm;
      const value = scale * sinc(scale * distance) * window;
      branch[j] = value;
      sum += value;
    }
    // Each branch sums to exactly 1, so DC and low tones come through at unit gain whatever the output's phase.
    for (let j = 0; j < taps; j++) coefficients[phase * taps + j] = branch[j]! / sum;
  }
  const { branchStart, branchTaps } = trim(coefficients, up, taps);
  return { inRate, outRate, up, down, half, taps, coefficients, branchStart, branchTaps };
}

/** Zeroes the negligible coefficients and finds, per branch, the run of taps (a multiple of 4) that matters. */
function trim(
  coefficients: Float64Array,
  up: number,
  taps: number,
): { branchStart: Uint16Array; branchTaps: Uint16Array } {
  let largest = 0;
  for (const c of coefficients) largest = Math.max(largest, Math.abs(c));
  const branchStart = new Uint16Array(up);
  const branchTaps = new Uint16Array(up);
  for (let phase = 0; phase < up; phase++) {
    const offset = phase * taps;
    let first = taps;
    let last = -1;
    for (let j = 0; j < taps; j++) {
      if (Math.abs(coefficients[offset + j]!) < largest * NEGLIGIBLE_COEFFICIENT) {
        coefficients[offset + j] = 0;
      } else {
        first = Math.min(first, j);
        last = j;
      }
    }
    const count = Math.min(taps, Math.ceil((last - first + 1) / 4) * 4);
    branchStart[phase] = Math.min(first, taps - count);
    branchTaps[phase] = count;
  }
  return { branchStart, branchTaps };
}

function kaiserBeta(attenuationDb: number): number {
  if (attenuationDb > 50) return 0.1102 * (attenuationDb - 8.7);
  if (attenuationDb >= 21) return 0.5842 * (attenuationDb - 21) ** 0.4 + 0.07886 * (attenuationDb - 21);
  return 0;
}

/** The zeroth-order modified Bessel function of the first kind, by its power series (converges fast for x < 50). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const quarterSquare = (x * x) / 4;
  for (let k = 1; k < 200; k++) {
    term *= quarterSquare / (k * k);
    sum += term;
    if (term < sum * 1e-16) break;
  }
  return sum;
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function checkRate(rate: number, which: string): void {
  if (!Number.isSafeInteger(rate) || rate <= 0)
    throw new RangeError(`${which} sample rate must be a positive integer in Hz, got ${rate}`);
}
