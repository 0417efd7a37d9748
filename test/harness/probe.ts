import { execa } from 'execa';

export interface ProbedStream {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  sample_aspect_ratio?: string;
  avg_frame_rate?: string;
  nb_frames?: string;
  duration?: string;
  sample_rate?: string;
}

/** ffprobe of a local file or a URL (presigned download links are plain HTTP GETs). */
export async function probeStreams(input: string): Promise<{ streams: ProbedStream[]; duration: number; formatName: string }> {
  const r = await execa('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', input]);
  const json = JSON.parse(r.stdout) as { streams: ProbedStream[]; format: { duration: string; format_name: string } };
  return { streams: json.streams, duration: Number(json.format.duration), formatName: json.format.format_name };
}

/** The streams of one kind (the first one). */
export const streamOf = (p: { streams: ProbedStream[] }, kind: 'video' | 'audio'): ProbedStream | undefined => p.streams.find((s) => s.codec_type === kind);
