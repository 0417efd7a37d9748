/**
 * ffmpeg/ffprobe read a bare argument as a URL when it looks like one (`concat:`, `http:`) and
 * as an option when it starts with `-`. The `file:` prefix makes a local path only a path.
 */
export function asFileUrl(localPath: string): string {
  return `file:${localPath}`;
}
