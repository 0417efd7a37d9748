/**
 * The smallest uploads complete-upload takes as media (shared/src/media-sniff.ts reads their
 * signatures): a WAV header with a little silence, and an MP4 that is only its `ftyp` box. Engine
 * tests run no agent, so nothing ever decodes them.
 */
export function wavBytes(samples = 8): Buffer {
  const data = Buffer.alloc(samples * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // PCM format chunk
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

export function mp4Bytes(): Buffer {
  const box = Buffer.alloc(24);
  box.writeUInt32BE(24, 0);
  box.write('ftypmp42', 4, 'ascii');
  box.writeUInt32BE(0, 12);
  box.write('mp42isom', 16, 'ascii');
  return box;
}
