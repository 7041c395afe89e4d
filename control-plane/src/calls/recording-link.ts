/**
 * A call's recording as a full URL, for exports read outside the API. Call records keep it as a path relative to the
 * REST root (spec document 3: "a relative path under /api/v1"); either spelling, with or without /api/v1, is read.
 */
const API_ROOT = '/api/v1';

export function recordingLink(publicUrl: string, recordingUrl: string | null): string {
  if (!recordingUrl) return '';
  if (/^https?:\/\//i.test(recordingUrl)) return recordingUrl;
  const base = publicUrl.replace(/\/+$/, '');
  const path = recordingUrl.startsWith('/') ? recordingUrl : `/${recordingUrl}`;
  return path.startsWith(`${API_ROOT}/`) ? `${base}${path}` : `${base}${API_ROOT}${path}`;
}
